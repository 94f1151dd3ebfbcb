/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BUF 3D (Allegretti et al. 2019, Sec. 5.3): Initialization (every 2x2x2
 * block its own tree, first[] reset for the numbering) and Merge (union
 * with each of the 13 earlier neighbour blocks a voxel touches). */
#include "ha4_common.cuh"
#include "volume_blocks.cuh"

__global__ void buf3d_initialization(Vol3 v)
{
  uint32_t b;
  int bx, by, bz;
  if (!vol3_block(v, &b, &bx, &by, &bz))
    return;
  v.parent[b] = b;
  v.first[b] = UINT32_MAX;
}

__global__ void buf3d_merge(Vol3 v)
{
  uint32_t b;
  int bx, by, bz;
  if (!vol3_block(v, &b, &bx, &by, &bz))
    return;
  const unsigned links = vol3_links(v, bx, by, bz);
  for (int n = 0; n < 13; n++)
    if ((links >> n) & 1u)
      ha4_merge(v.parent, b, vol3_neighbour(v, b, n));
}

static size_t blocks(const Vol3 &v)
{
  return (size_t)v.bw * v.bh * v.bd;
}

cudaError_t buf3d_launch_initialization(const Vol3 &v, cudaStream_t s)
{
  buf3d_initialization<<<vol3_grid(blocks(v)), 256, 0, s>>>(v);
  return cudaGetLastError();
}

cudaError_t buf3d_launch_merge(const Vol3 &v, cudaStream_t s)
{
  buf3d_merge<<<vol3_grid(blocks(v)), 256, 0, s>>>(v);
  return cudaGetLastError();
}
