/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernels on HA4's segment forest share (the forest labelers, the
 * segment tail, Otsu): the frame they work on, binarisation of the raw
 * samples, and the union-find of the equivalence forest (Alg. 2).
 *
 * Memory layout. Rows of the equivalence array L and of the bitmask image
 * are `pitch` pixels apart, pitch = width rounded up to 64, so a linear
 * address k = y * pitch + x gives its bitmask word as k >> 5 and its bit as
 * k & 31, and raster order of pixels is the order of their addresses. L is
 * written only at segment starts (never cleared); the bitmask image (one bit
 * per pixel, written once per frame by forest_bitmask.cu) replaces the raw
 * image in every later kernel. */
#ifndef GPUCCL_HA4_COMMON_CUH
#define GPUCCL_HA4_COMMON_CUH

#include <cstddef>
#include <cstdint>

#include "../gpuccl.h"
#include "ha4_bits.h"
#include "tile_common.cuh"

#define HA4_BLOCK_W 32 /* a warp: the 32 pixels of a bitmask word */
#define HA4_FULL 0xffffffffu

/* The pitch of a frame `width` pixels wide (see the memory layout). */
constexpr int ha4_pitch(int width)
{
  return (width + 63) & ~63;
}

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

/* f's samples and binarisation into im, as tile labeling reads them
 * (tile_samples.cuh), field by field: the rest of im (background model,
 * mask) and its padding are the caller's. */
inline void set_tile_samples(tile::Image &im, const Ha4Frame &f)
{
  im.data = f.image;
  im.stride = f.stride;
  im.width = f.width;
  im.height = f.height;
  im.format = f.format;
  im.threshold = f.threshold;
  im.d_threshold = f.d_threshold;
  im.invert = f.invert;
  im.luma = f.luma;
  im.channel_offset = f.channel_offset;
  im.off_r = f.off_r;
  im.off_g = f.off_g;
  im.off_b = f.off_b;
}

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

/* Foreground test; false outside the image, so the last word of a row is
 * masked rather than padded. */
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

/* Root of the tree holding `label`, read only (tile::root_of), through
 * L1: each SM keeps the nodes near a giant component's root instead of
 * every thread queueing at one L2 slice (tile::CachedForest). */
__device__ __forceinline__ uint32_t ha4_find(const uint32_t *L, uint32_t label)
{
  return tile::root_of<tile::CachedForest>(L, label);
}

/* The same in a tile's forest of int labels in shared memory (OUF's and
 * Stava-Benes's), each load seeing the other threads' atomicMin
 * (tile::SharedForest). */
__device__ __forceinline__ int block_find(const volatile int *lab, int a)
{
  const int *const labels = const_cast<const int *>(lab);
  return (int)tile::root_of<tile::SharedForest>(
      reinterpret_cast<const uint32_t *>(labels), (uint32_t)a);
}

/* The union-find of Alg. 2 in global memory: one implementation with the
 * tiled pipeline's (tile_common.cuh), its loads cached. Finds halve the
 * path; the smaller root wins. */
__device__ __forceinline__ void ha4_merge(uint32_t *L, uint32_t a, uint32_t b)
{
  tile::merge_roots<tile::CachedForest>(L, a, b);
}

/* The same merge with read-only finds, for a forest that was just
 * compressed (every node at its root, so a find is a read or two): there
 * halving only adds atomics, and on a dense image every block merges at
 * once and those atomics queue at the nodes near the giant component's
 * root. */
__device__ __forceinline__ void ha4_merge_flat(uint32_t *L, uint32_t a,
                                               uint32_t b)
{
  tile::link_roots(L, ha4_find(L, a), ha4_find(L, b));
}

/* Bit i of a mask, as 0 or 1. */
__device__ __forceinline__ bool ha4_bit(uint32_t mask, int i)
{
  return (mask >> i) & 1u;
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

/* The segment pieces of a bitmask word: the set bits whose left neighbour
 * in the word is clear start one, and so do the cuts in segments mode
 * (cuts NULL otherwise). A piece runs up to the next start or clear bit:
 * its length from start b is gpuccl_end_distance32(mask & ~starts, b). */
__device__ __forceinline__ uint32_t ha4_piece_starts(uint32_t mask,
                                                     const uint32_t *cuts,
                                                     size_t word)
{
  uint32_t starts = mask & ~(mask << 1);
  if (cuts)
    starts |= cuts[word];
  return starts;
}

/* The start of the piece holding set bit b: the highest start <= b. */
__device__ __forceinline__ int ha4_piece_start_bit(uint32_t starts, int b)
{
  return 31 - gpuccl_clz32(starts & (0xffffffffu >> (31 - b)));
}

#endif /* GPUCCL_HA4_COMMON_CUH */
