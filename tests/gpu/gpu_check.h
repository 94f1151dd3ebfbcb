/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the GPU tests: a CUDA context or a clean skip, and the exact
 * comparison of a CUDA result with the CPU backend's on the same input. */
#ifndef GPUCCL_GPU_CHECK_H
#define GPUCCL_GPU_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "gpuccl.h"
#include "test_check.h" /* EXPECT */

#define GPU_TEST_SKIP 77 /* meson: skipped */

/* A CUDA context on device 0, or exit(77) with the reason when none is
 * usable. */
GpucclContext *gpu_check_context(void);

/* The CPU backend context every GPU test compares with, or exit(1) with
 * the reason (a failure, not a skip: the CPU backend is always there). */
GpucclContext *gpu_check_cpu_context(void);

/* An 8-bit picture (0 background, non-zero foreground) as the wider
 * formats, so the binarisation options see the same foreground plus junk:
 *   u16:     (v << 8) | junk, so threshold 0x7fff splits like 127 on v;
 *   packed4: R = v ? 200 : 40, G = v ? 150 + junk % 100 : junk % 100,
 *            B = junk, A = ~junk (offsets R 0, G 1, B 2), so red at any
 *            threshold in 40..199 and green at 149 split like v;
 * junk = x * 7 + y * 13 + seed (mod 256); rows padded past the pixels. */
typedef struct {
  GpucclImage u8; /* the picture itself */
  GpucclImage u16, packed4;
  uint8_t *buf16, *buf32;
} GpuCheckWide;

/* aborts when out of memory (a test machine fault, not a finding) */
void gpu_check_wide_new(GpuCheckWide *wide, const uint8_t *data, int width,
                        int height, size_t stride, unsigned seed);
void gpu_check_wide_free(GpuCheckWide *wide);

/* Process `image` on both contexts and compare everything: status, counts,
 * threshold, every blob field, and the labels when want_labels. Prints the
 * first difference under `name` and returns false on a mismatch. */
bool gpu_check_same(GpucclContext *gpu, GpucclContext *cpu,
                    const GpucclImage *image, const GpucclParams *params,
                    const char *name);

/* The same with the GPU's own parameters (params but for what belongs to
 * a context, as a background model). */
bool gpu_check_same_params(GpucclContext *gpu, GpucclContext *cpu,
                           const GpucclImage *image,
                           const GpucclParams *gpu_params,
                           const GpucclParams *params, const char *name);

/* Two results of the same image compared field by field (the labels when
 * want_labels); prints the first difference under `name`. */
bool gpu_check_same_result(const GpucclResult *cpu, const GpucclResult *gpu,
                           const GpucclImage *image, bool want_labels,
                           const char *name);

#endif /* GPUCCL_GPU_CHECK_H */
