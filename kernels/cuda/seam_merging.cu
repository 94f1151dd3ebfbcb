/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seam merging: HA4's border merging (Alg. 4 of Hennequin et al. 2018),
 * between tiles and on open pieces only: the pixels on the two sides of
 * every seam carry the slot of their open piece (tile labeling wrote them),
 * and touching pairs join their pieces' trees in global memory. A seam
 * pixel repeats its neighbour's pair along a segment; only the first pixel
 * of such a run merges, so a long shared border costs one union. */
#include "tiled_kernels.h"

namespace tile {

/* Join across one seam position: `near` is this side's slot, far[i - 1],
 * far[i], far[i + 1] the other side's neighbours (NONE outside). */
__device__ __forceinline__ void merge_across(uint32_t *P, bool conn8,
                                             uint32_t near, uint32_t near_prev,
                                             uint32_t far_prev, uint32_t far,
                                             uint32_t far_next)
{
  if (near == NONE)
    return;
  if (far != NONE && !(near == near_prev && far == far_prev))
    merge_roots<GlobalForest>(P, near, far);
  if (conn8) {
    /* Diagonal neighbours that the straight pair does not already hold. */
    if (far_prev != NONE && far_prev != far)
      merge_roots<GlobalForest>(P, near, far_prev);
    if (far_next != NONE && far_next != far)
      merge_roots<GlobalForest>(P, near, far_next);
  }
}

/* One thread per pixel of a seam side: vertical seams first (tile column
 * k - 1's right column against tile column k's left one, the whole image
 * height), then horizontal ones. */
__global__ void seam_merging_kernel(Frame f)
{
  const Seams &sm = f.out.seams;
  uint32_t *P = f.out.open.parent;
  const size_t vertical = (size_t)(f.tiles_x - 1) * sm.col_len;
  const size_t horizontal = (size_t)(f.tiles_y - 1) * sm.row_len;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
       i < vertical + horizontal; i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t *near, *far;
    int at, len;
    if (i < vertical) {
      const int k = (int)(i / sm.col_len) + 1;
      at = (int)(i % sm.col_len);
      len = sm.col_len;
      near = sm.right + (size_t)(k - 1) * sm.col_len;
      far = sm.left + (size_t)k * sm.col_len;
    } else {
      const size_t j = i - vertical;
      const int k = (int)(j / sm.row_len) + 1;
      at = (int)(j % sm.row_len);
      len = sm.row_len;
      near = sm.bottom + (size_t)(k - 1) * sm.row_len;
      far = sm.top + (size_t)k * sm.row_len;
    }
    merge_across(P, f.conn8, near[at], at ? near[at - 1] : NONE,
                 at ? far[at - 1] : NONE, far[at],
                 at + 1 < len ? far[at + 1] : NONE);
  }
}

cudaError_t launch_seam_merging(const Frame &f, cudaStream_t stream)
{
  const Seams &sm = f.out.seams;
  const size_t n = (size_t)(f.tiles_x - 1) * sm.col_len +
                   (size_t)(f.tiles_y - 1) * sm.row_len;
  if (n == 0)
    return cudaSuccess;
  const int threads = 256;
  const int blocks = (int)std::min<size_t>((n + threads - 1) / threads, 65535);
  seam_merging_kernel<<<blocks, threads, 0, stream>>>(f);
  return cudaGetLastError();
}

} /* namespace tile */
