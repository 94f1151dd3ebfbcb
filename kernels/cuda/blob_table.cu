/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The blob table on the device: area filter, compaction of the passing
 * components in increasing id, and the max_blobs selection, so only the
 * table (O(blobs) bytes) travels back to the host.
 *
 * The number of components N is only known on the device, so the kernels
 * read it there and cover the fixed worst-case range of tiles of 256 ids
 * (a fixed size the CUB scan between them can be given on the host). */
#include <cub/block/block_scan.cuh>

#include "ha4_kernels.h"

#define BLOB_TILE 256

__device__ __forceinline__ bool blob_passes(uint32_t area, uint64_t min_area,
                                            uint64_t max_area)
{
  return area >= min_area && (max_area == 0 || area <= max_area);
}

__global__ void __launch_bounds__(BLOB_TILE)
    blob_count(const uint32_t *n_components, Ha4Features feat,
               uint64_t min_area, uint64_t max_area, uint32_t *tile_count,
               int n_tiles)
{
  const uint32_t n = *n_components;
  const int used = (int)((n + BLOB_TILE - 1) / BLOB_TILE);
  for (int t = blockIdx.x; t < n_tiles; t += gridDim.x) {
    if (t >= used) { /* block-uniform */
      if (threadIdx.x == 0)
        tile_count[t] = 0;
      continue;
    }
    const uint32_t id = (uint32_t)t * BLOB_TILE + threadIdx.x;
    const bool pass = id < n && blob_passes(feat.area[id], min_area, max_area);
    const int c = __syncthreads_count(pass);
    if (threadIdx.x == 0)
      tile_count[t] = (uint32_t)c;
  }
}

__global__ void __launch_bounds__(BLOB_TILE)
    blob_scatter(int width, const int *d_threshold, int threshold,
                 const uint32_t *n_components, Ha4Features feat,
                 uint64_t min_area, uint64_t max_area,
                 const uint32_t *tile_offset, int n_tiles, GpucclBlob *out,
                 uint32_t *header)
{
  typedef cub::BlockScan<int, BLOB_TILE> Scan;
  __shared__ typename Scan::TempStorage scan;
  /* A tile's passing blobs are built here, then stored as consecutive
   * 16-byte vectors: a thread writing its own 32-byte blob field by field
   * leaves every store of a warp 32 bytes apart. */
  __shared__ uint4 staged[BLOB_TILE * sizeof(GpucclBlob) / sizeof(uint4)];
  static_assert(sizeof(GpucclBlob) % sizeof(uint4) == 0, "blob in vectors");
  GpucclBlob *const tile_blobs = reinterpret_cast<GpucclBlob *>(staged);
  const uint32_t n = *n_components;
  const int used = (int)((n + BLOB_TILE - 1) / BLOB_TILE);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    header[0] = n;
    header[1] = tile_offset[n_tiles];
    header[2] = (uint32_t)(d_threshold ? *d_threshold : threshold);
  }
  for (int t = blockIdx.x; t < used; t += gridDim.x) {
    const uint32_t id = (uint32_t)t * BLOB_TILE + threadIdx.x;
    const bool valid = id < n;
    const uint32_t area = valid ? feat.area[id] : 0u;
    const bool pass = valid && blob_passes(area, min_area, max_area);
    int rank, passed;
    Scan(scan).ExclusiveSum((int)pass, rank, passed);
    if (pass) {
      GpucclBlob &b = tile_blobs[rank];
      b.id = id + 1;
      b.area = area;
      /* Sides are at most GPUCCL_MAX_SIDE: coordinates fit 16 bits. */
      b.x0 = (uint16_t)((uint32_t)width - 1 - feat.inv_min_x[id]);
      b.y0 = (uint16_t)feat.first_y[id];
      b.x1 = (uint16_t)feat.max_x[id];
      b.y1 = (uint16_t)feat.max_y[id];
      b.sum_x = feat.sum_x[id];
      b.sum_y = feat.sum_y[id];
    }
    if (valid) { /* leave the accumulators zero for the next frame */
      feat.area[id] = 0;
      feat.inv_min_x[id] = 0;
      feat.max_x[id] = 0;
      feat.max_y[id] = 0;
      feat.sum_x[id] = 0;
      feat.sum_y[id] = 0;
    }
    __syncthreads(); /* the tile's blobs are staged */
    uint4 *dst = reinterpret_cast<uint4 *>(out + tile_offset[t]);
    const int vectors = passed * (int)(sizeof(GpucclBlob) / sizeof(uint4));
    for (int i = threadIdx.x; i < vectors; i += BLOB_TILE)
      dst[i] = staged[i];
    __syncthreads(); /* the scan storage and the stage are reused */
  }
}

static unsigned blob_grid(int n_tiles, int sm_count)
{
  int g = sm_count * 8;
  return (unsigned)(n_tiles < g ? n_tiles : g);
}

cudaError_t ha4_launch_blob_count(const uint32_t *n_components,
                                  const Ha4Features &feat, uint64_t min_area,
                                  uint64_t max_area, uint32_t *tile_count,
                                  int n_tiles, int sm_count,
                                  cudaStream_t stream)
{
  blob_count<<<blob_grid(n_tiles, sm_count), BLOB_TILE, 0, stream>>>(
      n_components, feat, min_area, max_area, tile_count, n_tiles);
  return cudaGetLastError();
}

cudaError_t ha4_launch_blob_scatter(const Ha4Frame &f,
                                    const uint32_t *n_components,
                                    const Ha4Features &feat, uint64_t min_area,
                                    uint64_t max_area,
                                    const uint32_t *tile_offset, int n_tiles,
                                    GpucclBlob *out, uint32_t *header,
                                    int sm_count, cudaStream_t stream)
{
  blob_scatter<<<blob_grid(n_tiles, sm_count), BLOB_TILE, 0, stream>>>(
      f.width, f.d_threshold, f.threshold, n_components, feat, min_area,
      max_area, tile_offset, n_tiles, out, header);
  return cudaGetLastError();
}

/* The key of kernels/blob_select.c: area above, then the complement of the
 * id, so a larger key is a stronger blob. */
__device__ __forceinline__ uint64_t blob_rank_key(const GpucclBlob &b)
{
  return ((uint64_t)b.area << 32) | (uint64_t)(0xffffffffu - b.id);
}

__global__ void blob_rank_keys(const GpucclBlob *blobs, size_t n,
                               uint64_t *keys)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    keys[i] = blob_rank_key(blobs[i]);
}

__global__ void blob_keep_flags(const GpucclBlob *blobs, size_t n,
                                const uint64_t *weakest, uint8_t *flags)
{
  const uint64_t limit = *weakest;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    flags[i] = blob_rank_key(blobs[i]) >= limit;
}

static unsigned grid_for(size_t n)
{
  size_t g = (n + 255) / 256;
  return (unsigned)(g < 4096 ? (g ? g : 1) : 4096);
}

cudaError_t ha4_launch_blob_rank_keys(const GpucclBlob *blobs, size_t n,
                                      uint64_t *keys, cudaStream_t stream)
{
  blob_rank_keys<<<grid_for(n), 256, 0, stream>>>(blobs, n, keys);
  return cudaGetLastError();
}

cudaError_t ha4_launch_blob_keep_flags(const GpucclBlob *blobs, size_t n,
                                       const uint64_t *weakest,
                                       uint8_t *flags, cudaStream_t stream)
{
  blob_keep_flags<<<grid_for(n), 256, 0, stream>>>(blobs, n, weakest, flags);
  return cudaGetLastError();
}
