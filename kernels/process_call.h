/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The steps around the backend that every process call takes: one copy
 * for gpuccl_process (gpuccl.c) and each image of a batch (batch.c). */
#ifndef GPUCCL_PROCESS_CALL_H
#define GPUCCL_PROCESS_CALL_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before the backend, with params as gpuccl_read_params gave them: the
 * context's last result cleared, the image, parameters, mask and overlay
 * (NULL: none) checked, then the background model's step. Whatever it
 * returns, gpuccl_finish_process follows. */
GpucclStatus gpuccl_prepare_process(GpucclContext *ctx,
                                    const GpucclImage *image,
                                    const GpucclParams *params,
                                    const GpucclOverlay *overlay,
                                    GpucclError *error);
/* After the backend (or a failed gpuccl_prepare_process): the background
 * model's step kept or undone, and on failure no last result, intensities
 * or query answers left. */
void gpuccl_finish_process(GpucclContext *ctx, const GpucclParams *params,
                           GpucclStatus status);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_PROCESS_CALL_H */
