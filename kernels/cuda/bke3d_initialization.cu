/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BKE 3D Initialization and Reduction (Allegretti et al. 2019, Sec. 5.2
 * and 5.3): each 2x2x2 block links to its connected earlier neighbour of
 * smallest index and keeps the other connected ones (a 13-bit mask) for
 * Reduction, which unions them. */
#include "ha4_common.cuh"
#include "volume_blocks.cuh"

__global__ void bke3d_initialization(Vol3 v)
{
  uint32_t b;
  int bx, by, bz;
  if (!vol3_block(v, &b, &bx, &by, &bz))
    return;
  const unsigned links = vol3_links(v, bx, by, bz);
  uint32_t parent = b;
  unsigned rest = 0;
  if (links) {
    const int n = __ffs(links) - 1;
    parent = vol3_neighbour(v, b, n);
    rest = links & ~(1u << n);
  }
  v.parent[b] = parent;
  v.info[b] = (uint16_t)rest;
  v.first[b] = UINT32_MAX;
}

__global__ void bke3d_reduction(Vol3 v)
{
  uint32_t b;
  int bx, by, bz;
  if (!vol3_block(v, &b, &bx, &by, &bz))
    return;
  const unsigned rest = v.info[b];
  for (int n = 0; n < 13; n++)
    if ((rest >> n) & 1u)
      ha4_merge(v.parent, b, vol3_neighbour(v, b, n));
}

cudaError_t bke3d_launch_initialization(const Vol3 &v, cudaStream_t s)
{
  bke3d_initialization<<<vol3_grid((size_t)v.bw * v.bh * v.bd), 256, 0, s>>>(
      v);
  return cudaGetLastError();
}

cudaError_t bke3d_launch_reduction(const Vol3 &v, cudaStream_t s)
{
  bke3d_reduction<<<vol3_grid((size_t)v.bw * v.bh * v.bd), 256, 0, s>>>(v);
  return cudaGetLastError();
}
