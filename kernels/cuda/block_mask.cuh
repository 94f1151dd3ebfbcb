/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The block neighbourhood of BUF and BKE (Allegretti et al. 2019, Fig. 7),
 * read from HA4's bitmask image instead of the raw image: one or two word
 * loads per row of the 4x4 square around a 2x2 block. */
#ifndef GPUCCL_BLOCK_MASK_CUH
#define GPUCCL_BLOCK_MASK_CUH

#include "forest_kernels.h"

/* Pixels x0..x0+3 of row y as 4 bits (bit c = pixel x0 + c), 0 outside the
 * image. x0 >= -1. Bits past the width are 0 in the bitmask image. */
__device__ __forceinline__ uint32_t block_row4(const Ha4Frame &f, int x0,
                                               int y)
{
  if (y < 0 || y >= f.height)
    return 0;
  const uint32_t *row = f.bits + (size_t)y * f.words;
  if (x0 < 0)
    return (__ldg(row) << 1) & 15u;
  const int w = x0 >> 5, o = x0 & 31;
  uint64_t v = __ldg(row + w);
  if (o > 28 && w + 1 < f.words)
    v |= (uint64_t)__ldg(row + w + 1) << 32;
  return (uint32_t)(v >> o) & 15u;
}

/* The 4x4 square around the block whose top-left pixel is (x, y): bit
 * r * 4 + c is pixel (x - 1 + c, y - 1 + r). The block itself is bits 5, 6,
 * 9, 10. */
__device__ __forceinline__ uint32_t block_square(const Ha4Frame &f, int x,
                                                 int y)
{
  return block_row4(f, x - 1, y - 1) | block_row4(f, x - 1, y) << 4 |
         block_row4(f, x - 1, y + 1) << 8 | block_row4(f, x - 1, y + 2) << 12;
}

#define BLOCK_INSIDE 0x660u /* the block's own pixels in the square */

/* Which earlier neighbour blocks are 8-connected to the block: bit 0 P
 * (up-left), 1 Q (up), 2 R (up-right), 3 S (left). Every foreground pixel
 * of the block marks its 3x3 neighbourhood (0x777 shifted, the bitset BS of
 * the paper); the marked foreground pixels outside say which neighbours
 * touch it. The bottom-right pixel touches none of P, Q, R, S. */
__device__ __forceinline__ unsigned block_links(uint32_t sq)
{
  uint32_t bs = 0;
  if (sq & (1u << 5))
    bs |= 0x777u;
  if (sq & (1u << 6))
    bs |= 0x777u << 1;
  if (sq & (1u << 9))
    bs |= 0x777u << 4;
  bs &= sq;
  return (bs & 1u ? 1u : 0u) | (bs & 6u ? 2u : 0u) | (bs & 8u ? 4u : 0u) |
         (bs & 0x110u ? 8u : 0u);
}

/* Index of neighbour n (0 P, 1 Q, 2 R, 3 S) of block b. */
__device__ __forceinline__ uint32_t block_neighbour(const Forest &g,
                                                    uint32_t b, int n)
{
  return n == 3 ? b - 1 : b - (uint32_t)g.fpitch + (uint32_t)n - 1u;
}

/* One thread per forest node (a 2x2 block, or a pixel): its coordinates,
 * false past the end. */
__device__ __forceinline__ bool block_of_thread(const Forest &g, int *bx,
                                                int *by, uint32_t *b)
{
  *bx = blockIdx.x * blockDim.x + threadIdx.x;
  *by = blockIdx.y * blockDim.y + threadIdx.y;
  *b = (uint32_t)(*by * g.fpitch + *bx);
  return *bx < g.fcols && *by < g.frows;
}

#define BLOCK_THREADS dim3(32, 4)
static inline dim3 block_grid(const Forest &g)
{
  return dim3((g.fcols + 31) / 32, (g.frows + 3) / 4);
}

/* Foreground of pixel (x, y) from the bitmask image, false outside. */
__device__ __forceinline__ bool pixel_fg(const Ha4Frame &f, int x, int y)
{
  if (x < 0 || y < 0 || x >= f.width || y >= f.height)
    return false;
  return (f.bits[(size_t)y * f.words + (x >> 5)] >> (x & 31)) & 1u;
}

/* Address of pixel (x, y) in a pixel forest (= its address in f.L). */
__device__ __forceinline__ uint32_t pixel_node(const Ha4Frame &f, int x, int y)
{
  return (uint32_t)y * (uint32_t)f.pitch + (uint32_t)x;
}

#endif /* GPUCCL_BLOCK_MASK_CUH */
