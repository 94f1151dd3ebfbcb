/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the HA4 kernels share: the frame they work on, binarisation of the raw
 * samples (fused into the kernels that read the image), and the union-find
 * of the equivalence forest (Alg. 2).
 *
 * Memory layout. Rows of the equivalence array L and of the bitmask image
 * are `pitch` pixels apart, pitch = width rounded up to 64, so a linear
 * address k = y * pitch + x gives its bitmask word as k >> 5 and its bit as
 * k & 31, and raster order of pixels is the order of their addresses. L is
 * written only at segment starts (never cleared); the bitmask image (one bit
 * per pixel, written once per frame by strip labeling) replaces the raw
 * image in every later kernel. */
#ifndef GPUCCL_HA4_COMMON_CUH
#define GPUCCL_HA4_COMMON_CUH

#include <cstddef>
#include <cstdint>

#include "../gpuccl.h"
#include "ha4_bits.h"
#include "tile_common.cuh"

#define HA4_BLOCK_W 32 /* a warp: one row of a strip */
/* Rows per strip: strip labeling merges a whole 256 x 16 tile inside shared
 * memory, so the taller the strip, the fewer unions reach global memory
 * (border merging) and the flatter the global forest; 16 warps and 16 KB of
 * labels per block still leave four blocks per SM. */
#define HA4_STRIP_H 16
#define HA4_TILE_W 256 /* pixels of a strip handled by one block */
#define HA4_FULL 0xffffffffu

/* Device-side view of one frame. Passed by value to every kernel. */
struct Ha4Frame {
  const uint8_t *image; /* raw samples on the device (or mapped host) */
  size_t stride;        /* bytes between image rows */
  int width, height;
  int pitch;            /* pixels between rows of L and bits; % 64 == 0 */
  int words;            /* 32-bit bitmask words per row = pitch / 32 */
  uint32_t *L;          /* equivalence forest, height * pitch */
  uint32_t *bits;       /* foreground bitmask, height * words */
  /* GPUCCL_MODE_SEGMENTS only (forest_kernels.h), NULL in binary mode: laid
   * out like bits, a set bit where a pixel and its left neighbour are both
   * set but differ in value, so a segment piece starts there too. */
  uint32_t *cuts;
  /* binarisation */
  int threshold;           /* used when d_threshold is NULL */
  const int *d_threshold;  /* Otsu's threshold, computed on the device */
  bool invert;
  bool conn8;
  GpucclPixelFormat format;
  uint8_t channel_offset; /* PACKED4 and not luma: byte of the channel */
  bool luma;              /* PACKED4: threshold BT.601 luma */
  uint8_t off_r, off_g, off_b;
  GpucclMotion motion; /* model NULL: the samples are thresholded */
};

/* The sample that is thresholded at (x, y), for a pixel format known at
 * compile time. Caller checks the bounds. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ unsigned ha4_sample(const Ha4Frame &f, int x, int y)
{
  const uint8_t *row = f.image + (size_t)y * f.stride;
  if (FMT == GPUCCL_PIXEL_U8)
    return row[x];
  if (FMT == GPUCCL_PIXEL_U16)
    return reinterpret_cast<const uint16_t *>(row)[x];
  const uint8_t *p = row + 4 * (size_t)x;
  if (f.luma)
    return gpuccl_luma601(p[f.off_r], p[f.off_g], p[f.off_b]);
  return p[f.channel_offset];
}

/* Foreground test; false outside the image, so the last strip and the last
 * tile are masked rather than padded. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ bool ha4_foreground(const Ha4Frame &f, int threshold,
                                               int x, int y)
{
  if (x >= f.width || y >= f.height)
    return false;
  return (ha4_sample<FMT>(f, x, y) > (unsigned)threshold) != f.invert;
}

__device__ __forceinline__ int ha4_threshold(const Ha4Frame &f)
{
  return f.d_threshold ? *f.d_threshold : f.threshold;
}

/* Root of the tree holding `label`, read only (root flags: its final
 * compression store must not race with halving stores). Loads bypass L1:
 * other blocks' atomics land in L2. */
__device__ __forceinline__ uint32_t ha4_find(const uint32_t *L, uint32_t label)
{
  uint32_t next = __ldcg(L + label);
  while (next != label) {
    label = next;
    next = __ldcg(L + label);
  }
  return label;
}

/* The union-find of Alg. 2, in global memory (Ha4Global) or in a block's
 * shared memory (Ha4Shared): one implementation with the tiled pipeline's
 * (tile_common.cuh). Finds halve the path; the smaller root wins. */
typedef tile::GlobalForest Ha4Global;
typedef tile::SharedForest Ha4Shared;

template <class Mem = Ha4Global>
__device__ __forceinline__ uint32_t ha4_find_halving(uint32_t *L, uint32_t x)
{
  return tile::find_root<Mem>(L, x);
}

template <class Mem = Ha4Global>
__device__ __forceinline__ void ha4_merge(uint32_t *L, uint32_t a, uint32_t b)
{
  tile::merge_roots<Mem>(L, a, b);
}

/* Bit i of a mask, as 0 or 1. */
template <typename M>
__device__ __forceinline__ bool ha4_bit(M mask, int i)
{
  return (mask >> i) & 1u;
}

/* Alg. 1 / Alg. 7 start distance for either mask width. */
__device__ __forceinline__ int ha4_start_distance(uint32_t mask, int i)
{
  return gpuccl_start_distance32(mask, i);
}
__device__ __forceinline__ int ha4_start_distance(uint64_t mask, int i)
{
  return gpuccl_start_distance64(mask, i);
}
__device__ __forceinline__ int ha4_end_distance(uint32_t mask, int i)
{
  return gpuccl_end_distance32(mask, i);
}
__device__ __forceinline__ int ha4_end_distance(uint64_t mask, int i)
{
  return gpuccl_end_distance64(mask, i);
}

