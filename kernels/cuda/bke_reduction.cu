/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BKE Reduction (Allegretti et al. 2019, Sec. 5.2): Union with the
 * connected neighbours that Initialization did not link, as its
 * information byte says. The forest was compressed just before: unions
 * with read-only finds (ha4_merge_flat). */
#include "block_mask.cuh"

__global__ void bke_reduction(Forest g)
{
  int bx, by;
  uint32_t b;
  if (!block_of_thread(g, &bx, &by, &b))
    return;
  const unsigned todo = g.info[b] >> 5;
#pragma unroll 1 /* as BUF's merge (buf_merge.cu) */
  for (int n = 1; n < 4; n++)
    if ((todo >> (n - 1)) & 1u)
      ha4_merge_flat(g.parent, b, block_neighbour(g, b, n));
}

cudaError_t bke_launch_reduction(const Forest &g, cudaStream_t stream)
{
  bke_reduction<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(g);
  return cudaGetLastError();
}
