/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA overlays against the CPU ones (kernels/draw_host.c, the reference
 * for draw_common.h's pixel rules): the same binary image processed on both
 * contexts (results compared by gpu_check_same), then the same frame, full
 * of junk, padding included, drawn by each; every byte of every plane must
 * match. All frame formats, line widths 1..3, every flag combination, odd
 * sizes. Also: steady-state draws allocate nothing, and the draw time of a
 * 1080p NV12 frame is printed (not asserted). Exits 77 without a GPU.
 * --reduced: small sizes only (for compute-sanitizer). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "cuda/cuda_internal.h"
#include "gpu_check.h"

static int failures, checks;


static const char *format_names[] = {"GRAY8", "GRAY16", "NV12", "I420",
                                     "PACKED4"};

/* A frame with its own planes, junk everywhere (stride padding included). */
typedef struct {
  GpucclFrame f;
  size_t bytes[3];
} TestFrame;

static uint32_t rng_state = 12345;
static uint8_t junk(void)
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (uint8_t)(rng_state >> 24);
}

static void frame_make(TestFrame *t, GpucclFrameFormat format, int w, int h,
                       int variant)
{
  memset(t, 0, sizeof *t);
  t->f.format = format;
  t->f.width = w;
  t->f.height = h;
  size_t cw = (size_t)(w + 1) / 2;
  int ch = (h + 1) / 2;
  size_t row[3] = {0, 0, 0};
  int rows[3] = {h, ch, ch};
  switch (format) {
  case GPUCCL_FRAME_GRAY8: row[0] = w; break;
  case GPUCCL_FRAME_GRAY16: row[0] = 2 * (size_t)w; break;
  case GPUCCL_FRAME_NV12: row[0] = w; row[1] = 2 * cw; break;
  case GPUCCL_FRAME_I420: row[0] = w; row[1] = row[2] = cw; break;
  case GPUCCL_FRAME_PACKED4: row[0] = 4 * (size_t)w; break;
  }
  if (format == GPUCCL_FRAME_PACKED4) {
    /* BGRA, then RGBx-like, then ARGB. */
    static const uint8_t offs[3][3] = {{2, 1, 0}, {0, 1, 2}, {1, 2, 3}};
    t->f.offset_r = offs[variant % 3][0];
    t->f.offset_g = offs[variant % 3][1];
    t->f.offset_b = offs[variant % 3][2];
  }
  for (int i = 0; i < 3 && row[i]; i++) {
    /* 4-byte aligned rows as GStreamer makes them, plus junk padding. */
    t->f.stride[i] = ((row[i] + 3) & ~(size_t)3) + 4 * (size_t)(variant % 3);
    t->bytes[i] = t->f.stride[i] * (size_t)rows[i];
    t->f.data[i] = malloc(t->bytes[i]);
    if (!t->f.data[i])
      abort();
    for (size_t k = 0; k < t->bytes[i]; k++)
      ((uint8_t *)t->f.data[i])[k] = junk();
  }
}

static void frame_copy(TestFrame *dst, const TestFrame *src)
{
  *dst = *src;
  for (int i = 0; i < 3 && src->bytes[i]; i++) {
    dst->f.data[i] = malloc(src->bytes[i]);
    if (!dst->f.data[i])
      abort();
    memcpy(dst->f.data[i], src->f.data[i], src->bytes[i]);
  }
}

static void frame_free(TestFrame *t)
{
  for (int i = 0; i < 3; i++)
    free(t->f.data[i]);
}

/* Draw `orig` with both contexts; every byte equal. Also the drawing must
 * have changed something when there are blobs and flags (else the test
 * would pass on two no-ops). */
