/* gpuccl tracker: stable blob ids across frames (see gpuccl_track.h).
 *
 * One update:
 *  1. predict every live track one frame ahead with its velocity;
 *  2. bucket this frame's blobs in a hashed uniform grid whose cell side is
 *     the gating distance, so a track only looks at the blobs of the 3 x 3
 *     cells around its prediction (O(n) candidate pairs for scattered blobs
 *     instead of O(tracks x blobs));
 *  3. keep the candidate pairs inside the gate, sort them best first
 *     (distance, then bounding-box overlap, then older track, then blob
 *     order, so equal inputs always give equal ids) and take them greedily;
 *  4. matched tracks move to their blob, unmatched tracks age and die after
 *     max_lost frames, unmatched blobs start new tracks with fresh ids.
 *
 * All scratch memory is kept in the tracker and only grows, so a steady
 * stream costs no allocation per frame.
 */
#include "gpuccl_track.h"

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

typedef struct {
  double cost;       /* squared distance prediction - centroid */
  double overlap;    /* IoU of the predicted box and the blob's box */
  uint32_t track;    /* index into tracks */
  uint32_t blob;     /* index into blobs */
} Pair;

struct GpucclTracker {
  GpucclTrackerParams params;
  uint32_t next_id;

  Track *tracks;
  size_t n_tracks, cap_tracks;

  /* Per-update scratch, grown on demand. */
  Pair *pairs;
  size_t cap_pairs;
  uint32_t *bucket_start; /* n_buckets + 1 prefix sums */
  uint32_t *bucket_blobs; /* blob indices grouped by bucket */
  int64_t *blob_cell;     /* packed cell coordinates of each blob */
  uint32_t *blob_bucket;
  uint8_t *blob_taken;     /* 0, BLOB_MATCHED or BLOB_MERGED */
  uint32_t *track_match;   /* blob index of each track, or NO_MATCH */
  size_t cap_buckets, cap_blobs, cap_track_flags;
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
  free(tracker->bucket_start);
  free(tracker->bucket_blobs);
  free(tracker->blob_cell);
  free(tracker->blob_bucket);
  free(tracker->blob_taken);
  free(tracker->track_match);
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
  void *p = realloc(*buf, want * elem);
  if (!p)
    return false;
  *buf = p;
  *cap = want;
  return true;
}

/* Separate capacities for buffers sized by the same count would be
 * redundant: one reserve per group keeps them in step. */
static bool reserve_blob_scratch(GpucclTracker *t, size_t n)
{
  if (n <= t->cap_blobs)
    return true;
  size_t cap = t->cap_blobs, c;
  c = cap; if (!reserve((void **)&t->bucket_blobs, &c, n, sizeof *t->bucket_blobs)) return false;
  c = cap; if (!reserve((void **)&t->blob_cell, &c, n, sizeof *t->blob_cell)) return false;
  c = cap; if (!reserve((void **)&t->blob_bucket, &c, n, sizeof *t->blob_bucket)) return false;
  c = cap; if (!reserve((void **)&t->blob_taken, &c, n, sizeof *t->blob_taken)) return false;
  t->cap_blobs = c;
  return true;
}

/* Cells are packed in one 64-bit key; coordinates are clamped far outside
 * any image (GPUCCL_MAX_SIDE) so the packing never overflows. */
static int64_t cell_coord(double v, double cell)
{
  double c = floor(v / cell);
  if (c < -1e9) c = -1e9;
  if (c > 1e9) c = 1e9;
  return (int64_t)c;
}

static int64_t cell_key(int64_t cx, int64_t cy)
{
  return (cx + (1ll << 31)) << 32 | (uint32_t)(cy + (1ll << 31));
}

static uint32_t bucket_of(int64_t key, uint32_t mask)
{
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
  return (uint32_t)(h >> 32) & mask;
}

/* IoU of two boxes given by centre and size (inclusive pixel boxes, so a
 * box of one pixel has size 1). */
static double box_iou(double ax, double ay, double aw, double ah,
                      double bx, double by, double bw, double bh)
{
  double ix = fmin(ax + aw / 2, bx + bw / 2) - fmax(ax - aw / 2, bx - bw / 2);
  double iy = fmin(ay + ah / 2, by + bh / 2) - fmax(ay - ah / 2, by - bh / 2);
  if (ix <= 0 || iy <= 0)
    return 0.0;
  double inter = ix * iy;
  return inter / (aw * ah + bw * bh - inter);
}

static int pair_cmp(const void *a, const void *b)
{
  const Pair *p = a, *q = b;
  if (p->cost != q->cost) return p->cost < q->cost ? -1 : 1;
  if (p->overlap != q->overlap) return p->overlap > q->overlap ? -1 : 1;
  if (p->track != q->track) return p->track < q->track ? -1 : 1;
  if (p->blob != q->blob) return p->blob < q->blob ? -1 : 1;
  return 0;
}

