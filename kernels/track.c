/* gpuccl tracker: stable blob ids across frames (see gpuccl_track.h).
 *
 * One update:
 *  1. predict every live track one frame ahead with its velocity;
 *  2. sort this frame's blobs into a uniform grid, so a track only looks at
 *     the cells around its prediction and keeps its 8 nearest blobs inside
 *     the gate (O(n) candidate pairs, however dense the blobs, instead of
 *     O(tracks x blobs));
 *  3. sort the candidate pairs best first
 *     (distance, then bounding-box overlap, then older track, then blob
 *     order, so equal inputs always give equal ids) and take them greedily;
 *  4. matched tracks move to their blob (or coast on their prediction when
 *     the blob is two objects merged), unmatched tracks age and die after
 *     max_lost frames, unmatched blobs start new tracks with fresh ids.
 *
 * All scratch memory is kept in the tracker and only grows, so a steady
 * stream costs no allocation per frame.
 */
#include "gpuccl_track.h"
#include "fault.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Weight of the newest displacement in the velocity estimate: low enough
 * that one noisy centroid (e.g. two blobs merged for a frame) does not throw
 * the prediction off, high enough to follow a turn within a few frames. */
#define VELOCITY_GAIN 0.5

#define NO_MATCH UINT32_MAX
enum { BLOB_MATCHED = 1, BLOB_MERGED = 2 };

typedef struct {
  uint32_t id;
  double x, y;       /* centroid when last seen */
  double vx, vy;     /* pixels per frame */
  double px, py;     /* prediction for the current frame */
  double w, h;       /* bounding box size when last seen */
  int lost;          /* frames since last seen */
  int hits;          /* frames seen; velocity is known from the second */
} Track;

/* A candidate match. key is the squared distance as the top 16 bits of its
 * float (exponent and 7 mantissa bits: monotonic for non-negative floats),
 * so pairs sort best first as small integers in two radix passes, and
 * distances within ~0.4 % of each other count as equal. Equal keys go by
 * bounding-box overlap (IoU, higher first), then older track, then lower
 * blob index. */
typedef struct {
  uint32_t key;
  uint32_t track;    /* index into tracks */
  uint32_t blob;     /* index into blobs */
} Pair;

#define KEY_BITS 16
#define RADIX_BITS 8

/* Step 2's grid: cells of side `cell` from (x0, y0), gw x gh of them,
 * row-major, so the three cells of a row of a 3 x 3 neighbourhood are one
 * contiguous run of entries. */
typedef struct {
  double x0, y0, cell, inv_cell;
  uint32_t gw, gh;
} Grid;

typedef struct {
  float x, y;    /* centroid, copied so the scan reads memory in order */
  uint32_t blob; /* index into blobs */
} GridEntry;

struct GpucclTracker {
  GpucclTrackerParams params;
  uint32_t next_id;

  Track *tracks;
  size_t n_tracks, cap_tracks;

  /* Per-update scratch, grown on demand. */
  Pair *pairs, *pairs_tmp;
  size_t cap_pairs, cap_pairs_tmp;
  Grid grid;
  uint32_t *cell_start;    /* first entry of each grid cell, + 1 sentinel */
  GridEntry *entries;      /* the blobs in cell order */
  uint32_t *blob_cell;     /* grid cell of each blob */
  uint8_t *blob_taken;     /* 0, BLOB_MATCHED or BLOB_MERGED */
  uint32_t *track_match;   /* blob index of each track, or NO_MATCH */
  uint32_t *track_run, *blob_run; /* occurrences in a tied run (take_run) */
  struct Tie *ties;        /* contested pairs of a tied run */
  size_t cap_cells, cap_blobs, cap_tracks2, cap_ties;
};

