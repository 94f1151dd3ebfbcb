/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation by motion on the CPU backend (gpuccl.h, "Background
 * models"), on motion_scene.h, whose truth is known: after the warm-up,
 * the blob table must be exactly the one of the truth mask (labeled by the
 * threshold path, which tests/oracle checks against Leptonica and OpenCV).
 *   selective   running average learned where the pixel matches: every
 *               object in the frame, moving or stopped, nothing else;
 *   difference  what changed since the last frame: the pixels one object
 *               covers in exactly one of the two frames;
 *   average     running average everywhere: a stopped object is learned
 *               and disappears, moving ones stay blobs;
 *   formats     U16 and a PACKED4 channel give the selective truth too;
 *   otsu        Otsu's threshold on the difference, while objects move;
 *   warmup      no blobs in warm-up, frames counted, resets (size,
 *               format, mode, explicit, failed call), process_draw;
 *   bad-args    every bad input a clear status, never a crash;
 *   arithmetic  kernels/motion.h's learning step (32-bit for 8-bit
 *               samples) equal to gpuccl.h's 64-bit definition for every
 *               8-bit sample and model value at several rates, and on a
 *               sweep of 16-bit ones;
 *   rows        the CPU backend's row binarisation (16 pixels at a time
 *               with SSE2) against motion.h pixel by pixel: every 8-bit
 *               sample against every model value, bits and model, at
 *               several rates, thresholds, selective, invert, fresh.
 * The model's arithmetic itself is checked against NumPy
 * (test_motion_numpy.py) and CUDA against this backend (tests/gpu). */
#include "gpuccl.h"
#include "cpu/cpu.h" /* gpuccl_cpu_motion_bits (static archive) */
#include "motion.h"  /* kernels/: the backends' arithmetic */
#include "motion_check.h" /* EXPECT, same_table, run_motion_cases */
#include "motion_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 200
#define FRAMES 150
#define THRESHOLD 30

typedef enum { TRUTH_PRESENT, TRUTH_CHANGED } Truth;

static bool covered(int t, int x, int y)
{
  for (int i = 0; i < MOTION_SCENE_OBJECTS; i++)
    if (motion_scene_inside(motion_scene_rect(i, t, W, H), x, y))
      return true;
  return false;
}

static void truth_mask(uint8_t *mask, int t, Truth truth)
{
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const bool now = covered(t, x, y);
      const bool fg = truth == TRUTH_PRESENT ? now : now != covered(t - 1, x, y);
      mask[(size_t)y * W + x] = fg ? 255 : 0;
    }
}

static void print_table(const char *what, const GpucclResult *r)
{
  printf("  %s: %zu blobs\n", what, r->n_blobs);
  for (size_t i = 0; i < r->n_blobs && i < 8; i++)
    printf("    id %u area %u box %u,%u-%u,%u\n", r->blobs[i].id,
           r->blobs[i].area, r->blobs[i].x0, r->blobs[i].y0, r->blobs[i].x1,
           r->blobs[i].y1);
}

/* The scene's frame t as `format`: U8 as drawn; U16 as v << 8 | noise;
 * PACKED4 with v in green and other junk around it (offsets R 0 G 1 B 2). */
static GpucclImage scene_image(uint8_t *buf, GpucclPixelFormat format, int t)
{
  static uint8_t gray[W * H];
  motion_scene_frame(gray, W, W, H, t);
  GpucclImage im = {.data = buf, .width = W, .height = H, .format = format};
  for (size_t i = 0; i < (size_t)W * H; i++) {
    const uint8_t junk = (uint8_t)motion_scene_hash((uint32_t)i, (uint32_t)t, 7);
    switch (format) {
    case GPUCCL_PIXEL_U8:
      buf[i] = gray[i];
      break;
    case GPUCCL_PIXEL_U16: {
      const uint16_t v = (uint16_t)(gray[i] << 8 | junk);
      memcpy(buf + 2 * i, &v, 2);
      break;
    }
    case GPUCCL_PIXEL_PACKED4:
      buf[4 * i] = junk;
      buf[4 * i + 1] = gray[i];
      buf[4 * i + 2] = (uint8_t)(255 - junk);
      buf[4 * i + 3] = 0;
      break;
    }
  }
  im.stride = (size_t)W * (format == GPUCCL_PIXEL_U16       ? 2
                           : format == GPUCCL_PIXEL_PACKED4 ? 4
                                                            : 1);
  im.offset_r = 0, im.offset_g = 1, im.offset_b = 2;
  return im;
}

