/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: background models (binarisation by motion) on the CPU
 * backend, or CUDA with GPUCCL_TEST_BACKEND=cuda.
 *
 * The input chooses the model's parameters (any mode number, any double
 * for the learning rate: NaN, infinities, out of range), then up to 12
 * steps: a frame (size 1..40 a side, sometimes the last one's, stride
 * padding, pixel format, channel, threshold in or out of range, invert,
 * Otsu, connectivity, label image, segments mode), new parameters, or a
 * reset. Bad arguments must give INVALID_ARGUMENT exactly when gpuccl.h
 * says they are bad; every good frame's label image must be non-zero
 * exactly where this file's own model, written from gpuccl.h's text (not
 * from kernels/motion.h), says the pixel is foreground. The model here
 * follows the documented resets: size, format, channel or mode changes,
 * gpuccl_background_reset, a failed call.
 *
 * Built with -fsanitize=fuzzer,address,undefined under clang; with any
 * other compiler it links fuzz_replay.c and replays its input files. */
#include "fuzz_backend.h"
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "fuzz_samples.h"

#include <gpuccl.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 40

/* The model as gpuccl.h describes it. */
typedef struct {
  GpucclBackgroundParams params;
  uint64_t frames;
  int width, height, format, channel;
  int64_t b[MAX_SIDE * MAX_SIDE];
} RefModel;

static bool valid_params(const GpucclBackgroundParams *p)
{
  return (p->mode == GPUCCL_BACKGROUND_AVERAGE ||
          p->mode == GPUCCL_BACKGROUND_DIFFERENCE) &&
         p->learning_rate >= 0.0 && p->learning_rate <= 1.0;
}

static double fuzz_rate(FuzzBytes *in)
{
  switch (fuzz_range(in, 0, 7)) {
  case 0: return NAN;
  case 1: return INFINITY;
  case 2: return -0.25;
  case 3: return 1.0 + fuzz_u8(in) / 16.0;
  case 4: return 1.0;
  case 5: return 0.0;
  default: return fuzz_u16(in) / 65535.0;
  }
}

static void fuzz_model_params(FuzzBytes *in, GpucclBackgroundParams *p)
{
  gpuccl_background_params_init(p);
  p->mode = (GpucclBackgroundMode)fuzz_range(in, 0, 2);
  p->learning_rate = fuzz_rate(in);
  p->selective = fuzz_bool(in);
  p->warmup_frames = (uint32_t)fuzz_range(in, 0, 4);
}

/* One good frame through the reference: the foreground bits it must give
 * (fg, width * height) and the threshold. */
