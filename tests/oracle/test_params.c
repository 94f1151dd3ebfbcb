/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend's parameters against OpenCV: threshold and invert on 8-bit,
 * 16-bit and packed 4-byte pixels (each channel and BT.601 luma), Otsu
 * (against cv::threshold with THRESH_OTSU), and the blob filters (min/max
 * area, max_blobs) against a selection computed here from OpenCV's stats.
 * The expected foreground masks are computed here, pixel by pixel, straight
 * from the contract in gpuccl.h. */
#include "check.h"
#include "corpus.h"

#include <leptonica/allheaders.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* Expected blob table: components 1..n passing the area range, then the
 * max_blobs largest (smaller id first on equal areas), in increasing id. */
static const OracleStats *sort_stats;
static int by_rank(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  uint64_t aa = sort_stats[ia - 1].area, ab = sort_stats[ib - 1].area;
  if (aa != ab)
    return aa > ab ? -1 : 1;
  return ia < ib ? -1 : 1;
}
static int by_id(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  return ia < ib ? -1 : ia > ib;
}

static size_t expected_selection(const OracleStats *stats, long n,
                                 const GpucclParams *p, uint32_t *ids)
{
  size_t k = 0;
  for (long i = 1; i <= n; i++) {
    uint64_t a = stats[i - 1].area;
    if (a >= p->min_area && (p->max_area == 0 || a <= p->max_area))
      ids[k++] = (uint32_t)i;
  }
  if (p->max_blobs && k > p->max_blobs) {
    sort_stats = stats;
    qsort(ids, k, sizeof *ids, by_rank);
    k = p->max_blobs;
    qsort(ids, k, sizeof *ids, by_id);
  }
  return k;
}

/* gpuccl on `image` against OpenCV on `mask` (width * height, 0 or 255). */
static void expect(GpucclContext *ctx, const char *what,
                   const GpucclImage *image, GpucclParams params,
                   const uint8_t *mask, int expected_threshold)
{
  checks++;
  int w = image->width, h = image->height;
  size_t pixels = (size_t)w * h;
  uint32_t *labels = malloc(pixels * sizeof *labels);
  OracleStats *stats = malloc((pixels + 1) * sizeof *stats);
  uint32_t *ids = malloc((pixels + 1) * sizeof *ids);
  bool ok = false;
  long n = labels && stats && ids
               ? oracle_opencv(mask, w, h, (size_t)w, params.connectivity,
                               labels, stats, pixels + 1)
               : -1;
  params.want_labels = true;
  GpucclResult r;
  GpucclError error = {0};
  if (n < 0) {
    printf("%s: oracle failed\n", what);
  } else if (gpuccl_process(ctx, image, &params, &r, &error) != GPUCCL_OK) {
    printf("%s: %s\n", what, error.message);
  } else if (expected_threshold >= 0 && r.threshold != expected_threshold) {
    printf("%s: threshold %d, expected %d\n", what, r.threshold,
           expected_threshold);
  } else if (check_labels(what, &r, labels, n) &&
             check_blobs(what, &r, stats, n, false)) {
    size_t k = expected_selection(stats, n, &params, ids);
    ok = r.n_blobs == k;
    for (size_t i = 0; ok && i < k; i++)
      ok = r.blobs[i].id == ids[i];
    if (!ok)
      printf("%s: %zu blobs kept, expected %zu\n", what, r.n_blobs, k);
  }
  if (!ok)
    failures++;
  free(labels);
  free(stats);
  free(ids);
}

/* Random values in g x g blocks, so thresholds cut real shapes. */
static void blocky(uint8_t *plane, int w, int h, size_t stride, int bytes,
                   int g)
{
  for (int by = 0; by < h; by += g)
    for (int bx = 0; bx < w; bx += g) {
      uint32_t v = rnd();
      for (int y = by; y < by + g && y < h; y++)
        for (int x = bx; x < bx + g && x < w; x++)
          for (int b = 0; b < bytes; b++)
            plane[y * stride + (size_t)x * bytes + b] = (uint8_t)(v >> (8 * b));
    }
}

static void test_u8(GpucclContext *ctx)
{
  const int w = 200, h = 150, stride = 203;
  uint8_t *img = malloc((size_t)stride * h), *mask = malloc((size_t)w * h);
  blocky(img, w, h, stride, 1, 3);
  static const int thresholds[] = {0, 1, 100, 127, 254, 255};
  for (size_t t = 0; t < 6; t++)
    for (int inv = 0; inv < 2; inv++)
      for (int conn = 4; conn <= 8; conn += 4) {
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++)
            mask[y * w + x] =
                ((img[y * stride + x] > thresholds[t]) != inv) ? 255 : 0;
        GpucclImage image = {img, w, h, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
        GpucclParams p;
        gpuccl_params_init(&p);
        p.threshold = thresholds[t];
        p.invert = inv;
        p.connectivity = conn;
        char what[96];
        snprintf(what, sizeof what, "U8 t=%d invert=%d %d-conn", thresholds[t],
                 inv, conn);
        expect(ctx, what, &image, p, mask, thresholds[t]);
      }
  free(img);
  free(mask);
}

