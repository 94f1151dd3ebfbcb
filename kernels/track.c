/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl tracker: stable blob ids across frames (see gpuccl_track.h).
 *
 * One update:
 *  1. predict every live track one frame ahead with its velocity;
 *  2. counting-sort this frame's blobs into a uniform grid over their
 *     centroids (about one blob per cell), so a track finds its nearest
 *     blobs by looking at a cell or a few, however many blobs there are;
 *  3. match greedily, best pairs first, without sorting the pairs: tracks
 *     propose to their candidate blobs nearest first and a blob keeps the
 *     best proposal it gets, handing a displaced track on to its next
 *     candidate (deferred acceptance). When tracks and blobs rank pairs by
 *     the same strict order this gives exactly the global greedy matching
 *     (its best pair is in every stable matching; repeat on the rest), and
 *     a track only needs its candidates one at a time: the nearest blob
 *     first, from a search that usually ends in the track's own cell, and
 *     its full candidate list (the MAX_CANDIDATES nearest inside the gate)
 *     only when that blob went to a better track;
 *  4. matched tracks move to their blob (or coast on their prediction when
 *     the blob is two objects merged), unmatched tracks age and die after
 *     max_lost frames, unmatched blobs start new tracks with fresh ids.
 *
 * With a backend that searches (gpuccl_tracker_update_nearest), every
 * track's nearest blob comes from the device, found by brute force beside
 * the blob table: step 3 starts from it, and step 2's grid is only built
 * when a track needs more (a tie, or its blob went to a better track).
 *
 * The order of pairs: smaller squared distance, then larger bounding-box
 * overlap (IoU, only computed for exactly equal distances), then the older
 * track, then the lower blob index; so equal inputs always give equal ids.
 *
 * All memory is kept in the tracker and only grows, and it is reserved
 * before anything changes: a steady stream allocates nothing per frame, and
 * running out of memory leaves the tracker as it was.
 */
#include "gpuccl_track.h"
#include "backend.h"
#include "fault.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Weight of the newest displacement in the velocity estimate: low enough
 * that one noisy centroid (e.g. two blobs merged for a frame) does not throw
 * the prediction off, high enough to follow a turn within a few frames. */
#define VELOCITY_GAIN 0.5

/* A track considers at most this many blobs (the nearest inside the gate):
 * memory and time stay linear in the blobs however dense they are (a frame
 * of isolated pixels has thousands of blobs within any useful gate); a
 * track whose candidates all went to better tracks stays unmatched. */
#define MAX_CANDIDATES 8

/* Grid cells per blob at most (see build_grid). */
#define CELLS_PER_BLOB 4

/* Entries of the prediction's own cell read by the shortcut without a
 * data-dependent loop (about one blob per cell: a fuller cell is rare and
 * takes the slower path). */
#define OWN_SCAN 4

#define NO_MATCH UINT32_MAX
#define LIST_NOT_BUILT UINT8_MAX

/* The per-track state that step 4 updates together; the prediction, which
 * the search reads for every track, lives apart in two float arrays. */
typedef struct {
  double x, y;       /* centroid when last seen */
  double vx, vy;     /* pixels per frame */
  float w, h;        /* bounding box size when last seen */
  uint32_t id;
  int32_t lost;      /* frames since last seen */
  int32_t hits;      /* frames seen; velocity is known from the second */
} Track;

/* A blob a track may take: d2, its squared distance from the track's
 * prediction, and blob, its index in this frame's blobs. The device's
 * answers (GpucclNearest) are such pairs and are read as they come. */
typedef GpucclNearest Candidate;
_Static_assert(NO_MATCH == GPUCCL_NO_BLOB, "one value means no blob");

/* Step 2's grid: cells of side `cell` from (x0, y0), gw x gh of them,
 * row-major, so the cells of one row of a neighbourhood are one contiguous
 * run of entries. */
typedef struct {
  double x0, y0, cell, inv_cell;
  int64_t gw, gh;
} Grid;

