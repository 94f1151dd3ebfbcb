/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stava and Benes Kernel 1 (2011, Fig. 35.8): each SB_TILE x SB_TILE
 * tile is labeled in shared memory by repeating two passes until nothing
 * changes: every foreground element takes the smallest label among its
 * connected neighbours in the tile and links its tree's root to it
 * (atomicMin), then jumps to its root. (The paper's pseudocode leaves the
 * loop when sChanged == 1; it must leave when nothing changed.) The local
 * root becomes a global pixel address.
 *
 * Connected means equal non-zero values (forest_values.cuh), the paper's
 * sSegs test: in binary mode the values are the foreground bits, in
 * segments mode the samples themselves (its multi-valued mode). */
#include "forest_values.cuh"

__global__ void __launch_bounds__(SB_TILE *SB_TILE)
    sb_tile_labeling(Ha4Frame f, Forest g)
{
  __shared__ volatile int lab[SB_TILE * SB_TILE];
  __shared__ uint32_t val[SB_TILE * SB_TILE];
  __shared__ int changed;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * SB_TILE + tx;
  const int x = blockIdx.x * SB_TILE + tx, y = blockIdx.y * SB_TILE + ty;
  const uint32_t me = forest_value(f, x, y);
  val[tid] = me;
  int label = tid;
  __syncthreads();
  /* The connected neighbours in the tile, bit (dy + 1) * 3 + dx + 1: the
   * values do not change, so they are compared once, not every pass. */
  uint32_t connected = 0;
  if (me)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if ((dx == 0 && dy == 0) || (!f.conn8 && dx != 0 && dy != 0))
          continue;
        const int nx = tx + dx, ny = ty + dy;
        if (nx >= 0 && ny >= 0 && nx < SB_TILE && ny < SB_TILE &&
            val[ny * SB_TILE + nx] == me)
          connected |= 1u << ((dy + 1) * 3 + dx + 1);
      }
  for (;;) {
    /* Pass 1. */
    lab[tid] = label;
    if (tid == 0)
      changed = 0;
    __syncthreads();
    int nl = label;
    for (uint32_t m = connected; m; m &= m - 1) {
      const int k = __ffs(m) - 1;
      nl = min(nl, lab[tid + (k / 3 - 1) * SB_TILE + k % 3 - 1]);
    }
    __syncthreads();
    if (nl < label) {
      atomicMin(const_cast<int *>(lab) + label, nl);
      changed = 1;
    }
    __syncthreads();
    if (!changed)
      break;
    /* Pass 2, halving the paths as it finds the roots (atomicMin, as
     * tile labeling's finds): a tile of one component links most of its
     * pixels in a chain in pass 1, which read-only finds would each walk
     * whole. */
    label = (int)tile::find_root<tile::SharedForest>(
        reinterpret_cast<uint32_t *>(const_cast<int *>(lab)),
        (uint32_t)label);
    __syncthreads();
  }
  if (x >= f.width || y >= f.height)
    return;
  const uint32_t k = pixel_node(f, x, y);
  g.parent[k] = pixel_node(f, blockIdx.x * SB_TILE + label % SB_TILE,
                           blockIdx.y * SB_TILE + label / SB_TILE);
}

cudaError_t sb_launch_tile_labeling(const Ha4Frame &f, const Forest &g,
                                    cudaStream_t stream)
{
  dim3 grid((f.width + SB_TILE - 1) / SB_TILE,
            (f.height + SB_TILE - 1) / SB_TILE);
  sb_tile_labeling<<<grid, dim3(SB_TILE, SB_TILE), 0, stream>>>(f, g);
  return cudaGetLastError();
}