static int ref_frame(RefModel *m, const GpucclImage *img,
                     const GpucclParams *p, bool *fg)
{
  const bool wide = img->format == GPUCCL_PIXEL_U16;
  const int shift = wide ? 16 : 8;
  const int channel = img->format == GPUCCL_PIXEL_PACKED4 ? (int)p->channel : 0;
  if (img->width != m->width || img->height != m->height ||
      (int)img->format != m->format || channel != m->channel) {
    m->frames = 0;
    m->width = img->width, m->height = img->height;
    m->format = (int)img->format, m->channel = channel;
  }
  const bool difference = m->params.mode == GPUCCL_BACKGROUND_DIFFERENCE;
  int64_t rate = difference ? 65536 : llround(m->params.learning_rate * 65536);
  const uint64_t warmup = m->params.warmup_frames ? m->params.warmup_frames : 1;
  const bool warm = m->frames < warmup;
  if (warm && 65536 / (int64_t)(m->frames + 1) > rate)
    rate = 65536 / (int64_t)(m->frames + 1);
  const int n = img->width * img->height;
  int d[MAX_SIDE * MAX_SIDE], s[MAX_SIDE * MAX_SIDE];
  for (int i = 0; i < n; i++) {
    s[i] = sample_at(img, p->channel, i % img->width, i / img->width);
    const int64_t level = (m->b[i] + (1 << (shift - 1))) >> shift;
    d[i] = m->frames ? (int)llabs(s[i] - level) : 0; /* frame 0: nothing */
  }
  int threshold = p->threshold;
  if (p->auto_threshold == GPUCCL_AUTO_THRESHOLD_OTSU) {
    /* kernels/otsu.h is the one definition of Otsu's threshold. */
    uint32_t hist[256] = {0};
    for (int i = 0; i < n; i++)
      hist[wide ? d[i] >> 8 : d[i]]++;
    uint64_t total = (uint64_t)n, sum = 0, w0 = 0, s0 = 0;
    for (int t = 0; t < 256; t++)
      sum += (uint64_t)t * hist[t];
    double best = 0.0;
    int best_t = 0;
    for (int t = 0; t < 255; t++) {
      w0 += hist[t];
      s0 += (uint64_t)t * hist[t];
      const uint64_t w1 = total - w0;
      if (w0 == 0 || w1 == 0)
        continue;
      const double diff = (double)s0 / (double)w0 - (double)(sum - s0) / (double)w1;
      const double between = ((double)w0 * (double)w1) * (diff * diff);
      if (between > best) {
        best = between;
        best_t = t;
      }
    }
    threshold = wide ? (best_t << 8) | 0xff : best_t;
  }
  const bool selective = m->params.selective && !warm && !difference;
  for (int i = 0; i < n; i++) {
    if (!selective || d[i] <= threshold) {
      const int64_t step =
          ((((int64_t)s[i] << shift) - m->b[i]) * rate + 32768) >> 16;
      m->b[i] += step;
    }
    fg[i] = !warm && ((d[i] > threshold) != p->invert);
  }
  m->frames++;
  return threshold;
}

