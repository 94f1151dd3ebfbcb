/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker's step 3: the order of pairs, each track's candidates
 * nearest first, and the matching by deferred acceptance (see track.c). */
#include "track_internal.h"

#include <math.h>

/* IoU of a track's box at its prediction and a blob's box (inclusive pixel
 * boxes, so a box of one pixel has size 1). */
static double pair_iou(const GpucclTracker *t, const GpucclBlob *blobs,
                       uint32_t ti, uint32_t bi)
{
  const Track *tr = &t->tracks[ti];
  const GpucclBlob *bl = &blobs[bi];
  double ax = t->px[ti], ay = t->py[ti], aw = tr->w, ah = tr->h;
  double bx = (bl->x0 + bl->x1) / 2.0, by = (bl->y0 + bl->y1) / 2.0;
  double bw = (double)bl->x1 - bl->x0 + 1, bh = (double)bl->y1 - bl->y0 + 1;
  double ix = fmin(ax + aw / 2, bx + bw / 2) - fmax(ax - aw / 2, bx - bw / 2);
  double iy = fmin(ay + ah / 2, by + bh / 2) - fmax(ay - ah / 2, by - bh / 2);
  if (!(ix > 0 && iy > 0))
    return 0.0;
  double inter = ix * iy;
  return inter / (aw * ah + bw * bh - inter);
}

/* The strict order of pairs: does (ta, ba) at squared distance da come
 * before (tb, bb) at db? Equal distances are rare outside synthetic
 * scenes, so the overlaps are only computed then. */
static bool pair_before_tied(const GpucclTracker *t, const GpucclBlob *blobs,
                             uint32_t ta, uint32_t ba, uint32_t tb, uint32_t bb)
{
  double ia = pair_iou(t, blobs, ta, ba), ib = pair_iou(t, blobs, tb, bb);
  if (ia != ib)
    return ia > ib;
  if (ta != tb)
    return ta < tb;
  return ba < bb;
}

static inline bool pair_before(const GpucclTracker *t, const GpucclBlob *blobs,
                               float da, uint32_t ta, uint32_t ba,
                               float db, uint32_t tb, uint32_t bb)
{
  if (da != db)
    return da < db;
  return pair_before_tied(t, blobs, ta, ba, tb, bb);
}

/* The k nearest blobs of one track inside the gate, best first. */
typedef struct {
  Candidate *c;      /* room for k */
  int n, k;
  uint32_t track;
  float px, py;
  float gate2;
  const GpucclTracker *t;
  const GpucclBlob *blobs;
  uint64_t visited;  /* rows, cells and entries read (GpucclTracker.visited) */
} Nearest;

/* Squared distance beyond which a blob cannot enter the list. */
static inline float nearest_bound(const Nearest *nb)
{
  return nb->n == nb->k ? nb->c[nb->k - 1].d2 : nb->gate2;
}

static void nearest_offer(Nearest *nb, float d2, uint32_t blob)
{
  const uint32_t tr = nb->track;
  int i;
  if (nb->n == nb->k) {
    const Candidate *worst = &nb->c[nb->k - 1];
    if (!pair_before(nb->t, nb->blobs, d2, tr, blob, worst->d2, tr, worst->blob))
      return;
    i = nb->k - 1;
  } else {
    i = nb->n++;
  }
  for (; i > 0 && pair_before(nb->t, nb->blobs, d2, tr, blob,
                              nb->c[i - 1].d2, tr, nb->c[i - 1].blob); i--)
    nb->c[i] = nb->c[i - 1];
  nb->c[i] = (Candidate){d2, blob};
}

/* Offer the blobs of cells [x_lo, x_hi] of one grid row (contiguous). */
static void nearest_scan(Nearest *nb, int64_t row, int64_t x_lo, int64_t x_hi)
{
  const GpucclTracker *t = nb->t;
  uint32_t end = t->cell_start[row * t->grid.gw + x_hi + 1];
  const CellEntries *e = &t->entries;
  const uint32_t start = t->cell_start[row * t->grid.gw + x_lo];
  nb->visited += (uint64_t)(x_hi - x_lo + 1) + (end - start);
  for (uint32_t k = start; k < end; k++) {
    float ex = e->x[k] - nb->px, ey = e->y[k] - nb->py;
    float d2 = ex * ex + ey * ey;
    if (d2 <= nearest_bound(nb)) /* false for NaN */
      nearest_offer(nb, d2, e->blob[k]);
  }
}

