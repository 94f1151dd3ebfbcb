/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Masks and blob intensities (gpuccl.h) against OpenCV: the foreground is
 * computed here from the contract (sample > threshold, or <= with invert,
 * and mask != 0), OpenCV labels it, and each blob's sum, min and max are
 * read here from OpenCV's labels and the samples. U8 (strides, odd
 * widths), U16, PACKED4 (luma and a channel), Otsu (over the whole image,
 * mask or not), the area filters and max_blobs, with and without the
 * label image; then the refusals: a mask of another size (the message
 * names both), of another context, segments mode, a non-U8 picture, and
 * on CUDA the algorithms that do not apply masks.
 * $GPUCCL_TEST_BACKEND=cuda runs it on the CUDA backend (exit 77 without a
 * device): test gpu-mask. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

#define EXPECT(cond, ...)                                                     \
  do {                                                                        \
    checks++;                                                                 \
    if (!(cond)) {                                                            \
      failures++;                                                             \
      printf("FAIL: " __VA_ARGS__);                                           \
      printf("\n");                                                           \
    }                                                                         \
  } while (0)

static uint32_t rng_state = 2027;
static uint32_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* The sample the threshold applies to, written from gpuccl.h. */
static unsigned sample(const GpucclImage *im, GpucclChannel channel, int x,
                       int y)
{
  const uint8_t *row = (const uint8_t *)im->data + (size_t)y * im->stride;
  if (im->format == GPUCCL_PIXEL_U8)
    return row[x];
  if (im->format == GPUCCL_PIXEL_U16)
    return (unsigned)row[2 * x] | (unsigned)row[2 * x + 1] << 8;
  const uint8_t *p = row + 4 * (size_t)x;
  const unsigned r = p[im->offset_r], g = p[im->offset_g], b = p[im->offset_b];
  switch (channel) {
  case GPUCCL_CHANNEL_RED: return r;
  case GPUCCL_CHANNEL_GREEN: return g;
  case GPUCCL_CHANNEL_BLUE: return b;
  default: return (19595u * r + 38470u * g + 7471u * b + 32768u) >> 16;
  }
}

/* Random values in g x g blocks (so thresholds cut shapes), then a few
 * random pixels. */
static void fill(uint8_t *plane, int row_bytes, int h, size_t stride, int g)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < row_bytes; x++) {
      uint32_t seed = (uint32_t)((y / g) * 7919 + (x / g) * 104729) * 2654435761u;
      plane[y * stride + x] = (uint8_t)((seed >> 13) ^ (rnd() % 8 == 0 ? rnd() : 0));
    }
}

/* The mask: blocks of 0 and non-zero values (1..255), a zero border
 * column and row somewhere. */
static uint8_t *make_mask(int w, int h, size_t stride)
{
  uint8_t *m = malloc(stride * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint32_t block = (uint32_t)((y / 5) * 31 + (x / 7)) * 2246822519u;
      m[y * stride + x] = (block >> 20) % 3 == 0 ? 0 : (uint8_t)(1 + rnd() % 255);
    }
  for (int y = 0; y < h; y++)
    m[y * stride + w / 2] = 0;
  return m;
}

/* gpuccl with the mask and intensities against OpenCV on the masked
 * foreground; thr < 0: Otsu, whose threshold the result reports. */
