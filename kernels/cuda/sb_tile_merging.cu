/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stava and Benes Kernel 2 (2011, Fig. 35.10), one launch per level
 * of the merging scheme: 2 x 2 tiles of side `side` become one, by Union
 * across their inner vertical and horizontal borders (diagonals too when
 * 8-connected). Tiles at the right and bottom may be partial, so any width
 * and height work (the paper needs powers of two). Two deviations: Union
 * is the atomicMin merge (ha4_merge), so one pass suffices where the
 * paper's plain Union repeats until sChanged stays 0; and threads are one
 * per border pixel over the whole level rather than a block per group of
 * 16 tiles. The border flattening of its Kernel 3 is left out: the unions
 * find roots themselves. Connected means equal non-zero values
 * (forest_values.cuh), so the segments mode merges only equal classes. */
#include "forest_values.cuh"

__global__ void sb_tile_merging(Ha4Frame f, Forest g, int side,
                                int tiles_x, long n)
{
  const long id = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n)
    return;
  const int per = 4 * side; /* border pixels of one merged tile */
  const long t = id / per;
  const int j = (int)(id % per);
  const int x0 = (int)(t % tiles_x) * 2 * side;
  const int y0 = (int)(t / tiles_x) * 2 * side;
  int x, y, ex, ey; /* the pixel, and the step across the border */
  if (j < 2 * side) {
    x = x0 + side - 1;
    y = y0 + j;
    ex = 1;
    ey = 0;
  } else {
    x = x0 + j - 2 * side;
    y = y0 + side - 1;
    ex = 0;
    ey = 1;
  }
  const uint32_t v = forest_value(f, x, y);
  if (!v)
    return;
  const uint32_t k = pixel_node(f, x, y);
  if (forest_value(f, x + ex, y + ey) == v)
    ha4_merge(g.parent, k, pixel_node(f, x + ex, y + ey));
  if (f.conn8) {
    /* The two diagonal neighbours across the border. */
    const int ax = x + ex - ey, ay = y + ey - ex;
    const int bx = x + ex + ey, by = y + ey + ex;
    if (forest_value(f, ax, ay) == v)
      ha4_merge(g.parent, k, pixel_node(f, ax, ay));
    if (forest_value(f, bx, by) == v)
      ha4_merge(g.parent, k, pixel_node(f, bx, by));
  }
}

cudaError_t sb_launch_tile_merging(const Ha4Frame &f, const Forest &g,
                                   int side, cudaStream_t stream)
{
  const int tiles_x = (f.width + 2 * side - 1) / (2 * side);
  const int tiles_y = (f.height + 2 * side - 1) / (2 * side);
  const long n = (long)tiles_x * tiles_y * 4 * side;
  sb_tile_merging<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(
      f, g, side, tiles_x, n);
  return cudaGetLastError();
}
