/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker's step 2, the grid of this frame's blobs, and the searches
 * over it that settle most tracks at once (see track.c). */
#include "track_internal.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Cell of a coordinate along one axis, clamped into [0, n - 1] (NaN: 0). */
static inline int64_t cell_of(double f, int64_t n)
{
  if (!(f >= 0.0))
    return 0;
  return f >= (double)(n - 1) ? n - 1 : (int64_t)f;
}

/* Choose the grid over the blobs' centroids and counting-sort the blobs
 * into it. Cells are about the mean blob spacing (one blob per cell: a
 * track whose prediction is good finds its blob in its own cell) but no
 * larger than the gate, and never so small that the grid exceeds
 * CELLS_PER_BLOB cells per blob:
 * (w/c + 1)(h/c + 1) = wh/c^2 + (w + h)/c + 1 <= 4n + 1 for
 * c >= sqrt(wh/2n) and c >= (w + h)/2n. */
static void build_grid(GpucclTracker *t, const GpucclBlob *blobs, size_t n)
{
  Grid *g = &t->grid;
  GridEntry *pts = t->points;
  float minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
  /* Copy the centroids as floats first (the blobs are 32 bytes apart): the
   * passes below then read 12 bytes a blob. A NaN centroid never passes a
   * comparison: it stays out of the extent and out of every match. */
  for (size_t i = 0; i < n; i++) {
    float x = (float)gpuccl_blob_cx(&blobs[i]);
    float y = (float)gpuccl_blob_cy(&blobs[i]);
    pts[i] = (GridEntry){x, y, (uint32_t)i};
    if (x < minx) minx = x;
    if (x > maxx) maxx = x;
    if (y < miny) miny = y;
    if (y > maxy) maxy = y;
  }
  if (!(isfinite(maxx - minx) && isfinite(maxy - miny))) {
    /* Rare: an infinite centroid (or none finite). The grid spans the
     * finite ones; the others are clamped into its border cells. */
    minx = miny = INFINITY;
    maxx = maxy = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      if (isfinite(pts[i].x) && isfinite(pts[i].y)) {
        minx = pts[i].x < minx ? pts[i].x : minx;
        maxx = pts[i].x > maxx ? pts[i].x : maxx;
        miny = pts[i].y < miny ? pts[i].y : miny;
        maxy = pts[i].y > maxy ? pts[i].y : maxy;
      }
    }
    if (!(maxx >= minx && maxy >= miny))
      minx = maxx = miny = maxy = 0.0f;
  }
  double w = (double)maxx - minx, h = (double)maxy - miny;
  double spacing = w * h > 0.0 ? sqrt(w * h / (double)n) : (w + h) / (double)n;
  double cell = fmin(t->params.max_distance, spacing);
  cell = fmax(cell, sqrt(w * h / (2.0 * (double)n)));
  cell = fmax(cell, (w + h) / (2.0 * (double)n));
  if (!(cell > 0.0 && isfinite(cell)))
    cell = 1.0; /* every centroid the same (or an infinite extent) */
  const double max_cells = (double)(CELLS_PER_BLOB * n + 1);
  while ((floor(w / cell) + 1.0) * (floor(h / cell) + 1.0) > max_cells)
    cell *= 1.25; /* only rounding can bring us here */
  g->x0 = minx;
  g->y0 = miny;
  g->cell = cell;
  g->inv_cell = 1.0 / cell;
  g->gw = (int64_t)(w / cell) + 1;
  g->gh = (int64_t)(h / cell) + 1;

  /* Counting sort: count, prefix sums to the end of each cell, then place
   * the blobs backwards, so each cell ends up starting at cell_start[c]
   * with its blobs in index order. */
  size_t n_cells = (size_t)(g->gw * g->gh);
  uint32_t *start = t->cell_start;
  memset(start, 0, (n_cells + 1) * sizeof *start);
  for (size_t i = 0; i < n; i++) {
    int64_t cx = cell_of(((double)pts[i].x - g->x0) * g->inv_cell, g->gw);
    int64_t cy = cell_of(((double)pts[i].y - g->y0) * g->inv_cell, g->gh);
    uint32_t c = (uint32_t)(cy * g->gw + cx);
    t->blob_cell[i] = c;
    start[c]++;
  }
  uint32_t sum = 0;
  for (size_t c = 0; c < n_cells; c++) {
    sum += start[c];
    start[c] = sum; /* end of cell c for now */
  }
  start[n_cells] = sum;
  const CellEntries *e = &t->entries;
  for (size_t i = n; i-- > 0;) {
    uint32_t k = --start[t->blob_cell[i]];
    e->x[k] = pts[i].x;
    e->y[k] = pts[i].y;
    e->blob[k] = (uint32_t)i;
  }
  /* Sentinels for the shortcut's fixed-length read of the last cells
   * (and the one past them that it may read and discard): infinitely far,
   * never nearer than anything. */
  for (size_t k = n; k <= n + OWN_SCAN; k++) {
    e->x[k] = e->y[k] = INFINITY;
    e->blob[k] = NO_MATCH;
  }
}

