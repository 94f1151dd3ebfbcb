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
#include "forest_values.cuh"

/* Thread id of grid row blockIdx.y: merged tile id >> log_per of that
 * row, its border pixel id & (per - 1) (per = 4 * side, a power of two,
 * as side is: no division). */
__global__ void sb_tile_merging(Ha4Frame f, Forest g, int side, int log_per,
                                int tiles_x)
{
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >> log_per >= tiles_x)
    return;
  const int j = id & ((1 << log_per) - 1);
  const int x0 = (id >> log_per) * 2 * side, y0 = blockIdx.y * 2 * side;
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
  const bool first = (i & (side - 1)) == 0, last = ((i + 1) & (side - 1)) == 0;
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
                                   int side, cudaStream_t stream)
{
  static_assert((SB_TILE & (SB_TILE - 1)) == 0, "sides are powers of two");
  const int tiles_x = (f.width + 2 * side - 1) / (2 * side);
  const int tiles_y = (f.height + 2 * side - 1) / (2 * side);
  const int log_per = __builtin_ctz(4u * (unsigned)side);
  const int row = tiles_x << log_per; /* threads of a row of merged tiles */
  const dim3 grid((row + 255) / 256, tiles_y);
  sb_tile_merging<<<grid, 256, 0, stream>>>(f, g, side, log_per, tiles_x);
  return cudaGetLastError();
}
