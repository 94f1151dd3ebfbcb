/* HA4 strip labeling (Alg. 3 of Hennequin et al. 2018; Alg. 7 for the
 * 64-pixel variant).
 *
 * A block of 32 x 4 threads labels a tile of a 4-row strip, one warp per
 * row, HA4_TILE_W pixels wide. Unlike the paper's grid-stride loop over the
 * whole row, tiles split each strip in width, so a 2048-wide image gives 8
 * blocks per strip and the GPU fills up; border merging joins the tiles.
 *
 * Phase 1 reads every word of the tile first (independent loads in flight),
 * binarises on the fly (threshold / invert / format fused: no binary image is
 * ever stored, only its bitmask), forms the row bitmasks with __ballot_sync,
 * writes the bitmask image and initialises L at the start of each 32-pixel
 * piece of a segment. Phase 2, after one barrier, merges each row with the
 * row above through the bitmasks exchanged in shared memory, only at
 * segment starts. */
#include "ha4_kernels.h"

template <GpucclPixelFormat FMT, int P>
__global__ void __launch_bounds__(HA4_BLOCK_W *HA4_BLOCK_H)
    ha4_strip_labeling(Ha4Frame f)
{
  typedef typename Ha4Mask<P>::type Mask;
  constexpr int WB = 32 * P;            /* pixels per warp row */
  constexpr int NW = HA4_TILE_W / WB;   /* words per tile row */
  __shared__ Mask s_mask[HA4_BLOCK_H][NW];
  __shared__ uint32_t s_carry[HA4_BLOCK_H][NW];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int y = blockIdx.y * HA4_BLOCK_H + ty;
  const int x_tile = blockIdx.x * HA4_TILE_W;
  const bool row_in = y < f.height; /* rows past the end take part with 0 */
  const uint32_t row = (uint32_t)y * (uint32_t)f.pitch;
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
        const uint32_t k = row + xw + i;
        f.L[k] = ha4_segment_start(mask[w], i, carry, k);
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

  /* L starts and the bitmasks of the row above must be visible (the paper's
   * pseudocode lacks this barrier). Every thread reaches it. */
  __syncthreads();

  if (ty == 0 || !row_in)
    return;

  /* Phase 2: merge with the row above, at segment starts only. */
#pragma unroll
  for (int w = 0; w < NW; w++) {
    const Mask my = mask[w], mu = s_mask[ty - 1][w];
    const uint32_t cy = carry_in[w], cu = s_carry[ty - 1][w];
    /* Warp-uniform skip when no rule below can fire (a diagonal can join a
     * segment that ended in the previous word: hence the carries). */
    if (!((my && (mu || (f.conn8 && cu))) || (f.conn8 && mu && cy)))
      continue;
    const int xw = x_tile + w * WB;
#pragma unroll
    for (int j = 0; j < P; j++) {
      const int i = tx * P + j;
      const uint32_t k = row + xw + i, ku = k - f.pitch;
      const bool by = ha4_bit(my, i), bu = ha4_bit(mu, i);
      const bool ly = i > 0 ? ha4_bit(my, i - 1) : cy > 0;
      const bool lu = i > 0 ? ha4_bit(mu, i - 1) : cu > 0;
      /* 4-adjacency: overlapping segments meet where one of them starts. */
      if (by && bu && (!ly || !lu))
        ha4_merge(f.L, ha4_segment_start(my, i, cy, k),
                  ha4_segment_start(mu, i, cu, ku));
      if (f.conn8) {
        /* Diagonal only: a segment starting right after one that ends in
         * the other row (up-left, then up-right). */
        if (by && !ly && lu && !bu)
          ha4_merge(f.L, k, ha4_left_start(mu, i, cu, ku));
        if (bu && !lu && ly && !by)
          ha4_merge(f.L, ku, ha4_left_start(my, i, cy, k));
      }
    }
  }
}

template <GpucclPixelFormat FMT>
static cudaError_t launch_format(const Ha4Frame &f, int p, cudaStream_t stream)
{
  dim3 block(HA4_BLOCK_W, HA4_BLOCK_H);
  dim3 grid((f.width + HA4_TILE_W - 1) / HA4_TILE_W,
            (f.height + HA4_BLOCK_H - 1) / HA4_BLOCK_H);
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