/* May a blob at squared distance >= lower2 still enter the list? The grid
 * geometry is in double and the distances in float: the margin keeps a
 * rounding difference from skipping a cell that holds a tie. */
static inline bool nearest_reachable(const Nearest *nb, double lower2)
{
  return lower2 * (1.0 - 1e-5) <= (double)nearest_bound(nb);
}

/* The circle of the list's bound around the prediction against one row:
 * *dy2, the squared distance from the prediction to the row's band, and
 * *e, the margin that covers the grid's rounding (double) against the
 * distances' (float). The bound only shrinks, so what is out of reach now
 * stays out. This keeps a search bounded whatever the gate: a prediction
 * far from every blob (a gate wider than the frame lets tracks learn
 * velocities that throw them off it) visits the rows and cells nearest to
 * it first and then only the lens the circle still reaches, not the box
 * around it. */
static void nearest_row_band(const Nearest *nb, int64_t row, double *dy2,
                             double *e)
{
  const Grid *g = &nb->t->grid;
  const double lo = g->y0 + (double)row * g->cell, hi = lo + g->cell;
  const double py = nb->py;
  *e = 1e-6 * (g->cell + fabs(lo) + fabs(hi) + fabs(g->x0) +
               (double)g->gw * g->cell);
  const double dy = py < lo - *e ? lo - *e - py
                  : py > hi + *e ? py - hi - *e : 0.0;
  *dy2 = dy * dy;
}

/* Whether cells [x_lo, x_hi] of a row at dy2 come within the bound (an
 * infinite bound reaches everything). */
static bool nearest_span_reach(const Nearest *nb, int64_t x_lo, int64_t x_hi,
                               double dy2, double e)
{
  const Grid *g = &nb->t->grid;
  const double lo = g->x0 + (double)x_lo * g->cell - e;
  const double hi = g->x0 + (double)(x_hi + 1) * g->cell + e;
  const double px = nb->px;
  const double dx = px < lo ? lo - px : px > hi ? px - hi : 0.0;
  return dx * dx + dy2 <= (double)nearest_bound(nb) * (1.0 + 1e-5) + e * e;
}

/* Offer the blobs of cells [x_lo, x_hi] of a row at dy2, clipped to the
 * grid: the cell nearest the prediction first, then outwards on both
 * sides while the cells are within reach. */
static void nearest_run(Nearest *nb, int64_t row, int64_t x_lo, int64_t x_hi,
                        double dy2, double e)
{
  const Grid *g = &nb->t->grid;
  if (x_lo < 0)
    x_lo = 0;
  if (x_hi > g->gw - 1)
    x_hi = g->gw - 1;
  if (x_lo > x_hi)
    return;
  const double f = floor(((double)nb->px - g->x0) * g->inv_cell);
  const int64_t c = !(f > (double)x_lo) ? x_lo /* also NaN */
                  : f >= (double)x_hi ? x_hi : (int64_t)f;
  int64_t l = c, r = c + 1;
  while (l >= x_lo || r <= x_hi) {
    if (l >= x_lo) {
      if (nearest_span_reach(nb, l, l, dy2, e))
        nearest_scan(nb, row, l, l), l--;
      else
        l = x_lo - 1;
    }
    if (r <= x_hi) {
      if (nearest_span_reach(nb, r, r, dy2, e))
        nearest_scan(nb, row, r, r), r++;
      else
        r = x_hi + 1;
    }
  }
}

/* Row `row` of the ring between the boxes of radius inner and outer
 * around (cx, cy), clipped to the grid. false when even the whole width
 * of the box on this row is out of reach: then so is every row farther
 * from the prediction (their bands are farther, their runs no wider). */
static bool nearest_ring_row(Nearest *nb, int64_t cx, int64_t cy,
                             int64_t inner, int64_t outer, int64_t row)
{
  const Grid *g = &nb->t->grid;
  const int64_t x_lo = cx - outer < 0 ? 0 : cx - outer;
  const int64_t x_hi = cx + outer > g->gw - 1 ? g->gw - 1 : cx + outer;
  double dy2, e;
  nb->visited++;
  nearest_row_band(nb, row, &dy2, &e);
  if (!nearest_span_reach(nb, x_lo, x_hi, dy2, e))
    return false;
  if (row >= cy - inner && row <= cy + inner) {
    nearest_run(nb, row, cx - outer, cx - inner - 1, dy2, e);
    nearest_run(nb, row, cx + inner + 1, cx + outer, dy2, e);
  } else {
    nearest_run(nb, row, cx - outer, cx + outer, dy2, e);
  }
  return true;
}