/* Step 2: counting sort of the blobs into hash buckets of grid cells. */
static uint32_t bucket_blobs(GpucclTracker *t, const GpucclBlob *blobs,
                             size_t n, double cell)
{
  uint32_t n_buckets = 1;
  while (n_buckets < 2 * n)
    n_buckets *= 2;
  uint32_t mask = n_buckets - 1;
  memset(t->bucket_start, 0, (n_buckets + 1) * sizeof *t->bucket_start);
  for (size_t i = 0; i < n; i++) {
    int64_t key = cell_key(cell_coord(blobs[i].cx, cell), cell_coord(blobs[i].cy, cell));
    t->blob_cell[i] = key;
    t->blob_bucket[i] = bucket_of(key, mask);
    t->bucket_start[t->blob_bucket[i] + 1]++;
  }
  for (uint32_t b = 0; b < n_buckets; b++)
    t->bucket_start[b + 1] += t->bucket_start[b];
  /* Scatter with a running cursor per bucket: bucket_start[b] is used as
   * the cursor and restored afterwards by shifting. */
  for (size_t i = 0; i < n; i++)
    t->bucket_blobs[t->bucket_start[t->blob_bucket[i]]++] = (uint32_t)i;
  memmove(t->bucket_start + 1, t->bucket_start, n_buckets * sizeof *t->bucket_start);
  t->bucket_start[0] = 0;
  return mask;
}

/* Step 3a: the candidate pairs of one track, appended to t->pairs. */
static bool collect_pairs(GpucclTracker *t, uint32_t ti, const GpucclBlob *blobs,
                          double cell, uint32_t mask, size_t *n_pairs)
{
  const Track *tr = &t->tracks[ti];
  double gate2 = t->params.max_distance * t->params.max_distance;
  int64_t cx = cell_coord(tr->px, cell), cy = cell_coord(tr->py, cell);
  for (int64_t dy = -1; dy <= 1; dy++) {
    for (int64_t dx = -1; dx <= 1; dx++) {
      int64_t key = cell_key(cx + dx, cy + dy);
      uint32_t b = bucket_of(key, mask);
      for (uint32_t k = t->bucket_start[b]; k < t->bucket_start[b + 1]; k++) {
        uint32_t bi = t->bucket_blobs[k];
        if (t->blob_cell[bi] != key) /* another cell hashed here */
          continue;
        const GpucclBlob *bl = &blobs[bi];
        double ex = bl->cx - tr->px, ey = bl->cy - tr->py;
        double d2 = ex * ex + ey * ey;
        if (d2 > gate2)
          continue;
        if (!reserve((void **)&t->pairs, &t->cap_pairs, *n_pairs + 1, sizeof *t->pairs))
          return false;
        double bw = (double)bl->x1 - bl->x0 + 1, bh = (double)bl->y1 - bl->y0 + 1;
        t->pairs[(*n_pairs)++] = (Pair){
          .cost = d2,
          .overlap = box_iou(tr->px, tr->py, tr->w, tr->h,
                             (bl->x0 + bl->x1) / 2.0, (bl->y0 + bl->y1) / 2.0, bw, bh),
          .track = ti,
          .blob = bi,
        };
      }
    }
  }
  return true;
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
  uint32_t n_buckets = 1;
  while (n_buckets < 2 * n_blobs)
    n_buckets *= 2;
  if (!reserve((void **)&t->tracks, &t->cap_tracks, max_tracks, sizeof *t->tracks) ||
      !reserve((void **)&t->track_match, &t->cap_track_flags, t->n_tracks + 1,
               sizeof *t->track_match) ||
      !reserve((void **)&t->bucket_start, &t->cap_buckets, (size_t)n_buckets + 1,
               sizeof *t->bucket_start) ||
      !reserve_blob_scratch(t, n_blobs + 1))
    return false;

  /* A non-positive gate matches nothing: every blob starts a track. */
  bool gating = t->params.max_distance > 0; /* false for NaN too */
  size_t n_pairs = 0;
  if (gating && n_blobs && t->n_tracks) {
    /* An infinite gate degenerates to one cell holding every blob. */
    double cell = isfinite(t->params.max_distance) ? t->params.max_distance : 1e300;
    if (cell < 1.0)
      cell = 1.0;
    uint32_t mask = bucket_blobs(t, blobs, n_blobs, cell);
    for (size_t i = 0; i < t->n_tracks; i++) {
      Track *tr = &t->tracks[i];
      tr->px = tr->x + tr->vx * (tr->lost + 1);
      tr->py = tr->y + tr->vy * (tr->lost + 1);
      if (!collect_pairs(t, (uint32_t)i, blobs, cell, mask, &n_pairs))
        return false;
    }
    qsort(t->pairs, n_pairs, sizeof *t->pairs, pair_cmp);
  }

  /* Greedy: t->track_match[i] is the blob of track i, or NO_MATCH. */
  memset(t->blob_taken, 0, n_blobs);
  for (size_t i = 0; i < t->n_tracks; i++)
    t->track_match[i] = NO_MATCH;
  for (size_t k = 0; k < n_pairs; k++) {
    const Pair *p = &t->pairs[k];
    if (t->track_match[p->track] != NO_MATCH || t->blob_taken[p->blob])
      continue;
    t->track_match[p->track] = p->blob;
    t->blob_taken[p->blob] = BLOB_MATCHED;
  }

  /* Merges: when an unmatched track's prediction lies inside a blob that
   * another track took, the two objects touch and the labeling saw one
   * blob. Its centroid is the mean of both, so the track that took it
   * coasts on its prediction instead of learning a wrong velocity; when
   * the objects part, both predictions are still where they should be. */
  for (size_t k = 0; k < n_pairs; k++) {
    const Pair *p = &t->pairs[k];
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
    Track tr = t->tracks[i];
    if (t->track_match[i] == NO_MATCH && ++tr.lost > t->params.max_lost)
      continue;
    t->tracks[live++] = tr;
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
