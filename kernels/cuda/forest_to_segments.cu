/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adapters from Stava and Benes' pixel forest to the segment tail, in
 * segments mode (see forest_kernels.h).
 *
 * The segment tail numbers a component by its first pixel in raster order.
 * Every link points at a smaller address, so a pixel forest's root is that
 * pixel: the segment links point every piece start at its root, and the
 * root at itself (it is a piece start). Neighbours connect only with equal
 * values (forest_values.cuh), pieces also start at the cuts
 * (ha4_common.cuh), and the segment values give each component its value
 * once the ids are known. */
#include "forest_values.cuh"

__device__ __forceinline__ uint32_t forest_root(const Forest &g, int x, int y)
{
  return tile::node_root<tile::CachedForest>(g.parent, g.shift, g.fpitch,
                                             (uint32_t)x, (uint32_t)y);
}

/* L at every piece start (a set bit whose left neighbour in its 32-bit
 * word is clear, as HA4's strip labeling writes them, or a cut). */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_segment_links(Ha4Frame f, Forest g)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const size_t w = (size_t)y * f.words + word;
  if (!((ha4_piece_starts(f.bits[w], f.cuts, w) >> i) & 1u))
    return;
  const int x = word * 32 + i;
  f.L[(uint32_t)y * f.pitch + x] = forest_root(g, x, y);
}

/* After the root flags and the id scan: each root, the first pixel of its
 * component, writes the component's value at its dense id, for the blob
 * table. One warp per bitmask word. */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_segment_values(Ha4Frame f, const uint32_t *offset,
                          const uint32_t *rootmask, uint32_t *value)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const size_t w = (size_t)y * f.words + word;
  if (!((rootmask[w] >> i) & 1u))
    return;
  const uint32_t root = (uint32_t)(w * 32 + i);
  value[ha4_component_id(offset, rootmask, root)] =
      forest_sample_value(f, word * 32 + i, y);
}

static dim3 word_grid(const Ha4Frame &f)
{
  return dim3((f.words + 7) / 8, f.height);
}

cudaError_t forest_launch_segment_links(const Ha4Frame &f, const Forest &g,
                                        cudaStream_t stream)
{
  forest_segment_links<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(f,
                                                                          g);
  return cudaGetLastError();
}

cudaError_t forest_launch_segment_values(const Ha4Frame &f,
                                         const uint32_t *offset,
                                         const uint32_t *rootmask,
                                         uint32_t *value, cudaStream_t stream)
{
  forest_segment_values<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(
      f, offset, rootmask, value);
  return cudaGetLastError();
}