/* Nearest entry to (px, py) among entries [k, end): *best and *blob are
 * updated, *tie tells whether the best distance was met twice. Whether a
 * blob is nearer is a coin toss, so this is written to compile without
 * branches (a minimum and masks, which compilers keep as such). */
static inline void nearest_entry(const CellEntries *e, uint32_t k, uint32_t end,
                                 float px, float py, float *best, uint32_t *blob,
                                 bool *tie)
{
  for (; k < end; k++) {
    float ex = e->x[k] - px, ey = e->y[k] - py, d2 = ex * ex + ey * ey;
    const bool nearer = d2 < *best, same = d2 == *best;
    *tie = (*tie | same) & !nearer;
    *blob ^= (*blob ^ e->blob[k]) & (0u - (uint32_t)nearer);
    *best = d2 < *best ? d2 : *best;
  }
}

/* The same for exactly OWN_SCAN entries from k0, side by side: the
 * distances, their minimum, then which entries reach it (the first one is
 * the blob; two or more are a tie). No minimum below infinity: no blob.
 * With SSE2 (every x86-64) the four distances are one vector: the same
 * single-precision operations, so the same values as the scalar code. */
static inline void nearest_fixed(const CellEntries *e, uint32_t k0, float px,
                                 float py, float *best, uint32_t *blob, bool *tie)
{
  float b;
  unsigned at;
#if defined(__SSE2__) && OWN_SCAN == 4
  const __m128 inf = _mm_set1_ps(INFINITY);
  __m128 ex = _mm_sub_ps(_mm_loadu_ps(&e->x[k0]), _mm_set1_ps(px));
  __m128 ey = _mm_sub_ps(_mm_loadu_ps(&e->y[k0]), _mm_set1_ps(py));
  /* min(d2, inf) also turns a NaN into infinity (the second operand). */
  __m128 d2 = _mm_min_ps(_mm_add_ps(_mm_mul_ps(ex, ex), _mm_mul_ps(ey, ey)), inf);
  __m128 m = _mm_min_ps(d2, _mm_shuffle_ps(d2, d2, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_min_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  b = _mm_cvtss_f32(m);
  at = (unsigned)_mm_movemask_ps(_mm_cmpeq_ps(d2, m));
#else
  float d2[OWN_SCAN];
  b = INFINITY;
  for (int k = 0; k < OWN_SCAN; k++) {
    float ex = e->x[k0 + k] - px, ey = e->y[k0 + k] - py;
    d2[k] = ex * ex + ey * ey;
  }
  for (int k = 0; k < OWN_SCAN; k++)
    b = d2[k] < b ? d2[k] : b; /* NaN never taken */
  at = 0;
  for (int k = 0; k < OWN_SCAN; k++)
    at |= (unsigned)(d2[k] == b) << k;
#endif
  at &= 0u - (unsigned)(b < INFINITY);
  const uint32_t first = e->blob[k0 + (uint32_t)__builtin_ctz(at | 1u << OWN_SCAN)];
  *blob = at ? first : NO_MATCH;
  *tie = (at & (at - 1)) != 0;
  *best = b;
}

/* Step 3's shortcut for the usual case, a good prediction: the track's
 * nearest blob is settled by the prediction's own cell, or else by the
 * 2 x 2 block of cells around the prediction's quarter of it, when the
 * blob found is nearer than every cell left out, and not tied; and when no
 * blob in the block is inside the gate and every cell left out is beyond
 * it, the track has no candidate at all. Otherwise the general search
 * decides (track_match.c). */

/* The own-cell step for every track at once, into near[]: the nearest
 * blob when the own cell settles it (inside the gate or not), else
 * NO_MATCH. Tracks are independent here and the loop has no branch that
 * depends on the data, so the processor works on several tracks at a time
 * instead of waiting for each one's cell and entries in turn. */
void gpuccl_track_nearest_own(const NearGrid *g, const float *px,
                              const float *py, uint32_t n_tracks,
                              Candidate *near)
{
  for (uint32_t ti = 0; ti < n_tracks; ti++) {
    const double fx = ((double)px[ti] - g->x0) * g->inv_cell;
    const double fy = ((double)py[ti] - g->y0) * g->inv_cell;
    const bool inside = (fx >= 0.0) & (fx < g->gw_d) & (fy >= 0.0) & (fy < g->gh_d);
    /* Outside (or NaN): cell 0 is read and the answer thrown away. */
    const int64_t cx = (int64_t)(inside ? fx : 0.0), cy = (int64_t)(inside ? fy : 0.0);
    const double ax = fx - (double)cx, ay = fy - (double)cy;
    const double reach = dmin(dmin(ax, 1.0 - ax), dmin(ay, 1.0 - ay));
    /* The OWN_SCAN entries from the cell's first are read whatever the
     * cell holds: when it holds fewer, the others are blobs of later cells
     * or the sentinels past the end, and the nearest of a superset of the
     * cell settles it just as well. */
    const uint32_t *cs = &g->cell_start[cy * g->gw + cx];
    const uint32_t k0 = cs[0], k_end = cs[1];
    float best;
    uint32_t blob;
    bool tie;
    nearest_fixed(g->entries, k0, px[ti], py[ti], &best, &blob, &tie);
    const bool settled = inside & !tie & (k_end - k0 <= OWN_SCAN) &
                         (reach * reach * g->cell2 > (double)best);
    /* NO_MATCH is all ones: a mask rather than a jump. */
    near[ti] = (Candidate){best, blob | (0u - (uint32_t)!settled)};
  }
}

/* The 2 x 2 block towards the prediction's quarter of its cell, for a
 * track its own cell did not settle: the cells left out are at least half
 * a cell away. */
NearResult gpuccl_track_nearest_block(const NearGrid *g, float px, float py,
                                      Candidate *out)
{
  const double fx = ((double)px - g->x0) * g->inv_cell;
  const double fy = ((double)py - g->y0) * g->inv_cell;
  if (!(fx >= 0.0 && fx < g->gw_d && fy >= 0.0 && fy < g->gh_d))
    return NEAR_UNDECIDED;
  const int64_t cx = (int64_t)fx, cy = (int64_t)fy;
  const double ax = fx - (double)cx, ay = fy - (double)cy;
  const bool left = ax < 0.5, up = ay < 0.5;
  const int64_t x_lo = left && cx > 0 ? cx - 1 : cx;
  const int64_t x_hi = !left && cx + 1 < g->gw ? cx + 1 : cx;
  const int64_t y_lo = up && cy > 0 ? cy - 1 : cy;
  const int64_t y_hi = !up && cy + 1 < g->gh ? cy + 1 : cy;
  float best = INFINITY;
  uint32_t blob = NO_MATCH;
  bool tie = false;
  for (int64_t row = y_lo; row <= y_hi; row++) {
    const uint32_t *rs = &g->cell_start[row * g->gw];
    nearest_entry(g->entries, rs[x_lo], rs[x_hi + 1], px, py, &best, &blob, &tie);
  }
  const double reach = dmin(left ? 1.0 - ax : ax, up ? 1.0 - ay : ay);
  const double out2 = reach * reach * g->cell2;
  if (!(best <= g->gate2) && out2 > (double)g->gate2)
    return NEAR_NONE;
  if (blob == NO_MATCH || tie || out2 <= (double)best)
    return NEAR_UNDECIDED;
  *out = (Candidate){best, blob};
  return NEAR_FOUND;
}

/* Step 2 on first need: sort the blobs into the grid and take its numbers
 * for the searches. */
void gpuccl_track_ensure_grid(GpucclTracker *t, const GpucclBlob *blobs,
                              size_t n_blobs, NearGrid *g, bool *built)
{
  if (*built)
    return;
  build_grid(t, blobs, n_blobs);
  const Grid *gr = &t->grid;
  *g = (NearGrid){
    .x0 = gr->x0, .y0 = gr->y0, .inv_cell = gr->inv_cell,
    .gw_d = (double)gr->gw, .gh_d = (double)gr->gh,
    .cell2 = gr->cell * gr->cell * (1.0 - 1e-5),
    .gw = gr->gw, .gh = gr->gh,
    .cell_start = t->cell_start, .entries = &t->entries,
    .gate2 = (float)(t->params.max_distance * t->params.max_distance),
  };
  *built = true;
}