/* Runs the scene with a model of `bp` and checks every frame from `from`
 * on against the truth; returns the frames that matched. */
static int run_exact(const char *name, const GpucclBackgroundParams *bp,
                     GpucclPixelFormat format, Truth truth, int from,
                     bool otsu)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclContext *oracle = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclBackground *bg = gpuccl_background_new(ctx, bp, &err);
  if (!ctx || !oracle || !bg) {
    printf("FAIL %s: setup: %s\n", name, err.message);
    exit(1);
  }
  uint8_t *buf = malloc((size_t)W * H * 4), *mask = malloc((size_t)W * H);
  GpucclParams p, tp;
  gpuccl_params_init(&p);
  gpuccl_params_init(&tp);
  p.background = bg;
  p.threshold = format == GPUCCL_PIXEL_U16 ? THRESHOLD * 256 : THRESHOLD;
  p.channel = GPUCCL_CHANNEL_GREEN;
  if (otsu)
    p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  int matched = 0, checked = 0;
  for (int t = 0; t < FRAMES; t++) {
    const GpucclImage im = scene_image(buf, format, t);
    GpucclResult r, want;
    if (gpuccl_process(ctx, &im, &p, &r, &err) != GPUCCL_OK) {
      EXPECT(0, "%s frame %d: %s", name, t, err.message);
      break;
    }
    const uint64_t warm = bp->warmup_frames ? bp->warmup_frames : 1;
    if ((uint64_t)t < warm)
      EXPECT(r.n_components == 0, "%s: warm-up frame %d has %u components",
             name, t, r.n_components);
    if (t < from)
      continue;
    truth_mask(mask, t, truth);
    const GpucclImage tm = {.data = mask, .width = W, .height = H,
                            .stride = W, .format = GPUCCL_PIXEL_U8};
    gpuccl_process(oracle, &tm, &tp, &want, &err);
    checked++;
    if (same_table(&r, &want)) {
      matched++;
    } else if (checked - matched <= 2) {
      printf("FAIL %s frame %d (threshold %d)\n", name, t, r.threshold);
      print_table("motion", &r);
      print_table("truth", &want);
    }
  }
  EXPECT(matched == checked, "%s: %d of %d frames exact", name, matched,
         checked);
  printf("%s: %d of %d frames exact\n", name, matched, checked);
  gpuccl_background_free(bg);
  gpuccl_context_free(ctx);
  gpuccl_context_free(oracle);
  free(buf);
  free(mask);
  return matched;
}

static GpucclBackgroundParams selective_params(void)
{
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  bp.selective = true;
  bp.learning_rate = 0.05;
  bp.warmup_frames = 16;
  return bp;
}

static void case_selective(void)
{
  const GpucclBackgroundParams bp = selective_params();
  run_exact("selective", &bp, GPUCCL_PIXEL_U8, TRUTH_PRESENT, 16, false);
}

static void case_difference(void)
{
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  bp.mode = GPUCCL_BACKGROUND_DIFFERENCE;
  run_exact("difference", &bp, GPUCCL_PIXEL_U8, TRUTH_CHANGED, 1, false);
}

static void case_formats(void)
{
  const GpucclBackgroundParams bp = selective_params();
  run_exact("selective-u16", &bp, GPUCCL_PIXEL_U16, TRUTH_PRESENT, 16, false);
  run_exact("selective-green", &bp, GPUCCL_PIXEL_PACKED4, TRUTH_PRESENT, 16,
            false);
}

static void case_otsu(void)
{
  /* Objects are in every frame from 31 on: Otsu then splits the moving
   * objects' large differences from the noise's small ones. */
  const GpucclBackgroundParams bp = selective_params();
  run_exact("selective-otsu", &bp, GPUCCL_PIXEL_U8, TRUTH_PRESENT, 31, true);
}

/* Does any blob's box meet rectangle r? */
static bool any_blob_meets(const GpucclResult *res, SceneRect r)
{
  for (size_t i = 0; i < res->n_blobs; i++) {
    const GpucclBlob *b = &res->blobs[i];
    if (b->x0 <= r.x1 && b->x1 >= r.x0 && b->y0 <= r.y1 && b->y1 >= r.y0)
      return true;
  }
  return false;
}

/* Running average everywhere: object 1 stops at t = 60 and is learned
 * (contrast ~130 decays by 0.95 a frame below 30 within 40 frames), the
 * moving objects stay blobs. */
