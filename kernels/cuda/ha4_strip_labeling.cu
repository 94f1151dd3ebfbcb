/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 strip labeling (Alg. 3 of Hennequin et al. 2018; Alg. 7 for the
 * 64-pixel variant).
 *
 * A block of 32 x HA4_STRIP_H threads labels a tile of a strip, one warp per
 * row, HA4_TILE_W pixels wide. Unlike the paper's grid-stride loop over the
 * whole row, tiles split each strip in width, so a 2048-wide image gives 8
 * blocks per strip and the GPU fills up; border merging joins the tiles.
 *
 * The equivalence forest of the tile lives in shared memory while the tile
 * is merged (the paper merges in global L): on dense noise the unions form
 * long chains and every atomicMin of a large component hits its root, which
 * in global memory costs an L2 round trip per step. Local addresses are
 * row * HA4_TILE_W + column, in the same raster order as global ones, so the
 * smallest-root rule still makes a tree's root its first pixel.
 *
 * Phase 1 reads every word of the tile row first (independent loads in
 * flight), binarises on the fly (threshold / invert / format fused: no binary
 * image is ever stored, only its bitmask), forms the row bitmasks with
 * __ballot_sync, writes the bitmask image and initialises the tile's labels
 * at the start of each 32-pixel piece of a segment. Phase 2, after a
 * barrier, merges each row with the row above through the bitmasks exchanged
 * in shared memory, only at segment starts. Phase 3, after another barrier,
 * points global L at every piece start straight at its tile root, so border
 * merging and root flags start from trees of depth one. */
#include "ha4_kernels.h"

/* Global address of the local address r of the tile at (x_tile, y0). */
__device__ __forceinline__ uint32_t tile_to_global(const Ha4Frame &f,
                                                   uint32_t r, int x_tile,
                                                   int y0)
{
  return (uint32_t)(y0 + (int)(r / HA4_TILE_W)) * (uint32_t)f.pitch +
         (uint32_t)x_tile + r % HA4_TILE_W;
}

/* One warp's merges in the tile, at most one per lane: each lane finds
 * both roots, and a pair of trees met by several lanes is joined by one of
 * them. A segment overlapping several segments of the row above, already
 * joined, would otherwise send every lane's atomicMin to one address. Called
 * by whole warps. 4-connectivity too: merging straight away there (no finds
 * before the match) measured 30-45 us slower at 2048^2 on dense noise
 * (d >= 50 %) for a few us below (bench/README-gpu.md). */
__device__ __forceinline__ void merge_tile_warp(uint32_t *s_L, bool has,
                                                uint32_t a, uint32_t b)
{
  if (has) {
    a = ha4_find_halving<Ha4Shared>(s_L, a);
    b = ha4_find_halving<Ha4Shared>(s_L, b);
  }
  const unsigned long long key =
      has && a != b ? (unsigned long long)min(a, b) << 32 | max(a, b) : ~0ull;
  const unsigned same = __match_any_sync(HA4_FULL, key);
  if (key != ~0ull && (int)threadIdx.x == __ffs(same) - 1)
    ha4_merge<Ha4Shared>(s_L, a, b);
}

/* One row of a word of the tile for ha4_row_merge: its mask and carry. */
template <typename Mask> struct TileRow {
  Mask mask;
  uint32_t carry;
  __device__ __forceinline__ uint32_t at(int i, uint32_t k) const
  {
    return ha4_segment_start(mask, i, carry, k);
  }
  __device__ __forceinline__ uint32_t left(int i, uint32_t k) const
  {
    return ha4_left_start(mask, i, carry, k);
  }
};

