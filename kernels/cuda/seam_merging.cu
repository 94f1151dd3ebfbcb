/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seam merging: HA4's border merging (Alg. 4 of Hennequin et al. 2018),
 * between tiles and on open pieces only: the pixels on the two sides of
 * every seam carry the slot of their open piece (tile labeling wrote them),
 * and touching pairs join their pieces' trees in global memory. A seam
 * pixel repeats its neighbour's pair along a segment; only the first pixel
 * of such a run merges, so a long shared border costs one union. */
#include "tiled_kernels.h"

namespace tile {

/* Whether a and b are known to be joined already: the same piece, or
 * the same parent (trees of open pieces are shallow). Read only, so the
 * common case on dense images sends no atomic to the giant root. */
__device__ __forceinline__ bool joined(const uint32_t *P, uint32_t a,
                                       uint32_t b)
{
  return a == b || GlobalForest::load(P + a) == GlobalForest::load(P + b);
}

__device__ __forceinline__ void join(uint32_t *P, uint32_t a, uint32_t b)
{
  if (b != NONE && !joined(P, a, b))
    merge_roots<GlobalForest>(P, a, b);
}

/* Join across one seam position: `near` is this side's slot, near_prev
 * the one before it, far_* the other side's neighbours (NONE outside or
 * on background). The position before already joined near_prev with
 * far_prev and far (and, 8-connected, the one before far_prev); when near
 * is near_prev, only what is new needs a union. */
__device__ __forceinline__ void merge_across(uint32_t *P, bool conn8,
                                             uint32_t near, uint32_t near_prev,
                                             uint32_t far_prev, uint32_t far,
                                             uint32_t far_next)
{
  if (near == NONE)
    return;
  const bool same = near == near_prev;
  if (!conn8) {
    if (!(same && far == far_prev))
      join(P, near, far);
    return;
  }
  if (!same) {
    join(P, near, far_prev);
    if (far != far_prev)
      join(P, near, far);
  }
  if (far_next != far && !(same && far == NONE && far_next == far_prev))
    join(P, near, far_next);
}

/* One thread per pixel of a seam side: vertical seams first (tile column
 * k - 1's right column against tile column k's left one, the whole image
 * height), then horizontal ones. */
__global__ void seam_merging_kernel(Frame f)
{
  wait_for_previous();
  allow_next();
  const Seams &sm = f.out.seams;
  uint32_t *P = f.out.open.parent;
  /* Under 2^31 seam pixels at GPUCCL_MAX_SIDE: 32-bit indexing. */
  const uint32_t vertical = (uint32_t)(f.tiles_x - 1) * sm.col_len;
  const uint32_t all = vertical + (uint32_t)(f.tiles_y - 1) * sm.row_len;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < all;
       i += gridDim.x * blockDim.x) {
    const bool v = i < vertical;
    const uint32_t j = v ? i : i - vertical;
    const uint32_t len = v ? sm.col_len : sm.row_len;
    const uint32_t k = j / len + 1, at = j % len;
    const uint32_t *near = (v ? sm.right : sm.bottom) + (size_t)(k - 1) * len;
    const uint32_t *far = (v ? sm.left : sm.top) + (size_t)k * len;
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
  return launch_dependent(seam_merging_kernel, blocks, threads, 0, stream, f);
}

} /* namespace tile */
