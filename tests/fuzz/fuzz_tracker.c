/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the tracker with arbitrary blob tables and arbitrary
 * nearest answers.
 *
 * Two trackers with the same parameters (any max_distance, NaN and
 * infinities included; any max_lost) get the same 1..8 frames of up to 64
 * blobs whose every field is the input's (areas of 0, sums at UINT64_MAX,
 * boxes upside down: NaN, infinite and far centroids). Before a frame the
 * second one predicts, and the request it fills gets answers:
 *  - the true ones (the tests' brute force, nearest_ref.h): the two must
 *    hand out identical ids, the device path's promise;
 *  - or corrupted ones: a wrong count, blob indices past the table (an
 *    answer over another table read out of bounds before, issue 19),
 *    distances that are not the blob's, answers without a prediction: the
 *    ids may differ where a lie is plausible, but every blob gets a
 *    non-zero id, no id twice in a frame, and nothing is read out of
 *    bounds (ASan).
 * Between frames: parameter changes and resets, applied to both. */
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "gpuccl_track.h"
#include "nearest_ref.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BLOBS 64

static double choose_distance(FuzzBytes *in)
{
  switch (fuzz_range(in, 0, 7)) {
  case 0: return NAN;
  case 1: return INFINITY;
  case 2: return -(double)fuzz_u8(in);
  case 3: return (double)fuzz_u32(in) * 1e30;
  default: return fuzz_range(in, 0, 200) / 4.0;
  }
}

static GpucclBlob choose_blob(FuzzBytes *in)
{
  GpucclBlob b = {0};
  b.id = fuzz_u32(in);
  b.x0 = fuzz_u16(in) % 512;
  b.y0 = fuzz_u16(in) % 512;
  b.x1 = fuzz_range(in, 0, 7) ? b.x0 + fuzz_range(in, 0, 20) : fuzz_u16(in);
  b.y1 = fuzz_range(in, 0, 7) ? b.y0 + fuzz_range(in, 0, 20) : fuzz_u16(in);
  b.area = fuzz_range(in, 0, 7) ? (uint32_t)fuzz_range(in, 1, 400) : fuzz_u32(in);
  if (b.area && fuzz_range(in, 0, 7)) { /* a centroid inside the box */
    b.sum_x = (uint64_t)b.area * b.x0 + fuzz_u16(in) % b.area;
    b.sum_y = (uint64_t)b.area * b.y0 + fuzz_u16(in) % b.area;
  } else {
    b.sum_x = fuzz_range(in, 0, 1) ? UINT64_MAX - fuzz_u8(in) : fuzz_u32(in);
    b.sum_y = fuzz_range(in, 0, 1) ? UINT64_MAX - fuzz_u8(in) : fuzz_u32(in);
  }
  return b;
}

/* Corrupt the answers in one of the ways a stale request can be wrong. */
static void corrupt(FuzzBytes *in, GpucclNearestRequest *q,
                    GpucclNearest *answers, size_t n_blobs)
{
  switch (fuzz_range(in, 0, 3)) {
  case 0:
    q->n = q->n ? q->n - 1 : 1;
    break;
  case 1: /* indices from a larger table */
    for (size_t i = 0; i < q->n; i++)
      answers[i].blob = (uint32_t)n_blobs + fuzz_u8(in) +
                        (fuzz_bool(in) ? 0x7fffff00u : 0);
    break;
  case 2: /* any index, any distance */
    for (size_t i = 0; i < q->n; i++)
      answers[i] = (GpucclNearest){(float)fuzz_u16(in) / 8.0f,
                                   n_blobs ? fuzz_u8(in) % (uint32_t)n_blobs
                                           : fuzz_u8(in)};
    break;
  default: /* the true blob, a wrong distance */
    for (size_t i = 0; i < q->n; i++)
      answers[i].d2 += 1.0f + fuzz_u8(in);
    break;
  }
}

static void check_ids(const uint32_t *ids, size_t n, int frame)
{
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(ids[i] != 0, "frame %d: blob %zu has no id", frame, i);
    for (size_t j = 0; j < i; j++)
      FUZZ_CHECK(ids[i] != ids[j], "frame %d: blobs %zu and %zu share id %u",
                 frame, j, i, ids[i]);
  }
}

/* Ids the events have reported: at most 8 frames of MAX_BLOBS new ids. */
#define MAX_IDS (8 * MAX_BLOBS + 1)
enum { NEVER, LIVE, ENDED };

/* gpuccl_tracker_events agrees with the ids: a started track has a fresh
 * id, an ended one was live (and ends once), and every blob's track is
 * live or ended in this very update (capped, its blob keeps the id). */