/* A blob's centroid as floats, copied so that the passes over the blobs
 * read 12 bytes each instead of 32. */
typedef struct {
  float x, y;
  uint32_t blob;     /* index into blobs */
} GridEntry;

/* The grid's entries in cell order, one array per field, so the shortcut
 * computes the distances of a cell's first entries side by side. */
typedef struct {
  float *x, *y;
  uint32_t *blob;
} CellEntries;

struct GpucclTracker {
  GpucclTrackerParams params;
  uint32_t next_id;
  size_t n_predicted;      /* tracks gpuccl_tracker_predict answered for
                            * since the last update; 0: none */

  /* Tracks, oldest first (the tie-break relies on it), and per-track
   * scratch; one capacity for the group. */
  size_t n_tracks, cap_tracks;
  Track *tracks;
  float *px, *py;          /* prediction for the current frame */
  uint32_t *match;         /* blob index of each track, or NO_MATCH */
  uint8_t *proposals;      /* candidates proposed to so far */
  uint8_t *n_candidates;   /* length of the list, or LIST_NOT_BUILT */
  Candidate *near;         /* the own-cell shortcut's answer */
  Candidate *candidates;   /* MAX_CANDIDATES per track, built on demand */
  size_t cap_candidates;

  /* Per-blob scratch; one capacity for the group. */
  size_t cap_blobs;
  GridEntry *points;       /* the blobs' centroids in blob order */
  CellEntries entries;     /* the same in cell order, + OWN_SCAN sentinels */
  uint32_t *blob_cell;     /* grid cell of each blob */
  uint32_t *holder;        /* track holding each blob, or NO_MATCH */
  float *holder_d2;        /* squared distance of that track's pair */
  uint8_t *merged;         /* blob is two objects: its track coasts */

  Grid grid;
  uint32_t *cell_start;    /* first entry of each cell, + the end */
  size_t cap_cells;
};

void gpuccl_tracker_params_init_sized(GpucclTrackerParams *params,
                                      size_t size)
{
  const GpucclTrackerParams defaults = {.max_distance = 50.0, .max_lost = 5};
  gpuccl_init_sized(params, size, &defaults, sizeof defaults);
}

GpucclTracker *gpuccl_tracker_new(const GpucclTrackerParams *params)
{
  GpucclTracker *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  if (params)
    t->params = *params;
  else
    gpuccl_tracker_params_init(&t->params);
  t->next_id = 1;
  return t;
}

void gpuccl_tracker_free(GpucclTracker *tracker)
{
  if (!tracker)
    return;
  free(tracker->tracks);
  free(tracker->px);
  free(tracker->py);
  free(tracker->match);
  free(tracker->proposals);
  free(tracker->n_candidates);
  free(tracker->near);
  free(tracker->candidates);
  free(tracker->points);
  free(tracker->entries.x);
  free(tracker->entries.y);
  free(tracker->entries.blob);
  free(tracker->blob_cell);
  free(tracker->holder);
  free(tracker->holder_d2);
  free(tracker->merged);
  free(tracker->cell_start);
  free(tracker);
}

void gpuccl_tracker_set_params(GpucclTracker *tracker,
                               const GpucclTrackerParams *params)
{
  if (tracker && params)
    tracker->params = *params;
}

/* Ids keep counting after a reset: an id names one object for the whole
 * life of the tracker, so a consumer never confuses old and new objects. */