static void test_u16(GpucclContext *ctx)
{
  const int w = 131, h = 97;
  static const size_t strides[] = {2 * 131, 2 * 131 + 1, 2 * 131 + 6};
  static const int thresholds[] = {0, 1000, 32767, 65534, 65535};
  uint8_t *mask = malloc((size_t)w * h);
  for (size_t s = 0; s < 3; s++) {
    /* One spare byte in front, so stride + 1 rows start at odd addresses. */
    uint8_t *buf = malloc(strides[s] * h + 1), *img = buf + (s == 1);
    blocky(img, w, h, strides[s], 2, 2);
    for (size_t t = 0; t < 5; t++)
      for (int inv = 0; inv < 2; inv++) {
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++) {
            const uint8_t *px = img + y * strides[s] + 2 * (size_t)x;
            uint16_t v;
            memcpy(&v, px, 2);
            mask[y * w + x] = ((v > thresholds[t]) != inv) ? 255 : 0;
          }
        GpucclImage image = {img, w, h, strides[s], GPUCCL_PIXEL_U16, 0, 0, 0};
        GpucclParams p;
        gpuccl_params_init(&p);
        p.threshold = thresholds[t];
        p.invert = inv;
        p.connectivity = 8 - 4 * inv;
        char what[96];
        snprintf(what, sizeof what, "U16 stride=%zu t=%d invert=%d", strides[s],
                 thresholds[t], inv);
        expect(ctx, what, &image, p, mask, thresholds[t]);
      }
    free(buf);
  }
  free(mask);
}

static void test_packed4(GpucclContext *ctx)
{
  const int w = 77, h = 64;
  const size_t stride = 4 * 77 + 8;
  static const uint8_t orders[2][3] = {{0, 1, 2}, {2, 1, 0}}; /* RGBx, BGRx */
  static const int thresholds[] = {60, 127, 200};
  uint8_t *img = malloc(stride * h), *mask = malloc((size_t)w * h);
  blocky(img, w, h, stride, 4, 2);
  for (int o = 0; o < 2; o++)
    for (int ch = GPUCCL_CHANNEL_LUMA; ch <= GPUCCL_CHANNEL_BLUE; ch++)
      for (size_t t = 0; t < 3; t++) {
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++) {
            const uint8_t *px = img + y * stride + 4 * (size_t)x;
            uint8_t r = px[orders[o][0]], g = px[orders[o][1]],
                    b = px[orders[o][2]];
            int v = ch == GPUCCL_CHANNEL_RED     ? r
                    : ch == GPUCCL_CHANNEL_GREEN ? g
                    : ch == GPUCCL_CHANNEL_BLUE  ? b
                                                 : gpuccl_luma601(r, g, b);
            mask[y * w + x] = v > thresholds[t] ? 255 : 0;
          }
        GpucclImage image = {img, w, h, stride, GPUCCL_PIXEL_PACKED4,
                             orders[o][0], orders[o][1], orders[o][2]};
        GpucclParams p;
        gpuccl_params_init(&p);
        p.threshold = thresholds[t];
        p.channel = (GpucclChannel)ch;
        char what[96];
        snprintf(what, sizeof what, "PACKED4 order=%d channel=%d t=%d", o, ch,
                 thresholds[t]);
        expect(ctx, what, &image, p, mask, thresholds[t]);
      }
  free(img);
  free(mask);
}

/* Otsu on one 8-bit plane, also as the high byte of a 16-bit plane and as
 * the luma of a gray packed plane. */