static void case_average(void)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  bp.warmup_frames = 16;
  GpucclBackground *bg = gpuccl_background_new(ctx, &bp, &err);
  uint8_t *buf = malloc((size_t)W * H);
  GpucclParams p;
  gpuccl_params_init(&p);
  p.background = bg;
  p.threshold = THRESHOLD;
  for (int t = 0; t < 100; t++) {
    const GpucclImage im = scene_image(buf, GPUCCL_PIXEL_U8, t);
    GpucclResult r;
    EXPECT(gpuccl_process(ctx, &im, &p, &r, &err) == GPUCCL_OK, "%s",
           err.message);
    const SceneRect stopped = motion_scene_rect(1, t, W, H);
    if (t == 61)
      EXPECT(any_blob_meets(&r, stopped), "average: object 1 just stopped "
                                          "and is no blob at t = 61");
    if (t == 99)
      EXPECT(!any_blob_meets(&r, stopped), "average: object 1 stopped at "
                                           "t = 60 is still a blob at 99");
    if (t >= 40)
      for (int i = 0; i < MOTION_SCENE_OBJECTS; i += 2)
        EXPECT(any_blob_meets(&r, motion_scene_rect(i, t, W, H)),
               "average: moving object %d is no blob at t = %d", i, t);
  }
  gpuccl_background_free(bg);
  gpuccl_context_free(ctx);
  free(buf);
}

static GpucclStatus process_gray(GpucclContext *ctx, GpucclParams *p,
                                 const uint8_t *buf, int w, int h,
                                 GpucclResult *r, GpucclError *err)
{
  const GpucclImage im = {.data = buf, .width = w, .height = h, .stride = w,
                          .format = GPUCCL_PIXEL_U8};
  return gpuccl_process(ctx, &im, p, r, err);
}

static void case_warmup(void)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  EXPECT(bp.mode == GPUCCL_BACKGROUND_AVERAGE && bp.learning_rate == 0.05 &&
             !bp.selective && bp.warmup_frames == 0,
         "background defaults");
  bp.warmup_frames = 3;
  GpucclBackground *bg = gpuccl_background_new(ctx, &bp, &err);
  GpucclParams p;
  gpuccl_params_init(&p);
  EXPECT(p.background == NULL, "params.background defaults to NULL");
  p.background = bg;
  p.threshold = 10;
  static uint8_t dark[64 * 64], lit[64 * 64];
  memset(lit, 200, sizeof lit);
  GpucclResult r;
  /* Warm-up on dark frames, then a lit one is all foreground. */
  for (int k = 0; k < 3; k++) {
    EXPECT(process_gray(ctx, &p, k == 1 ? lit : dark, 64, 64, &r, &err) ==
               GPUCCL_OK && r.n_components == 0,
           "warm-up frame %d has no blobs", k);
    EXPECT(gpuccl_background_frames(bg) == (uint64_t)k + 1, "frames %d", k);
  }
  /* Mean of dark, lit, dark: 66.67 -> lit differs by 133, dark by 67. */
  process_gray(ctx, &p, lit, 64, 64, &r, &err);
  EXPECT(r.n_blobs == 1 && r.blobs[0].area == 64 * 64, "lit after warm-up");
  /* invert: the pixels that match the model are foreground. */
  p.invert = true;
  process_gray(ctx, &p, dark, 64, 64, &r, &err);
  EXPECT(r.n_blobs == 0, "invert: a dark frame matches no pixel");
  p.invert = false;
  /* Explicit reset: warm-up again. */
  gpuccl_background_reset(bg);
  EXPECT(gpuccl_background_frames(bg) == 0, "reset");
  process_gray(ctx, &p, lit, 64, 64, &r, &err);
  EXPECT(r.n_components == 0, "first frame after reset");
  /* Size change: resets. */
  for (int k = 0; k < 4; k++)
    process_gray(ctx, &p, dark, 64, 64, &r, &err);
  EXPECT(gpuccl_background_frames(bg) == 5, "frames before size change");
  process_gray(ctx, &p, lit, 32, 48, &r, &err);
  EXPECT(gpuccl_background_frames(bg) == 1 && r.n_components == 0,
         "a new size starts a warm-up");
  /* Mode change resets; other parameters do not. */
  bp.learning_rate = 0.5;
  EXPECT(gpuccl_background_set_params(bg, &bp, &err) == GPUCCL_OK &&
             gpuccl_background_frames(bg) == 1,
         "rate change keeps the model");
  bp.mode = GPUCCL_BACKGROUND_DIFFERENCE;
  gpuccl_background_set_params(bg, &bp, &err);
  EXPECT(gpuccl_background_frames(bg) == 0, "mode change resets");
  /* Difference mode: frame k against frame k - 1 only. */
  bp.warmup_frames = 0;
  gpuccl_background_set_params(bg, &bp, &err);
  process_gray(ctx, &p, dark, 64, 64, &r, &err);
  process_gray(ctx, &p, lit, 64, 64, &r, &err);
  EXPECT(r.n_blobs == 1, "difference: dark then lit");
  process_gray(ctx, &p, lit, 64, 64, &r, &err);
  EXPECT(r.n_blobs == 0, "difference: lit then lit");
  /* A failed call resets the model. */
  const GpucclImage bad = {.data = lit, .width = 64, .height = 64,
                           .stride = 64, .format = GPUCCL_PIXEL_U8};
  p.connectivity = 8;
  GpucclParams seg = p;
  seg.mode = GPUCCL_MODE_SEGMENTS;
  EXPECT(gpuccl_process(ctx, &bad, &seg, &r, &err) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(err.message, "GPUCCL_MODE_BINARY"),
         "segments with a model: %s", err.message);
  EXPECT(gpuccl_background_frames(bg) == 0, "a failed call resets");
  /* process_draw learns once per call, as process does. */
  static uint8_t frame[64 * 64];
  const GpucclFrame fr = {.format = GPUCCL_FRAME_GRAY8, .width = 64,
                          .height = 64, .data = {frame}, .stride = {64}};
  GpucclDrawParams dp = {.flags = GPUCCL_DRAW_BOXES, .r = 255, .line_width = 1};
  const GpucclImage im = {.data = dark, .width = 64, .height = 64,
                          .stride = 64, .format = GPUCCL_PIXEL_U8};
  EXPECT(gpuccl_process_draw(ctx, &im, &p, &fr, &dp, &r, &err) == GPUCCL_OK &&
             gpuccl_background_frames(bg) == 1,
         "process_draw: %s", err.message);
  gpuccl_background_free(bg);
  gpuccl_context_free(ctx);
}

