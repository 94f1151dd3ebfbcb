/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation by motion on CUDA against the CPU backend (itself checked
 * against the scene's truth and NumPy in tests/motion): every frame of
 * tests/common/motion_scene.h through two background models, one per
 * context, must give the same blob table, threshold and label image, in
 * every mode (difference, running average, selective), pixel format
 * (U8, U16, PACKED4 luma and one channel), connectivity, invert and Otsu,
 * with the label image every third frame (the tile kernel's second pass
 * learns then), the mode switched back and forth (`switching`: a byte
 * model and a 16-bit one in turn), at sizes that cut words and tiles (odd
 * widths, padded strides). Threshold 1 makes any difference of one level
 * in the model show. The forest algorithms refuse a model with UNSUPPORTED. Exits 77
 * without a usable GPU.
 *
 * Usage: test-gpu-motion [--quick]   (--quick: fewer frames and sizes,
 * for the sanitizers) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"
#include "motion_scene.h"

static int failures, checks;

/* Frame t of the scene at w x h as `format` (PACKED4: luma and green
 * differ), rows `pad` bytes longer than the pixels. */
static GpucclImage scene(uint8_t *buf, GpucclPixelFormat format, int w, int h,
                         size_t pad, int t)
{
  const size_t bpp = format == GPUCCL_PIXEL_U16       ? 2
                     : format == GPUCCL_PIXEL_PACKED4 ? 4
                                                      : 1;
  const size_t stride = (size_t)w * bpp + pad;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t v = motion_scene_pixel(x, y, t, w, h);
      const uint8_t junk =
          (uint8_t)motion_scene_hash((uint32_t)x, (uint32_t)y, (uint32_t)t + 9);
      uint8_t *p = buf + (size_t)y * stride + (size_t)x * bpp;
      if (format == GPUCCL_PIXEL_U8) {
        p[0] = v;
      } else if (format == GPUCCL_PIXEL_U16) {
        const uint16_t s = (uint16_t)(v << 8 | junk);
        memcpy(p, &s, 2);
      } else {
        p[0] = (uint8_t)(v / 2 + junk / 2), p[1] = v, p[2] = junk, p[3] = 0;
      }
    }
  GpucclImage im = {.data = buf, .width = w, .height = h, .stride = stride,
                    .format = format, .offset_r = 0, .offset_g = 1,
                    .offset_b = 2};
  return im;
}

typedef struct {
  const char *name;
  GpucclBackgroundMode mode;
  bool selective;
  int warmup;
  double rate;
  int switch_every; /* > 0: the mode toggles every so many frames */
} ModelCase;

static void run(GpucclContext *gpu, GpucclContext *cpu, const ModelCase *mc,
                GpucclPixelFormat format, GpucclChannel channel, int w, int h,
                size_t pad, int frames)
{
  static const struct {
    int threshold, connectivity;
    bool invert, otsu;
  } variants[] = {{30, 8, false, false},
                  {1, 4, false, false},
                  {30, 8, true, false},
                  {0, 8, false, true}};
  const int wide = format == GPUCCL_PIXEL_U16 ? 256 : 1;
  uint8_t *buf = malloc(((size_t)w * 4 + pad) * h);
  for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
    GpucclError err;
    GpucclBackgroundParams bp;
    gpuccl_background_params_init(&bp);
    bp.mode = mc->mode;
    bp.selective = mc->selective;
    bp.warmup_frames = (uint32_t)mc->warmup;
    bp.learning_rate = mc->rate;
    GpucclBackground *bg = gpuccl_background_new(gpu, &bp, &err);
    GpucclBackground *bc = gpuccl_background_new(cpu, &bp, &err);
    EXPECT(bg && bc, "models: %s", err.message);
    GpucclParams p;
    gpuccl_params_init(&p);
    p.threshold = variants[v].threshold * wide;
    p.connectivity = variants[v].connectivity;
    p.invert = variants[v].invert;
    if (variants[v].otsu)
      p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
    p.channel = channel;
    GpucclParams pg = p;
    p.background = bc;
    pg.background = bg;
    bool same = true;
    for (int t = 0; t < frames && same; t++) {
      if (mc->switch_every && t && t % mc->switch_every == 0) {
        bp.mode = bp.mode == GPUCCL_BACKGROUND_DIFFERENCE
                      ? GPUCCL_BACKGROUND_AVERAGE
                      : GPUCCL_BACKGROUND_DIFFERENCE;
        EXPECT(gpuccl_background_set_params(bg, &bp, &err) == GPUCCL_OK &&
                   gpuccl_background_set_params(bc, &bp, &err) ==
                       GPUCCL_OK,
               "switch: %s", err.message);
      }
      const GpucclImage im = scene(buf, format, w, h, pad, 8 + t);
      p.want_labels = pg.want_labels = t % 3 == 2;
      char name[160];
      snprintf(name, sizeof name,
               "%s fmt %d ch %d %dx%d+%zu thr %d conn %d inv %d otsu %d "
               "frame %d",
               mc->name, (int)format, (int)channel, w, h, pad, p.threshold,
               p.connectivity, p.invert, variants[v].otsu, t);
      same = gpu_check_same_params(gpu, cpu, &im, &pg, &p, name);
      EXPECT(same, "%s", name);
    }
    EXPECT(gpuccl_background_frames(bg) == gpuccl_background_frames(bc),
           "%s: frames learned", mc->name);
    gpuccl_background_free(bg);
    gpuccl_background_free(bc);
  }
  free(buf);
}