void gpuccl_tracker_params_init(GpucclTrackerParams *params)
{
  params->max_distance = 50.0;
  params->max_lost = 5;
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
  free(tracker->pairs);
  free(tracker->pairs_tmp);
  free(tracker->cell_start);
  free(tracker->entries);
  free(tracker->blob_cell);
  free(tracker->blob_taken);
  free(tracker->track_match);
  free(tracker->track_run);
  free(tracker->blob_run);
  free(tracker->ties);
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
    tracker->n_tracks = 0;
}

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

static bool reserve_track_scratch(GpucclTracker *t, size_t n)
{
  const Slot slots[] = {
    {(void **)&t->track_match, sizeof *t->track_match},
    {(void **)&t->track_run, sizeof *t->track_run},
  };
  return reserve_group(&t->cap_tracks2, n, slots, sizeof slots / sizeof *slots);
}

static bool reserve_blob_scratch(GpucclTracker *t, size_t n)
{
  const Slot slots[] = {
    {(void **)&t->entries, sizeof *t->entries},
    {(void **)&t->blob_cell, sizeof *t->blob_cell},
    {(void **)&t->blob_run, sizeof *t->blob_run},
    {(void **)&t->blob_taken, sizeof *t->blob_taken},
  };
  return reserve_group(&t->cap_blobs, n, slots, sizeof slots / sizeof *slots);
}

static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

/* IoU of two boxes given by centre and size (inclusive pixel boxes, so a
 * box of one pixel has size 1). */
static double box_iou(double ax, double ay, double aw, double ah,
                      double bx, double by, double bw, double bh)
{
  double ix = dmin(ax + aw / 2, bx + bw / 2) - dmax(ax - aw / 2, bx - bw / 2);
  double iy = dmin(ay + ah / 2, by + bh / 2) - dmax(ay - ah / 2, by - bh / 2);
  if (ix <= 0 || iy <= 0)
    return 0.0;
  double inter = ix * iy;
  return inter / (aw * ah + bw * bh - inter);
}

/* IoU of a track's box at its prediction and a blob's box. */
static double pair_overlap(const GpucclTracker *t, const GpucclBlob *blobs,
                           const Pair *p)
{
  const Track *tr = &t->tracks[p->track];
  const GpucclBlob *bl = &blobs[p->blob];
  return box_iou(tr->px, tr->py, tr->w, tr->h,
                 (bl->x0 + bl->x1) / 2.0, (bl->y0 + bl->y1) / 2.0,
                 (double)bl->x1 - bl->x0 + 1, (double)bl->y1 - bl->y0 + 1);
}

static uint32_t pair_key(float d2)
{
  uint32_t bits;
  memcpy(&bits, &d2, sizeof bits);
  return bits >> 16;
}

/* Step 3b: LSD radix sort of the pairs by key; a comparison sort of a few
 * thousand pairs costs several times more. Returns the buffer holding the
 * result. */
