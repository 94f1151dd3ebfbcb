/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Timing gpuccl_process frame after frame, shared by gpuccl-motion-bench
 * and gpuccl-options-bench: host wall time around each call and, on CUDA,
 * the library's kernel time; medians of the timed frames. */
#ifndef GPUCCL_FRAME_TIMING_H
#define GPUCCL_FRAME_TIMING_H

#include "gpuccl.h"

typedef struct {
  double wall_ms, kernel_ms; /* medians; kernel_ms -1 without CUDA */
  double blobs;              /* mean blobs per timed frame */
} FrameTiming;

/* A monotonic clock in ms, and the median of n values (sorts them; -1
 * when n is 0). */
double frame_timing_now_ms(void);
double frame_timing_median(double *values, int n);

/* Frame i's image (i counts the untimed frames too). */
typedef GpucclImage (*FrameAt)(int i, const void *user);

/* `warm` untimed frames, then n timed ones, with params p on ctx; 0, or 1
 * after printing the failure under `name`. */
int frame_timing_run(GpucclContext *ctx, const GpucclParams *p, int warm,
                     int n, FrameAt frame_at, const void *user,
                     const char *name, FrameTiming *out);

#endif /* GPUCCL_FRAME_TIMING_H */
