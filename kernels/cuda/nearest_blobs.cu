/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The nearest blob of each query point (a tracker's predictions), beside
 * the blob table, so the tracker on the host starts from every track's
 * nearest blob instead of sorting the blobs into a grid and searching it.
 *
 * Brute force, one warp per query: a block stages the table's centroids as
 * floats in shared memory, tile after tile, and each lane keeps the nearest
 * of the blobs it visits. A thousand queries against a thousand blobs is a
 * million distances, a few microseconds; GPUCCL_NEAREST_MAX_PAIRS bounds it.
 *
 * The distances must be bit-identical to the host tracker's (kernels/
 * track.c), which orders pairs by them: centroids rounded to float, then
 * (bx - x)^2 + (by - y)^2 with every step rounded and nothing fused. */
#include "../backend.h" /* GPUCCL_NEAREST_MAX_PAIRS */
#include "ha4_kernels.h"

#define NEAREST_WARPS 8    /* queries per block */
#define NEAREST_TILE 1024  /* centroids staged at a time (8 KB) */

__global__ void __launch_bounds__(NEAREST_WARPS * 32)
    nearest_blobs(const GpucclBlob *blobs, const uint32_t *n_blobs,
                  const float *query_x, const float *query_y,
                  uint32_t n_queries, GpucclNearest *out)
{
  __shared__ float2 tile[NEAREST_TILE];
  const uint32_t n = *n_blobs;
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t q = blockIdx.x * NEAREST_WARPS + threadIdx.x / 32;
  const bool active = q < n_queries;
  /* The host drops the answer past the bound; spare the work too
   * (block-uniform, before any barrier). */
  if ((uint64_t)n * n_queries > GPUCCL_NEAREST_MAX_PAIRS)
    return;

  const float x = active ? query_x[q] : 0.0f;
  const float y = active ? query_y[q] : 0.0f;
  float best = INFINITY;
  uint32_t blob = GPUCCL_NO_BLOB;
  bool tie = false; /* best was met twice in this lane */
  for (uint32_t base = 0; base < n; base += NEAREST_TILE) {
    const uint32_t len = min(n - base, (uint32_t)NEAREST_TILE);
    __syncthreads(); /* the previous tile is read */
    for (uint32_t i = threadIdx.x; i < len; i += blockDim.x)
      tile[i] = make_float2(__double2float_rn(gpuccl_blob_cx(&blobs[base + i])),
                            __double2float_rn(gpuccl_blob_cy(&blobs[base + i])));
    __syncthreads();
    for (uint32_t i = lane; i < len; i += 32) {
      const float ex = __fsub_rn(tile[i].x, x), ey = __fsub_rn(tile[i].y, y);
      const float d2 = __fadd_rn(__fmul_rn(ex, ex), __fmul_rn(ey, ey));
      tie = d2 < best ? false : tie | (d2 == best); /* NaN: neither */
      if (d2 < best) {
        best = d2;
        blob = base + i;
      }
    }
  }

  /* The warp's nearest, and whether it is unique. */
  float m = best;
  for (int o = 16; o > 0; o /= 2)
    m = fminf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const unsigned at = __ballot_sync(0xffffffffu, best == m);
  const int first = __ffs(at) - 1;
  const bool tied = __popc(at) > 1 || __shfl_sync(0xffffffffu, (int)tie, first);
  const uint32_t nearest = __shfl_sync(0xffffffffu, blob, first);
  if (active && lane == 0)
    out[q] = GpucclNearest{m, m < INFINITY && !tied ? nearest : GPUCCL_NO_BLOB};
}

cudaError_t ha4_launch_nearest_blobs(const GpucclBlob *blobs,
                                     const uint32_t *n_blobs,
                                     const float *query_x,
                                     const float *query_y, uint32_t n_queries,
                                     GpucclNearest *out, cudaStream_t stream)
{
  const unsigned grid = (n_queries + NEAREST_WARPS - 1) / NEAREST_WARPS;
  nearest_blobs<<<grid, NEAREST_WARPS * 32, 0, stream>>>(
      blobs, n_blobs, query_x, query_y, n_queries, out);
  return cudaGetLastError();
}
