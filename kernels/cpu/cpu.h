/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU backend pieces shared between its files. */
#ifndef GPUCCL_CPU_H
#define GPUCCL_CPU_H

#include "../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

GpucclStatus gpuccl_cpu_draw(GpucclContext *ctx, const GpucclFrame *frame,
                             const GpucclDrawParams *params, GpucclError *error);

/* gpuccl_draw_ids() for every backend: the frame is host memory. */
void gpuccl_host_draw_ids(const GpucclResult *last, const GpucclFrame *frame,
                          const GpucclDrawParams *params, const uint32_t *ids);

/* The overlays of `last` drawn into a frame in host memory (also the CUDA
 * backend's path for host frames without labels). */
GpucclStatus gpuccl_draw_on_host(const GpucclResult *last,
                                 const GpucclFrame *frame,
                                 const GpucclDrawParams *params,
                                 GpucclError *error);

/* Bits of one PACKED4 row (luma601 > threshold, bit x of word x / 64 =
 * pixel x, bits past the width 0; luma_cpu.c). */
void gpuccl_cpu_luma_bits(const uint8_t *row, int width, int off_r, int off_g,
                          int off_b, int threshold, uint64_t *bits);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_CPU_H */