static void check_events(const GpucclTracker *t, const uint32_t *ids,
                         size_t n, int frame, uint8_t *state, int *ended_at)
{
  GpucclTrackEvents ev;
  FUZZ_CHECK(gpuccl_tracker_events(t, &ev) && ev.frame == (uint64_t)frame,
             "frame %d: no events, or of frame %llu", frame,
             (unsigned long long)ev.frame);
  for (size_t k = 0; k < ev.n_started; k++) {
    FUZZ_CHECK(ev.started[k] < n, "frame %d: started blob %u of %zu", frame,
               ev.started[k], n);
    const uint32_t id = ids[ev.started[k]];
    FUZZ_CHECK(id < MAX_IDS && state[id] == NEVER,
               "frame %d: started id %u is not new", frame, id);
    state[id] = LIVE;
  }
  for (size_t k = 0; k < ev.n_ended; k++) {
    const GpucclTrackEnd *e = &ev.ended[k];
    FUZZ_CHECK(e->id < MAX_IDS && state[e->id] == LIVE,
               "frame %d: ended id %u was not live", frame, e->id);
    FUZZ_CHECK(e->first_frame <= e->last_frame &&
                   e->last_frame <= (uint64_t)frame && e->frames_seen >= 1 &&
                   e->frames_seen <= e->last_frame - e->first_frame + 1,
               "frame %d: track %u seen %llu of frames %llu-%llu", frame,
               e->id, (unsigned long long)e->frames_seen,
               (unsigned long long)e->first_frame,
               (unsigned long long)e->last_frame);
    state[e->id] = ENDED;
    ended_at[e->id] = frame;
  }
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK(ids[i] < MAX_IDS && (state[ids[i]] == LIVE ||
                                    ended_at[ids[i]] == frame),
               "frame %d: blob %zu has id %u of no live track", frame, i,
               ids[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FuzzBytes in;
  fuzz_bytes_init(&in, data, size);
  GpucclTrackerParams tp;
  gpuccl_tracker_params_init(&tp);
  tp.max_distance = choose_distance(&in);
  tp.max_lost = fuzz_range(&in, -2, 6);
  GpucclTracker *own = gpuccl_tracker_new(&tp);
  GpucclTracker *given = gpuccl_tracker_new(&tp);
  FUZZ_CHECK(own && given, "out of memory");
  static GpucclBlob blobs[MAX_BLOBS];
  static GpucclNearest answers[MAX_BLOBS * 8 + 1];
  static uint32_t ids_own[MAX_BLOBS], ids_given[MAX_BLOBS];
  int lied = 0; /* a plausible lie may change the ids from then on */
  static uint8_t state[MAX_IDS];
  static int ended_at[MAX_IDS];
  memset(state, NEVER, sizeof state);
  for (size_t i = 0; i < MAX_IDS; i++)
    ended_at[i] = -1;

  for (int f = fuzz_range(&in, 1, 8), frame = 0; f > 0; f--, frame++) {
    const int event = fuzz_range(&in, 0, 15);
    if (event == 0) {
      tp.max_distance = choose_distance(&in);
      tp.max_lost = fuzz_range(&in, -2, 6);
      gpuccl_tracker_set_params(own, &tp);
      gpuccl_tracker_set_params(given, &tp);
    } else if (event == 1) {
      gpuccl_tracker_reset(own);
      gpuccl_tracker_reset(given);
      /* Forgotten without events. */
      for (size_t i = 0; i < MAX_IDS; i++)
        state[i] = state[i] == LIVE ? ENDED : state[i];
    } else if (event == 2) {
      /* A cap on the live tracks (issue 28), set through parameters of
       * the previous layout (no max_tracks: the default) or the current
       * one: both trackers must still agree. */
      tp.max_tracks = (size_t)fuzz_range(&in, 0, 64);
      size_t tp_size = fuzz_bool(&in) ? sizeof tp
                                      : offsetof(GpucclTrackerParams, max_tracks);
      FUZZ_CHECK(gpuccl_tracker_set_params_sized(own, &tp, tp_size) &&
                     gpuccl_tracker_set_params_sized(given, &tp, tp_size),
                 "set_params of %zu bytes refused", tp_size);
    }
    const size_t n = (size_t)fuzz_range(&in, 0, MAX_BLOBS);
    for (size_t i = 0; i < n; i++)
      blobs[i] = choose_blob(&in);

    GpucclNearestRequest q;
    const int ask = fuzz_range(&in, 0, 3);
    if (ask)
      gpuccl_tracker_predict(given, &q);
    else
      q = (GpucclNearestRequest){NULL, NULL, 0, NULL};
    if (q.n) {
      FUZZ_CHECK(q.x && q.y && !q.answers && q.n <= MAX_BLOBS * 8,
                 "prediction of %zu tracks", q.n);
      nearest_ref(q.x, q.y, q.n, blobs, n, answers);
      q.answers = answers;
      if (ask == 1) {
        corrupt(&in, &q, answers, n);
        lied = 1;
      }
    } else if (ask == 2) { /* answers with nothing asked */
      q.n = fuzz_range(&in, 1, 8);
      for (size_t i = 0; i < q.n; i++)
        answers[i] = (GpucclNearest){0.0f, fuzz_u8(&in)};
      q.answers = answers;
    }
    FUZZ_CHECK(gpuccl_tracker_update(own, blobs, n, ids_own),
               "frame %d: update failed", frame);
    FUZZ_CHECK(gpuccl_tracker_update_nearest(given, blobs, n, &q, ids_given),
               "frame %d: update_nearest failed", frame);
    check_ids(ids_own, n, frame);
    check_ids(ids_given, n, frame);
    check_events(own, ids_own, n, frame, state, ended_at);
    for (size_t i = 0; !lied && i < n; i++)
      FUZZ_CHECK(ids_own[i] == ids_given[i],
                 "frame %d: blob %zu got %u with its own search, %u with the "
                 "true answers",
                 frame, i, ids_own[i], ids_given[i]);
  }
  gpuccl_tracker_free(own);
  gpuccl_tracker_free(given);
  return 0;
}
