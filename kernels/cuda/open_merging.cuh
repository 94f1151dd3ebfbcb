/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Open merging: HA4's features (Alg. 6) for the components that cross
 * seams; one block per tile over its own open pieces: every piece adds its
 * partial area, sums and box into its root, and the root keeps the
 * smallest first pixel (raster order) of its pieces. The root lies in the
 * topmost tile row the component reaches: the row of its first pixel, as
 * blob records expects. Who the root is comes from the labeler: seam
 * merging's links (open_pieces.cu) or the forest (forest_tiles.cu). */
#ifndef GPUCCL_OPEN_MERGING_CUH
#define GPUCCL_OPEN_MERGING_CUH

#include "seam_merging.cuh"
#include "tiled_kernels.h"

namespace tile {

/* A block a tile: a thread for each open piece of most tiles of dense
 * noise, so their finds up the seams' trees go out together. */
constexpr int OPEN_THREADS = 256;

/* What a piece adds into its root. */
struct Partial {
  uint32_t area, x0, x1, y1, key;
  unsigned long long sum_x, sum_y;
};

/* Neutral for the additions, minima and maxima below. */
__device__ __forceinline__ Partial no_partial()
{
  return Partial{0, NONE, 0, 0, NONE, 0, 0};
}

__device__ __forceinline__ Partial partial_of(const OpenPieces &o, uint32_t p)
{
  return Partial{o.area[p], o.x0[p], o.x1[p], o.y1[p], o.key[p], o.sum_x[p],
                 o.sum_y[p]};
}

/* The whole warp's partials combined (every lane gets the result). */
__device__ __forceinline__ Partial warp_combine(Partial v)
{
  for (int d = 16; d; d >>= 1) {
    v.area += __shfl_xor_sync(0xffffffffu, v.area, d);
    v.sum_x += __shfl_xor_sync(0xffffffffu, v.sum_x, d);
    v.sum_y += __shfl_xor_sync(0xffffffffu, v.sum_y, d);
    v.x0 = min(v.x0, __shfl_xor_sync(0xffffffffu, v.x0, d));
    v.x1 = max(v.x1, __shfl_xor_sync(0xffffffffu, v.x1, d));
    v.y1 = max(v.y1, __shfl_xor_sync(0xffffffffu, v.y1, d));
    v.key = min(v.key, __shfl_xor_sync(0xffffffffu, v.key, d));
  }
  return v;
}

/* One block's work over tile blockIdx.x; roots(p) is open piece p's root
 * (SeamRoots after seam merging, the forest's otherwise: forest_tiles.cu). */
template <class Roots>
__device__ __forceinline__ void open_merging(const Frame &f, const Roots &roots)
{
  const OpenPieces &o = f.out.open;
  const uint32_t t = blockIdx.x, n = f.out.n_open[t];
  /* The next kernel's look-back, and the next frame's seam merging, start
   * from nothing. */
  if (threadIdx.x == 0 && t < (uint32_t)f.tiles_y)
    f.band_status[t] = 0;
  if (threadIdx.x < seams::TASKS)
    f.seam_arrivals[t * seams::TASKS + threadIdx.x] = 0;
  const uint32_t lane = threadIdx.x & 31;
  const bool counts_roots = f.sums_tiles(); /* for blob records */
  /* Whole warps go round together (the warp sums need them all). */
  for (uint32_t i0 = threadIdx.x - lane; i0 < n; i0 += OPEN_THREADS) {
    const uint32_t i = i0 + lane, p = t * LibraryShape::OPEN_CAP + i;
    uint32_t r = NONE;
    if (i < n)
      r = roots(p);
    if (counts_roots) {
      const uint32_t n_roots = __popc(__ballot_sync(0xffffffffu, r == p));
      if (lane == 0 && n_roots) /* no one waits for it in this kernel */
        atomicAdd(f.out.n_open_roots + t, n_roots);
    }
    bool adds = i < n && r != p; /* a piece to add into its root */
    const unsigned adding = __ballot_sync(0xffffffffu, adds);
    if (!adding)
      continue;
    Partial v = adds ? partial_of(o, p) : no_partial();
    if (adds)
      o.parent[p] = r; /* flat for the label image */
    /* Dense noise sends many pieces of a warp to one giant component:
     * the pieces of the first adding lane's root are combined first, and
     * that lane alone adds them. */
    const int leader = __ffs(adding) - 1;
    const uint32_t r_leader = __shfl_sync(0xffffffffu, r, leader);
    const bool group = adds && r == r_leader;
    if (__popc(__ballot_sync(0xffffffffu, group)) > 1) {
      const Partial sum = warp_combine(group ? v : no_partial());
      if (group) {
        v = sum;
        adds = (int)lane == leader;
      }
    }
    if (adds) {
      atomicAdd(o.area + r, v.area);
      atomicAdd(o.sum_x + r, v.sum_x);
      atomicAdd(o.sum_y + r, v.sum_y);
      atomicMin(o.x0 + r, v.x0);
      atomicMax(o.x1 + r, v.x1);
      atomicMax(o.y1 + r, v.y1);
      atomicMin(o.key + r, v.key);
    }
  }
}

} /* namespace tile */

#endif /* GPUCCL_OPEN_MERGING_CUH */
