/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The 2x2x2 block neighbourhood of BUF/BKE 3D (Allegretti et al. 2019,
 * Fig. 9): the 4x4x4 voxels around a block as one 64-bit mask, and which
 * of the 13 earlier neighbour blocks (raster order: dz, dy, dx) one of the
 * block's voxels touches under 26-connectivity. */
#ifndef GPUCCL_VOLUME_BLOCKS_CUH
#define GPUCCL_VOLUME_BLOCKS_CUH

#include "volume_kernels.h"

__device__ __forceinline__ bool vol3_fg(const Vol3 &v, int x, int y, int z)
{
  if (x < 0 || y < 0 || z < 0 || x >= v.width || y >= v.height ||
      z >= v.depth)
    return false;
  return v.data[((size_t)z * v.height + y) * v.width + x] > v.threshold;
}

__device__ __forceinline__ int vol3_bit(int i, int j, int k)
{
  return k * 16 + j * 4 + i;
}

/* Thread -> block; false past the end. */
__device__ __forceinline__ bool vol3_block(const Vol3 &v, uint32_t *b,
                                           int *bx, int *by, int *bz)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= (size_t)v.bw * v.bh * v.bd)
    return false;
  *b = (uint32_t)id;
  *bx = (int)(id % v.bw);
  *by = (int)(id / v.bw % v.bh);
  *bz = (int)(id / ((size_t)v.bw * v.bh));
  return true;
}

/* Bit n (0..12) set: earlier neighbour n is connected to the block. */
__device__ __forceinline__ unsigned vol3_links(const Vol3 &v, int bx, int by,
                                               int bz)
{
  const int x0 = 2 * bx - 1, y0 = 2 * by - 1, z0 = 2 * bz - 1;
  uint64_t w = 0;
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++)
        if (vol3_fg(v, x0 + i, y0 + j, z0 + k))
          w |= 1ull << vol3_bit(i, j, k);
  /* Voxels within reach of the block's foreground voxels. */
  uint64_t reach = 0;
  for (int k = 1; k <= 2; k++)
    for (int j = 1; j <= 2; j++)
      for (int i = 1; i <= 2; i++)
        if ((w >> vol3_bit(i, j, k)) & 1u)
          for (int c = -1; c <= 1; c++)
            for (int b = -1; b <= 1; b++)
              for (int a = -1; a <= 1; a++)
                reach |= 1ull << vol3_bit(i + a, j + b, k + c);
  reach &= w;
  if (!reach)
    return 0;
  unsigned links = 0;
  int n = 0;
  for (int dz = -1; dz <= 0; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)))
          continue;
        /* Window voxels of neighbour (dx, dy, dz): -1 -> 0, 0 -> 1..2,
         * 1 -> 3 along each axis. */
        uint64_t m = 0;
        for (int k = dz < 0 ? 0 : 1; k <= (dz < 0 ? 0 : 2); k++)
          for (int j = dy < 0 ? 0 : dy == 0 ? 1 : 3;
               j <= (dy < 0 ? 0 : dy == 0 ? 2 : 3); j++)
            for (int i = dx < 0 ? 0 : dx == 0 ? 1 : 3;
                 i <= (dx < 0 ? 0 : dx == 0 ? 2 : 3); i++)
              m |= 1ull << vol3_bit(i, j, k);
        if (reach & m)
          links |= 1u << n;
        n++;
      }
  return links;
}

/* Index of earlier neighbour n of block b. */
__device__ __forceinline__ uint32_t vol3_neighbour(const Vol3 &v, uint32_t b,
                                                   int n)
{
  int i = 0;
  for (int dz = -1; dz <= 0; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)))
          continue;
        if (i++ == n)
          return (uint32_t)((long)b + (long)dz * v.bw * v.bh +
                            (long)dy * v.bw + dx);
      }
  return b;
}

static inline unsigned vol3_grid(size_t n)
{
  return (unsigned)((n + 255) / 256);
}

#endif /* GPUCCL_VOLUME_BLOCKS_CUH */
