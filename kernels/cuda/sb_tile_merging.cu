/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stava and Benes Kernel 2 (2011, Fig. 35.10): at each level of the
 * merging scheme 2 x 2 tiles of side `side` become one, by Union across
 * their inner vertical and horizontal borders (diagonals too when
 * 8-connected). Tiles at the right and bottom may be partial, so any width
 * and height work (the paper needs powers of two). Three deviations:
 * Union is the atomicMin merge (ha4_merge), so one pass suffices where the
 * paper's plain Union repeats until sChanged stays 0; threads are one per
 * border pixel rather than a block per group of 16 tiles; and since
 * concurrent merges of that kind are safe in any order, every level runs
 * in one launch instead of one launch a level, each level's tiles a band
 * of the grid's rows (a launch a level cost about 6 us each, seven levels
 * at 2048 x 2048, mostly waiting on the one before). The border
 * flattening of its Kernel 3 is left out: the unions find roots
 * themselves. Connected means equal non-zero values
 * (forest_values.cuh), so the segments mode merges only equal classes.
 *
 * A pixel skips a union its neighbour along the border already makes: the
 * two tiles being merged are each labeled whole, so when the pixel before
 * it and the one across from that are connected to it and to its own
 * across (a0), they join the same two components. A pixel skips only on
 * its neighbour in its own sub-tile (not past a corner of the four), so
 * every skipped union rests on one made further back along the same
 * border, never on one that rests on it in turn. 8-connected, a diagonal
 * is skipped when a0 is connected to the pixel (its straight union and
 * a0's link to the diagonal inside the other tile imply it), or when the
 * pixel along the border on the diagonal's side is (that pixel's straight
 * union does). */
#include <algorithm>

#include "forest_values.cuh"

/* Rows of merged tiles at the level that merges tiles of `side`, a power
 * of two: a shift, not the division every thread's walk over the levels
 * would repeat. */
__host__ __device__ inline int sb_level_rows(int height, int side)
{
#ifdef __CUDA_ARCH__
  const int shift = __ffs(2 * side) - 1;
#else
  const int shift = __builtin_ctz(2u * side);
#endif
  return (height + 2 * side - 1) >> shift;
}

/* Grid row blockIdx.y is row `row` of the merged tiles of one level (the
 * levels' rows one after the other, SB_TILE's first); thread id of it
 * is border pixel id & (per - 1) of merged tile id >> log_per (per = 4 *
 * side, a power of two, as side is: no division). */
__global__ void sb_tile_merging(Ha4Frame f, Forest g)
{
  int side = SB_TILE, row = blockIdx.y, rows;
  while (row >= (rows = sb_level_rows(f.height, side))) {
    row -= rows;
    side *= 2;
  }
  const int log_per = __ffs(4 * side) - 1;
  const int tiles_x = (f.width + 2 * side - 1) >> (log_per - 1);
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >> log_per >= tiles_x)
    return;
  const int j = id & ((1 << log_per) - 1);
  const int x0 = (id >> log_per) * 2 * side, y0 = row * 2 * side;
  /* The pixel, its place along the border, and the step across it. */
  int x, y, i, ex, ey;
  if (j < 2 * side) {
    i = j;
    x = x0 + side - 1;
    y = y0 + i;
    ex = 1;
    ey = 0;
  } else {
    i = j - 2 * side;
    x = x0 + i;
    y = y0 + side - 1;
    ex = 0;
    ey = 1;
  }
  const uint32_t v = forest_value(f, x, y);
  if (!v)
    return;
  /* Whether the pixels before and after this one along the border (pm,
   * pp) and the ones across from them (am, ap) are connected to it; a0
   * straight across. Unions already implied are skipped (above): one union
   * a run of connected pairs, not one a pixel. */
  const bool first = (i & (side - 1)) == 0;
  const bool last = ((i + 1) & (side - 1)) == 0;
  const int ax = x + ex, ay = y + ey;
  const uint32_t a0 = forest_value(f, ax, ay);
  const bool pm = !first && forest_value(f, x - ey, y - ex) == v;
  const bool am = forest_value(f, ax - ey, ay - ex) == v;
  const uint32_t k = pixel_node(f, x, y);
  if (a0 == v && !(pm && am))
    ha4_merge(g.parent, k, pixel_node(f, ax, ay));
  if (!f.conn8)
    return;
  const bool pp = !last && forest_value(f, x + ey, y + ex) == v;
  const bool ap = forest_value(f, ax + ey, ay + ex) == v;
  if (am && (first || (a0 != v && !pm)))
    ha4_merge(g.parent, k, pixel_node(f, ax - ey, ay - ex));
  if (ap && (last || (a0 != v && !pp)))
    ha4_merge(g.parent, k, pixel_node(f, ax + ey, ay + ex));
}

cudaError_t sb_launch_tile_merging(const Ha4Frame &f, const Forest &g,
                                   cudaStream_t stream)
{
  static_assert((SB_TILE & (SB_TILE - 1)) == 0, "sides are powers of two");
  /* Every level's rows of merged tiles, and the most border pixels
   * (threads) a row of them has. */
  int rows = 0, row_threads = 0;
  for (int side = SB_TILE; side < f.width || side < f.height; side *= 2) {
    rows += sb_level_rows(f.height, side);
    row_threads = std::max(row_threads,
                           (f.width + 2 * side - 1) / (2 * side) * 4 * side);
  }
  if (!rows)
    return cudaSuccess;
  const dim3 grid((row_threads + 255) / 256, rows);
  sb_tile_merging<<<grid, 256, 0, stream>>>(f, g);
  return cudaGetLastError();
}