static void check_draw(GpucclContext *gpu, GpucclContext *cpu,
                       const TestFrame *orig, const GpucclDrawParams *dp,
                       size_t n_blobs, const char *name)
{
  TestFrame a, b;
  frame_copy(&a, orig);
  frame_copy(&b, orig);
  GpucclError e = {0};
  GpucclStatus s = gpuccl_draw(gpu, &a.f, dp, &e);
  EXPECT(s == GPUCCL_OK, "%s: CUDA draw: %s", name, e.message);
  s = gpuccl_draw(cpu, &b.f, dp, &e);
  EXPECT(s == GPUCCL_OK, "%s: CPU draw: %s", name, e.message);
  bool changed = false;
  for (int i = 0; i < 3 && orig->bytes[i]; i++) {
    const uint8_t *pa = a.f.data[i], *pb = b.f.data[i];
    size_t k = 0;
    while (k < orig->bytes[i] && pa[k] == pb[k])
      k++;
    EXPECT(k == orig->bytes[i],
           "%s: plane %d differs at byte %zu (row %zu, col %zu): CUDA %u, "
           "CPU %u",
           name, i, k, k / orig->f.stride[i], k % orig->f.stride[i],
           k < orig->bytes[i] ? pa[k] : 0, k < orig->bytes[i] ? pb[k] : 0);
    if (memcmp(pb, orig->f.data[i], orig->bytes[i]) != 0)
      changed = true;
  }
  if (n_blobs && dp->flags)
    EXPECT(changed, "%s: the CPU draw changed nothing", name);
  frame_free(&a);
  frame_free(&b);
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Steady state and time: a 1080p NV12 frame, all layers. */
static void steady_state(GpucclContext *gpu, int w, int h)
{
  TestFrame t;
  frame_make(&t, GPUCCL_FRAME_NV12, w, h, 0);
  GpucclDrawParams dp = {GPUCCL_DRAW_BOXES | GPUCCL_DRAW_CENTROIDS |
                             GPUCCL_DRAW_LABELS,
                         255, 0, 0, 2};
  GpucclError e = {0};
  EXPECT(gpuccl_draw(gpu, &t.f, &dp, &e) == GPUCCL_OK, "warm-up: %s",
         e.message);
  uint64_t before = gpuccl_cuda_alloc_calls();
  const int n = 20;
  double t0 = now_ms();
  for (int i = 0; i < n; i++)
    EXPECT(gpuccl_draw(gpu, &t.f, &dp, &e) == GPUCCL_OK, "draw: %s",
           e.message);
  double ms = (now_ms() - t0) / n;
  uint64_t after = gpuccl_cuda_alloc_calls();
  EXPECT(after == before, "steady-state draws made %llu allocation calls",
         (unsigned long long)(after - before));
  printf("draw %dx%d NV12 labels+boxes+centroids (pageable host memory, "
         "upload + kernels + download): %.3f ms per frame, %llu allocation "
         "calls over %d draws\n",
         w, h, ms, (unsigned long long)(after - before), n);
  frame_free(&t);
}

int main(int argc, char **argv)
{
  const bool reduced = argc > 1 && strcmp(argv[1], "--reduced") == 0;
  GpucclContext *gpu = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  GpucclError e = {0};
  static const int sizes[][2] = {{1, 1}, {33, 17}, {2, 3}, {385, 289},
                                 {1920, 1080}};
  const int n_sizes = reduced ? 4 : 5;
  int draws = 0;
  for (int si = 0; si < n_sizes; si++) {
    const int w = sizes[si][0], h = sizes[si][1];
    /* Parameter variants: all blobs; a filtered table (min_area and
     * max_blobs leave components undrawn in the label layer). */
    for (int v = 0; v < 2; v++) {
      const size_t stride = (size_t)w + 7;
      uint8_t *img = malloc(stride * h);
      if (!img)
        abort();
      corpus_random(img, w, h, stride, v ? 0.45 : 0.25, v ? 1 : 4,
                    (uint32_t)(si * 10 + v + 1));
      for (int y = 0; y < h; y++) /* junk in the image's padding too */
        for (size_t x = w; x < stride; x++)
          img[y * stride + x] = junk();
      GpucclImage image = {img, w, h, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
      GpucclParams p;
      gpuccl_params_init(&p);
      p.want_labels = true;
      p.connectivity = v ? 4 : 8;
      if (v) {
        p.min_area = 3;
        p.max_blobs = 50;
      }
      char name[160];
      snprintf(name, sizeof name, "%dx%d variant %d", w, h, v);
      if (!gpu_check_same(gpu, cpu, &image, &p, name)) {
        failures++;
        free(img);
        continue;
      }
      GpucclResult r;
      if (gpuccl_process(cpu, &image, &p, &r, &e) != GPUCCL_OK ||
          gpuccl_process(gpu, &image, &p, &r, &e) != GPUCCL_OK) {
        printf("FAIL %s: process: %s\n", name, e.message);
        failures++;
        free(img);
        continue;
      }
      const size_t n_blobs = r.n_blobs;
      for (int fmt = GPUCCL_FRAME_GRAY8; fmt <= GPUCCL_FRAME_PACKED4; fmt++) {
        TestFrame t;
        frame_make(&t, (GpucclFrameFormat)fmt, w, h, si + v);
        for (int lw = 1; lw <= 3; lw++) {
          for (unsigned flags = 0; flags < 8; flags++) {
            GpucclDrawParams dp = {flags, (uint8_t)(40 * lw), 200,
                                   (uint8_t)(17 * flags), lw};
            snprintf(name, sizeof name,
                     "%dx%d variant %d %s line %d flags %u (%zu blobs)", w,
                     h, v, format_names[fmt], lw, flags, n_blobs);
            check_draw(gpu, cpu, &t, &dp, n_blobs, name);
            draws++;
          }
        }
        frame_free(&t);
      }
      /* Labels need want_labels: the CUDA context must refuse too. */
      p.want_labels = false;
      if (gpuccl_process(gpu, &image, &p, &r, &e) == GPUCCL_OK) {
        TestFrame t;
        frame_make(&t, GPUCCL_FRAME_GRAY8, w, h, 0);
        GpucclDrawParams dp = {GPUCCL_DRAW_LABELS, 0, 0, 0, 1};
        EXPECT(gpuccl_draw(gpu, &t.f, &dp, &e) ==
                   GPUCCL_ERROR_INVALID_ARGUMENT,
               "%dx%d: labels without want_labels accepted", w, h);
        frame_free(&t);
      }
      free(img);
    }
  }
  /* Steady state on the largest size drawn (buffers already grown). */
  {
    const int w = sizes[n_sizes - 1][0], h = sizes[n_sizes - 1][1];
    const size_t stride = (size_t)w;
    uint8_t *img = malloc(stride * h);
    if (!img)
      abort();
    corpus_random(img, w, h, stride, 0.3, 4, 99);
    GpucclImage image = {img, w, h, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclParams p;
    gpuccl_params_init(&p);
    p.want_labels = true;
    GpucclResult r;
    if (gpuccl_process(gpu, &image, &p, &r, &e) == GPUCCL_OK) {
      printf("steady state: %zu blobs\n", r.n_blobs);
      steady_state(gpu, w, h);
    } else {
      EXPECT(false, "process: %s", e.message);
    }
    free(img);
  }
  gpuccl_context_free(cpu);
  gpuccl_context_free(gpu);
  printf("%d draws compared on both backends, %d checks, %d failures\n",
         draws, checks, failures);
  return failures ? 1 : 0;
}
