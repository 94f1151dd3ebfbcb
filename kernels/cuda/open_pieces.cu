/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Open pieces after seam merging. Open merging: HA4's features (Alg. 6)
 * for the components that cross seams: every piece adds its partial area,
 * sums and box into its root, and the root keeps the smallest first pixel
 * (raster order) of its pieces. Open roots (beyond the paper): each root
 * is one whole component; its first pixel goes into the start bitmap and,
 * when it passes the area filter, into the pass bitmap, beside the closed
 * components tile labeling put there. */
#include "tiled_kernels.h"

namespace tile {

/* The slot of open piece i of tile t, or NONE past the tile's count. */
__device__ __forceinline__ uint32_t open_slot(const Frame &f, size_t i)
{
  const uint32_t t = (uint32_t)(i / LibraryShape::OPEN_CAP);
  const uint32_t k = (uint32_t)(i % LibraryShape::OPEN_CAP);
  return k < f.out.n_open[t] ? (uint32_t)i : NONE;
}

__global__ void open_merging_kernel(Frame f, size_t slots)
{
  const OpenPieces &o = f.out.open;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < slots;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t p = open_slot(f, i);
    if (p == NONE)
      continue;
    const uint32_t r = find_root<GlobalForest>(o.parent, p);
    if (r == p)
      continue;
    atomicMin(o.parent + p, r); /* flat for open roots and label image */
    atomicAdd(o.area + r, o.area[p]);
    atomicAdd(o.sum_x + r, o.sum_x[p]);
    atomicAdd(o.sum_y + r, o.sum_y[p]);
    atomicMin(o.x0 + r, o.x0[p]);
    atomicMax(o.x1 + r, o.x1[p]);
    atomicMax(o.y1 + r, o.y1[p]);
    atomicMin(o.key + r, o.key[p]);
  }
}

__global__ void open_roots_kernel(Frame f, size_t slots)
{
  const OpenPieces &o = f.out.open;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < slots;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t p = open_slot(f, i);
    if (p == NONE || o.parent[p] != p)
      continue;
    const uint32_t key = o.key[p];
    const uint32_t y = key / (uint32_t)f.image.width,
                   x = key % (uint32_t)f.image.width;
    const size_t word = (size_t)y * f.out.start_words + (x >> 5);
    atomicOr(f.out.start + word, 1u << (x & 31));
    if (f.filter.passes(o.area[p]))
      atomicOr(f.out.pass + word, 1u << (x & 31));
  }
}

static size_t open_slots(const Frame &f)
{
  return (size_t)f.tiles_x * f.tiles_y * LibraryShape::OPEN_CAP;
}

static unsigned grid_for(size_t n, int threads)
{
  return (unsigned)std::min<size_t>((n + threads - 1) / threads, 65535);
}

cudaError_t launch_open_merging(const Frame &f, cudaStream_t stream)
{
  open_merging_kernel<<<grid_for(open_slots(f), 256), 256, 0, stream>>>(
      f, open_slots(f));
  return cudaGetLastError();
}

cudaError_t launch_open_roots(const Frame &f, cudaStream_t stream)
{
  open_roots_kernel<<<grid_for(open_slots(f), 256), 256, 0, stream>>>(
      f, open_slots(f));
  return cudaGetLastError();
}

} /* namespace tile */
