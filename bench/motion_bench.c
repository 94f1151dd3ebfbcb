/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-motion-bench — what binarisation by motion costs (issue 29).
 *
 * Frames of tests/common/motion_scene.h (a textured, brightening
 * background, sensor noise, three dark objects moving over it) at each
 * size, after 12 frames of the empty scene (the models' warm-up), labeled
 * per frame in three ways:
 *   threshold   the objects by their level (invert, threshold 30): the
 *               labeling without a model, the baseline;
 *   difference  against the previous frame (threshold 30): what the
 *               objects left and reached, so other blobs;
 *   background  against a running average, selective (rate 0.05,
 *               threshold 30): the objects again;
 * on each backend asked for, and OpenCV's createBackgroundSubtractorMOG2
 * (one thread, no shadows) + connectedComponentsWithStats on the same
 * frames, in the same run. Per mode: the median per-frame time (host wall
 * clock around gpuccl_process; CUDA: also the kernels' device time from
 * CUDA events, gpuccl_cuda_kernel_ms) and the ratio to threshold mode.
 * The frames are in memory from gpuccl_host_alloc (pinned with CUDA), so
 * the CUDA wall time includes one upload a frame. --formats: the same
 * scene as GRAY8, GRAY16 (v << 8, threshold 30 * 256 + 255) or RGBA
 * (r = g = b = v, whose luma is v), so every format finds the same blobs.
 *
 * Usage: gpuccl-motion-bench [--sizes WxH[,WxH...]] [--frames N]
 *                            [--backend cpu|cuda[,...]] [--no-opencv]
 *                            [--formats gray8,gray16,rgba]
 *   defaults: 1920x1080,3840x2160, 100 frames, gray8, cpu (and cuda when
 *   usable), OpenCV when its module loads (built with OpenCV's video
 *   module: bench/meson.build). */
#include "frame_timing.h"
#include "gpuccl.h"
#include "motion_scene.h"
#include "motion_opencv.h"

#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 16   /* frames drawn once, cycled */
#define WARM 12   /* untimed frames first: the model's warm-up and more */


typedef enum { MODE_THRESHOLD, MODE_DIFFERENCE, MODE_BACKGROUND } Mode;
static const char *const mode_names[] = {"threshold", "difference",
                                         "background"};

typedef struct {
  const char *name;
  GpucclPixelFormat format;
  int bpp;
} Format;
static const Format formats[] = {{"gray8", GPUCCL_PIXEL_U8, 1},
                                 {"gray16", GPUCCL_PIXEL_U16, 2},
                                 {"rgba", GPUCCL_PIXEL_PACKED4, 4}};

/* Frame t of the scene at w x h in format f. */
static void draw_frame(uint8_t *out, const Format *f, int w, int h, int t)
{
  if (f->bpp == 1) {
    motion_scene_frame(out, (size_t)w, w, h, t);
    return;
  }
  uint8_t *gray = malloc((size_t)w * h);
  motion_scene_frame(gray, (size_t)w, w, h, t);
  for (size_t i = 0; i < (size_t)w * h; i++) {
    if (f->bpp == 2) {
      const uint16_t v = (uint16_t)(gray[i] << 8);
      memcpy(out + 2 * i, &v, 2);
    } else {
      out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = gray[i];
      out[4 * i + 3] = 255;
    }
  }
  free(gray);
}

typedef struct {
  const uint8_t *empty;
  uint8_t *const *ring;
  int w, h;
  const Format *f;
} SceneFrames;

/* The empty scene for the warm-up, then the ring's frames. */
static GpucclImage scene_frame(int i, const void *user)
{
  const SceneFrames *s = user;
  return (GpucclImage){.data = i < WARM ? s->empty : s->ring[i % RING],
                       .width = s->w, .height = s->h,
                       .stride = (size_t)s->w * s->f->bpp,
                       .format = s->f->format, .offset_r = 0,
                       .offset_g = 1, .offset_b = 2};
}

/* WARM frames of the empty scene (the model's warm-up), then n_frames
 * timed frames of the ring, in one mode on ctx. */
static int run_mode(GpucclContext *ctx, const uint8_t *empty,
                    uint8_t *const *ring, int w, int h, const Format *f,
                    Mode mode, int n_frames, FrameTiming *out)
{
  GpucclError err;
  GpucclParams p;
  gpuccl_params_init(&p);
  p.threshold = f->bpp == 2 ? 30 * 256 + 255 : 30;
  GpucclBackground *bg = NULL;
  if (mode == MODE_THRESHOLD) {
    p.invert = true; /* the dark objects: the same blobs as the motion */
  } else {
    GpucclBackgroundParams bp;
    gpuccl_background_params_init(&bp);
    bp.mode = mode == MODE_DIFFERENCE ? GPUCCL_BACKGROUND_DIFFERENCE
                                      : GPUCCL_BACKGROUND_AVERAGE;
    bp.selective = true;
    bp.warmup_frames = 8;
    bg = gpuccl_background_new(ctx, &bp, &err);
    if (!bg) {
      fprintf(stderr, "background: %s\n", err.message);
      return 1;
    }
    p.background = bg;
  }
  const SceneFrames frames = {empty, ring, w, h, f};
  const int status = frame_timing_run(ctx, &p, WARM, n_frames, scene_frame,
                                      &frames, mode_names[mode], out);
  gpuccl_background_free(bg);
  return status;
}

static int bench_backend(GpucclBackend backend, int w, int h,
                         const Format *f, int n_frames)
{
  GpucclError err;
  GpucclContext *ctx = frame_bench_context(backend, w, h);
  if (!ctx)
    return 0;
  const size_t bytes = (size_t)w * h * f->bpp;
  uint8_t *ring[RING],
      *empty = gpuccl_host_alloc(ctx, bytes, GPUCCL_MEMORY_COPY, &err);
  if (!empty) {
    fprintf(stderr, "frames: %s\n", err.message);
    return 1;
  }
  draw_frame(empty, f, w, h, 0);
  for (int k = 0; k < RING; k++) {
    ring[k] = gpuccl_host_alloc(ctx, bytes, GPUCCL_MEMORY_COPY, &err);
    if (!ring[k]) {
      fprintf(stderr, "frames: %s\n", err.message);
      return 1;
    }
    draw_frame(ring[k], f, w, h, 40 + k);
  }
  FrameTiming t[3];
  int status = 0;
  for (int m = 0; m < 3 && !status; m++) {
    status = run_mode(ctx, empty, ring, w, h, f, (Mode)m, n_frames, &t[m]);
    if (status)
      break;
    printf("%dx%d %-6s %-4s %-10s", w, h, f->name,
           gpuccl_backend_name(backend), mode_names[m]);
    frame_timing_print(&t[m], &t[0]);
  }
  for (int k = 0; k < RING; k++)
    gpuccl_host_free(ctx, ring[k]);
  gpuccl_host_free(ctx, empty);
  gpuccl_context_free(ctx);
  return status;
}

/* The OpenCV module (motion_opencv.cpp), loaded when it is there and its
 * libraries load; NULL with the reason printed otherwise. */
typedef struct {
  MotionOpencv *(*create)(void);
  long (*frame)(MotionOpencv *, const uint8_t *, int, int, size_t);
  void (*destroy)(MotionOpencv *);
} OpencvApi;

static bool load_opencv(OpencvApi *api)
{
#ifdef MOTION_OPENCV_MODULE
  void *h = dlopen(MOTION_OPENCV_MODULE, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    *(void **)&api->create = dlsym(h, "motion_opencv_new");
    *(void **)&api->frame = dlsym(h, "motion_opencv_frame");
    *(void **)&api->destroy = dlsym(h, "motion_opencv_free");
    if (api->create && api->frame && api->destroy)
      return true;
  }
  printf("opencv mog2+ccws: not available (%s)\n", dlerror());
#else
  (void)api;
  printf("opencv mog2+ccws: not built (no OpenCV video module)\n");
#endif
  return false;
}

static int bench_opencv(const OpencvApi *api, int w, int h, int n_frames)
{
  MotionOpencv *m = api->create();
  uint8_t *ring = malloc((size_t)w * h * RING);
  uint8_t *empty = malloc((size_t)w * h);
  double *wall = malloc(sizeof(double) * n_frames);
  if (!m || !ring || !empty || !wall)
    return 1;
  motion_scene_frame(empty, (size_t)w, w, h, 0);
  for (int k = 0; k < RING; k++)
    motion_scene_frame(ring + (size_t)k * w * h, (size_t)w, w, h, 40 + k);
  double blobs = 0;
  for (int i = 0; i < WARM + n_frames; i++) {
    const uint8_t *frame =
        i < WARM ? empty : ring + (size_t)(i % RING) * w * h;
    const double t0 = frame_timing_now_ms();
    const long n = api->frame(m, frame, w, h, (size_t)w);
    const double t1 = frame_timing_now_ms();
    if (n < 0)
      return 1;
    if (i >= WARM) {
      wall[i - WARM] = t1 - t0;
      blobs += (double)n;
    }
  }
  printf("%dx%d opencv mog2+ccws %8.3f ms/frame  (1 thread)  %.1f blobs\n",
         w, h, frame_timing_median(wall, n_frames), blobs / n_frames);
  api->destroy(m);
  free(empty);
  free(ring);
  free(wall);
  return 0;
}

/* What each size runs: the formats asked for on each backend, then
 * OpenCV's baseline. */
typedef struct {
  GpucclBackend backends[2];
  int n_backends, n_frames;
  const char *format_list;
  const OpencvApi *opencv; /* NULL: none */
} SizeRun;

static int bench_size(int w, int h, void *user)
{
  const SizeRun *run = user;
  int status = 0;
  for (size_t k = 0; k < sizeof formats / sizeof *formats && !status; k++) {
    if (!strstr(run->format_list, formats[k].name))
      continue;
    for (int b = 0; b < run->n_backends && !status; b++)
      status = bench_backend(run->backends[b], w, h, &formats[k],
                             run->n_frames);
  }
  if (!status && run->opencv)
    status = bench_opencv(run->opencv, w, h, run->n_frames);
  return status;
}

int main(int argc, char **argv)
{
  FrameBenchArgs args = {.sizes = "1920x1080,3840x2160", .n_frames = 100};
  SizeRun run = {.format_list = "gray8"};
  bool opencv = true;
  for (int i = 1; i < argc; i++) {
    if (frame_bench_option(&args, argc, argv, &i))
      continue;
    if (!strcmp(argv[i], "--no-opencv"))
      opencv = false;
    else if (!strcmp(argv[i], "--formats") && i + 1 < argc)
      run.format_list = argv[++i];
    else {
      fprintf(stderr, "usage: %s " FRAME_BENCH_USAGE " [--no-opencv] "
                      "[--formats gray8,gray16,rgba]\n",
              argv[0]);
      return 2;
    }
  }
  run.n_frames = args.n_frames;
  run.n_backends = frame_bench_backends(&args, run.backends);
  OpencvApi opencv_api = {0};
  if (opencv && load_opencv(&opencv_api))
    run.opencv = &opencv_api;
  return frame_bench_each_size(&args, 1, bench_size, &run);
}