static void expect_masked(GpucclContext *ctx, const char *what,
                          const GpucclImage *im, const uint8_t *mask,
                          size_t mask_stride, GpucclParams p)
{
  const int w = im->width, h = im->height;
  const size_t n_px = (size_t)w * h;
  GpucclImage pic = {mask, w, h, mask_stride, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclError error = {0};
  GpucclMask *m = gpuccl_mask_new(ctx, &pic, &error);
  EXPECT(m != NULL, "%s: mask: %s", what, error.message);
  if (!m)
    return;
  p.mask = m;
  p.want_intensity = true;
  GpucclResult r;
  checks++;
  if (gpuccl_process(ctx, im, &p, &r, &error) != GPUCCL_OK) {
    printf("FAIL: %s: %s\n", what, error.message);
    failures++;
    gpuccl_mask_free(m);
    return;
  }
  uint8_t *fg = malloc(n_px);
  uint32_t *labels = malloc(n_px * sizeof *labels);
  OracleStats *stats = malloc((n_px + 1) * sizeof *stats);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      fg[y * w + x] = mask[y * mask_stride + x] &&
                              ((int)sample(im, p.channel, x, y) > r.threshold) !=
                                  p.invert
                          ? 255
                          : 0;
  long n = oracle_opencv(fg, w, h, (size_t)w, p.connectivity, labels, stats,
                         n_px + 1);
  if (n < 0)
    n = 0; /* the comparison below fails */
  bool ok = (uint32_t)n == r.n_components && n_px &&
            check_blobs(what, &r, stats, n, false);
  if (ok && p.want_labels)
    ok = check_labels(what, &r, labels, n);
  /* The intensities, from OpenCV's labels. */
  GpucclBlobIntensity *want = calloc((size_t)n + 1, sizeof *want);
  for (long i = 0; i <= n; i++)
    want[i].min = UINT32_MAX;
  for (int y = 0; ok && y < h; y++)
    for (int x = 0; x < w; x++) {
      GpucclBlobIntensity *e = &want[labels[y * w + x]];
      const unsigned v = sample(im, p.channel, x, y);
      e->sum += v;
      e->min = v < e->min ? v : e->min;
      e->max = v > e->max ? v : e->max;
    }
  const GpucclBlobIntensity *got = gpuccl_blob_intensities(ctx);
  if (ok && r.n_blobs && !got) {
    printf("%s: no intensities\n", what);
    ok = false;
  }
  for (size_t i = 0; ok && i < r.n_blobs; i++) {
    const GpucclBlobIntensity *e = &want[r.blobs[i].id];
    if (got[i].sum != e->sum || got[i].min != e->min || got[i].max != e->max) {
      printf("%s: blob %u intensity %llu/%u/%u, expected %llu/%u/%u\n", what,
             r.blobs[i].id, (unsigned long long)got[i].sum, got[i].min,
             got[i].max, (unsigned long long)e->sum, e->min, e->max);
      ok = false;
    }
  }
  if (!ok) {
    printf("FAIL: %s\n", what);
    failures++;
  }
  free(want);
  free(fg);
  free(labels);
  free(stats);
  gpuccl_mask_free(m);
}

static void test_formats(GpucclContext *ctx)
{
  static const int sizes[][2] = {{200, 150}, {1, 1}, {257, 67}, {33, 300},
                                 {1920, 1080}, {1917, 61}};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    const int w = sizes[s][0], h = sizes[s][1];
    const size_t stride = (size_t)w * 4 + 13, mstride = (size_t)w + 5;
    uint8_t *plane = malloc(stride * h);
    fill(plane, (int)stride, h, stride, 4);
    uint8_t *mask = make_mask(w, h, mstride);
    char what[128];
    for (int f = 0; f < 5; f++) {
      GpucclImage im = {plane, w, h, stride, GPUCCL_PIXEL_U8, 2, 1, 0};
      GpucclParams p;
      gpuccl_params_init(&p);
      p.threshold = 110;
      p.connectivity = f % 2 ? 4 : 8;
      if (f == 1)
        im.format = GPUCCL_PIXEL_U16, p.threshold = 30000;
      if (f >= 2)
        im.format = GPUCCL_PIXEL_PACKED4;
      if (f == 3)
        p.channel = GPUCCL_CHANNEL_GREEN, p.invert = true;
      if (f == 4)
        p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU, p.want_labels = true;
      snprintf(what, sizeof what, "%dx%d format %d conn %d", w, h, f,
               p.connectivity);
      expect_masked(ctx, what, &im, mask, mstride, p);
    }
    free(plane);
    free(mask);
  }
}