static void fuzz_frame(FuzzBytes *in, GpucclContext *ctx,
                       GpucclBackground *bg, RefModel *m, uint8_t *pix)
{
  /* Three frames in four keep the last one's shape (size, format,
   * channel), so that models get past their first frames. */
  static int last_w = 8, last_h = 8, last_format, last_channel;
  const bool same = fuzz_range(in, 0, 3) != 0;
  const int w = same ? last_w : fuzz_range(in, 1, MAX_SIDE);
  const int h = same ? last_h : fuzz_range(in, 1, MAX_SIDE);
  const int format = same ? last_format : fuzz_range(in, 0, 2);
  const int channel = same ? last_channel : fuzz_range(in, 0, 3);
  last_w = w, last_h = h, last_format = format, last_channel = channel;
  GpucclImage img = {.data = pix, .width = w, .height = h};
  img.format = (GpucclPixelFormat)format;
  img.stride = (size_t)w * bytes_per_pixel(img.format) + fuzz_range(in, 0, 5);
  img.offset_r = (uint8_t)fuzz_range(in, 0, 3);
  img.offset_g = (uint8_t)fuzz_range(in, 0, 3);
  img.offset_b = (uint8_t)fuzz_range(in, 0, 3);
  GpucclParams p;
  gpuccl_params_init(&p);
  p.background = bg;
  p.channel = (GpucclChannel)channel;
  const int max_thr = img.format == GPUCCL_PIXEL_U16 ? 65535 : 255;
  p.threshold = fuzz_range(in, 0, 15) == 0 ? max_thr + 1 : fuzz_range(in, 0, max_thr);
  p.invert = fuzz_bool(in);
  p.auto_threshold = fuzz_range(in, 0, 3) == 0 ? GPUCCL_AUTO_THRESHOLD_OTSU
                                               : GPUCCL_AUTO_THRESHOLD_NONE;
  p.connectivity = fuzz_bool(in) ? 8 : 4;
  p.want_labels = true;
  p.mode = fuzz_range(in, 0, 15) == 0 ? GPUCCL_MODE_SEGMENTS : GPUCCL_MODE_BINARY;
  /* Pixels: the last frame's with noise of -2..2 and one rectangle of
   * changes up to +-amp (an object), from a few bytes, so that an input
   * holds many frames. */
  const int amp = fuzz_range(in, 0, 255);
  const int rx = fuzz_range(in, 0, MAX_SIDE - 1), ry = fuzz_range(in, 0, MAX_SIDE - 1);
  const int rw = fuzz_range(in, 0, MAX_SIDE), rh = fuzz_range(in, 0, MAX_SIDE);
  uint32_t lcg = fuzz_u16(in) + 1u;
  const size_t bytes = img.stride * (size_t)h;
  for (size_t i = 0; i < bytes; i++) {
    lcg = lcg * 1664525u + 1013904223u;
    const int x = (int)(i % img.stride / bytes_per_pixel(img.format));
    const int y = (int)(i / img.stride);
    const bool object = x >= rx && x < rx + rw && y >= ry && y < ry + rh;
    const int span = object ? amp : 2;
    pix[i] = (uint8_t)(pix[i] + (int)((lcg >> 16) % (2u * span + 1u)) - span);
  }

  const bool valid = p.threshold <= max_thr && p.mode == GPUCCL_MODE_BINARY;
  GpucclResult r;
  GpucclError err;
  const GpucclStatus st = gpuccl_process(ctx, &img, &p, &r, &err);
  if (!valid) {
    FUZZ_CHECK(st == GPUCCL_ERROR_INVALID_ARGUMENT, "bad frame: %s (%s)",
               gpuccl_status_name(st), err.message);
    FUZZ_CHECK(gpuccl_background_frames(bg) == 0,
               "a failed call resets the model");
    m->frames = 0;
    return;
  }
  if (st == GPUCCL_ERROR_UNSUPPORTED) { /* not on this backend */
    m->frames = 0;
    return;
  }
  FUZZ_CHECK(st == GPUCCL_OK, "good frame: %s (%s)", gpuccl_status_name(st),
             err.message);
  static bool fg[MAX_SIDE * MAX_SIDE];
  const int threshold = ref_frame(m, &img, &p, fg);
  FUZZ_CHECK(r.threshold == threshold, "threshold %d, reference %d",
             r.threshold, threshold);
  for (int i = 0; i < w * h; i++)
    FUZZ_CHECK((r.labels[i] != 0) == fg[i],
               "pixel (%d, %d) of %dx%d, frame %llu: label %u, reference %s",
               i % w, i / w, w, h, (unsigned long long)m->frames - 1,
               r.labels[i], fg[i] ? "foreground" : "background");
  FUZZ_CHECK(gpuccl_background_frames(bg) == m->frames, "frames %llu, "
             "reference %llu",
             (unsigned long long)gpuccl_background_frames(bg),
             (unsigned long long)m->frames);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FuzzBytes in;
  fuzz_bytes_init(&in, data, size);
  GpucclError err;
  GpucclContext *ctx = fuzz_context(&err);
  FUZZ_CHECK(ctx != NULL, "no context: %s", err.message);

  static RefModel m;
  memset(&m, 0, sizeof m);
  m.width = -1;
  fuzz_model_params(&in, &m.params);
  GpucclBackground *bg = gpuccl_background_new(ctx, &m.params, &err);
  FUZZ_CHECK((bg != NULL) == valid_params(&m.params),
             "background_new: %s (mode %d, rate %g)", err.message,
             (int)m.params.mode, m.params.learning_rate);
  if (!bg)
    return 0;
  static uint8_t pix[MAX_SIDE * (MAX_SIDE * 4 + 5)];
  memset(pix, 128, sizeof pix);
  const int steps = fuzz_range(&in, 1, 12);
  for (int k = 0; k < steps; k++) {
    switch (fuzz_range(&in, 0, 7)) {
    case 0: {
      GpucclBackgroundParams np;
      fuzz_model_params(&in, &np);
      const GpucclStatus st = gpuccl_background_set_params(bg, &np, &err);
      FUZZ_CHECK((st == GPUCCL_OK) == valid_params(&np), "set_params: %s",
                 err.message);
      if (st == GPUCCL_OK) {
        if (np.mode != m.params.mode)
          m.frames = 0;
        m.params = np;
      }
      break;
    }
    case 1:
      gpuccl_background_reset(bg);
      m.frames = 0;
      break;
    default:
      fuzz_frame(&in, ctx, bg, &m, pix);
      break;
    }
  }
  gpuccl_background_free(bg);
  return 0;
}
