/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tests' own nearest-blob search, written from gpuccl.h's definition
 * of GpucclNearest (not from the library's code): the oracle of the CUDA
 * backend's search and the input of the tracker's device path. Brute
 * force: centroids rounded to float, (bx - x)^2 + (by - y)^2 with every
 * step in single precision (ISO C: nothing is fused); GPUCCL_NO_BLOB for a
 * tie or when no distance is finite. */
#ifndef GPUCCL_NEAREST_REF_H
#define GPUCCL_NEAREST_REF_H

#include <math.h>
#include <stddef.h>

#include "gpuccl.h"

static inline void nearest_ref(const float *x, const float *y, size_t n,
                               const GpucclBlob *b, size_t nb,
                               GpucclNearest *out)
{
  for (size_t i = 0; i < n; i++) {
    float best = INFINITY;
    uint32_t blob = GPUCCL_NO_BLOB;
    int count = 0;
    for (size_t k = 0; k < nb; k++) {
      float ex = (float)gpuccl_blob_cx(&b[k]) - x[i];
      float ey = (float)gpuccl_blob_cy(&b[k]) - y[i];
      float d2 = ex * ex + ey * ey;
      if (d2 < best) {
        best = d2;
        blob = (uint32_t)k;
        count = 1;
      } else if (d2 == best) {
        count++;
      }
    }
    out[i] = (GpucclNearest){best, best < INFINITY && count == 1 ? blob : GPUCCL_NO_BLOB};
  }
}

#endif /* GPUCCL_NEAREST_REF_H */
