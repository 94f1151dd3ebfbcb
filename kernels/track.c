/* Placeholder until the tracker lands (owned by the apps work). */
#include "gpuccl_track.h"

#include <stdlib.h>
#include <string.h>

struct GpucclTracker { GpucclTrackerParams params; };

void gpuccl_tracker_params_init(GpucclTrackerParams *params)
{
  params->max_distance = 50.0;
  params->max_lost = 5;
}
GpucclTracker *gpuccl_tracker_new(const GpucclTrackerParams *params)
{
  GpucclTracker *t = calloc(1, sizeof *t);
  if (t) t->params = *params;
  return t;
}
void gpuccl_tracker_free(GpucclTracker *tracker) { free(tracker); }
void gpuccl_tracker_set_params(GpucclTracker *tracker, const GpucclTrackerParams *params) { tracker->params = *params; }
void gpuccl_tracker_reset(GpucclTracker *tracker) { (void)tracker; }
bool gpuccl_tracker_update(GpucclTracker *tracker, const GpucclBlob *blobs, size_t n_blobs, uint32_t *track_ids)
{
  (void)tracker; (void)blobs;
  memset(track_ids, 0, n_blobs * sizeof *track_ids);
  return true;
}
