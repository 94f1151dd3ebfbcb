/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-options-bench — what the region, a mask and blob intensities
 * cost beside the default path (issue 27).
 *
 * Frames of tests/common/motion_scene.h (textured background, noise,
 * three dark objects: threshold 30 with invert, the default, labels the
 * objects; --threshold 140 without --invert the texture's bright spots,
 * thousands of blobs) at each size, labeled per frame as:
 *   default    the whole frame, nothing else: the baseline;
 *   region     the central quarter (half the width and height), as the
 *              element's region property passes it: the image pointer
 *              moved to its corner, the frame's stride;
 *   mask       a mask of the frame, zero on its left third and on every
 *              other 64 x 64 block (gpuccl_mask_new once, before timing);
 *   intensity  want_intensity: each blob's sum, min and max;
 *   both       the mask and the intensities;
 * on each backend asked for, in each pixel format asked for: gray8 (the
 * scene) or rgba (r = g = b = the scene's level, alpha 255, labeled by its
 * BT.601 luma, so the same blobs). Per option: the median per-frame time (host
 * wall clock around gpuccl_process; CUDA: also the labeling kernels'
 * device time, gpuccl_cuda_kernel_ms, which leaves out the intensity pass
 * after them) and its ratio to default. The frames are in memory from
 * gpuccl_host_alloc (pinned with CUDA): the CUDA wall time includes one
 * upload a frame.
 *
 * --ring N cycles N frames (1..16): with 16, 1080p RGBA frames (128 MB)
 * come from DRAM, as a pool of frames nobody touched since their last
 * pass; with 1 the one frame stays in the cache, as one upstream has just
 * written. With both formats, each size ends with RGBA's default frame
 * over GRAY8's.
 *
 * Usage: gpuccl-options-bench [--sizes WxH[,WxH...]] [--frames N]
 *                             [--backend cpu|cuda[,...]]
 *                             [--threshold T [--no-invert]]
 *                             [--formats gray8,rgba] [--ring N]
 *   defaults: 1920x1080,3840x2160, 200 frames, cpu (and cuda when
 *   usable), threshold 30 with invert, gray8, ring 16. */
#include "frame_timing.h"
#include "gpuccl.h"
#include "motion_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 16 /* frames drawn once, cycled */
#define WARM 5  /* untimed frames first */

static int threshold = 30;
static bool invert = true;
static int ring_len = RING;

typedef enum { OPT_DEFAULT, OPT_REGION, OPT_MASK, OPT_INTENSITY, OPT_BOTH,
               N_OPTS } Option;
static const char *const option_names[] = {"default", "region", "mask",
                                           "intensity", "both"};


/* The image of frame `data` for an option: the whole frame, or the
 * central quarter; rgba: 4 bytes a pixel, R first. */
static GpucclImage image_of(const uint8_t *data, int w, int h, bool rgba,
                            Option opt)
{
  const int bpp = rgba ? 4 : 1;
  GpucclImage im = {.data = data, .width = w, .height = h,
                    .stride = (size_t)w * bpp,
                    .format = rgba ? GPUCCL_PIXEL_PACKED4 : GPUCCL_PIXEL_U8,
                    .offset_r = 0, .offset_g = 1, .offset_b = 2};
  if (opt == OPT_REGION) {
    im.data = data + ((size_t)(h / 4) * w + w / 4) * bpp;
    im.width = w / 2 > 0 ? w / 2 : 1;
    im.height = h / 2 > 0 ? h / 2 : 1;
  }
  return im;
}

typedef struct {
  uint8_t *const *ring;
  int w, h;
  bool rgba;
  Option opt;
} RingFrames;

static GpucclImage ring_frame(int i, const void *user)
{
  const RingFrames *f = user;
  return image_of(f->ring[i % ring_len], f->w, f->h, f->rgba, f->opt);
}

static int run_option(GpucclContext *ctx, uint8_t *const *ring, int w, int h,
                      bool rgba, const GpucclMask *mask, Option opt,
                      int n_frames, FrameTiming *out)
{
  GpucclParams p;
  gpuccl_params_init(&p);
  p.threshold = threshold;
  p.invert = invert;
  p.mask = opt == OPT_MASK || opt == OPT_BOTH ? mask : NULL;
  p.want_intensity = opt == OPT_INTENSITY || opt == OPT_BOTH;
  const RingFrames frames = {ring, w, h, rgba, opt};
  return frame_timing_run(ctx, &p, WARM, n_frames, ring_frame, &frames,
                          option_names[opt], out);
}

