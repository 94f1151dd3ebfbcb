/* Helpers of the GPU tests: a CUDA context or a clean skip, and the exact
 * comparison of a CUDA result with the CPU backend's on the same input. */
#ifndef GPUCCL_GPU_CHECK_H
#define GPUCCL_GPU_CHECK_H

#include <stdbool.h>

#include "gpuccl.h"

#define GPU_TEST_SKIP 77 /* meson: skipped */

/* A CUDA context on device 0, or exit(77) with the reason when none is
 * usable. */
GpucclContext *gpu_check_context(void);

/* Process `image` on both contexts and compare everything: status, counts,
 * threshold, every blob field, and the labels when want_labels. Prints the
 * first difference under `name` and returns false on a mismatch. */
bool gpu_check_same(GpucclContext *gpu, GpucclContext *cpu,
                    const GpucclImage *image, const GpucclParams *params,
                    const char *name);

#endif /* GPUCCL_GPU_CHECK_H */
