/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl tracker — stable ids for blobs across frames.
 *
 * Greedy matching of this frame's blobs to the live tracks, best pairs
 * first: a pair's cost is the distance between centroids (the track's
 * position predicted with its last velocity); pairs farther than
 * max_distance never match. A track not matched for more than max_lost
 * frames is dropped; a blob with no track starts a new one. Ids start at 1
 * and are never reused within a tracker's life. gpuccl_tracker_events
 * says which tracks the last update started and ended.
 */
#ifndef GPUCCL_TRACK_H
#define GPUCCL_TRACK_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* max_tracks bounds the live tracks, and with them each update's work:
 * when more would live after an update, the tracks unseen longest are
 * dropped first, then the newest (whose blobs keep their id for that
 * frame). 0 means GPUCCL_TRACKER_MAX_TRACKS. */
#define GPUCCL_TRACKER_MAX_TRACKS 65536

typedef struct {
  double max_distance; /* pixels; gating distance between centroids */
  int max_lost;        /* frames a track survives without a blob */
  size_t max_tracks;   /* appended in ABI 2 */
} GpucclTrackerParams;

typedef struct GpucclTracker GpucclTracker;

/* Defaults: max_distance 50, max_lost 5, max_tracks
 * GPUCCL_TRACKER_MAX_TRACKS. Sized like gpuccl_params_init. */
GPUCCL_API void gpuccl_tracker_params_init_sized(GpucclTrackerParams *params,
                                                 size_t size);
#define gpuccl_tracker_params_init(params)                                     \
  gpuccl_tracker_params_init_sized((params), sizeof *(params))
/* NULL params: the defaults. NULL when out of memory, or when params (of
 * the caller's size, as gpuccl_process_sized) set a field this library
 * does not know. */
GPUCCL_API GpucclTracker *
gpuccl_tracker_new_sized(const GpucclTrackerParams *params, size_t size);
#define gpuccl_tracker_new(params)                                             \
  gpuccl_tracker_new_sized((params), sizeof(GpucclTrackerParams))
GPUCCL_API void gpuccl_tracker_free(GpucclTracker *tracker);
/* Change the parameters; the live tracks stay (those past a smaller
 * max_tracks go at the next update). false, nothing changed, for no
 * tracker or parameters, or parameters that set a field this library does
 * not know. */
GPUCCL_API bool gpuccl_tracker_set_params_sized(GpucclTracker *tracker,
                                                const GpucclTrackerParams *params,
                                                size_t size);
#define gpuccl_tracker_set_params(tracker, params)                             \
  gpuccl_tracker_set_params_sized((tracker), (params),                         \
                                  sizeof(GpucclTrackerParams))
/* Forget every track (e.g. on a flush or a size change). */
GPUCCL_API void gpuccl_tracker_reset(GpucclTracker *tracker);
/* Match one frame's blobs: track_ids[i] receives the id of blobs[i].
 * Returns false when memory ran out (track_ids then all 0; the tracker is
 * as before the call) or the arguments are unusable (no tracker, or NULL
 * blobs or track_ids with n_blobs > 0: nothing is written). */
GPUCCL_API bool gpuccl_tracker_update(GpucclTracker *tracker,
                                      const GpucclBlob *blobs, size_t n_blobs,
                                      uint32_t *track_ids);

/* What the last update did to the tracks, for applications that report
 * tracks appearing and ending (kernels/track.c keeps it with the tracks).
 * Frames are the tracker's updates, counted from 0 over its life (a reset
 * does not restart them, as it does not restart ids). */
typedef enum {
  GPUCCL_TRACK_UNSEEN = 0, /* unseen for more than max_lost frames */
  GPUCCL_TRACK_CAPPED,     /* dropped to keep max_tracks */
  GPUCCL_TRACK_FINISHED,   /* alive when gpuccl_tracker_finish ended it */
} GpucclTrackEndReason;

/* A track that ended in the last update. Positions are centroids: where
 * its first blob was, and where it was last (its last blob, or the
 * prediction it coasted on while its blob was a merge). */
typedef struct {
  uint32_t id;
  GpucclTrackEndReason reason;
  uint64_t first_frame; /* the update that started it */
  uint64_t last_frame;  /* the last update that gave it a blob */
  uint64_t frames_seen; /* updates that gave it a blob, first included */
  double first_x, first_y;
  double last_x, last_y;
} GpucclTrackEnd;

/* The last successful update (both arrays empty after a failed one, a
 * reset or before any): `frame` its index; `started` the indices into its
 * blobs of those that started a track (their ids are in its track_ids);
 * `ended` the tracks that ended, oldest first. A track started and capped
 * in the same update is in both. Owned by the tracker, valid until its
 * next call that changes it. `ended` lists the unseen tracks first, then
 * the capped ones. */
typedef struct {
  uint64_t frame;
  const uint32_t *started;
  size_t n_started;
  const GpucclTrackEnd *ended;
  size_t n_ended;
} GpucclTrackEvents;

/* false (events zeroed) for no tracker or no update yet. */
GPUCCL_API bool gpuccl_tracker_events(const GpucclTracker *tracker,
                                      GpucclTrackEvents *events);

/* The end of a stream: every live track ends, and gpuccl_tracker_events
 * then lists them all in `ended` (reason GPUCCL_TRACK_FINISHED, oldest
 * first; `frame` still the last update's, nothing started), so an
 * application reports each track's end once. The tracker is then empty,
 * as after gpuccl_tracker_reset (ids keep counting). false for NULL. */
GPUCCL_API bool gpuccl_tracker_finish(GpucclTracker *tracker);

/* With a backend that searches (CUDA), the nearest blob of every track
 * comes with the labeling, and the update only settles the rest:
 *
 *   GpucclNearestRequest request;
 *   gpuccl_tracker_predict(tracker, &request);
 *   params.nearest = &request;
 *   gpuccl_process(ctx, &image, &params, &result, &error);
 *   gpuccl_tracker_update_nearest(tracker, result.blobs, result.n_blobs,
 *                                 &request, ids);
 *
 * predict fills the request with the live tracks' expected positions in
 * the next frame (valid until the next call on the tracker; n 0 when there
 * is none or memory ran out) and clears its answers; it returns n.
 * update_nearest gives exactly the ids gpuccl_tracker_update would. It
 * uses the answers only when they answer the last prediction of this
 * tracker over these blobs (same count, every blob index below n_blobs,
 * every distance that of that blob), and otherwise searches itself: an
 * answer that is stale or from another table costs time, never safety.
 * request may be NULL. */
GPUCCL_API size_t gpuccl_tracker_predict(GpucclTracker *tracker,
                                         GpucclNearestRequest *request);
GPUCCL_API bool gpuccl_tracker_update_nearest(
    GpucclTracker *tracker, const GpucclBlob *blobs, size_t n_blobs,
    const GpucclNearestRequest *request, uint32_t *track_ids);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_TRACK_H */
