/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BUF Merge (Allegretti et al. 2019, Alg. 2 l. 6-25): each 2x2 block reads
 * its 4x4 neighbourhood from the bitmask and unions with every earlier
 * neighbour block (P, Q, R, S) that one of its pixels touches. Union is
 * HA4's atomicMin merge (ha4_merge, the paper's Alg. 1 Union). */
#include "block_mask.cuh"

__global__ void buf_merge(Ha4Frame f, Forest g)
{
  int bx, by;
  uint32_t b;
  if (!block_of_thread(g, &bx, &by, &b))
    return;
  const unsigned links = block_links(block_square(f, 2 * bx, 2 * by));
  /* One union at a time, each loading the forest the last one left: the
   * unrolled loop was slower on dense frames (the grid's mean at 2048^2
   * 8-conn 118 -> 112 us, H200). */
#pragma unroll 1
  for (int n = 0; n < 4; n++)
    if ((links >> n) & 1u)
      ha4_merge(g.parent, b, block_neighbour(g, b, n));
}

cudaError_t buf_launch_merge(const Ha4Frame &f, const Forest &g,
                             cudaStream_t stream)
{
  buf_merge<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(f, g);
  return cudaGetLastError();
}
