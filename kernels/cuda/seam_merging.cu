/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seam merging: HA4's border merging (Alg. 4 of Hennequin et al. 2018),
 * between tiles and on open pieces only: the pixels on the two sides of
 * every seam carry the slot of their open piece (tile labeling wrote them),
 * and touching pairs join their pieces' trees in global memory. A seam
 * pixel repeats its neighbour's pair along a segment; only the first pixel
 * of such a run merges, so a long shared border costs one union. */
#include "tiled_kernels.h"

namespace tile {

/* Unless a and b are known to be joined already (the same piece, or the
 * same parent: trees of open pieces are shallow), their union, from the
 * parents read for that check. Read only in the common case on dense
 * images, so that sends no atomic to the giant root. */
__device__ __forceinline__ void join(uint32_t *P, uint32_t a, uint32_t b)
{
  if (b == NONE || a == b)
    return;
  const uint32_t pa = GlobalForest::load(P + a);
  const uint32_t pb = GlobalForest::load(P + b);
  if (pa != pb)
    merge_roots_from<GlobalForest>(P, a, pa, b, pb);
}

/* The pieces to join with `near` across one seam position (NONE: no
 * union): near_prev is this side's slot before it, far_* the other side's
 * neighbours (NONE outside or on background). The position before already
 * joined near_prev with far_prev and far (and, 8-connected, the one before
 * far_prev); when near is near_prev, only what is new needs a union. */
struct SeamPairs {
  uint32_t other[3];
};

__device__ __forceinline__ SeamPairs pairs_across(bool conn8, uint32_t near,
                                                  uint32_t near_prev,
                                                  uint32_t far_prev,
                                                  uint32_t far,
                                                  uint32_t far_next)
{
  SeamPairs p = {{NONE, NONE, NONE}};
  if (near == NONE)
    return p;
  const bool same = near == near_prev;
  if (!conn8) {
    if (!(same && far == far_prev))
      p.other[0] = far;
    return p;
  }
  if (!same) {
    p.other[0] = far_prev;
    if (far != far_prev)
      p.other[1] = far;
  }
  if (far_next != far && !(same && far == NONE && far_next == far_prev))
    p.other[2] = far_next;
  return p;
}

/* The unions of one position. 8-connected, a warp's positions mostly pair
 * the same two pieces (on dense images the giant component's, broken by
 * gaps), and only the first lane of each pair joins them; 4-connected, the
 * repeats are neighbouring positions, which pairs_across already drops,
 * and the match costs more than it saves (docs/benchmarks.md). Called by
 * whole warps. */
template <bool CONN8>
__device__ __forceinline__ void join_pairs(uint32_t *P, uint32_t here,
                                           const SeamPairs &p, uint32_t lane)
{
  if constexpr (!CONN8) {
    join(P, here, p.other[0]);
  } else {
    for (int k = 0; k < 3; k++) {
      if (!__any_sync(0xffffffffu, p.other[k] != NONE))
        continue;
      const unsigned peers = __match_any_sync(
          0xffffffffu, (unsigned long long)here << 32 | p.other[k]);
      if (p.other[k] != NONE && lane == (uint32_t)__ffs(peers) - 1)
        join(P, here, p.other[k]);
    }
  }
}

/* One side of a seam: the slots a tile labeling wrote along it. A tile
 * without open pieces wrote none, and each of its pixels reads as NONE;
 * so does any position outside the seam. */
struct SeamSide {
  const uint32_t *slot, *n_open;
  uint32_t len;         /* positions along the seam */
  uint32_t tile0, step; /* tile of position 0; tiles further per tile */
  uint32_t per_tile;    /* positions per tile */

  __device__ __forceinline__ uint32_t operator()(uint32_t at) const
  {
    if (at >= len || !n_open[tile0 + at / per_tile * step])
      return NONE;
    return slot[at];
  }
};

/* One thread per pixel of a seam side: vertical seams first (tile column
 * k - 1's right column against tile column k's left one, the whole image
 * height), then horizontal ones; whole warps go round together
 * (join_pairs). */
template <bool CONN8> __global__ void seam_merging_kernel(Frame f)
{
  wait_for_previous();
  allow_next();
  const Seams &sm = f.out.seams;
  const uint32_t lane = threadIdx.x & 31;
  uint32_t *P = f.out.open.parent;
  const uint32_t *n_open = f.out.n_open, tiles_x = f.tiles_x;
  /* Under 2^31 seam pixels at GPUCCL_MAX_SIDE: 32-bit indexing. */
  const uint32_t vertical = (tiles_x - 1) * sm.col_len;
  const uint32_t all = vertical + (uint32_t)(f.tiles_y - 1) * sm.row_len;
  for (uint32_t i0 = blockIdx.x * blockDim.x + threadIdx.x - lane; i0 < all;
       i0 += gridDim.x * blockDim.x) {
    const uint32_t i = i0 + lane;
    SeamSide near, far;
    uint32_t at;
    if (i < vertical) {
      const uint32_t k = i / sm.col_len + 1, len = sm.col_len;
      at = i % len;
      near = {sm.right + (size_t)(k - 1) * len, n_open, len, k - 1, tiles_x,
              LibraryShape::H};
      far = {sm.left + (size_t)k * len, n_open, len, k, tiles_x,
             LibraryShape::H};
    } else {
      const uint32_t j = i - vertical, len = sm.row_len;
      const uint32_t k = j / len + 1;
      at = j % len;
      near = {sm.bottom + (size_t)(k - 1) * len, n_open, len,
              (k - 1) * tiles_x, 1, LibraryShape::W};
      far = {sm.top + (size_t)k * len, n_open, len, k * tiles_x, 1,
             LibraryShape::W};
    }
    const uint32_t here = i < all ? near(at) : NONE;
    SeamPairs p = {{NONE, NONE, NONE}};
    if (here != NONE)
      p = pairs_across(CONN8, here, near(at - 1), far(at - 1), far(at),
                       far(at + 1));
    join_pairs<CONN8>(P, here, p, lane);
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
  return launch_dependent(f.conn8 ? seam_merging_kernel<true>
                                  : seam_merging_kernel<false>,
                          blocks, threads, 0, stream, f);
}

} /* namespace tile */
