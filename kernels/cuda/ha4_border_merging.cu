/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 border merging (Alg. 4 of Hennequin et al. 2018), extended to the
 * borders this library adds: strip labeling works on tiles of HA4_TILE_W
 * pixels, so besides the horizontal borders between 4-row strips the
 * vertical borders between tiles are joined here too, and 8-connectivity
 * adds the diagonal neighbours.
 *
 * Horizontal borders: one warp per 32-bit word of the first row of each
 * strip (every HA4_STRIP_H rows), reading the bitmask image (not the raw pixels again); merges only
 * at segment starts, as in the paper. The pixel left of bit 0 comes from the
 * previous word, whose piece start holds a valid L entry.
 * Vertical borders: one thread per (row, tile border), in blocks of their
 * own. */
#include "ha4_kernels.h"

#define BORDER_WARPS 4 /* warps per block: words of one border */

/* Address of the start of the 32-bit piece holding the set pixel at
 * address kj, bit j of `mask`; j = -1 is bit 31 of `prev`, the word to the
 * left. Piece starts hold valid L entries (strip labeling). */
__device__ __forceinline__ uint32_t piece_start(uint32_t mask, uint32_t prev,
                                                int j, uint32_t kj)
{
  if (j < 0)
    return kj - gpuccl_start_distance32(prev, 31);
  return kj - gpuccl_start_distance32(mask, j);
}

/* One warp's merges, at most one per lane: merged as parents (a piece
 * start points at its tile root), and a pair of trees met by several lanes
 * is merged once. On dense noise most lanes of a border word join the same
 * two tile trees, and every merge walks to the same hot roots in L2. */
__device__ __forceinline__ void merge_warp(uint32_t *L, bool has, uint32_t a,
                                           uint32_t b)
{
  const uint32_t pa = has ? __ldcg(L + a) : 0u;
  const uint32_t pb = has ? __ldcg(L + b) : 0u;
  const unsigned long long key =
      has ? (unsigned long long)min(pa, pb) << 32 | max(pa, pb) : ~0ull;
  const unsigned same = __match_any_sync(HA4_FULL, key);
  if (has && pa != pb && (int)threadIdx.x == __ffs(same) - 1)
    ha4_merge(L, pa, pb);
}

/* One word of a border row for ha4_row_merge: its mask and the word to its
 * left. */
struct BorderRow {
  uint32_t mask, prev;
  __device__ __forceinline__ uint32_t at(int i, uint32_t k) const
  {
    return piece_start(mask, prev, i, k);
  }
  __device__ __forceinline__ uint32_t left(int i, uint32_t k) const
  {
    return piece_start(mask, prev, i - 1, k - 1);
  }
};

/* One merge per lane at most (ha4_row_merge). Called by whole warps. */
__device__ void merge_strip_border(const Ha4Frame &f, int w, int y)
{
  const int i = threadIdx.x;
  const size_t wy = (size_t)y * f.words + w, wu = wy - f.words;
  const uint32_t my = f.bits[wy], mu = f.bits[wu];
  const uint32_t py = w > 0 ? f.bits[wy - 1] : 0u;
  const uint32_t pu = w > 0 ? f.bits[wu - 1] : 0u;
  const uint32_t k = (uint32_t)y * f.pitch + w * 32 + i, ku = k - f.pitch;
  const bool by = (my >> i) & 1u, bu = (mu >> i) & 1u;
  const bool ly = i > 0 ? (my >> (i - 1)) & 1u : py >> 31;
  const bool lu = i > 0 ? (mu >> (i - 1)) & 1u : pu >> 31;
  uint32_t a = 0, b = 0;
  const bool has = ha4_row_merge(f.conn8, i, k, ku, by, bu, ly, lu,
                                 BorderRow{my, py}, BorderRow{mu, pu}, a, b);
  merge_warp(f.L, has, a, b);
}

__device__ void merge_tile_border(const Ha4Frame &f, int y, int x)
{
  const int w = x >> 5; /* x is a multiple of HA4_TILE_W: bit 0 of word w */
  const size_t wy = (size_t)y * f.words + w;
  const uint32_t my = f.bits[wy], py = f.bits[wy - 1];
  const uint32_t k = (uint32_t)y * f.pitch + x;
  if ((my & 1u) && (py >> 31))
    ha4_merge(f.L, k, piece_start(my, py, -1, k - 1));
  if (f.conn8 && y > 0) {
    const uint32_t mu = f.bits[wy - f.words], pu = f.bits[wy - f.words - 1];
    const uint32_t ku = k - f.pitch;
    if ((my & 1u) && (pu >> 31))
      ha4_merge(f.L, k, piece_start(mu, pu, -1, ku - 1));
    if ((mu & 1u) && (py >> 31))
      ha4_merge(f.L, ku, piece_start(my, py, -1, k - 1));
  }
}

/* Blocks [0, n_h): BORDER_WARPS words of one horizontal border each; the
 * rest: one thread per (row, tile border). The vertical borders get a grid
 * of their own: their merges are chains of dependent L2 round trips, and a
 * few threads looping over all rows left most of the GPU idle. */
__global__ void __launch_bounds__(HA4_BLOCK_W *BORDER_WARPS)
    ha4_border_merging(Ha4Frame f, int blocks_per_border, int n_h,
                       int n_tile_borders)
{
  const int block = blockIdx.x;
  if (block < n_h) {
    const int w = (block % blocks_per_border) * BORDER_WARPS + threadIdx.y;
    const int y = (block / blocks_per_border + 1) * HA4_STRIP_H;
    if (w < f.words)
      merge_strip_border(f, w, y);
    return;
  }
  const long t = (long)(block - n_h) * blockDim.x * blockDim.y +
                 threadIdx.y * blockDim.x + threadIdx.x;
  if (t < (long)n_tile_borders * f.height)
    merge_tile_border(f, (int)(t / n_tile_borders),
                      (int)(t % n_tile_borders + 1) * HA4_TILE_W);
}

cudaError_t ha4_launch_border_merging(const Ha4Frame &f, int sm_count,
                                      cudaStream_t stream)
{
  const int n_borders = (f.height - 1) / HA4_STRIP_H;
  const int n_tile_borders = (f.width - 1) / HA4_TILE_W;
  if (n_borders == 0 && n_tile_borders == 0)
    return cudaSuccess;
  (void)sm_count;
  const int threads = HA4_BLOCK_W * BORDER_WARPS;
  const int blocks_per_border = (f.words + BORDER_WARPS - 1) / BORDER_WARPS;
  const int n_h = n_borders * blocks_per_border;
  const long n_v = ((long)n_tile_borders * f.height + threads - 1) / threads;
  dim3 block(HA4_BLOCK_W, BORDER_WARPS);
  ha4_border_merging<<<(unsigned)(n_h + n_v), block, 0, stream>>>(
      f, blocks_per_border, n_h, n_tile_borders);
  return cudaGetLastError();
}
