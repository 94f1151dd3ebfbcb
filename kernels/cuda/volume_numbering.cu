/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Numbering and features of the volume API: the 3D counterpart of the
 * 2D adapter (forest_to_segments.cu) and HA4's root flags / features.
 * A component's first voxel in raster order has no foreground among its 13
 * earlier neighbours; such candidates take the minimum address per block
 * root; the voxel that equals its root's minimum is flagged, the flags are
 * scanned into ids 0..N-1 in raster order, and every voxel adds itself to
 * its component's features (64-bit sums), summed per warp first. */
#include "ha4_common.cuh"
#include "volume_blocks.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ bool vol3_voxel(const Vol3 &v, size_t id, int *x,
                                           int *y, int *z)
{
  if (id >= (size_t)v.width * v.height * v.depth)
    return false;
  *x = (int)(id % v.width);
  *y = (int)(id / v.width % v.height);
  *z = (int)(id / ((size_t)v.width * v.height));
  return true;
}

__device__ __forceinline__ uint32_t vol3_root(const Vol3 &v, int x, int y,
                                              int z)
{
  return ha4_find(v.parent,
                  (uint32_t)(((size_t)(z >> 1) * v.bh + (y >> 1)) * v.bw +
                             (x >> 1)));
}

__global__ void volume_first_voxel(Vol3 v)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int x, y, z;
  if (!vol3_voxel(v, id, &x, &y, &z) || !vol3_fg(v, x, y, z))
    return;
  for (int dz = -1; dz <= 0; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)))
          continue;
        if (vol3_fg(v, x + dx, y + dy, z + dz))
          return;
      }
  atomicMin(v.first + vol3_root(v, x, y, z), (uint32_t)id);
}

__global__ void volume_root_flags(Vol3 v, uint32_t *flags)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int x, y, z;
  if (!vol3_voxel(v, id, &x, &y, &z))
    return;
  flags[id] = vol3_fg(v, x, y, z) &&
              v.first[vol3_root(v, x, y, z)] == (uint32_t)id;
}

/* The voxels of one component in a warp are summed first (labeled
 * partition, then one reduction per feature) and one lane adds the totals:
 * a dense volume is mostly one component, and ten atomics per voxel on the
 * same ten addresses serialise (0.8-1.3 ns per foreground voxel on the
 * H100, ~10x HA4's 2D cost per pixel). Every lane of the warp takes part;
 * the background and the lanes past the end form a group of their own. */
__global__ void volume_features(Vol3 v, const uint32_t *ids, Vol3Features f)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int x = 0, y = 0, z = 0;
  const bool fg = vol3_voxel(v, id, &x, &y, &z) && vol3_fg(v, x, y, z);
  const uint32_t c = fg ? ids[v.first[vol3_root(v, x, y, z)]] : 0xffffffffu;
  const cg::thread_block_tile<32> warp =
      cg::tiled_partition<32>(cg::this_thread_block());
  const cg::coalesced_group same = cg::labeled_partition(warp, c);
  const uint32_t n = cg::reduce(same, fg ? 1u : 0u, cg::plus<uint32_t>());
  const unsigned long long sx = cg::reduce(
      same, (unsigned long long)x, cg::plus<unsigned long long>());
  const unsigned long long sy = cg::reduce(
      same, (unsigned long long)y, cg::plus<unsigned long long>());
  const unsigned long long sz = cg::reduce(
      same, (unsigned long long)z, cg::plus<unsigned long long>());
  const uint32_t x0 = cg::reduce(same, (uint32_t)x, cg::less<uint32_t>());
  const uint32_t y0 = cg::reduce(same, (uint32_t)y, cg::less<uint32_t>());
  const uint32_t z0 = cg::reduce(same, (uint32_t)z, cg::less<uint32_t>());
  const uint32_t x1 = cg::reduce(same, (uint32_t)x, cg::greater<uint32_t>());
  const uint32_t y1 = cg::reduce(same, (uint32_t)y, cg::greater<uint32_t>());
  const uint32_t z1 = cg::reduce(same, (uint32_t)z, cg::greater<uint32_t>());
  if (!fg || same.thread_rank() != 0)
    return;
  atomicAdd(f.voxels + c, (unsigned long long)n);
  atomicAdd(f.sum_x + c, sx);
  atomicAdd(f.sum_y + c, sy);
  atomicAdd(f.sum_z + c, sz);
  atomicMin(f.min_x + c, x0);
  atomicMin(f.min_y + c, y0);
  atomicMin(f.min_z + c, z0);
  atomicMax(f.max_x + c, x1);
  atomicMax(f.max_y + c, y1);
  atomicMax(f.max_z + c, z1);
}

__global__ void volume_labels(Vol3 v, const uint32_t *ids, uint32_t *labels)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int x, y, z;
  if (!vol3_voxel(v, id, &x, &y, &z))
    return;
  labels[id] = vol3_fg(v, x, y, z)
                   ? ids[v.first[vol3_root(v, x, y, z)]] + 1
                   : 0u;
}

static size_t voxels(const Vol3 &v)
{
  return (size_t)v.width * v.height * v.depth;
}

cudaError_t volume_launch_first_voxel(const Vol3 &v, cudaStream_t s)
{
  volume_first_voxel<<<vol3_grid(voxels(v)), 256, 0, s>>>(v);
  return cudaGetLastError();
}

cudaError_t volume_launch_root_flags(const Vol3 &v, uint32_t *flags,
                                     cudaStream_t s)
{
  volume_root_flags<<<vol3_grid(voxels(v)), 256, 0, s>>>(v, flags);
  return cudaGetLastError();
}

cudaError_t volume_launch_features(const Vol3 &v, const uint32_t *ids,
                                   const Vol3Features &feat, cudaStream_t s)
{
  volume_features<<<vol3_grid(voxels(v)), 256, 0, s>>>(v, ids, feat);
  return cudaGetLastError();
}

cudaError_t volume_launch_labels(const Vol3 &v, const uint32_t *ids,
                                 uint32_t *labels, cudaStream_t s)
{
  volume_labels<<<vol3_grid(voxels(v)), 256, 0, s>>>(v, ids, labels);
  return cudaGetLastError();
}
