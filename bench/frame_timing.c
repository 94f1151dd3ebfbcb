/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process timed frame after frame, and the benches' shared command
 * line (frame_timing.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup */

#include "frame_timing.h"

#ifdef GPUCCL_HAVE_CUDA
#include "cuda/cuda_internal.h" /* gpuccl_cuda_kernel_ms */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double frame_timing_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double frame_timing_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : -1.0;
}

int frame_timing_run(GpucclContext *ctx, const GpucclParams *p, int warm,
                     int n, FrameAt frame_at, const void *user,
                     const char *name, FrameTiming *out)
{
  double *wall = malloc(sizeof(double) * (n > 0 ? n : 1));
  double *kern = malloc(sizeof(double) * (n > 0 ? n : 1));
  double blobs = 0;
  int status = !wall || !kern;
  for (int i = 0; i < warm + n && !status; i++) {
    const GpucclImage im = frame_at(i, user);
    GpucclResult r;
    GpucclError err;
    const double t0 = frame_timing_now_ms();
    if (gpuccl_process(ctx, &im, p, &r, &err) != GPUCCL_OK) {
      fprintf(stderr, "%s: %s\n", name, err.message);
      status = 1;
      break;
    }
    const double t1 = frame_timing_now_ms();
    if (i < warm)
      continue;
    wall[i - warm] = t1 - t0;
    kern[i - warm] = -1.0;
#ifdef GPUCCL_HAVE_CUDA
    kern[i - warm] = gpuccl_cuda_kernel_ms(ctx);
#endif
    blobs += (double)r.n_blobs;
  }
  if (!status) {
    out->wall_ms = frame_timing_median(wall, n);
    out->kernel_ms = frame_timing_median(kern, n);
    out->blobs = n ? blobs / n : 0;
  }
  free(wall);
  free(kern);
  return status;
}

void frame_timing_print(const FrameTiming *t, const FrameTiming *base)
{
  printf(" %8.3f ms/frame  x%.3f", t->wall_ms, t->wall_ms / base->wall_ms);
  if (t->kernel_ms >= 0)
    printf("  kernels %8.4f ms  x%.3f", t->kernel_ms,
           t->kernel_ms / base->kernel_ms);
  printf("  %.1f blobs\n", t->blobs);
}

bool frame_bench_option(FrameBenchArgs *a, int argc, char **argv, int *i)
{
  if (*i + 1 >= argc)
    return false;
  const char *word = argv[*i], *value = argv[*i + 1];
  if (!strcmp(word, "--sizes"))
    a->sizes = value;
  else if (!strcmp(word, "--frames"))
    a->n_frames = atoi(value) > 0 ? atoi(value) : 1;
  else if (!strcmp(word, "--backend"))
    a->backends = value;
  else
    return false;
  ++*i;
  return true;
}

int frame_bench_backends(const FrameBenchArgs *a, GpucclBackend out[2])
{
  int n = 0;
  if (!a->backends || strstr(a->backends, "cpu"))
    out[n++] = GPUCCL_BACKEND_CPU;
  if (a->backends ? strstr(a->backends, "cuda") != NULL
                  : gpuccl_cuda_available(0, NULL))
    out[n++] = GPUCCL_BACKEND_CUDA;
  return n;
}

GpucclContext *frame_bench_context(GpucclBackend backend, int w, int h)
{
  GpucclError err;
  GpucclContext *ctx = gpuccl_context_new(backend, 0, &err);
  if (!ctx)
    printf("%dx%d %-4s: not available (%s)\n", w, h,
           gpuccl_backend_name(backend), err.message);
#ifdef GPUCCL_HAVE_CUDA
  gpuccl_cuda_time_kernels(ctx, true); /* the device time reported */
#endif
  return ctx;
}

int frame_bench_each_size(const FrameBenchArgs *a, int min_side,
                          int (*bench)(int w, int h, void *user),
                          void *user)
{
  char *list = strdup(a->sizes);
  int status = !list;
  for (char *tok = list ? strtok(list, ",") : NULL; tok && !status;
       tok = strtok(NULL, ",")) {
    int w, h;
    if (sscanf(tok, "%dx%d", &w, &h) != 2 || w < min_side || h < min_side ||
        w > GPUCCL_MAX_SIDE || h > GPUCCL_MAX_SIDE) {
      fprintf(stderr, "bad size %s\n", tok);
      status = 2;
    } else {
      status = bench(w, h, user);
    }
  }
  free(list);
  return status;
}