/* Offer the blobs of the box of cells of radius `outer` around (cx, cy)
 * that are not in the box of radius `inner` (-1: none). Only the grid's
 * rows are visited, the nearest first, so that the bound shrinks early
 * and clips the farther rows (nearest_row_band). */
static void nearest_box(Nearest *nb, int64_t cx, int64_t cy, int64_t inner,
                        int64_t outer)
{
  const Grid *g = &nb->t->grid;
  int64_t y_lo = cy - outer < 0 ? 0 : cy - outer;
  int64_t y_hi = cy + outer > g->gh - 1 ? g->gh - 1 : cy + outer;
  if (y_lo > y_hi || cx + outer < 0 || cx - outer > g->gw - 1)
    return;
  const int64_t first = cy < y_lo ? y_lo : cy > y_hi ? y_hi : cy;
  /* Rows farther than one out of reach are out of reach too. */
  bool up = true, down = true;
  for (int64_t k = 0; (up && first - k >= y_lo) || (down && first + k <= y_hi);
       k++) {
    if (up && first - k >= y_lo)
      up = nearest_ring_row(nb, cx, cy, inner, outer, first - k);
    if (k && down && first + k <= y_hi)
      down = nearest_ring_row(nb, cx, cy, inner, outer, first + k);
    else if (!k)
      down = up;
  }
}

/* The usual case of the search: a finite gate that spans a few cells. All
 * the cells the gate reaches are scanned at once, row by row (the order of
 * pairs is strict, so any exhaustive scan gives the same list); false when
 * the box would be large (a gate of many cells, a prediction far off), for
 * the growing search to do. The box is widened a little so that rounding
 * never leaves out a blob on the gate's edge. */
#define GATE_BOX_CELLS 36

static bool nearest_gate_box(Nearest *nb)
{
  const Grid *g = &nb->t->grid;
  const double reach = nb->t->params.max_distance * (1.0 + 1e-5) + 1e-3;
  const double fx = ((double)nb->px - g->x0) * g->inv_cell;
  const double fy = ((double)nb->py - g->y0) * g->inv_cell;
  if (!(reach * g->inv_cell < 8.0 && fabs(fx) < 1e9 && fabs(fy) < 1e9))
    return false; /* also for an infinite gate or a NaN prediction */
  /* Cell coordinates carry rounding errors relative to their size (a grid
   * stretched by a far centroid): a little more for those. */
  const double r = reach * g->inv_cell + 1e-12 * (fabs(fx) + fabs(fy) + 1.0);
  int64_t x_lo = (int64_t)floor(fx - r), x_hi = (int64_t)floor(fx + r);
  int64_t y_lo = (int64_t)floor(fy - r), y_hi = (int64_t)floor(fy + r);
  x_lo = x_lo < 0 ? 0 : x_lo;
  y_lo = y_lo < 0 ? 0 : y_lo;
  x_hi = x_hi > g->gw - 1 ? g->gw - 1 : x_hi;
  y_hi = y_hi > g->gh - 1 ? g->gh - 1 : y_hi;
  if (x_lo > x_hi || y_lo > y_hi)
    return true; /* the gate misses the grid: no candidate */
  if ((x_hi - x_lo + 1) * (y_hi - y_lo + 1) > GATE_BOX_CELLS)
    return false;
  for (int64_t row = y_lo; row <= y_hi; row++)
    nearest_scan(nb, row, x_lo, x_hi);
  return true;
}

/* Fill nb with the track's nb->k nearest blobs inside the gate: at once
 * from the gate's box when it is small (nearest_gate_box), else the search
 * scans square boxes of cells around the prediction's cell, row by row
 * (each row of a box is one contiguous run of entries), from the 3 x 3
 * box outwards: a box of radius R leaves out only blobs at least
 * R + m cells away, m being the prediction's distance to the nearest
 * border of its own cell, so it ends once that is out of reach (the gate,
 * or the k-th candidate) or the box covers the grid. The next box is as
 * large as the reach needs, at most twice as large (with an infinite gate
 * and no candidates yet the reach is unbounded). */