static Pair *sort_pairs(Pair *a, Pair *tmp, size_t n)
{
  uint32_t count[1u << RADIX_BITS];
  for (int shift = 0; shift < KEY_BITS; shift += RADIX_BITS) {
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
      count[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++;
    if (count[(a[0].key >> shift) & ((1u << RADIX_BITS) - 1)] == n)
      continue; /* every key has this digit: nothing to move */
    uint32_t sum = 0;
    for (uint32_t d = 0; d < (1u << RADIX_BITS); d++) {
      uint32_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; i++)
      tmp[count[(a[i].key >> shift) & ((1u << RADIX_BITS) - 1)]++] = a[i];
    Pair *swap = a; a = tmp; tmp = swap;
  }
  return a;
}

/* The most cells a grid may have for n blobs (see build_grid). */
static size_t max_cells(size_t n) { return 16 * n + 8; }

/* Step 2: choose the grid over the blobs' centroids and counting-sort the
 * blobs into it. The cell is the gate where blobs are sparse (a track then
 * looks at 3 x 3 cells), twice the mean blob spacing where they are dense
 * (a few blobs per cell, and the ring search of collect_pairs stops after
 * a few rings), and never so small that the grid exceeds 16n + 2 cells:
 * (W/c + 1)(H/c + 1) <= WH/c^2 + (W+H)/c + 1, bounded by c >= sqrt(WH/8n)
 * and c >= (W+H)/(8n+1). */
static void build_grid(GpucclTracker *t, const GpucclBlob *blobs, size_t n,
                       double gate)
{
  Grid *g = &t->grid;
  double minx = blobs[0].cx, maxx = minx, miny = blobs[0].cy, maxy = miny;
  for (size_t i = 1; i < n; i++) {
    minx = dmin(minx, blobs[i].cx);
    maxx = dmax(maxx, blobs[i].cx);
    miny = dmin(miny, blobs[i].cy);
    maxy = dmax(maxy, blobs[i].cy);
  }
  double w = maxx - minx, h = maxy - miny;
  double spacing = sqrt(w * h / n);
  double cell = dmax(dmin(gate, 2.0 * spacing),
                     dmax(dmax(sqrt(w * h / (8.0 * n)), (w + h) / (8.0 * n + 1)), 1.0));
  while ((floor(w / cell) + 1) * (floor(h / cell) + 1) > (double)max_cells(n) - 1)
    cell *= 1.5; /* only rounding can bring us here */
  g->x0 = minx;
  g->y0 = miny;
  g->cell = cell;
  g->inv_cell = 1.0 / cell;
  g->gw = (uint32_t)(w / cell) + 1;
  g->gh = (uint32_t)(h / cell) + 1;

  size_t n_cells = (size_t)g->gw * g->gh;
  memset(t->cell_start, 0, (n_cells + 1) * sizeof *t->cell_start);
  for (size_t i = 0; i < n; i++) {
    uint32_t cx = (uint32_t)((blobs[i].cx - minx) * g->inv_cell);
    uint32_t cy = (uint32_t)((blobs[i].cy - miny) * g->inv_cell);
    if (cx >= g->gw) cx = g->gw - 1;
    if (cy >= g->gh) cy = g->gh - 1;
    t->blob_cell[i] = cy * g->gw + cx;
    t->cell_start[t->blob_cell[i] + 1]++;
  }
  for (size_t c = 0; c < n_cells; c++)
    t->cell_start[c + 1] += t->cell_start[c];
  /* Scatter with cell_start[c] as the cursor of cell c, which leaves it at
   * the start of cell c + 1: shift back afterwards. */
  for (size_t i = 0; i < n; i++)
    t->entries[t->cell_start[t->blob_cell[i]]++] =
        (GridEntry){(float)blobs[i].cx, (float)blobs[i].cy, (uint32_t)i};
  memmove(t->cell_start + 1, t->cell_start, n_cells * sizeof *t->cell_start);
  t->cell_start[0] = 0;
}

/* A track's candidates: the MAX_CANDIDATES nearest blobs inside the gate,
 * nearest first (ties: lower blob index). Bounding them keeps memory and
 * time linear in the blobs however dense they are (a frame of isolated
 * pixels has thousands of blobs within any useful gate); a track whose
 * eight nearest blobs all went to other tracks stays unmatched. */
#define MAX_CANDIDATES 8

typedef struct {
  float d2;
  uint32_t blob;
} Candidate;

typedef struct {
  Candidate c[MAX_CANDIDATES];
  int n;
  float px, py, gate2;
} Nearest;

static void nearest_offer(Nearest *nb, float d2, uint32_t blob)
{
  if (!(d2 <= nb->gate2))
    return;
  int i;
  if (nb->n == MAX_CANDIDATES) {
    const Candidate *worst = &nb->c[MAX_CANDIDATES - 1];
    if (d2 > worst->d2 || (d2 == worst->d2 && blob > worst->blob))
      return;
    i = MAX_CANDIDATES - 1;
  } else {
    i = nb->n++;
  }
  for (; i > 0 && (nb->c[i - 1].d2 > d2 || (nb->c[i - 1].d2 == d2 && nb->c[i - 1].blob > blob)); i--)
    nb->c[i] = nb->c[i - 1];
  nb->c[i] = (Candidate){d2, blob};
}

/* Offer the blobs of cells [x_lo, x_hi] of grid row `row` (contiguous). */
static void nearest_scan(const GpucclTracker *t, Nearest *nb, int64_t row,
                         int64_t x_lo, int64_t x_hi)
{
  const Grid *g = &t->grid;
  if (row < 0 || row >= g->gh)
    return;
  if (x_lo < 0) x_lo = 0;
  if (x_hi > (int64_t)g->gw - 1) x_hi = (int64_t)g->gw - 1;
  if (x_lo > x_hi)
    return;
  uint32_t end = t->cell_start[row * g->gw + x_hi + 1];
  for (uint32_t k = t->cell_start[row * g->gw + x_lo]; k < end; k++) {
    const GridEntry *e = &t->entries[k];
    float ex = e->x - nb->px, ey = e->y - nb->py;
    nearest_offer(nb, ex * ex + ey * ey, e->blob);
  }
}

static int64_t clamp_cell(double v)
{
  return (int64_t)floor(dmax(-1e12, dmin(1e12, v)));
}

/* Step 3a where cells are smaller than the gate (dense blobs): rings of
 * cells around the prediction's cell, nearest first. Every blob of ring r
 * is farther than (r - 1) cells, so the search ends at the gate, or once
 * MAX_CANDIDATES blobs nearer than the next ring are known, or when a ring
 * covers the whole grid. */
static bool collect_pairs_rings(GpucclTracker *t, uint32_t ti, size_t *n_pairs)
{
  const Track *tr = &t->tracks[ti];
  const Grid *g = &t->grid;
  double gate = t->params.max_distance;
  Nearest nb = {.n = 0, .px = (float)tr->px, .py = (float)tr->py,
                .gate2 = (float)(gate * gate)};
  double fx = (tr->px - g->x0) * g->inv_cell, fy = (tr->py - g->y0) * g->inv_cell;
  if (isnan(fx) || isnan(fy))
    return true;
  int64_t cx = clamp_cell(fx), cy = clamp_cell(fy);
  int64_t gw = g->gw, gh = g->gh;
  /* Rings nearer than the grid are empty: start at the first that meets it. */
  int64_t r = 0;
  if (cx - (gw - 1) > r) r = cx - (gw - 1);
  if (-cx > r) r = -cx;
  if (cy - (gh - 1) > r) r = cy - (gh - 1);
  if (-cy > r) r = -cy;
  for (;; r++) {
    double lower = (double)(r - 1) * g->cell; /* blobs of ring r are farther */
    if (r >= 2 && (lower >= gate ||
                   (nb.n == MAX_CANDIDATES && lower * lower >= nb.c[MAX_CANDIDATES - 1].d2)))
      break;
    nearest_scan(t, &nb, cy - r, cx - r, cx + r);
    if (r > 0) {
      nearest_scan(t, &nb, cy + r, cx - r, cx + r);
      int64_t row_lo = cy - r + 1 < 0 ? 0 : cy - r + 1;
      int64_t row_hi = cy + r - 1 > gh - 1 ? gh - 1 : cy + r - 1;
      for (int64_t row = row_lo; row <= row_hi; row++) {
        nearest_scan(t, &nb, row, cx - r, cx - r);
        nearest_scan(t, &nb, row, cx + r, cx + r);
      }
    }
    if (cx - r <= 0 && cx + r >= gw - 1 && cy - r <= 0 && cy + r >= gh - 1)
      break;
  }
  if (!reserve((void **)&t->pairs, &t->cap_pairs, *n_pairs + (size_t)nb.n, sizeof *t->pairs))
    return false;
  for (int i = 0; i < nb.n; i++)
    t->pairs[(*n_pairs)++] = (Pair){pair_key(nb.c[i].d2), ti, nb.c[i].blob};
  return true;
}

/* Step 3a where a cell is at least the gate (the usual, sparse case): the
 * 3 x 3 cells around the prediction hold every blob inside the gate, and
 * they are three contiguous runs of entries. Scanned without branches
 * (about half the blobs there are inside the gate, so a branch would
 * mispredict all the time), then cut to the MAX_CANDIDATES nearest when
 * a crowd came in. */
static bool collect_pairs_3x3(GpucclTracker *t, uint32_t ti, size_t *n_pairs)
{
  const Track *tr = &t->tracks[ti];
  const Grid *g = &t->grid;
  float gate2 = (float)(t->params.max_distance * t->params.max_distance);
  float px = (float)tr->px, py = (float)tr->py;
  double fx = (tr->px - g->x0) * g->inv_cell, fy = (tr->py - g->y0) * g->inv_cell;
  if (!(fx >= -1.0 && fx < g->gw + 1.0 && fy >= -1.0 && fy < g->gh + 1.0))
    return true; /* no cell within reach (or NaN) */
  /* f + 1 >= 0 here, so truncation is floor. */
  int64_t cx = (int64_t)(fx + 1.0) - 1, cy = (int64_t)(fy + 1.0) - 1;
  int64_t x_lo = cx - 1 < 0 ? 0 : cx - 1;
  int64_t x_hi = cx + 1 > (int64_t)g->gw - 1 ? (int64_t)g->gw - 1 : cx + 1;
  int64_t y_lo = cy - 1 < 0 ? 0 : cy - 1;
  int64_t y_hi = cy + 1 > (int64_t)g->gh - 1 ? (int64_t)g->gh - 1 : cy + 1;
  size_t first = *n_pairs, n = first;
  for (int64_t row = y_lo; row <= y_hi; row++) {
    uint32_t begin = t->cell_start[row * g->gw + x_lo];
    uint32_t end = t->cell_start[row * g->gw + x_hi + 1];
    if (!reserve((void **)&t->pairs, &t->cap_pairs, n + (end - begin), sizeof *t->pairs))
      return false;
    Pair *out = t->pairs;
    for (uint32_t k = begin; k < end; k++) {
      const GridEntry *e = &t->entries[k];
      float ex = e->x - px, ey = e->y - py;
      float d2 = ex * ex + ey * ey;
      out[n] = (Pair){pair_key(d2), ti, e->blob};
      n += d2 <= gate2;
    }
  }
  if (n - first > MAX_CANDIDATES) {
    Nearest nb = {.n = 0, .gate2 = INFINITY};
    for (size_t k = first; k < n; k++)
      nearest_offer(&nb, (float)t->pairs[k].key, t->pairs[k].blob);
    n = first;
    for (int i = 0; i < nb.n; i++)
      t->pairs[n++] = (Pair){(uint32_t)nb.c[i].d2, ti, nb.c[i].blob};
  }
  *n_pairs = n;
  return true;
}

/* Step 3a: the candidate pairs of one track, appended to t->pairs. */
static bool collect_pairs(GpucclTracker *t, uint32_t ti, size_t *n_pairs)
{
  if (t->grid.cell >= t->params.max_distance)
    return collect_pairs_3x3(t, ti, n_pairs);
  return collect_pairs_rings(t, ti, n_pairs);
}

/* A pair in a tie, with its overlap for the tie-break. */
typedef struct Tie {
  Pair pair;
  double overlap;
} Tie;

static int tie_cmp(const void *a, const void *b)
{
  const Tie *p = a, *q = b;
  if (p->overlap != q->overlap) return p->overlap > q->overlap ? -1 : 1;
  if (p->pair.track != q->pair.track) return p->pair.track < q->pair.track ? -1 : 1;
  return (p->pair.blob > q->pair.blob) - (p->pair.blob < q->pair.blob);
}

static bool pair_free(const GpucclTracker *t, const Pair *p)
{
  return t->track_match[p->track] == NO_MATCH && !t->blob_taken[p->blob];
}

static void pair_take(GpucclTracker *t, const Pair *p)
{
  t->track_match[p->track] = p->blob;
  t->blob_taken[p->blob] = BLOB_MATCHED;
}

/* *v becomes mark when first seen in this run, mark + 1 when seen again. */
static void run_count(uint32_t *v, uint32_t mark)
{
  *v = (*v == mark || *v == mark + 1) ? mark + 1 : mark;
}

/* Step 3c: take one run of pairs at exactly the same distance, which is
 * common where predictions are exact (distance 0 for steady motion). A
 * free pair whose track and blob appear in no other free pair of the run
 * can be taken in any order; only the contested ones need the tie-break
 * and its overlaps. run_id > 0 is unique within the update. */
static void take_run(GpucclTracker *t, const GpucclBlob *blobs,
                     const Pair *run, size_t n, uint32_t run_id)
{
  uint32_t mark = 2 * run_id;
  for (size_t i = 0; i < n; i++) {
    if (pair_free(t, &run[i])) {
      run_count(&t->track_run[run[i].track], mark);
      run_count(&t->blob_run[run[i].blob], mark);
    }
  }
  size_t n_ties = 0;
  for (size_t i = 0; i < n; i++) {
    const Pair *p = &run[i];
    if (!pair_free(t, p))
      continue;
    if (t->track_run[p->track] == mark && t->blob_run[p->blob] == mark)
      pair_take(t, p);
    else
      t->ties[n_ties++] = (Tie){*p, pair_overlap(t, blobs, p)};
  }
  qsort(t->ties, n_ties, sizeof *t->ties, tie_cmp);
  for (size_t i = 0; i < n_ties; i++)
    if (pair_free(t, &t->ties[i].pair))
      pair_take(t, &t->ties[i].pair);
}

/* Step 4 for a matched pair: move the track onto its blob. */
static void track_observe(Track *tr, const GpucclBlob *bl)
{
  /* Displacement per frame over the frames the track was unseen. */
  double mx = (bl->cx - tr->x) / (tr->lost + 1);
  double my = (bl->cy - tr->y) / (tr->lost + 1);
  if (tr->hits == 1) {
    tr->vx = mx;
    tr->vy = my;
  } else {
    tr->vx += VELOCITY_GAIN * (mx - tr->vx);
    tr->vy += VELOCITY_GAIN * (my - tr->vy);
  }
  tr->x = bl->cx;
  tr->y = bl->cy;
  tr->w = (double)bl->x1 - bl->x0 + 1;
  tr->h = (double)bl->y1 - bl->y0 + 1;
  tr->lost = 0;
  tr->hits++;
}

/* Step 4 for a track whose blob is a merge of several objects: trust the
 * prediction, keep the velocity and the size. */
static void track_coast(Track *tr)
{
  tr->x = tr->px;
  tr->y = tr->py;
  tr->lost = 0;
  tr->hits++;
}

bool gpuccl_tracker_update(GpucclTracker *t, const GpucclBlob *blobs,
                           size_t n_blobs, uint32_t *track_ids)
{
  if (n_blobs)
    memset(track_ids, 0, n_blobs * sizeof *track_ids);
  if (!t || (n_blobs && (!blobs || !track_ids)))
    return false;

  /* Reserve everything first, so running out of memory leaves the tracker
   * exactly as it was. */
  size_t max_tracks = t->n_tracks + n_blobs;
  if (!reserve((void **)&t->tracks, &t->cap_tracks, max_tracks, sizeof *t->tracks) ||
      !reserve_track_scratch(t, t->n_tracks + 1) ||
      !reserve((void **)&t->cell_start, &t->cap_cells, max_cells(n_blobs) + 1,
               sizeof *t->cell_start) ||
      !reserve_blob_scratch(t, n_blobs + 1))
    return false;

  /* A non-positive gate matches nothing: every blob starts a track. */
  bool gating = t->params.max_distance > 0; /* false for NaN too */
  size_t n_pairs = 0;
  Pair *sorted = t->pairs;
  if (gating && n_blobs && t->n_tracks) {
    build_grid(t, blobs, n_blobs, t->params.max_distance);
    for (size_t i = 0; i < t->n_tracks; i++) {
      Track *tr = &t->tracks[i];
      tr->px = tr->x + tr->vx * (tr->lost + 1);
      tr->py = tr->y + tr->vy * (tr->lost + 1);
      if (!collect_pairs(t, (uint32_t)i, &n_pairs))
        return false;
    }
    if (!reserve((void **)&t->pairs_tmp, &t->cap_pairs_tmp, n_pairs, sizeof *t->pairs_tmp))
      return false;
    sorted = n_pairs ? sort_pairs(t->pairs, t->pairs_tmp, n_pairs) : t->pairs;
    if (!reserve((void **)&t->ties, &t->cap_ties, n_pairs, sizeof *t->ties))
      return false;
    memset(t->track_run, 0, t->n_tracks * sizeof *t->track_run);
    memset(t->blob_run, 0, n_blobs * sizeof *t->blob_run);
  }

  /* Greedy: t->track_match[i] is the blob of track i, or NO_MATCH. */
  memset(t->blob_taken, 0, n_blobs);
  for (size_t i = 0; i < t->n_tracks; i++)
    t->track_match[i] = NO_MATCH;
  uint32_t run_id = 0;
  for (size_t k = 0, end; k < n_pairs; k = end) {
    for (end = k + 1; end < n_pairs && sorted[end].key == sorted[k].key;)
      end++;
    if (end - k == 1) {
      if (pair_free(t, &sorted[k]))
        pair_take(t, &sorted[k]);
    } else {
      take_run(t, blobs, sorted + k, end - k, ++run_id);
    }
  }

  /* Merges: when an unmatched track's prediction lies inside a blob that
   * another track took, the two objects touch and the labeling saw one
   * blob. Its centroid is the mean of both, so the track that took it
   * coasts on its prediction instead of learning a wrong velocity; when
   * the objects part, both predictions are still where they should be. */
  for (size_t k = 0; k < n_pairs; k++) {
    const Pair *p = &sorted[k];
    const Track *tr = &t->tracks[p->track];
    const GpucclBlob *bl = &blobs[p->blob];
    if (t->track_match[p->track] == NO_MATCH && t->blob_taken[p->blob] &&
        tr->px >= bl->x0 && tr->px <= bl->x1 + 1.0 &&
        tr->py >= bl->y0 && tr->py <= bl->y1 + 1.0)
      t->blob_taken[p->blob] = BLOB_MERGED;
  }

  for (size_t i = 0; i < t->n_tracks; i++) {
    uint32_t bi = t->track_match[i];
    if (bi == NO_MATCH)
      continue;
    if (t->blob_taken[bi] == BLOB_MERGED)
      track_coast(&t->tracks[i]);
    else
      track_observe(&t->tracks[i], &blobs[bi]);
    track_ids[bi] = t->tracks[i].id;
  }

  /* Age the unmatched tracks and compact away the expired ones; order is
   * kept, so older tracks stay first (the tie-break relies on it). */
  size_t live = 0;
  for (size_t i = 0; i < t->n_tracks; i++) {
    Track *tr = &t->tracks[i];
    if (t->track_match[i] == NO_MATCH && ++tr->lost > t->params.max_lost)
      continue;
    if (live != i)
      t->tracks[live] = *tr;
    live++;
  }
  t->n_tracks = live;

  for (size_t i = 0; i < n_blobs; i++) {
    if (t->blob_taken[i])
      continue;
    const GpucclBlob *bl = &blobs[i];
    Track *tr = &t->tracks[t->n_tracks++];
    *tr = (Track){
      .id = t->next_id,
      .x = bl->cx, .y = bl->cy,
      .w = (double)bl->x1 - bl->x0 + 1, .h = (double)bl->y1 - bl->y0 + 1,
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
