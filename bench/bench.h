/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-bench runners: one named way of labeling an image, timed by the
 * bench's main loop (gpuccl_bench.c). Each source file contributes one
 * table of runners, ended by an entry whose name is NULL:
 *   bench_cpu_runners  (runners_cpu.c: the CPU backend and OpenCV),
 *   bench_gpu_runners  (a GPU source file, when one is linked in; the table
 *                       is declared weak, so the bench builds without it).
 * A runner belongs to a suite ("cpu", "gpu", ...) that --suite selects. */
#ifndef GPUCCL_BENCH_H
#define GPUCCL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int width, height;  /* the largest image the runner will be given */
  int connectivity;   /* 4 or 8 */
} BenchSetup;

typedef struct BenchRunner {
  const char *name;  /* short, unique: "cpu", "opencv-1t", "cuda-ha4", ... */
  const char *suite; /* "cpu" or "gpu" */
  const char *what;  /* one line for --list */
  /* State for a run of images, or NULL with the reason in why (the runner
   * is then skipped, e.g. no GPU). */
  void *(*open)(const BenchSetup *setup, char *why, size_t why_size);
  /* Untimed, before the repetitions of one image (upload it, set threads). */
  int (*prepare)(void *state, const uint8_t *data, int width, int height,
                 size_t stride);
  /* Timed: label the prepared image once; the component count, or -1. */
  long (*run)(void *state);
  /* Optional: the device time of the last run in ms (e.g. CUDA events),
   * reported next to the wall time; NULL when the runner has none. */
  double (*device_ms)(void *state);
  void (*close)(void *state);
  /* Its count is of another kind (NPP: every region, background included,
   * or its own label values): reported, never compared with the others. */
  bool own_count;
} BenchRunner;

extern const BenchRunner bench_cpu_runners[];
extern const BenchRunner bench_gpu_runners[] __attribute__((weak));
/* runners_algo.cu: the algorithms beside HA4 (BUF, BKE, ...), weak too. */
extern const BenchRunner bench_algo_runners[] __attribute__((weak));

/* Shared by the bench's modes (gpuccl_bench.c). */
double bench_now_ms(void);
double bench_median(double *values, int n); /* sorts values */
/* name is one of the comma-separated list (a NULL list holds every name) */
bool bench_in_list(const char *list, const char *name);

/* gpuccl-bench --volume (volume_bench.c): the volume API (3D,
 * 26-connectivity) on random volumes, CPU against BUF and BKE 3D. */
typedef struct {
  int (*sizes)[3]; /* width, height, depth */
  int n_sizes;
  const int *densities; /* percent */
  int n_densities;
  const int *granularities;
  int n_granularities;
  int reps, cpu_reps; /* timed runs per volume: GPU, CPU */
  const char *runner_list; /* NULL: all */
  const char *csv_path;    /* NULL: none, "-": stdout */
} BenchVolumeOptions;

/* 0, 1 when a backend disagrees with the CPU or fails, 2 on bad use. */
int bench_volume(const BenchVolumeOptions *options);

#endif /* GPUCCL_BENCH_H */