static void nearest_search(Nearest *nb)
{
  if (nearest_gate_box(nb))
    return;
  const Grid *g = &nb->t->grid;
  const double fx = ((double)nb->px - g->x0) * g->inv_cell;
  const double fy = ((double)nb->py - g->y0) * g->inv_cell;
  if (!(fabs(fx) < 1e15 && fabs(fy) < 1e15)) {
    /* Cell coordinates this large have lost their precision: a finite
     * prediction that far off the grid scans every blob once (an infinite
     * gate may still take one, as the device's search would); an
     * infinite or NaN one is at no finite distance from any. */
    if (isfinite(fx) && isfinite(fy)) {
      /* The grid's row nearest the prediction first (nearest_box). */
      const int64_t row = !(fy > 0.0) ? 0
                        : fy >= (double)(g->gh - 1) ? g->gh - 1 : (int64_t)fy;
      nearest_box(nb, 0, row, -1, g->gw > g->gh ? g->gw : g->gh);
    }
    return;
  }
  /* No blob within reach of a prediction far outside the grid. */
  double ox = fx < 0.0 ? -fx : fx > (double)g->gw ? fx - (double)g->gw : 0.0;
  double oy = fy < 0.0 ? -fy : fy > (double)g->gh ? fy - (double)g->gh : 0.0;
  if (!nearest_reachable(nb, (ox * ox + oy * oy) * g->cell * g->cell))
    return;
  const int64_t cx = (int64_t)floor(fx), cy = (int64_t)floor(fy);
  const double ax = fx - (double)cx, ay = fy - (double)cy;
  const double m = dmin(dmin(ax, 1.0 - ax), dmin(ay, 1.0 - ay));
  /* The box radius that covers the whole grid. */
  int64_t r_max = cx;
  if (g->gw - 1 - cx > r_max) r_max = g->gw - 1 - cx;
  if (cy > r_max) r_max = cy;
  if (g->gh - 1 - cy > r_max) r_max = g->gh - 1 - cy;
  if (r_max < 1) r_max = 1;

  /* The first box reaches the grid: smaller ones hold no cell. */
  const int64_t gx = cx < 0 ? -cx : cx > g->gw - 1 ? cx - (g->gw - 1) : 0;
  const int64_t gy = cy < 0 ? -cy : cy > g->gh - 1 ? cy - (g->gh - 1) : 0;
  int64_t want = gx > gy ? gx : gy;
  want = want < 1 ? 1 : want > r_max ? r_max : want;
  int64_t r = -1; /* nothing scanned yet */
  for (;;) {
    nearest_box(nb, cx, cy, r, want);
    r = want;
    if (r >= r_max)
      return;
    double reach = ((double)r + m) * g->cell;
    if (!nearest_reachable(nb, reach * reach))
      return;
    double need = ceil(sqrt((double)nearest_bound(nb) * (1.0 + 1e-5)) * g->inv_cell - m);
    double grow = 2.0 * (double)r + 1.0;
    want = !(need < grow) ? (int64_t)grow /* also for an infinite bound */
         : need <= (double)r ? r + 1 : (int64_t)need;
    if (want > r_max)
      want = r_max;
  }
}

/* The next blob track ti proposes to; false when it has none left. The
 * first is found with a k = 1 search; the whole list only when needed. */
static bool next_candidate(GpucclTracker *t, const GpucclBlob *blobs,
                           uint32_t ti, Candidate *out)
{
  uint8_t pos = t->proposals[ti];
  if (pos >= MAX_CANDIDATES)
    return false;
  t->proposals[ti] = pos + 1;
  Candidate *list = &t->candidates[(size_t)ti * MAX_CANDIDATES];
  Nearest nb = {.n = 0, .track = ti, .px = t->px[ti], .py = t->py[ti],
                .gate2 = (float)(t->params.max_distance * t->params.max_distance),
                .t = t, .blobs = blobs};
  if (pos == 0) {
    nb.c = out;
    nb.k = 1;
    nearest_search(&nb);
    t->visited += nb.visited;
    return nb.n == 1;
  }
  if (t->n_candidates[ti] == LIST_NOT_BUILT) {
    /* Same order as the k = 1 search, so list[0] is the blob already
     * proposed to. */
    nb.c = list;
    nb.k = MAX_CANDIDATES;
    nearest_search(&nb);
    t->visited += nb.visited;
    t->n_candidates[ti] = (uint8_t)nb.n;
  }
  if (pos >= t->n_candidates[ti])
    return false;
  *out = list[pos];
  return true;
}

