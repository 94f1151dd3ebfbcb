/* Numbering and features of the volume API: the 3D counterpart of the
 * 2D adapter (forest_to_segments.cu) and HA4's root flags / features.
 * A component's first voxel in raster order has no foreground among its 13
 * earlier neighbours; such candidates take the minimum address per block
 * root; the voxel that equals its root's minimum is flagged, the flags are
 * scanned into ids 0..N-1 in raster order, and every voxel adds itself to
 * its component's features (64-bit sums). */
#include "ha4_common.cuh"
#include "volume_blocks.cuh"

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

__global__ void volume_features(Vol3 v, const uint32_t *ids, Vol3Features f)
{
  const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int x, y, z;
  if (!vol3_voxel(v, id, &x, &y, &z) || !vol3_fg(v, x, y, z))
    return;
  const uint32_t c = ids[v.first[vol3_root(v, x, y, z)]];
  atomicAdd(f.voxels + c, 1ull);
  atomicAdd(f.sum_x + c, (unsigned long long)x);
  atomicAdd(f.sum_y + c, (unsigned long long)y);
  atomicAdd(f.sum_z + c, (unsigned long long)z);
  atomicMin(f.min_x + c, (uint32_t)x);
  atomicMin(f.min_y + c, (uint32_t)y);
  atomicMin(f.min_z + c, (uint32_t)z);
  atomicMax(f.max_x + c, (uint32_t)x);
  atomicMax(f.max_y + c, (uint32_t)y);
  atomicMax(f.max_z + c, (uint32_t)z);
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
