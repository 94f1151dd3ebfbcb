/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU runners of gpuccl-bench: libgpuccl's CPU backend (with and without
 * the label image) and OpenCV's connectedComponentsWithStats, one thread and
 * all threads. OpenCV always produces its label image, so "cpu" (label
 * image requested) is the like-for-like comparison; "opencv-lab-1t"
 * (connectedComponents, no stats) shows OpenCV's labeling alone. */
#include "bench.h"

#include "gpuccl.h"
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  GpucclContext *ctx;
  GpucclImage image;
  GpucclParams params;
} CpuRunner;

static void *cpu_open(const BenchSetup *setup, int want_labels, char *why,
                      size_t why_size)
{
  CpuRunner *r = calloc(1, sizeof *r);
  GpucclError error = {0};
  if (r)
    r->ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  if (!r || !r->ctx) {
    snprintf(why, why_size, "%s", r ? error.message : "out of memory");
    free(r);
    return NULL;
  }
  gpuccl_params_init(&r->params);
  r->params.connectivity = setup->connectivity;
  r->params.want_labels = want_labels;
  return r;
}

static void *cpu_open_labels(const BenchSetup *s, char *why, size_t n)
{
  return cpu_open(s, 1, why, n);
}

static void *cpu_open_table(const BenchSetup *s, char *why, size_t n)
{
  return cpu_open(s, 0, why, n);
}

static int cpu_prepare(void *state, const uint8_t *data, int width, int height,
                       size_t stride)
{
  CpuRunner *r = state;
  r->image = (GpucclImage){data, width, height, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
  return 0;
}

static long cpu_run(void *state)
{
  CpuRunner *r = state;
  GpucclResult result;
  if (gpuccl_process(r->ctx, &r->image, &r->params, &result, NULL) != GPUCCL_OK)
    return -1;
  return (long)result.n_components;
}

static void cpu_close(void *state)
{
  CpuRunner *r = state;
  gpuccl_context_free(r->ctx);
  free(r);
}

typedef struct {
  int threads; /* 1, or 0 for OpenCV's default (all cores) */
  int with_stats;
  int connectivity;
  const uint8_t *data;
  int width, height;
  size_t stride;
} CvRunner;

static void *cv_open(const BenchSetup *setup, int threads, int with_stats)
{
  CvRunner *r = calloc(1, sizeof *r);
  if (r) {
    r->threads = threads;
    r->with_stats = with_stats;
    r->connectivity = setup->connectivity;
  }
  return r;
}

static void *cv_open_1t(const BenchSetup *s, char *why, size_t n)
{
  (void)why; (void)n;
  return cv_open(s, 1, 1);
}

static void *cv_open_mt(const BenchSetup *s, char *why, size_t n)
{
  (void)why; (void)n;
  return cv_open(s, 0, 1);
}

static void *cv_open_labels_1t(const BenchSetup *s, char *why, size_t n)
{
  (void)why; (void)n;
  return cv_open(s, 1, 0);
}

static int cv_prepare(void *state, const uint8_t *data, int width, int height,
                      size_t stride)
{
  CvRunner *r = state;
  oracle_opencv_set_threads(r->threads);
  r->data = data;
  r->width = width;
  r->height = height;
  r->stride = stride;
  return 0;
}

static long cv_run(void *state)
{
  CvRunner *r = state;
  long n = oracle_opencv_bench(r->data, r->width, r->height, r->stride,
                               r->connectivity, r->with_stats);
  return n > 0 ? n - 1 : n; /* OpenCV counts the background */
}

static void cv_close(void *state)
{
  oracle_opencv_set_threads(0);
  free(state);
}

const BenchRunner bench_cpu_runners[] = {
    {"cpu", "cpu", "libgpuccl CPU backend, blob table and label image",
     cpu_open_labels, cpu_prepare, cpu_run, NULL, cpu_close, false},
    {"cpu-table", "cpu", "libgpuccl CPU backend, blob table only",
     cpu_open_table, cpu_prepare, cpu_run, NULL, cpu_close, false},
    {"opencv-1t", "cpu",
     "OpenCV connectedComponentsWithStats, cv::setNumThreads(1)", cv_open_1t,
     cv_prepare, cv_run, NULL, cv_close, false},
    {"opencv", "cpu",
     "OpenCV connectedComponentsWithStats, all threads", cv_open_mt,
     cv_prepare, cv_run, NULL, cv_close, false},
    {"opencv-lab-1t", "cpu",
     "OpenCV connectedComponents (labels, no stats), one thread",
     cv_open_labels_1t, cv_prepare, cv_run, NULL, cv_close, false},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false},
};
