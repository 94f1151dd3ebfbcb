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

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_CPU_H */
