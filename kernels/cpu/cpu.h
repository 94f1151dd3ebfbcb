/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU backend pieces shared between its files. */
#ifndef GPUCCL_CPU_H
#define GPUCCL_CPU_H

#include "../backend.h"

GpucclStatus gpuccl_cpu_draw(GpucclContext *ctx, const GpucclFrame *frame,
                             const GpucclDrawParams *params, GpucclError *error);

/* gpuccl_draw_ids() for every backend: the frame is host memory. */
void gpuccl_host_draw_ids(const GpucclResult *last, const GpucclFrame *frame,
                          const GpucclDrawParams *params, const uint32_t *ids);

#endif /* GPUCCL_CPU_H */
