/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Timing gpuccl_process frame after frame, shared by gpuccl-motion-bench
 * and gpuccl-options-bench: host wall time around each call and, on CUDA,
 * the library's kernel time; medians of the timed frames. Also the
 * command line the two share: sizes, frames and backends. */
#ifndef GPUCCL_FRAME_TIMING_H
#define GPUCCL_FRAME_TIMING_H

#include "gpuccl.h"

#include <stdbool.h>

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

/* The options every frame bench takes, for its usage line. */
#define FRAME_BENCH_USAGE                                                      \
  "[--sizes WxH[,WxH...]] [--frames N] [--backend cpu|cuda[,...]]"

typedef struct {
  const char *sizes;    /* "WxH[,WxH...]" */
  int n_frames;         /* timed frames; --frames below 1 gives 1 */
  const char *backends; /* --backend as given; NULL: cpu, and cuda when
                         * usable */
} FrameBenchArgs;

/* argv[*i] if it is one of the shared options: its value taken into *a,
 * *i moved onto the value, true; false for any other word. */
bool frame_bench_option(FrameBenchArgs *a, int argc, char **argv, int *i);

/* The backends the arguments ask for, in the order to run them: how many
 * were put in out. */
int frame_bench_backends(const FrameBenchArgs *a, GpucclBackend out[2]);

/* bench(w, h, user) for each size of a->sizes (sides from min_side to
 * GPUCCL_MAX_SIDE) until one returns non-zero: its status, or 2 after
 * printing a bad size. */
int frame_bench_each_size(const FrameBenchArgs *a, int min_side,
                          int (*bench)(int w, int h, void *user),
                          void *user);

/* A context of `backend` for the w x h runs, or NULL after printing that
 * the backend is not available there (not a failure of the bench). */
GpucclContext *frame_bench_context(GpucclBackend backend, int w, int h);

/* "  %8.3f ms/frame  x<ratio>" of t against base, the kernels' time and
 * ratio when known, then the blobs and the line's end. */
void frame_timing_print(const FrameTiming *t, const FrameTiming *base);

#endif /* GPUCCL_FRAME_TIMING_H */
