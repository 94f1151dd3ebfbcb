/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BUF Initialization (Allegretti et al. 2019, Alg. 2 l. 1-5): every 2x2
 * block is its own tree. On a pixel forest the same kernel gives HYBRID3
 * its initial labels (each pixel its own address). */
#include "block_mask.cuh"

__global__ void buf_initialization(Forest g)
{
  int bx, by;
  uint32_t b;
  if (!block_of_thread(g, &bx, &by, &b))
    return;
  g.parent[b] = b;
}

cudaError_t buf_launch_initialization(const Forest &g, cudaStream_t stream)
{
  buf_initialization<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(g);
  return cudaGetLastError();
}
