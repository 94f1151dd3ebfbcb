/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process timed frame after frame (frame_timing.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "frame_timing.h"

#ifdef GPUCCL_HAVE_CUDA
#include "cuda/cuda_internal.h" /* gpuccl_cuda_kernel_ms */
#endif

#include <stdio.h>
#include <stdlib.h>
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