/* Start address of the segment holding bit i (ha4_bits.h). */
__device__ __forceinline__ uint32_t ha4_segment_start(uint32_t mask, int i,
                                                      uint32_t carry,
                                                      uint32_t k)
{
  return gpuccl_segment_start32(mask, i, carry, k);
}
__device__ __forceinline__ uint32_t ha4_segment_start(uint64_t mask, int i,
                                                      uint32_t carry,
                                                      uint32_t k)
{
  return gpuccl_segment_start64(mask, i, carry, k);
}

/* The same for the pixel left of bit i (that pixel set). */
template <typename M>
__device__ __forceinline__ uint32_t ha4_left_start(M mask, int i,
                                                   uint32_t carry, uint32_t k)
{
  return i == 0 ? k - carry : ha4_segment_start(mask, i - 1, carry, k - 1);
}

/* Which merge joins a row with the row above at bit i (Alg. 3 inside a
 * tile, Alg. 4 across strip borders), at most one: the rules are exclusive
 * (4-adjacency needs both pixels, each diagonal one of them). by / bu: bit
 * i of this row / the row above; ly / lu: the pixel left of it; k / ku:
 * the addresses of bit i in both rows. `y` and `u` give, for either row,
 * at(i, k): the start of the segment (piece) holding bit i at address k,
 * and left(i, k): that of the pixel left of it. Sets the two addresses to
 * merge and returns whether there is a merge. */
template <class Row>
__device__ __forceinline__ bool ha4_row_merge(bool conn8, int i, uint32_t k,
                                              uint32_t ku, bool by, bool bu,
                                              bool ly, bool lu, const Row &y,
                                              const Row &u, uint32_t &a,
                                              uint32_t &b)
{
  bool has = true;
  if (by && bu && (!ly || !lu)) {
    /* 4-adjacency: overlapping segments meet where one of them starts. */
    a = y.at(i, k);
    b = u.at(i, ku);
  } else if (conn8 && by && !ly && lu && !bu) {
    /* Diagonal only: a segment starting right after one that ends in the
     * other row (up-left, then up-right). */
    a = k;
    b = u.left(i, ku);
  } else if (conn8 && bu && !lu && ly && !by) {
    a = ku;
    b = y.left(i, k);
  } else {
    has = false;
  }
  return has;
}

/* Dense id (0-based, raster order) of the component whose root is at
 * address `root`: roots before it, counted per 32-bit word and scanned,
 * plus roots before it inside its word. */
__device__ __forceinline__ uint32_t ha4_component_id(const uint32_t *offset,
                                                     const uint32_t *rootmask,
                                                     uint32_t root)
{
  uint32_t w = root >> 5;
  return offset[w] + __popc(rootmask[w] & ((1u << (root & 31)) - 1u));
}

/* Per-component accumulators (Alg. 6), indexed by dense id. All start at 0
 * (the blob table kernel clears what it read), so no per-frame clear:
 * the left edge is kept as max(width - 1 - x0). */
struct Ha4Features {
  uint32_t *area;
  uint32_t *first_y; /* row of the root = top row (MINy of the paper) */
  uint32_t *max_x, *inv_min_x, *max_y;
  unsigned long long *sum_x, *sum_y;
  uint32_t *value; /* segments mode: each component's value, else NULL */
};

/* Mask type of a variant: P pixels per thread, 32 * P per warp row. */
template <int P> struct Ha4Mask;
template <> struct Ha4Mask<1> { typedef uint32_t type; };
template <> struct Ha4Mask<2> { typedef uint64_t type; };

/* Bit of thread tx that can start a segment (Alg. 7's txb for P = 2). */
__device__ __forceinline__ int ha4_thread_bit(uint32_t mask, int tx)
{
  (void)mask;
  return tx;
}
__device__ __forceinline__ int ha4_thread_bit(uint64_t mask, int tx)
{
  return gpuccl_pair_bit(mask, tx);
}

/* Load one bitmask word of a variant: 32 or 64 pixels. */
template <int P>
__device__ __forceinline__ typename Ha4Mask<P>::type
ha4_load_mask(const uint32_t *bits, size_t word)
{
  if constexpr (P == 1)
    return bits[word];
  else
    return reinterpret_cast<const unsigned long long *>(bits)[word];
}

/* The segment pieces of a bitmask word: the set bits whose left neighbour
 * in the word is clear start one, and so do the cuts in segments mode
 * (cuts NULL otherwise). A piece runs up to the next start or clear bit:
 * its length from start b is ha4_end_distance(mask & ~starts, b). */
template <int P>
__device__ __forceinline__ typename Ha4Mask<P>::type
ha4_piece_starts(typename Ha4Mask<P>::type mask, const uint32_t *cuts,
                 size_t word)
{
  typename Ha4Mask<P>::type starts = mask & ~(mask << 1);
  if (cuts)
    starts |= ha4_load_mask<P>(cuts, word);
  return starts;
}

/* The start of the piece holding set bit b: the highest start <= b. */
__device__ __forceinline__ int ha4_piece_start_bit(uint32_t starts, int b)
{
  return 31 - gpuccl_clz32(starts & (0xffffffffu >> (31 - b)));
}
__device__ __forceinline__ int ha4_piece_start_bit(uint64_t starts, int b)
{
  return 63 - gpuccl_clz64(starts & (~0ull >> (63 - b)));
}

#endif /* GPUCCL_HA4_COMMON_CUH */