static void otsu_case(GpucclContext *ctx, const char *name, const uint8_t *gray,
                      int w, int h)
{
  int t = oracle_opencv_otsu(gray, w, h, (size_t)w);
  uint8_t *mask = malloc((size_t)w * h);
  uint16_t *wide = malloc((size_t)w * h * 2);
  uint8_t *packed = malloc((size_t)w * h * 4);
  for (size_t i = 0; i < (size_t)w * h; i++) {
    mask[i] = gray[i] > t ? 255 : 0;
    wide[i] = (uint16_t)(gray[i] << 8 | (rnd() & 0xff));
    memset(packed + 4 * i, gray[i], 4);
  }
  GpucclParams p;
  gpuccl_params_init(&p);
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  char what[128];
  GpucclImage image = {gray, w, h, (size_t)w, GPUCCL_PIXEL_U8, 0, 0, 0};
  snprintf(what, sizeof what, "Otsu U8 %s", name);
  expect(ctx, what, &image, p, mask, t);
  image = (GpucclImage){wide, w, h, (size_t)w * 2, GPUCCL_PIXEL_U16, 0, 0, 0};
  snprintf(what, sizeof what, "Otsu U16 %s", name);
  expect(ctx, what, &image, p, mask, t << 8 | 0xff);
  image = (GpucclImage){packed, w, h, (size_t)w * 4, GPUCCL_PIXEL_PACKED4, 0, 1, 2};
  snprintf(what, sizeof what, "Otsu PACKED4 luma %s", name);
  expect(ctx, what, &image, p, mask, t);
  free(mask);
  free(wide);
  free(packed);
}

static void test_otsu(GpucclContext *ctx)
{
  const int w = 160, h = 120;
  uint8_t *gray = malloc((size_t)w * h);
  for (int k = 0; k < 6; k++) { /* two overlapping modes, shifting */
    for (size_t i = 0; i < (size_t)w * h; i++)
      gray[i] = (uint8_t)(rnd() % 3 ? 20 + 20 * k + rnd() % 90
                                    : 130 + 10 * k + rnd() % 80);
    otsu_case(ctx, "bimodal", gray, w, h);
  }
  for (size_t i = 0; i < (size_t)w * h; i++)
    gray[i] = (uint8_t)rnd();
  otsu_case(ctx, "uniform", gray, w, h);
  memset(gray, 77, (size_t)w * h);
  otsu_case(ctx, "constant", gray, w, h);
  for (size_t i = 0; i < (size_t)w * h; i++)
    gray[i] = rnd() % 2 ? 10 : 200;
  otsu_case(ctx, "two values", gray, w, h);
  free(gray);

  static const char *const pictures[] = {
      "/usr/share/doc/libleptonica-dev/dave-orig.png",
      "/usr/share/doc/libleptonica-dev/aneurisms8.jpg"};
  for (int i = 0; i < 2; i++) {
    PIX *pix = pixRead(pictures[i]);
    PIX *g8 = pix ? pixConvertTo8(pix, 0) : NULL;
    pixDestroy(&pix);
    if (!g8) {
      printf("# %s unavailable\n", pictures[i]);
      continue;
    }
    int pw = pixGetWidth(g8), ph = pixGetHeight(g8);
    uint8_t *plane = malloc((size_t)pw * ph);
    for (int y = 0; y < ph; y++)
      for (int x = 0; x < pw; x++)
        plane[y * pw + x] = GET_DATA_BYTE(pixGetData(g8) + y * pixGetWpl(g8), x);
    pixDestroy(&g8);
    otsu_case(ctx, strrchr(pictures[i], '/') + 1, plane, pw, ph);
    free(plane);
  }
}

static void test_filters(GpucclContext *ctx)
{
  static const uint64_t mins[] = {0, 2, 10}, maxs[] = {0, 5, 50};
  static const uint32_t tops[] = {0, 1, 3, 100};
  for (size_t i = 0; i < corpus_size(); i += 101) {
    CorpusImage img;
    if (corpus_image(i, &img) != 0)
      continue;
    uint8_t *mask = malloc((size_t)img.width * img.height);
    for (int y = 0; y < img.height; y++)
      memcpy(mask + (size_t)y * img.width, img.data + y * img.stride,
             (size_t)img.width);
    GpucclImage image = {img.data, img.width, img.height, img.stride,
                         GPUCCL_PIXEL_U8, 0, 0, 0};
    for (size_t a = 0; a < 3; a++)
      for (size_t b = 0; b < 3; b++)
        for (size_t c = 0; c < 4; c++) {
          if (maxs[b] && mins[a] > maxs[b])
            continue;
          GpucclParams p;
          gpuccl_params_init(&p);
          p.min_area = mins[a];
          p.max_area = maxs[b];
          p.max_blobs = tops[c];
          p.connectivity = (a + b + c) % 2 ? 4 : 8;
          char what[160];
          snprintf(what, sizeof what, "filters %s min=%llu max=%llu top=%u",
                   img.name, (unsigned long long)mins[a],
                   (unsigned long long)maxs[b], tops[c]);
          expect(ctx, what, &image, p, mask, -1);
        }
    free(mask);
    corpus_image_free(&img);
  }
}

int main(void)
{
  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  if (!ctx) {
    printf("no CPU context: %s\n", error.message);
    return 1;
  }
  test_u8(ctx);
  test_u16(ctx);
  test_packed4(ctx);
  test_otsu(ctx);
  test_filters(ctx);
  gpuccl_context_free(ctx);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