static void case_bad_args(void)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclContext *other = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  const double rates[] = {-0.01, 1.01, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    bp.learning_rate = rates[i];
    EXPECT(!gpuccl_background_new(ctx, &bp, &err) &&
               err.status == GPUCCL_ERROR_INVALID_ARGUMENT &&
               strstr(err.message, "learning_rate"),
           "learning rate %g: %s", rates[i], err.message);
  }
  gpuccl_background_params_init(&bp);
  bp.mode = (GpucclBackgroundMode)7;
  EXPECT(!gpuccl_background_new(ctx, &bp, &err) &&
             strstr(err.message, "mode 7"),
         "mode 7: %s", err.message);
  EXPECT(!gpuccl_background_new(NULL, NULL, &err) &&
             err.status == GPUCCL_ERROR_INVALID_ARGUMENT,
         "no context");
  /* A newer header's struct with a field set past this library's. */
  struct {
    GpucclBackgroundParams p;
    int newer;
  } big = {.newer = 1};
  gpuccl_background_params_init(&big.p);
  EXPECT(!gpuccl_background_new_sized(ctx, &big.p, sizeof big, &err) &&
             strstr(err.message, "past"),
         "newer struct: %s", err.message);
  /* A smaller (older) one: the rest takes the defaults. */
  GpucclBackground *bg = gpuccl_background_new_sized(
      ctx, &big.p, offsetof(GpucclBackgroundParams, selective), &err);
  EXPECT(bg != NULL, "older struct: %s", err.message);
  gpuccl_background_params_init(&bp);
  bp.learning_rate = 2;
  EXPECT(gpuccl_background_set_params(bg, &bp, &err) ==
             GPUCCL_ERROR_INVALID_ARGUMENT,
         "set_params with rate 2");
  EXPECT(gpuccl_background_set_params(NULL, &bp, &err) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             gpuccl_background_set_params(bg, NULL, &err) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT,
         "set_params without a model or parameters");
  /* Another context's model. */
  static uint8_t img[16 * 16];
  GpucclParams p;
  gpuccl_params_init(&p);
  p.background = bg;
  GpucclResult r;
  EXPECT(process_gray(other, &p, img, 16, 16, &r, &err) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(err.message, "another context") && r.n_blobs == 0,
         "another context's model: %s", err.message);
  /* NULLs are fine where documented. */
  gpuccl_background_reset(NULL);
  gpuccl_background_free(NULL);
  EXPECT(gpuccl_background_frames(NULL) == 0, "frames of NULL");
  gpuccl_background_free(bg);
  gpuccl_context_free(ctx);
  gpuccl_context_free(other);
}

