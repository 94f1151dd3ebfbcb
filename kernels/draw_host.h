/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overlays drawn on the host (draw_host.c), shared by the backends: a
 * frame in host memory is drawn here whichever backend labeled it, so
 * neither the front nor the CUDA backend reaches into the CPU backend. */
#ifndef GPUCCL_DRAW_HOST_H
#define GPUCCL_DRAW_HOST_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gpuccl_draw_ids() for every backend: the frame is host memory. */
void gpuccl_host_draw_ids(const GpucclResult *last, const GpucclFrame *frame,
                          const GpucclDrawParams *params, const uint32_t *ids);

/* The overlays of `last` drawn into a frame in host memory (the CPU
 * backend's gpuccl_draw, and the CUDA backend's path for host frames
 * without labels). */
GpucclStatus gpuccl_draw_on_host(const GpucclResult *last,
                                 const GpucclFrame *frame,
                                 const GpucclDrawParams *params,
                                 GpucclError *error);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_DRAW_HOST_H */