int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  GpucclContext *gpu = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  static const ModelCase cases[] = {
      {"difference", GPUCCL_BACKGROUND_DIFFERENCE, false, 0, 0.05, 0},
      {"average", GPUCCL_BACKGROUND_AVERAGE, false, 5, 0.05, 0},
      {"selective", GPUCCL_BACKGROUND_AVERAGE, true, 5, 0.2, 0},
      {"slow", GPUCCL_BACKGROUND_AVERAGE, false, 2, 0.003, 0},
      /* a byte model (difference of 8-bit samples) and a 16-bit one in
       * turn in the same memory */
      {"switching", GPUCCL_BACKGROUND_DIFFERENCE, false, 2, 0.1, 5},
  };
  static const struct {
    int w, h;
    size_t pad;
  } sizes[] = {{320, 200, 0}, {333, 97, 5}, {1000, 300, 24}, {31, 33, 1}};
  const int frames = quick ? 12 : 60;
  const size_t n_sizes = quick ? 2 : sizeof sizes / sizeof *sizes;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t s = 0; s < n_sizes; s++) {
      run(gpu, cpu, &cases[c], GPUCCL_PIXEL_U8, GPUCCL_CHANNEL_LUMA,
          sizes[s].w, sizes[s].h, sizes[s].pad, frames);
      if (s < 2) {
        run(gpu, cpu, &cases[c], GPUCCL_PIXEL_U16, GPUCCL_CHANNEL_LUMA,
            sizes[s].w, sizes[s].h, sizes[s].pad, frames / 2);
        run(gpu, cpu, &cases[c], GPUCCL_PIXEL_PACKED4, GPUCCL_CHANNEL_LUMA,
            sizes[s].w, sizes[s].h, sizes[s].pad, frames / 2);
        run(gpu, cpu, &cases[c], GPUCCL_PIXEL_PACKED4, GPUCCL_CHANNEL_GREEN,
            sizes[s].w, sizes[s].h, sizes[s].pad, frames / 2);
      }
    }

  /* Algorithms outside the tiled pipeline refuse a model. */
  GpucclError err;
  GpucclBackground *bg = gpuccl_background_new(gpu, NULL, &err);
  static uint8_t img[64 * 64];
  const GpucclImage im = {.data = img, .width = 64, .height = 64,
                          .stride = 64, .format = GPUCCL_PIXEL_U8};
  GpucclParams p;
  gpuccl_params_init(&p);
  p.background = bg;
  GpucclResult r;
  const GpucclAlgorithm refused[] = {GPUCCL_ALGORITHM_OUF,
                                     GPUCCL_ALGORITHM_BUF,
                                     GPUCCL_ALGORITHM_STAVA_BENES};
  for (int i = 0; i < 3; i++) {
    p.algorithm = refused[i];
    EXPECT(gpuccl_process(gpu, &im, &p, &r, &err) ==
                   GPUCCL_ERROR_UNSUPPORTED &&
               strstr(err.message, "tiled HA4"),
           "algorithm %d with a model: %s", (int)refused[i], err.message);
  }
  p.algorithm = GPUCCL_ALGORITHM_HA4;
  EXPECT(gpuccl_process(gpu, &im, &p, &r, &err) == GPUCCL_OK,
         "HA4 after a refusal: %s", err.message);
  gpuccl_background_free(bg);

  gpuccl_context_free(gpu);
  gpuccl_context_free(cpu);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