/* Zero on the left third and on every other 64 x 64 block. */
static GpucclMask *make_mask(GpucclContext *ctx, int w, int h)
{
  uint8_t *m = malloc((size_t)w * h);
  if (!m)
    return NULL;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      m[(size_t)y * w + x] = x < w / 3 || ((x / 64 + y / 64) & 1) ? 0 : 255;
  const GpucclImage pic = {.data = m, .width = w, .height = h,
                           .stride = (size_t)w, .format = GPUCCL_PIXEL_U8};
  GpucclError err;
  GpucclMask *mask = gpuccl_mask_new(ctx, &pic, &err);
  if (!mask)
    fprintf(stderr, "mask: %s\n", err.message);
  free(m);
  return mask;
}

/* The scene's frame k, as gray levels or as RGBA pixels of that level. */
static void draw_frame(uint8_t *dst, int w, int h, bool rgba, int k)
{
  if (!rgba) {
    motion_scene_frame(dst, (size_t)w, w, h, k);
    return;
  }
  uint8_t *levels = malloc((size_t)w * h);
  if (!levels)
    abort();
  motion_scene_frame(levels, (size_t)w, w, h, k);
  for (size_t i = 0; i < (size_t)w * h; i++) {
    dst[4 * i] = dst[4 * i + 1] = dst[4 * i + 2] = levels[i];
    dst[4 * i + 3] = 255;
  }
  free(levels);
}

/* The default option's timing in *base (for the format ratio). */
static int bench_backend(GpucclBackend backend, int w, int h, bool rgba,
                         int n_frames, FrameTiming *base)
{
  GpucclError err;
  GpucclContext *ctx = frame_bench_context(backend, w, h);
  if (!ctx)
    return 0;
  uint8_t *ring[RING] = {0};
  int status = 0;
  for (int k = 0; k < RING && !status; k++) {
    ring[k] = gpuccl_host_alloc(ctx, (size_t)w * h * (rgba ? 4 : 1),
                                GPUCCL_MEMORY_COPY, &err);
    if (!ring[k]) {
      fprintf(stderr, "frames: %s\n", err.message);
      status = 1;
    } else {
      draw_frame(ring[k], w, h, rgba, 40 + k);
    }
  }
  GpucclMask *mask = status ? NULL : make_mask(ctx, w, h);
  status = status || !mask;
  FrameTiming t[N_OPTS];
  for (int o = 0; o < N_OPTS && !status; o++) {
    status = run_option(ctx, ring, w, h, rgba, mask, (Option)o, n_frames,
                        &t[o]);
    if (!status) {
      printf("%dx%d %-4s %-5s %-9s", w, h, gpuccl_backend_name(backend),
             rgba ? "rgba" : "gray8", option_names[o]);
      frame_timing_print(&t[o], &t[0]);
    }
  }
  if (!status)
    *base = t[0];
  gpuccl_mask_free(mask);
  for (int k = 0; k < RING; k++)
    gpuccl_host_free(ctx, ring[k]);
  gpuccl_context_free(ctx);
  return status;
}

typedef struct {
  GpucclBackend backends[2];
  int n_backends, n_frames;
  bool gray8, rgba;
} SizeRun;

/* One size on each backend in each format; with both formats, RGBA's
 * default frame over GRAY8's, both measured in this call. */
static int bench_size(int w, int h, void *user)
{
  const SizeRun *run = user;
  int status = 0;
  for (int b = 0; b < run->n_backends && !status; b++) {
    const GpucclBackend backend = run->backends[b];
    FrameTiming base[2];
    if (run->gray8)
      status = bench_backend(backend, w, h, false, run->n_frames, &base[0]);
    if (!status && run->rgba)
      status = bench_backend(backend, w, h, true, run->n_frames, &base[1]);
    if (!status && run->gray8 && run->rgba)
      printf("%dx%d %-4s rgba / gray8 default frame: x%.2f (ring %d)\n", w,
             h, gpuccl_backend_name(backend),
             base[1].wall_ms / base[0].wall_ms, ring_len);
  }
  return status;
}

int main(int argc, char **argv)
{
  FrameBenchArgs args = {.sizes = "1920x1080,3840x2160", .n_frames = 200};
  const char *formats = "gray8";
  for (int i = 1; i < argc; i++) {
    if (frame_bench_option(&args, argc, argv, &i))
      continue;
    if (!strcmp(argv[i], "--threshold") && i + 1 < argc)
      threshold = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-invert"))
      invert = false;
    else if (!strcmp(argv[i], "--formats") && i + 1 < argc)
      formats = argv[++i];
    else if (!strcmp(argv[i], "--ring") && i + 1 < argc &&
             atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= RING)
      ring_len = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: %s " FRAME_BENCH_USAGE " "
                      "[--threshold T [--no-invert]] "
                      "[--formats gray8,rgba] [--ring 1..16]\n",
              argv[0]);
      return 2;
    }
  }
  SizeRun run = {.n_frames = args.n_frames,
                 .gray8 = strstr(formats, "gray8") != NULL,
                 .rgba = strstr(formats, "rgba") != NULL};
  run.n_backends = frame_bench_backends(&args, run.backends);
  return frame_bench_each_size(&args, 2, bench_size, &run);
}
