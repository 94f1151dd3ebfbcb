/* gpuccl-bench runners: one named way of labeling an image, timed by the
 * bench's main loop (gpuccl_bench.c). Each source file contributes one
 * table of runners, ended by an entry whose name is NULL:
 *   bench_cpu_runners  (runners_cpu.c: the CPU backend and OpenCV),
 *   bench_gpu_runners  (a GPU source file, when one is linked in; the table
 *                       is declared weak, so the bench builds without it).
 * A runner belongs to a suite ("cpu", "gpu", ...) that --suite selects. */
#ifndef GPUCCL_BENCH_H
#define GPUCCL_BENCH_H

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
} BenchRunner;

extern const BenchRunner bench_cpu_runners[];
extern const BenchRunner bench_gpu_runners[] __attribute__((weak));
/* runners_algo.cu: the algorithms beside HA4 (BUF, BKE, ...), weak too. */
extern const BenchRunner bench_algo_runners[] __attribute__((weak));

#endif /* GPUCCL_BENCH_H */
