/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The blob filters of GpucclParams (min/max area, max_blobs), applied to a
 * complete blob table in increasing id. Shared by the backends that build
 * the table on the host. */
#ifndef GPUCCL_BLOB_SELECT_H
#define GPUCCL_BLOB_SELECT_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Keep the blobs of blobs[0..n) whose area is in [min_area, max_area]
 * (max_area 0: no upper limit); then, if max_blobs is set and more are left,
 * only the max_blobs largest (equal areas: the smaller id wins). The kept
 * blobs are moved to the front, still in increasing id, and values[i]
 * (segments mode; NULL otherwise) with blobs[i]; returns how many.
 * A crossed range (min_area > max_area > 0) keeps none.
 * scratch: params->max_blobs entries (unused when max_blobs is 0). */
size_t gpuccl_select_blobs(GpucclBlob *blobs, uint32_t *values, size_t n,
                           const GpucclParams *params, uint64_t *scratch);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_BLOB_SELECT_H */