void gpuccl_tracker_reset(GpucclTracker *tracker)
{
  if (tracker)
    tracker->n_tracks = tracker->n_predicted = 0;
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/* Grow *buf to hold at least n elements of size elem; false when out of
 * memory (the old buffer stays valid). */
static bool reserve(void **buf, size_t *cap, size_t n, size_t elem)
{
  if (n <= *cap)
    return true;
  size_t want = *cap ? *cap : 64;
  while (want < n)
    want *= 2;
  if (gpuccl_fault_hit(GPUCCL_FAULT_ALLOC)) /* tests: GPUCCL_FAULT=alloc:N */
    return false;
  void *p = realloc(*buf, want * elem);
  if (!p)
    return false;
  *buf = p;
  *cap = want;
  return true;
}

/* Buffers sized by the same count share one capacity: a group grows
 * together, and only counts as grown when every buffer did. */
typedef struct {
  void **buf;
  size_t elem;
} Slot;

static bool reserve_group(size_t *cap, size_t n, const Slot *slots, size_t count)
{
  if (n <= *cap)
    return true;
  size_t c = *cap;
  for (size_t i = 0; i < count; i++) {
    c = *cap;
    if (!reserve(slots[i].buf, &c, n, slots[i].elem))
      return false;
  }
  *cap = c;
  return true;
}

/* Per-track buffers for n tracks. */
static bool reserve_tracks(GpucclTracker *t, size_t n)
{
  const Slot slots[] = {
    {(void **)&t->tracks, sizeof *t->tracks},
    {(void **)&t->px, sizeof *t->px},
    {(void **)&t->py, sizeof *t->py},
    {(void **)&t->match, sizeof *t->match},
    {(void **)&t->proposals, sizeof *t->proposals},
    {(void **)&t->n_candidates, sizeof *t->n_candidates},
    {(void **)&t->near, sizeof *t->near},
  };
  return reserve_group(&t->cap_tracks, n, slots, sizeof slots / sizeof *slots);
}

/* Everything one update with n_blobs blobs can need. */
static bool reserve_update(GpucclTracker *t, size_t n_blobs)
{
  const Slot blob_slots[] = {
    {(void **)&t->points, sizeof *t->points},
    {(void **)&t->entries.x, sizeof *t->entries.x},
    {(void **)&t->entries.y, sizeof *t->entries.y},
    {(void **)&t->entries.blob, sizeof *t->entries.blob},
    {(void **)&t->blob_cell, sizeof *t->blob_cell},
    {(void **)&t->holder, sizeof *t->holder},
    {(void **)&t->holder_d2, sizeof *t->holder_d2},
    {(void **)&t->merged, sizeof *t->merged},
  };
  /* Tracks: the live ones plus one new per blob. */
  return reserve_tracks(t, t->n_tracks + n_blobs + 1) &&
         reserve((void **)&t->candidates, &t->cap_candidates,
                 (t->n_tracks + 1) * MAX_CANDIDATES, sizeof *t->candidates) &&
         reserve_group(&t->cap_blobs, n_blobs + OWN_SCAN + 1, blob_slots,
                       sizeof blob_slots / sizeof *blob_slots) &&
         reserve((void **)&t->cell_start, &t->cap_cells,
                 CELLS_PER_BLOB * n_blobs + 2, sizeof *t->cell_start);
}

/* ------------------------------------------------------------------ */
/* Step 2: the grid                                                    */

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

/* ------------------------------------------------------------------ */
/* Step 3: the order of pairs and the candidate search                 */

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
  for (uint32_t k = t->cell_start[row * t->grid.gw + x_lo]; k < end; k++) {
    float ex = e->x[k] - nb->px, ey = e->y[k] - nb->py;
    float d2 = ex * ex + ey * ey;
    if (d2 <= nearest_bound(nb)) /* false for NaN */
      nearest_offer(nb, d2, e->blob[k]);
  }
}

static inline double dmin(double a, double b) { return a < b ? a : b; }

/* May a blob at squared distance >= lower2 still enter the list? The grid
 * geometry is in double and the distances in float: the margin keeps a
 * rounding difference from skipping a cell that holds a tie. */
static inline bool nearest_reachable(const Nearest *nb, double lower2)
{
  return lower2 * (1.0 - 1e-5) <= (double)nearest_bound(nb);
}

