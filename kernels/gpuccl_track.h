/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl tracker — stable ids for blobs across frames.
 *
 * Greedy matching of this frame's blobs to the live tracks, best pairs
 * first: a pair's cost is the distance between centroids (the track's
 * position predicted with its last velocity); pairs farther than
 * max_distance never match. A track not matched for more than max_lost
 * frames is dropped; a blob with no track starts a new one. Ids start at 1
 * and are never reused within a tracker's life.
 */
#ifndef GPUCCL_TRACK_H
#define GPUCCL_TRACK_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double max_distance; /* pixels; gating distance between centroids */
  int max_lost;        /* frames a track survives without a blob */
} GpucclTrackerParams;

typedef struct GpucclTracker GpucclTracker;

void gpuccl_tracker_params_init(GpucclTrackerParams *params);
GpucclTracker *gpuccl_tracker_new(const GpucclTrackerParams *params);
void gpuccl_tracker_free(GpucclTracker *tracker);
/* Change the parameters; the live tracks stay. */
void gpuccl_tracker_set_params(GpucclTracker *tracker,
                               const GpucclTrackerParams *params);
/* Forget every track (e.g. on a flush or a size change). */
void gpuccl_tracker_reset(GpucclTracker *tracker);
/* Match one frame's blobs: track_ids[i] receives the id of blobs[i].
 * Returns false only when memory ran out (track_ids then all 0). */
bool gpuccl_tracker_update(GpucclTracker *tracker, const GpucclBlob *blobs,
                           size_t n_blobs, uint32_t *track_ids);

/* With a backend that searches (CUDA), the nearest blob of every track
 * comes with the labeling, and the update only settles the rest:
 *
 *   n = gpuccl_tracker_predict(tracker, &params.query_x, &params.query_y);
 *   params.n_queries = n;
 *   gpuccl_process(ctx, &image, &params, &result, &error);
 *   gpuccl_tracker_update_nearest(tracker, result.blobs, result.n_blobs,
 *                                 result.nearest, n, ids);
 *
 * predict returns the number of live tracks and where each is expected in
 * the next frame (valid until the next call on the tracker; 0 and NULLs
 * when there is none or memory ran out). update_nearest gives exactly the
 * ids gpuccl_tracker_update would; it falls back to the tracker's own
 * search when nearest is NULL or does not answer the last prediction. */
size_t gpuccl_tracker_predict(GpucclTracker *tracker, const float **x,
                              const float **y);
bool gpuccl_tracker_update_nearest(GpucclTracker *tracker,
                                   const GpucclBlob *blobs, size_t n_blobs,
                                   const GpucclNearest *nearest,
                                   size_t n_nearest, uint32_t *track_ids);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_TRACK_H */