template <GpucclPixelFormat FMT, int P>
__global__ void __launch_bounds__(HA4_BLOCK_W *HA4_STRIP_H)
    ha4_strip_labeling(Ha4Frame f)
{
  typedef typename Ha4Mask<P>::type Mask;
  constexpr int WB = 32 * P;            /* pixels per warp row */
  constexpr int NW = HA4_TILE_W / WB;   /* words per tile row */
  __shared__ Mask s_mask[HA4_STRIP_H][NW];
  __shared__ uint32_t s_carry[HA4_STRIP_H][NW];
  __shared__ uint32_t s_L[HA4_STRIP_H * HA4_TILE_W]; /* piece starts only */

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int y0 = blockIdx.y * HA4_STRIP_H;
  const int y = y0 + ty;
  const int x_tile = blockIdx.x * HA4_TILE_W;
  const bool row_in = y < f.height; /* rows past the end take part with 0 */
  const uint32_t row = (uint32_t)ty * HA4_TILE_W; /* local address of x_tile */
  const int threshold = ha4_threshold(f);

  /* Phase 1a: all loads of the tile row first. */
  unsigned fg[NW];
#pragma unroll
  for (int w = 0; w < NW; w++) {
    fg[w] = 0;
#pragma unroll
    for (int j = 0; j < P; j++)
      fg[w] |= (unsigned)ha4_foreground<FMT>(f, threshold,
                                             x_tile + w * WB + tx * P + j, y)
               << j;
  }

  /* Phase 1b: bitmasks, piece starts, carries. */
  Mask mask[NW];
  uint32_t carry_in[NW];
  uint32_t carry = 0; /* run of set pixels ending at the previous word */
#pragma unroll
  for (int w = 0; w < NW; w++) {
    const int xw = x_tile + w * WB;
    if constexpr (P == 1) {
      mask[w] = __ballot_sync(HA4_FULL, fg[w]);
    } else {
      mask[w] = gpuccl_spread_bits(__ballot_sync(HA4_FULL, fg[w] & 1u)) |
                (gpuccl_spread_bits(__ballot_sync(HA4_FULL, fg[w] >> 1)) << 1);
    }
    carry_in[w] = carry;
#pragma unroll
    for (int j = 0; j < P; j++) {
      const int i = tx * P + j;
      /* A piece starts at a set bit whose left neighbour in the word is
       * clear, or at each 32-bit word boundary: later kernels work per
       * 32-bit word and find the segment through L there. */
      if (ha4_bit(mask[w], i) && ((i & 31) == 0 || !ha4_bit(mask[w], i - 1))) {
        const uint32_t k = row + w * WB + i;
        s_L[k] = ha4_segment_start(mask[w], i, carry, k);
      }
    }
    carry = gpuccl_next_carry64(mask[w], WB, carry);
    if (tx == 0) {
      s_mask[ty][w] = mask[w];
      s_carry[ty][w] = carry_in[w];
    }
    /* Lanes 0..NW-1 write the tile row's words: one coalesced store. */
    if (tx == w && row_in && xw < f.pitch)
      reinterpret_cast<Mask *>(f.bits + (size_t)y * f.words)[xw / WB] = mask[w];
  }

  /* Piece starts and the bitmasks of the row above must be visible (the
   * paper's pseudocode lacks this barrier). */
  __syncthreads();

  /* Phase 2: merge with the row above, at segment starts only. */
  if (ty > 0 && row_in) {
#pragma unroll
    for (int w = 0; w < NW; w++) {
      const Mask my = mask[w], mu = s_mask[ty - 1][w];
      const uint32_t cy = carry_in[w], cu = s_carry[ty - 1][w];
      /* Warp-uniform skip when no rule below can fire (a diagonal can join
       * a segment that ended in the previous word: hence the carries). */
      if (!((my && (mu || (f.conn8 && cu))) || (f.conn8 && mu && cy)))
        continue;
#pragma unroll
      for (int j = 0; j < P; j++) {
        const int i = tx * P + j;
        const uint32_t k = row + w * WB + i, ku = k - HA4_TILE_W;
        const bool by = ha4_bit(my, i), bu = ha4_bit(mu, i);
        const bool ly = i > 0 ? ha4_bit(my, i - 1) : cy > 0;
        const bool lu = i > 0 ? ha4_bit(mu, i - 1) : cu > 0;
        /* The rules are exclusive: one merge per lane, one divergent merge
         * per warp instead of three in turn. */
        uint32_t a = 0, b = 0;
        const bool has = ha4_row_merge(f.conn8, i, k, ku, by, bu, ly, lu,
                                       TileRow<Mask>{my, cy},
                                       TileRow<Mask>{mu, cu}, a, b);
        merge_tile_warp(s_L, has, a, b);
      }
    }
  }

  /* The tile's forest is final. */
  __syncthreads();

  /* Phase 3: global L at every piece start, pointing at the tile root. */
#pragma unroll
  for (int w = 0; w < NW; w++) {
#pragma unroll
    for (int j = 0; j < P; j++) {
      const int i = tx * P + j;
      if (ha4_bit(mask[w], i) && ((i & 31) == 0 || !ha4_bit(mask[w], i - 1))) {
        const uint32_t k = row + w * WB + i;
        uint32_t r = s_L[k];
        for (uint32_t n = s_L[r]; n != r; n = s_L[r])
          r = n;
        f.L[tile_to_global(f, k, x_tile, y0)] =
            tile_to_global(f, r, x_tile, y0);
      }
    }
  }
}

template <GpucclPixelFormat FMT>
static cudaError_t launch_format(const Ha4Frame &f, int p, cudaStream_t stream)
{
  dim3 block(HA4_BLOCK_W, HA4_STRIP_H);
  dim3 grid((f.width + HA4_TILE_W - 1) / HA4_TILE_W,
            (f.height + HA4_STRIP_H - 1) / HA4_STRIP_H);
  if (p == 2)
    ha4_strip_labeling<FMT, 2><<<grid, block, 0, stream>>>(f);
  else
    ha4_strip_labeling<FMT, 1><<<grid, block, 0, stream>>>(f);
  return cudaGetLastError();
}

cudaError_t ha4_launch_strip_labeling(const Ha4Frame &f, int p,
                                      cudaStream_t stream)
{
  switch (f.format) {
  case GPUCCL_PIXEL_U16:
    return launch_format<GPUCCL_PIXEL_U16>(f, p, stream);
  case GPUCCL_PIXEL_PACKED4:
    return launch_format<GPUCCL_PIXEL_PACKED4>(f, p, stream);
  default:
    return launch_format<GPUCCL_PIXEL_U8>(f, p, stream);
  }
}