/* The area filters and max_blobs select intensities with their blobs. */
static void test_selection(GpucclContext *ctx)
{
  const int w = 301, h = 203;
  uint8_t *plane = malloc((size_t)w * h);
  fill(plane, w, h, w, 3);
  uint8_t *mask = make_mask(w, h, w);
  GpucclImage im = {plane, w, h, (size_t)w, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams p;
  gpuccl_params_init(&p);
  p.min_area = 4;
  p.max_area = 200;
  expect_masked(ctx, "area filter", &im, mask, w, p);
  p.max_blobs = 7;
  expect_masked(ctx, "max_blobs 7", &im, mask, w, p);
  /* An all-zero mask: no foreground at all. */
  memset(mask, 0, (size_t)w * h);
  gpuccl_params_init(&p);
  expect_masked(ctx, "zero mask", &im, mask, w, p);
  free(plane);
  free(mask);
}

static void test_refusals(GpucclContext *ctx, GpucclBackend backend)
{
  uint8_t px[64 * 48] = {0}, mpx[64 * 48];
  memset(mpx, 1, sizeof mpx);
  GpucclImage im = {px, 64, 48, 64, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclImage pic = {mpx, 64, 47, 64, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclError error = {0};
  GpucclResult r;
  GpucclParams p;
  gpuccl_params_init(&p);

  GpucclMask *small = gpuccl_mask_new(ctx, &pic, &error);
  p.mask = small;
  EXPECT(gpuccl_process(ctx, &im, &p, &r, &error) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(error.message, "64x47") && strstr(error.message, "64x48"),
         "a mask of another size: '%s'", error.message);
  gpuccl_mask_free(small);

  pic.height = 48;
  pic.format = GPUCCL_PIXEL_U16;
  EXPECT(gpuccl_mask_new(ctx, &pic, &error) == NULL &&
             error.status == GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(error.message, "U8"),
         "a U16 mask picture: '%s'", error.message);
  pic.format = GPUCCL_PIXEL_U8;

  GpucclContext *other = gpuccl_context_new(backend, 0, NULL);
  GpucclMask *foreign = gpuccl_mask_new(other, &pic, &error);
  p.mask = foreign;
  EXPECT(gpuccl_process(ctx, &im, &p, &r, &error) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(error.message, "another context"),
         "another context's mask: '%s'", error.message);
  gpuccl_mask_free(foreign);
  gpuccl_context_free(other);

  GpucclMask *m = gpuccl_mask_new(ctx, &pic, &error);
  p.mask = m;
  p.mode = GPUCCL_MODE_SEGMENTS;
  EXPECT(gpuccl_process(ctx, &im, &p, &r, &error) ==
             GPUCCL_ERROR_INVALID_ARGUMENT,
         "a mask in segments mode: '%s'", error.message);
  p.mask = NULL;
  p.want_intensity = true;
  EXPECT(gpuccl_process(ctx, &im, &p, &r, &error) ==
             GPUCCL_ERROR_INVALID_ARGUMENT,
         "intensities in segments mode: '%s'", error.message);
  EXPECT(gpuccl_blob_intensities(ctx) == NULL, "intensities after a failure");
  gpuccl_params_init(&p);
  p.mask = m;
  p.algorithm = GPUCCL_ALGORITHM_BKE;
  GpucclStatus st = gpuccl_process(ctx, &im, &p, &r, &error);
  if (backend == GPUCCL_BACKEND_CUDA)
    EXPECT(st == GPUCCL_ERROR_UNSUPPORTED && strstr(error.message, "HA4"),
           "a mask with BKE on CUDA: '%s'", error.message);
  else
    EXPECT(st == GPUCCL_OK, "a mask with BKE on the CPU: '%s'",
           error.message);
  gpuccl_params_init(&p);
  EXPECT(gpuccl_process(ctx, &im, &p, &r, &error) == GPUCCL_OK &&
             gpuccl_blob_intensities(ctx) == NULL,
         "intensities without want_intensity");
  gpuccl_mask_free(m);
  EXPECT(gpuccl_blob_intensities(NULL) == NULL, "NULL context");
}

int main(void)
{
  const char *b = getenv("GPUCCL_TEST_BACKEND");
  const GpucclBackend backend = b && strcmp(b, "cuda") == 0
                                    ? GPUCCL_BACKEND_CUDA
                                    : GPUCCL_BACKEND_CPU;
  GpucclError error = {0};
  if (backend == GPUCCL_BACKEND_CUDA && !gpuccl_cuda_available(0, &error)) {
    printf("SKIP: %s\n", error.message);
    return 77;
  }
  GpucclContext *ctx = gpuccl_context_new(backend, 0, &error);
  if (!ctx) {
    printf("FAIL: %s\n", error.message);
    return 1;
  }
  test_formats(ctx);
  test_selection(ctx);
  test_refusals(ctx, backend);
  gpuccl_context_free(ctx);
  printf("%s: %d checks, %d failures\n", gpuccl_backend_name(backend), checks,
         failures);
  return failures ? 1 : 0;
}
