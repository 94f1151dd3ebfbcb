/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the front (gpuccl.c, batch.c) checks of a process call's image,
 * parameters and overlay frame before any backend sees them. Each fills *error and returns
 * its status. */
#ifndef GPUCCL_PROCESS_CHECKS_H
#define GPUCCL_PROCESS_CHECKS_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One plane of `rows` rows of row_bytes bytes, `stride` apart from data:
 * the stride holds a row, and the plane fits the address space. `what`
 * names the plane in the message. */
GpucclStatus gpuccl_check_plane(const void *data, size_t stride, size_t rows,
                                size_t row_bytes, const char *what,
                                GpucclError *error);
GpucclStatus gpuccl_check_image(const GpucclImage *image, GpucclError *error);
GpucclStatus gpuccl_check_params(const GpucclParams *params,
                                 GpucclPixelFormat format, GpucclError *error);
/* The caller's parameters of params_size bytes as this library's struct
 * (docs/abi.md): *own holds them, with defaults past the caller's size,
 * and *use points at it (NULL stays NULL: gpuccl_check_params refuses it).
 * A struct from a newer header that sets a field this library does not
 * know is refused. Read parameters' query answers start NULL, so a call
 * that fails or does not answer leaves none. */
GpucclStatus gpuccl_read_params(const GpucclParams *params, size_t params_size,
                                GpucclParams *own, const GpucclParams **use,
                                GpucclError *error);
/* A frame of width x height (those of `whose`) and a line width. */
GpucclStatus gpuccl_check_frame_for(const GpucclFrame *frame,
                                    const GpucclDrawParams *params, int width,
                                    int height, const char *whose,
                                    GpucclError *error);
/* The overlay of gpuccl_process_draw, checked against the image and the
 * parameters of the same call (there is no last result yet). */
GpucclStatus gpuccl_check_overlay(const GpucclImage *image,
                                  const GpucclParams *params,
                                  const GpucclFrame *frame,
                                  const GpucclDrawParams *draw,
                                  GpucclError *error);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_PROCESS_CHECKS_H */