/* gpuccl.h's definition of a step, in 64 bits. */
static uint32_t learn_defined(unsigned s, uint32_t b, uint32_t rate,
                              unsigned shift)
{
  const int64_t d = (int64_t)((uint64_t)s << shift) - (int64_t)b;
  return (uint32_t)((int64_t)b + ((d * (int64_t)rate + 32768) >> 16));
}

static void case_arithmetic(void)
{
  static const uint32_t rates[] = {0,     1,     2,     66,    655,  3277,
                                   32767, 32768, 32769, 65535, 65536};
  long mismatches = 0;
  for (size_t k = 0; k < sizeof rates / sizeof *rates; k++) {
    for (unsigned s = 0; s < 256; s++)
      for (uint32_t b = 0; b <= 0xff00; b++)
        mismatches += gpuccl_motion_learn(s, b, rates[k], 8) !=
                      learn_defined(s, b, rates[k], 8);
    for (uint32_t s = 0; s < 65536; s += 257)
      for (uint64_t b = 0; b <= 0xffff0000u; b += 65521u * 3)
        mismatches += gpuccl_motion_learn(s, (uint32_t)b, rates[k], 16) !=
                      learn_defined(s, (uint32_t)b, rates[k], 16);
  }
  EXPECT(mismatches == 0, "arithmetic: %ld steps differ from gpuccl.h's",
         mismatches);
}

static void case_rows(void)
{
  enum { ROW = 16384, ROWS = 256 * 65281 / ROW + 1 };
  uint8_t *samples = malloc((size_t)ROW * ROWS);
  uint16_t *model = malloc(sizeof *model * ROW * ROWS);
  uint16_t *start = malloc(sizeof *start * ROW * ROWS);
  uint64_t bits[ROW / 64];
  /* Every (sample, model value) pair once, the rest of the last row 0. */
  size_t i = 0;
  for (unsigned sv = 0; sv < 256; sv++)
    for (uint32_t bv = 0; bv <= 0xff00; bv++, i++) {
      samples[i] = (uint8_t)sv;
      start[i] = (uint16_t)bv;
    }
  for (; i < (size_t)ROW * ROWS; i++)
    samples[i] = 0, start[i] = 0;
  static const uint32_t rates[] = {1, 655, 3277, 32768, 65535, 65536};
  long bad_bits = 0, bad_model = 0;
  for (size_t k = 0; k < sizeof rates / sizeof *rates; k++)
    for (int variant = 0; variant < 4; variant++) {
      const GpucclMotion m = {.model = model, .rate = rates[k],
                              .selective = variant & 1, .emit = true,
                              .fresh = variant == 2};
      const Binarizer b = {.format = GPUCCL_PIXEL_U8,
                           .threshold = variant == 3 ? 0 : 30,
                           .invert = variant == 1, .channel_offset = -1,
                           .motion = &m};
      memcpy(model, start, sizeof *model * ROW * ROWS);
      for (int y = 0; y < ROWS; y++) {
        gpuccl_cpu_motion_bits(samples + (size_t)y * ROW, y, ROW, &b, bits);
        for (int x = 0; x < ROW; x++) {
          const size_t j = (size_t)y * ROW + x;
          uint32_t want = start[j];
          const bool fg = gpuccl_motion_pixel(samples[j], &want, &m,
                                              (unsigned)b.threshold, b.invert,
                                              8);
          bad_bits += ((bits[x / 64] >> (x % 64)) & 1) != fg;
          bad_model += model[j] != want;
        }
      }
    }
  EXPECT(bad_bits == 0 && bad_model == 0,
         "rows: %ld bits and %ld model values differ from motion.h",
         bad_bits, bad_model);
  free(samples);
  free(model);
  free(start);
}

int main(int argc, char **argv)
{
  static const MotionCase cases[] = {
      {"selective", case_selective}, {"difference", case_difference},
      {"average", case_average},     {"formats", case_formats},
      {"otsu", case_otsu},           {"warmup", case_warmup},
      {"bad-args", case_bad_args},   {"arithmetic", case_arithmetic},
      {"rows", case_rows},
  };
  return run_motion_cases(cases, sizeof cases / sizeof *cases, argc, argv);
}