/* Offer the blobs of cells [x_lo, x_hi] of one row, clipped to the grid. */
static void nearest_run(Nearest *nb, int64_t row, int64_t x_lo, int64_t x_hi)
{
  const Grid *g = &nb->t->grid;
  if (row < 0 || row >= g->gh)
    return;
  if (x_lo < 0)
    x_lo = 0;
  if (x_hi > g->gw - 1)
    x_hi = g->gw - 1;
  if (x_lo <= x_hi)
    nearest_scan(nb, row, x_lo, x_hi);
}

/* Offer the blobs of the box of cells of radius `outer` around (cx, cy)
 * that are not in the box of radius `inner` (-1: none). Only the grid's
 * rows are visited: a prediction far off the grid costs no more. */
static void nearest_box(Nearest *nb, int64_t cx, int64_t cy, int64_t inner,
                        int64_t outer)
{
  const Grid *g = &nb->t->grid;
  int64_t y_lo = cy - outer < 0 ? 0 : cy - outer;
  int64_t y_hi = cy + outer > g->gh - 1 ? g->gh - 1 : cy + outer;
  for (int64_t row = y_lo; row <= y_hi; row++) {
    if (row >= cy - inner && row <= cy + inner) {
      nearest_run(nb, row, cx - outer, cx - inner - 1);
      nearest_run(nb, row, cx + inner + 1, cx + outer);
    } else {
      nearest_run(nb, row, cx - outer, cx + outer);
    }
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
    if (isfinite(fx) && isfinite(fy))
      for (int64_t row = 0; row < g->gh; row++)
        nearest_scan(nb, row, 0, g->gw - 1);
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

  int64_t r = -1, want = 1; /* r = -1: nothing scanned yet */
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
    return nb.n == 1;
  }
  if (t->n_candidates[ti] == LIST_NOT_BUILT) {
    /* Same order as the k = 1 search, so list[0] is the blob already
     * proposed to. */
    nb.c = list;
    nb.k = MAX_CANDIDATES;
    nearest_search(&nb);
    t->n_candidates[ti] = (uint8_t)nb.n;
  }
  if (pos >= t->n_candidates[ti])
    return false;
  *out = list[pos];
  return true;
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
 * decides. The grid's numbers are copied into locals (stores through the
 * tracker's byte arrays could alias them and force reloads). */
typedef enum { NEAR_UNDECIDED, NEAR_FOUND, NEAR_NONE } NearResult;

typedef struct {
  double x0, y0, inv_cell, gw_d, gh_d;
  double cell2;             /* cell^2 less the rounding margin */
  int64_t gw, gh;
  const uint32_t *cell_start;
  const CellEntries *entries;
  float gate2;
} NearGrid;

/* The own-cell step for every track at once, into near[]: the nearest
 * blob when the own cell settles it (inside the gate or not), else
 * NO_MATCH. Tracks are independent here and the loop has no branch that
 * depends on the data, so the processor works on several tracks at a time
 * instead of waiting for each one's cell and entries in turn. */
static void nearest_own(const NearGrid *g, const float *px, const float *py,
                        uint32_t n_tracks, Candidate *near)
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
static NearResult nearest_block(const NearGrid *g, float px, float py,
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
static void ensure_grid(GpucclTracker *t, const GpucclBlob *blobs,
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

/* Step 3: deferred acceptance. Each track proposes until a blob holds it
 * or it runs out of candidates; a blob holds the best pair proposed to it,
 * and the track it drops proposes on. Every track's first candidate is its
 * nearest blob: from the device's search when `nearest` is given (a track
 * it did not settle gets GPUCCL_NO_BLOB, as from the own-cell step), else
 * from the own-cell step over the grid. */
static void match_tracks(GpucclTracker *t, const GpucclBlob *blobs,
                         size_t n_blobs, const GpucclNearest *nearest)
{
  NearGrid g = {.gate2 = (float)(t->params.max_distance * t->params.max_distance)};
  bool grid = false;
  uint32_t *const holder = t->holder, *const match = t->match;
  float *const holder_d2 = t->holder_d2;
  const uint32_t n_tracks = (uint32_t)t->n_tracks;
  const Candidate *first = nearest;
  if (!first) {
    ensure_grid(t, blobs, n_blobs, &g, &grid);
    nearest_own(&g, t->px, t->py, n_tracks, t->near);
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
      ensure_grid(t, blobs, n_blobs, &g, &grid);
      near = nearest_block(&g, t->px[ti], t->py[ti], &c);
    }
    if (near == NEAR_NONE)
      continue;
    bool have = near == NEAR_FOUND;
    if (have)
      t->proposals[ti] = 1;
    for (;;) {
      if (!have) {
        ensure_grid(t, blobs, n_blobs, &g, &grid);
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
static void mark_merges(GpucclTracker *t, const GpucclBlob *blobs)
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

/* ------------------------------------------------------------------ */
/* Step 4                                                              */

/* A matched track moves to its blob. */
static void track_observe(Track *tr, const GpucclBlob *bl)
{
  /* Displacement per frame over the frames the track was unseen. */
  const double cx = gpuccl_blob_cx(bl), cy = gpuccl_blob_cy(bl);
  double mx = cx - tr->x, my = cy - tr->y;
  if (tr->lost) { /* rare: spare the common case two divisions */
    mx /= tr->lost + 1;
    my /= tr->lost + 1;
  }
  if (tr->hits == 1) {
    tr->vx = mx;
    tr->vy = my;
  } else {
    tr->vx += VELOCITY_GAIN * (mx - tr->vx);
    tr->vy += VELOCITY_GAIN * (my - tr->vy);
  }
  tr->x = cx;
  tr->y = cy;
  tr->w = (float)((double)bl->x1 - bl->x0 + 1);
  tr->h = (float)((double)bl->y1 - bl->y0 + 1);
  tr->lost = 0;
  tr->hits++;
}

/* A track whose blob is a merge of several objects trusts its prediction
 * and keeps its velocity and size. */
static void track_coast(Track *tr, double px, double py)
{
  tr->x = px;
  tr->y = py;
  tr->lost = 0;
  tr->hits++;
}

/* Step 1: where each live track should be in this frame. */
static void predict_tracks(GpucclTracker *t)
{
  for (size_t i = 0; i < t->n_tracks; i++) {
    const Track *tr = &t->tracks[i];
    t->px[i] = (float)(tr->x + tr->vx * (tr->lost + 1));
    t->py[i] = (float)(tr->y + tr->vy * (tr->lost + 1));
  }
}

size_t gpuccl_tracker_predict(GpucclTracker *t, GpucclNearestRequest *request)
{
  if (request)
    *request = (GpucclNearestRequest){0};
  if (!t)
    return 0;
  t->n_predicted = 0;
  if (!t->n_tracks || !reserve_tracks(t, t->n_tracks + 1))
    return 0;
  predict_tracks(t);
  t->n_predicted = t->n_tracks;
  if (request)
    *request = (GpucclNearestRequest){t->px, t->py, t->n_tracks, NULL};
  return t->n_tracks;
}

bool gpuccl_tracker_update(GpucclTracker *t, const GpucclBlob *blobs,
                           size_t n_blobs, uint32_t *track_ids)
{
  return gpuccl_tracker_update_nearest(t, blobs, n_blobs, NULL, track_ids);
}

/* Whether a request holds answers to this tracker's last prediction: its
 * own points (compared before anything may move them), one per track. */
static bool answers_last_prediction(const GpucclTracker *t, size_t predicted,
                                    const GpucclNearestRequest *request)
{
  return request && request->answers && predicted == t->n_tracks &&
         request->n == t->n_tracks && request->x == t->px &&
         request->y == t->py;
}

/* Whether those answers are over these blobs: every blob index inside the
 * table, at the distance given. Anything else (answers over another
 * table) is not used: the tracker searches itself. */
static bool answers_fit(const GpucclTracker *t, const GpucclBlob *blobs,
                        size_t n_blobs, const GpucclNearest *answers)
{
  for (size_t i = 0; i < t->n_tracks; i++) {
    const uint32_t bi = answers[i].blob;
    if (bi == NO_MATCH)
      continue;
    if (bi >= n_blobs)
      return false;
    /* The distance as every search computes it (float, no fusing). */
    const float ex = (float)gpuccl_blob_cx(&blobs[bi]) - t->px[i];
    const float ey = (float)gpuccl_blob_cy(&blobs[bi]) - t->py[i];
    const float d2 = ex * ex + ey * ey;
    if (!(d2 == answers[i].d2))
      return false;
  }
  return true;
}

bool gpuccl_tracker_update_nearest(GpucclTracker *t, const GpucclBlob *blobs,
                                   size_t n_blobs,
                                   const GpucclNearestRequest *request,
                                   uint32_t *track_ids)
{
  if (!t || (n_blobs && (!blobs || !track_ids)))
    return false;
  if (n_blobs)
    memset(track_ids, 0, n_blobs * sizeof *track_ids);
  /* The device's answers are for the last prediction, or not used. */
  const size_t predicted = t->n_predicted;
  const bool asked = answers_last_prediction(t, predicted, request);
  t->n_predicted = 0;
  if (n_blobs > UINT32_MAX / 2 || !reserve_update(t, n_blobs))
    return false;

  size_t nt = t->n_tracks;
  const bool have_prediction = predicted == nt;
  const GpucclNearest *nearest =
      asked && answers_fit(t, blobs, n_blobs, request->answers)
          ? request->answers
          : NULL;
  for (size_t i = 0; i < nt; i++)
    t->match[i] = NO_MATCH;
  for (size_t i = 0; i < n_blobs; i++)
    t->holder[i] = NO_MATCH;
  memset(t->merged, 0, n_blobs);

  /* A non-positive gate matches nothing: every blob starts a track. */
  bool gating = t->params.max_distance > 0; /* false for NaN too */
  if (gating && n_blobs && nt) {
    if (!have_prediction)
      predict_tracks(t);
    memset(t->proposals, 0, nt);
    memset(t->n_candidates, LIST_NOT_BUILT, nt);
    match_tracks(t, blobs, n_blobs, nearest);
    mark_merges(t, blobs);
  }

  /* Matched tracks move to their blob; unmatched ones age, and the
   * expired ones are compacted away in the same pass. Order is kept, so
   * older tracks stay first (the tie-break relies on it). */
  size_t live = 0;
  const int max_lost = t->params.max_lost;
  for (size_t i = 0; i < nt; i++) {
    Track *tr = &t->tracks[i];
    const uint32_t bi = t->match[i];
    if (bi != NO_MATCH) {
      if (t->merged[bi])
        track_coast(tr, t->px[i], t->py[i]);
      else
        track_observe(tr, &blobs[bi]);
      track_ids[bi] = tr->id;
    } else if (++tr->lost > max_lost) {
      continue;
    }
    if (live != i)
      t->tracks[live] = *tr;
    live++;
  }
  t->n_tracks = live;

  for (size_t i = 0; i < n_blobs; i++) {
    if (t->holder[i] != NO_MATCH)
      continue;
    const GpucclBlob *bl = &blobs[i];
    Track *tr = &t->tracks[t->n_tracks++];
    *tr = (Track){
      .id = t->next_id,
      .x = gpuccl_blob_cx(bl), .y = gpuccl_blob_cy(bl),
      .w = (float)((double)bl->x1 - bl->x0 + 1),
      .h = (float)((double)bl->y1 - bl->y0 + 1),
      .hits = 1,
    };
    /* Ids are never reused; after 2^32 - 1 of them the counter wraps past
     * 0, which is kept for "no track". */
    if (++t->next_id == 0)
      t->next_id = 1;
    track_ids[i] = tr->id;
  }
  return true;
}
