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
#include "track_internal.h"
#include "backend.h"
#include "fault.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gpuccl_tracker_params_init_sized(GpucclTrackerParams *params,
                                      size_t size)
{
  const GpucclTrackerParams defaults = {
      .max_distance = 50.0,
      .max_lost = 5,
      .max_tracks = GPUCCL_TRACKER_MAX_TRACKS,
  };
  gpuccl_init_sized(params, size, &defaults, sizeof defaults);
}

/* The caller's parameters (size bytes) over the defaults; false when they
 * set a field this library does not know. */
static bool read_params(GpucclTrackerParams *out,
                        const GpucclTrackerParams *params, size_t size)
{
  gpuccl_tracker_params_init(out);
  if (params && !gpuccl_read_sized(out, sizeof *out, params, size))
    return false;
  if (out->max_tracks == 0)
    out->max_tracks = GPUCCL_TRACKER_MAX_TRACKS;
  return true;
}

GpucclTracker *gpuccl_tracker_new_sized(const GpucclTrackerParams *params,
                                        size_t size)
{
  GpucclTrackerParams own;
  if (!read_params(&own, params, size))
    return NULL;
  GpucclTracker *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->params = own;
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
  free(tracker->order);
  free(tracker->ended);
  free(tracker->started);
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

bool gpuccl_tracker_set_params_sized(GpucclTracker *tracker,
                                     const GpucclTrackerParams *params,
                                     size_t size)
{
  GpucclTrackerParams own;
  if (!tracker || !params || !read_params(&own, params, size))
    return false;
  tracker->params = own;
  return true;
}

/* Ids keep counting after a reset: an id names one object for the whole
 * life of the tracker, so a consumer never confuses old and new objects. */
void gpuccl_tracker_reset(GpucclTracker *tracker)
{
  if (tracker) {
    tracker->n_tracks = tracker->n_predicted = 0;
    tracker->n_ended = tracker->n_started = 0;
    tracker->updated = false;
  }
}

bool gpuccl_tracker_events(const GpucclTracker *t, GpucclTrackEvents *events)
{
  if (events)
    *events = (GpucclTrackEvents){0};
  if (!t || !events || !t->updated)
    return false;
  *events = (GpucclTrackEvents){t->frame - 1, t->started, t->n_started,
                                t->ended, t->n_ended};
  return true;
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
    {(void **)&t->order, sizeof *t->order},
    {(void **)&t->ended, sizeof *t->ended},
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
    {(void **)&t->started, sizeof *t->started},
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

/* A track that ends in this update, for gpuccl_tracker_events (room for
 * every live track was reserved with the tracks). */
static void track_end(GpucclTracker *t, const Track *tr,
                      GpucclTrackEndReason reason)
{
  t->ended[t->n_ended++] = (GpucclTrackEnd){
      .id = tr->id,
      .reason = reason,
      .first_frame = tr->first_frame,
      .last_frame = tr->last_frame,
      .frames_seen = (uint64_t)tr->hits,
      .first_x = tr->first_x, .first_y = tr->first_y,
      .last_x = tr->x, .last_y = tr->y,
  };
}

bool gpuccl_tracker_finish(GpucclTracker *t)
{
  if (!t)
    return false;
  t->n_ended = t->n_started = 0;
  for (size_t i = 0; i < t->n_tracks; i++)
    track_end(t, &t->tracks[i], GPUCCL_TRACK_FINISHED);
  t->n_tracks = t->n_predicted = 0;
  /* The events are the last update's, now ending every track. */
  t->updated = t->frame > 0;
  return true;
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

/* Largest first. */
static int key_descending(const void *a, const void *b)
{
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x < y) - (x > y);
}

/* At most max_tracks tracks live on (gpuccl_track.h): past it, the tracks
 * unseen longest go first, then the newest (their blobs keep this frame's
 * ids). The survivors keep their order, oldest first, as the tie-break
 * needs. Sorting happens only in a frame that went past the cap. */
static void cap_tracks(GpucclTracker *t)
{
  const size_t n = t->n_tracks, keep = t->params.max_tracks;
  if (n <= keep)
    return;
  for (size_t i = 0; i < n; i++)
    t->order[i] = (uint64_t)(uint32_t)t->tracks[i].lost << 32 | (uint32_t)i;
  qsort(t->order, n, sizeof *t->order, key_descending);
  uint8_t *drop = t->proposals; /* per-track scratch, free after matching */
  memset(drop, 0, n);
  for (size_t k = 0; k < n - keep; k++)
    drop[t->order[k] & UINT32_MAX] = 1;
  size_t live = 0;
  for (size_t i = 0; i < n; i++) {
    if (drop[i])
      track_end(t, &t->tracks[i], GPUCCL_TRACK_CAPPED);
    else
      t->tracks[live++] = t->tracks[i];
  }
  t->n_tracks = live;
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
  t->n_ended = t->n_started = 0;
  t->updated = false;
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
    gpuccl_track_match(t, blobs, n_blobs, nearest);
    gpuccl_track_mark_merges(t, blobs);
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
      tr->last_frame = t->frame;
      track_ids[bi] = tr->id;
    } else if (++tr->lost > max_lost) {
      track_end(t, tr, GPUCCL_TRACK_UNSEEN);
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
      .first_x = gpuccl_blob_cx(bl), .first_y = gpuccl_blob_cy(bl),
      .first_frame = t->frame, .last_frame = t->frame,
    };
    t->started[t->n_started++] = (uint32_t)i;
    /* Ids are never reused; after 2^32 - 1 of them the counter wraps past
     * 0, which is kept for "no track". */
    if (++t->next_id == 0)
      t->next_id = 1;
    track_ids[i] = tr->id;
  }
  cap_tracks(t);
  t->frame++;
  t->updated = true;
  return true;
}
