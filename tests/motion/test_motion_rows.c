/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend's rows by motion (kernels/cpu/motion_cpu.c: 16 pixels
 * at a time with SSE2, rows' tails one at a time) beyond U8 against a
 * uint16_t model (test_motion.c's `rows`):
 *   previous  a previous-frame model of bytes (difference mode of 8-bit
 *             samples): every (sample, previous sample) pair, fresh,
 *             invert, thresholds 0, 30, 254, warm-up; oracle: D = |s - p|
 *             written out here, and the sample stored;
 *   packed4   PACKED4 rows in five channel layouts (two name a byte
 *             twice), by luma and by each channel, against both kinds of
 *             model, at several rates, selective or not; oracle: motion.h's pixel on the sample
 *             computed here (BT.601 fixed point written out);
 *   u16       U16 rows against a uint32_t model (the 64-bit step, two
 *             lanes per multiply): edges of the samples, the model and
 *             the rounding, at six rates, selective, fresh, invert,
 *             thresholds 0, 7680, 65535; oracle: motion.h's pixel;
 *   u16-previous  U16 rows against a previous-frame model of uint16_t
 *             (difference mode): edges and hashes of samples and previous
 *             samples, fresh, invert, warm-up, thresholds 0, 30, 7680,
 *             65534, 65535 and one above any difference; oracle: D = |s -
 *             p| written out here, and the sample stored;
 *   switch    a model switched between average (rate 1) and difference
 *             every few frames, U8, PACKED4 and U16 (whose model changes
 *             size with the mode): each frame's blob table equals the
 *             labeling of |frame - previous frame| > threshold (nothing
 *             on the first frame after a switch: it resets).
 * Rows are 64 * k + a tail wide, so both paths run. */
#include "gpuccl.h"
#include "cpu/cpu.h" /* gpuccl_cpu_motion_bits (static archive) */
#include "motion.h"
#include "motion_check.h" /* EXPECT, same_table, run_motion_cases */
#include "motion_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned bit_of(const uint64_t *bits, int x)
{
  return (unsigned)(bits[x / 64] >> (x % 64)) & 1u;
}

/* One way of running rows against a previous-frame model. */
typedef struct {
  bool fresh, invert, emit;
  int threshold;
} PreviousVariant;

/* Sample or model value j of 8-bit (bytes) or U16 (wide) values. */
static long value_at(const void *values, size_t j, bool wide)
{
  return wide ? ((const uint16_t *)values)[j] : ((const uint8_t *)values)[j];
}

/* rows x row samples of `format` (U8 or U16) against a previous-frame
 * model that starts as `start`, in each variant: each bit against D =
 * |s - p| written out here, and the model against the samples. Prints
 * `name`'s count; EXPECTs none wrong. */
static void check_previous(const char *name, GpucclPixelFormat format,
                           const void *samples, const void *start,
                           void *model, int row, int rows,
                           const PreviousVariant *variants, size_t n)
{
  const bool wide = format == GPUCCL_PIXEL_U16;
  const size_t bytes = (size_t)row * rows * (wide ? 2u : 1u);
  uint64_t *bits = malloc(((size_t)row / 64 + 1) * sizeof *bits);
  long bad_bits = 0, bad_model = 0;
  for (size_t v = 0; v < n; v++) {
    const GpucclMotion m = {.model = model, .rate = GPUCCL_MOTION_RATE_ONE,
                            .emit = variants[v].emit,
                            .fresh = variants[v].fresh, .previous = true};
    const Binarizer b = {.format = format,
                         .threshold = variants[v].threshold,
                         .invert = variants[v].invert, .channel_offset = -1,
                         .motion = &m};
    memcpy(model, start, bytes);
    for (int y = 0; y < rows; y++) {
      gpuccl_cpu_motion_bits((const uint8_t *)samples +
                                 (size_t)y * row * (wide ? 2u : 1u),
                             y, row, &b, bits);
      for (int x = 0; x < row; x++) {
        const size_t j = (size_t)y * row + x;
        const long s = value_at(samples, j, wide), q = value_at(start, j, wide);
        const long d = m.fresh ? 0 : s > q ? s - q : q - s;
        const unsigned fg = m.emit && ((d > b.threshold) != b.invert);
        bad_bits += bit_of(bits, x) != fg;
        bad_model += value_at(model, j, wide) != s;
      }
    }
  }
  EXPECT(bad_bits == 0 && bad_model == 0,
         "%s: %ld bits and %ld model values wrong", name, bad_bits,
         bad_model);
  printf("%s: %zu variants of %d pixels\n", name, n, row * rows);
  free(bits);
}

static void case_previous(void)
{
  enum { ROW = 4096 + 37, ROWS = 65536 / ROW + 1 };
  uint8_t *samples = malloc((size_t)ROW * ROWS);
  uint8_t *model = malloc((size_t)ROW * ROWS), *start = malloc((size_t)ROW * ROWS);
  for (size_t i = 0; i < (size_t)ROW * ROWS; i++) /* every pair, then again */
    samples[i] = (uint8_t)i, start[i] = (uint8_t)(i >> 8);
  static const PreviousVariant variants[] = {
      {false, false, true, 30}, {false, true, true, 30},
      {true, false, true, 30},  {false, false, true, 0},
      {false, false, true, 254}, {false, false, false, 30}};
  check_previous("previous", GPUCCL_PIXEL_U8, samples, start, model, ROW,
                 ROWS, variants, sizeof variants / sizeof *variants);
  free(samples);
  free(model);
  free(start);
}

/* The sample the oracle thresholds: channel offset c, or luma (c < 0). */
static unsigned oracle_sample(const uint8_t *p, int c, const uint8_t off[3])
{
  if (c >= 0)
    return p[c];
  return (19595u * p[off[0]] + 38470u * p[off[1]] + 7471u * p[off[2]] +
          32768u) >> 16;
}

enum { P4_ROW = 1024 + 45, P4_ROWS = 24 };

/* One layout and channel against one model kind and rate; returns the
 * wrong bits plus wrong model values. */
static long packed4_run(const uint8_t *pixels, const uint8_t off[3], int c,
                        bool previous, uint32_t rate, bool selective)
{
  static uint16_t model16[P4_ROW * P4_ROWS], start16[P4_ROW * P4_ROWS];
  static uint8_t model8[P4_ROW * P4_ROWS], start8[P4_ROW * P4_ROWS];
  for (size_t i = 0; i < (size_t)P4_ROW * P4_ROWS; i++) {
    const uint32_t h = motion_scene_hash((uint32_t)i, rate, 3);
    start16[i] = (uint16_t)(h % 0xff01), start8[i] = (uint8_t)(h >> 16);
  }
  memcpy(model16, start16, sizeof model16);
  memcpy(model8, start8, sizeof model8);
  const GpucclMotion m = {.model = previous ? (void *)model8 : model16,
                          .rate = rate, .selective = selective, .emit = true,
                          .previous = previous};
  const GpucclMotion want_m = {.model = previous ? (void *)start8 : start16,
                               .rate = rate, .selective = selective,
                               .emit = true, .previous = previous};
  const Binarizer b = {.format = GPUCCL_PIXEL_PACKED4, .threshold = 20,
                       .channel_offset = c, .off_r = off[0],
                       .off_g = off[1], .off_b = off[2], .motion = &m};
  uint64_t bits[P4_ROW / 64 + 1];
  long bad = 0;
  for (int y = 0; y < P4_ROWS; y++) {
    const uint8_t *row = pixels + (size_t)y * P4_ROW * 4;
    gpuccl_cpu_motion_bits(row, y, P4_ROW, &b, bits);
    for (int x = 0; x < P4_ROW; x++) {
      const size_t j = (size_t)y * P4_ROW + x;
      uint32_t v = gpuccl_motion_model_at(&want_m, j, false);
      const bool fg = gpuccl_motion_pixel(oracle_sample(row + 4 * x, c, off),
                                          &v, &want_m, 20, false, 8);
      bad += bit_of(bits, x) != fg;
      bad += gpuccl_motion_model_at(&m, j, false) != v;
    }
  }
  return bad;
}

static void case_packed4(void)
{
  /* RGBx, BGRx, GBxR, and bytes named twice (gray as RGB, R = G) */
  static const uint8_t layouts[][3] = {
      {0, 1, 2}, {2, 1, 0}, {3, 0, 1}, {1, 1, 1}, {2, 2, 0}};
  static uint8_t pixels[P4_ROW * P4_ROWS * 4];
  for (size_t i = 0; i < sizeof pixels; i++)
    pixels[i] = (uint8_t)motion_scene_hash((uint32_t)i, 5, 11);
  static const uint32_t rates[] = {655, 32768, 65535, GPUCCL_MOTION_RATE_ONE};
  int runs = 0;
  for (int l = 0; l < 5; l++)
    for (int c = -1; c < 3; c++) {
      const int channel = c < 0 ? -1 : layouts[l][c];
      long bad = packed4_run(pixels, layouts[l], channel, true,
                             GPUCCL_MOTION_RATE_ONE, false);
      EXPECT(bad == 0, "packed4 layout %d channel %d previous: %ld wrong", l,
             c, bad);
      for (size_t r = 0; r < sizeof rates / sizeof *rates; r++)
        for (int sel = 0; sel < 2; sel++) {
          bad = packed4_run(pixels, layouts[l], channel, false, rates[r], sel);
          EXPECT(bad == 0, "packed4 layout %d channel %d rate %u sel %d: "
                 "%ld wrong", l, c, rates[r], sel, bad);
          runs++;
        }
      runs++;
    }
  printf("packed4: %d runs of %d pixels\n", runs, P4_ROW * P4_ROWS);
}

/* A U16 sample or model value from hash h: edges of the range, of the
 * rounding and of the 32-bit compares half the time, anything else. */
static uint32_t u16_pick(uint32_t h, bool model, unsigned s)
{
  static const uint32_t samples[] = {0, 1, 255, 256, 32767, 32768, 65534,
                                     65535};
  static const uint32_t models[] = {0, 1, 0x7fff, 0x8000, 0x7fffffff,
                                    0x80000000, 0xfffeffff, 0xffff0000};
  if (h & 1)
    return model ? h : h >> 16;
  if (!model)
    return samples[(h >> 1) % 8];
  if (h & 2) /* near the sample's own target s << 16 */
    return (s << 16) + (h >> 2) % 5 - 2; /* wraps at s = 0: clamped */
  return models[(h >> 2) % 8];
}

static void case_u16(void)
{
  enum { ROW = 2048 + 21, ROWS = 16 };
  static uint16_t samples[ROW * ROWS];
  static uint32_t model[ROW * ROWS], start[ROW * ROWS];
  for (size_t i = 0; i < (size_t)ROW * ROWS; i++) {
    samples[i] = (uint16_t)u16_pick(motion_scene_hash((uint32_t)i, 1, 2),
                                    false, 0);
    start[i] = u16_pick(motion_scene_hash((uint32_t)i, 3, 4), true,
                        samples[i]);
    if (start[i] > 0xffff0000u) /* the model's range: B <= 65535 << 16 */
      start[i] = 0xffff0000u;
  }
  static const uint32_t rates[] = {0, 1, 655, 32768, 65535, 65536};
  static const int thresholds[] = {0, 7680, 65535};
  long bad_bits = 0, bad_model = 0;
  int runs = 0;
  for (size_t k = 0; k < sizeof rates / sizeof *rates; k++)
    for (int variant = 0; variant < 12; variant++) {
      const GpucclMotion m = {.model = model, .rate = rates[k],
                              .selective = variant & 1, .emit = true,
                              .fresh = variant / 2 % 2};
      const GpucclMotion want_m = {.model = start, .rate = rates[k],
                                   .selective = variant & 1, .emit = true,
                                   .fresh = variant / 2 % 2};
      const Binarizer b = {.format = GPUCCL_PIXEL_U16,
                           .threshold = thresholds[variant / 4],
                           .invert = variant == 5, .channel_offset = -1,
                           .motion = &m};
      memcpy(model, start, sizeof model);
      for (int y = 0; y < ROWS; y++) {
        const uint8_t *row = (const uint8_t *)(samples + (size_t)y * ROW);
        uint64_t bits[ROW / 64 + 1];
        gpuccl_cpu_motion_bits(row, y, ROW, &b, bits);
        for (int x = 0; x < ROW; x++) {
          const size_t j = (size_t)y * ROW + x;
          uint32_t want = start[j];
          const bool fg = gpuccl_motion_pixel(samples[j], &want, &want_m,
                                              (unsigned)b.threshold, b.invert,
                                              16);
          bad_bits += bit_of(bits, x) != fg;
          bad_model += model[j] != want;
        }
      }
      runs++;
    }
  EXPECT(bad_bits == 0 && bad_model == 0,
         "u16: %ld bits and %ld model values differ from motion.h", bad_bits,
         bad_model);
  printf("u16: %d runs of %d pixels\n", runs, ROW * ROWS);
}

static void case_u16_previous(void)
{
  enum { ROW = 2048 + 45, ROWS = 24 };
  static uint16_t samples[ROW * ROWS], model[ROW * ROWS], start[ROW * ROWS];
  for (size_t i = 0; i < (size_t)ROW * ROWS; i++) {
    samples[i] = (uint16_t)u16_pick(motion_scene_hash((uint32_t)i, 5, 6),
                                    false, 0);
    start[i] = (uint16_t)u16_pick(motion_scene_hash((uint32_t)i, 7, 8),
                                  false, 0);
  }
  static const PreviousVariant variants[] = {
      {false, false, true, 30},    {false, true, true, 30},
      {true, false, true, 30},     {false, false, true, 0},
      {false, false, true, 7680},  {false, false, true, 65534},
      {false, false, true, 65535}, {false, true, true, 70000},
      {false, false, false, 30}};
  check_previous("u16-previous", GPUCCL_PIXEL_U16, samples, start, model, ROW,
                 ROWS, variants, sizeof variants / sizeof *variants);
}

enum { SW_W = 200, SW_H = 120, SW_FRAMES = 24, SW_EVERY = 6, SW_THR = 12 };

/* Frame t of the scene as `format` (PACKED4: the scene in green; U16:
 * v << 8, so that differences scale by 256). */
static GpucclImage switch_frame(uint8_t *buf, uint8_t *gray,
                                GpucclPixelFormat format, int t)
{
  motion_scene_frame(gray, SW_W, SW_W, SW_H, t);
  if (format == GPUCCL_PIXEL_U16) {
    uint16_t *wide = (uint16_t *)buf;
    for (size_t i = 0; i < (size_t)SW_W * SW_H; i++)
      wide[i] = (uint16_t)(gray[i] << 8);
    return (GpucclImage){.data = buf, .width = SW_W, .height = SW_H,
                         .stride = SW_W * 2u, .format = format};
  }
  const bool packed = format == GPUCCL_PIXEL_PACKED4;
  for (size_t i = 0; packed && i < (size_t)SW_W * SW_H; i++) {
    const uint8_t junk = (uint8_t)motion_scene_hash((uint32_t)i, (uint32_t)t, 2);
    buf[4 * i] = junk, buf[4 * i + 1] = gray[i];
    buf[4 * i + 2] = (uint8_t)~junk, buf[4 * i + 3] = 0;
  }
  return (GpucclImage){.data = packed ? buf : gray, .width = SW_W,
                       .height = SW_H, .stride = SW_W * (packed ? 4u : 1u),
                       .format = format, .offset_r = 0, .offset_g = 1,
                       .offset_b = 2};
}

static void switch_run(GpucclContext *ctx, GpucclPixelFormat format)
{
  GpucclError err;
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  bp.learning_rate = 1.0; /* average mode then learns what difference does */
  GpucclBackground *bg = gpuccl_background_new(ctx, &bp, &err);
  static uint8_t buf[SW_W * SW_H * 4], gray[SW_W * SW_H],
      prev[SW_W * SW_H], mask[SW_W * SW_H];
  GpucclParams p, tp;
  gpuccl_params_init(&p);
  gpuccl_params_init(&tp);
  p.background = bg, p.channel = GPUCCL_CHANNEL_GREEN;
  p.threshold = format == GPUCCL_PIXEL_U16 ? SW_THR << 8 : SW_THR;
  int exact = 0;
  for (int t = 0; t < SW_FRAMES; t++) {
    if (t % SW_EVERY == 0) {
      bp.mode = (t / SW_EVERY) % 2 ? GPUCCL_BACKGROUND_DIFFERENCE
                                   : GPUCCL_BACKGROUND_AVERAGE;
      EXPECT(gpuccl_background_set_params(bg, &bp, &err) == GPUCCL_OK,
             "switch: %s", err.message);
    }
    const GpucclImage im = switch_frame(buf, gray, format, t);
    for (size_t i = 0; i < (size_t)SW_W * SW_H; i++) {
      const int d = gray[i] > prev[i] ? gray[i] - prev[i] : prev[i] - gray[i];
      mask[i] = t % SW_EVERY && d > SW_THR ? 255 : 0;
    }
    memcpy(prev, gray, sizeof prev);
    const GpucclImage tm = {.data = mask, .width = SW_W, .height = SW_H,
                            .stride = SW_W, .format = GPUCCL_PIXEL_U8};
    GpucclResult r, want;
    if (gpuccl_process(ctx, &im, &p, &r, &err) != GPUCCL_OK ||
        gpuccl_process(ctx, &tm, &tp, &want, &err) != GPUCCL_OK) {
      EXPECT(0, "switch frame %d: %s", t, err.message);
      break;
    }
    const bool same = same_table(&r, &want);
    EXPECT(same, "switch format %d frame %d: %zu blobs, want %zu", (int)format,
           t, r.n_blobs, want.n_blobs);
    exact += same;
  }
  printf("switch format %d: %d of %d frames exact\n", (int)format, exact,
         SW_FRAMES);
  gpuccl_background_free(bg);
}

static void case_switch(void)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  switch_run(ctx, GPUCCL_PIXEL_U8);
  switch_run(ctx, GPUCCL_PIXEL_PACKED4);
  switch_run(ctx, GPUCCL_PIXEL_U16);
  gpuccl_context_free(ctx);
}

int main(int argc, char **argv)
{
  static const MotionCase cases[] = {{"previous", case_previous},
                                     {"packed4", case_packed4},
                                     {"u16", case_u16},
                                     {"u16-previous", case_u16_previous},
                                     {"switch", case_switch}};
  return run_motion_cases(cases, sizeof cases / sizeof *cases, argc, argv);
}