/* Step 3: deferred acceptance. Each track proposes until a blob holds it
 * or it runs out of candidates; a blob holds the best pair proposed to it,
 * and the track it drops proposes on. Every track's first candidate is its
 * nearest blob: from the device's search when `nearest` is given (a track
 * it did not settle gets GPUCCL_NO_BLOB, as from the own-cell step), else
 * from the own-cell step over the grid. */
void gpuccl_track_match(GpucclTracker *t, const GpucclBlob *blobs,
                        size_t n_blobs, const GpucclNearest *nearest)
{
  NearGrid g = {.gate2 = (float)(t->params.max_distance * t->params.max_distance)};
  bool grid = false;
  uint32_t *const holder = t->holder, *const match = t->match;
  float *const holder_d2 = t->holder_d2;
  const uint32_t n_tracks = (uint32_t)t->n_tracks;
  const Candidate *first = nearest;
  if (!first) {
    gpuccl_track_ensure_grid(t, blobs, n_blobs, &g, &grid);
    gpuccl_track_nearest_own(&g, t->px, t->py, n_tracks, t->near);
    first = t->near;
  }
  for (uint32_t ti = 0; ti < n_tracks; ti++) {
    uint32_t cur = ti;
    Candidate c = first[ti];
    /* The first candidate, as next_candidate's search would have found it;
     * with none inside the gate, the track has no candidate. */
    NearResult near;
    if (c.blob != NO_MATCH) {
      near = c.d2 <= g.gate2 ? NEAR_FOUND : NEAR_NONE;
    } else {
      gpuccl_track_ensure_grid(t, blobs, n_blobs, &g, &grid);
      near = gpuccl_track_nearest_block(&g, t->px[ti], t->py[ti], &c);
    }
    if (near == NEAR_NONE)
      continue;
    bool have = near == NEAR_FOUND;
    if (have)
      t->proposals[ti] = 1;
    for (;;) {
      if (!have) {
        gpuccl_track_ensure_grid(t, blobs, n_blobs, &g, &grid);
        if (!next_candidate(t, blobs, cur, &c))
          break;
      }
      have = false;
      uint32_t rival = holder[c.blob];
      if (rival != NO_MATCH &&
          !pair_before(t, blobs, c.d2, cur, c.blob, holder_d2[c.blob], rival, c.blob))
        continue; /* refused: cur tries its next candidate */
      holder[c.blob] = cur;
      holder_d2[c.blob] = c.d2;
      match[cur] = c.blob;
      if (rival == NO_MATCH)
        break;
      match[rival] = NO_MATCH;
      cur = rival;
    }
  }
}

/* Merges: when an unmatched track's prediction lies inside one of its
 * candidate blobs that another track took, the two objects touch and the
 * labeling saw one blob. Its centroid is the mean of both, so the track
 * that took it coasts on its prediction instead of learning a wrong
 * velocity; when the objects part, both predictions are still where they
 * should be. An unmatched track that had a candidate was refused by it, so
 * its list is built. */
void gpuccl_track_mark_merges(GpucclTracker *t, const GpucclBlob *blobs)
{
  for (size_t ti = 0; ti < t->n_tracks; ti++) {
    if (t->match[ti] != NO_MATCH || t->n_candidates[ti] == LIST_NOT_BUILT)
      continue;
    const Candidate *list = &t->candidates[ti * MAX_CANDIDATES];
    double px = t->px[ti], py = t->py[ti];
    for (int k = 0; k < t->n_candidates[ti]; k++) {
      const GpucclBlob *bl = &blobs[list[k].blob];
      if (t->holder[list[k].blob] != NO_MATCH &&
          px >= bl->x0 && px <= bl->x1 + 1.0 && py >= bl->y0 && py <= bl->y1 + 1.0)
        t->merged[list[k].blob] = 1;
    }
  }
}

