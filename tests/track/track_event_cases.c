/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_tracker_events: which tracks an update started and ended. The
 * scene's objects appear and leave at known frames on straight lines, so
 * every event (frame, id, first and last position, frames seen) follows
 * from the script below, not from the tracker. */
#include "track_scene.h"

#include <string.h>

/* Objects of the script: present from frame `from` to frame `to`
 * (inclusive), centred at (x0 + vx * f, y0) in frame f. */
typedef struct {
  int from, to;
  double x0, y0, vx;
} Life;

static const Life script[] = {
  {0, 9, 20, 20, 3},   /* leaves after frame 9 */
  {2, 19, 20, 100, 2}, /* outlives the scene */
  {4, 6, 20, 180, 4},  /* short life */
  {7, 19, 20, 260, 1}, /* appears late */
};
enum { N_OBJ = sizeof script / sizeof *script, FRAMES = 20, MAX_LOST = 2 };

static double pos_x(const Life *o, int f) { return o->x0 + o->vx * f; }

/* The frame's blobs; obj[i] the object of blobs[i]. */
static size_t scene_frame(int f, GpucclBlob *blobs, int *obj)
{
  size_t n = 0;
  for (int k = 0; k < N_OBJ; k++)
    if (script[k].from <= f && f <= script[k].to) {
      blobs[n] = blob_at(pos_x(&script[k], f), script[k].y0, 2);
      obj[n++] = k;
    }
  return n;
}

static bool near(double a, double b) { return a - b < 0.5 && b - a < 0.5; }

/* Every object starts a track at `from` and ends it MAX_LOST + 1 frames
 * after `to` (unseen for more than max_lost frames), with ids in order of
 * appearance. */
static void check_lost(const GpucclTrackEnd *e, const uint32_t *ids, int f)
{
  int k = -1;
  for (int j = 0; j < N_OBJ; j++)
    if (ids[j] == e->id)
      k = j;
  CHECK(k >= 0, "events: frame %d ended unknown id %u", f, e->id);
  if (k < 0)
    return;
  const Life *o = &script[k];
  CHECK(f == o->to + MAX_LOST + 1, "events: object %d lost at %d", k, f);
  CHECK(e->reason == GPUCCL_TRACK_UNSEEN, "events: reason %d", e->reason);
  CHECK(e->first_frame == (uint64_t)o->from &&
            e->last_frame == (uint64_t)o->to &&
            e->frames_seen == (uint64_t)(o->to - o->from + 1),
        "events: object %d frames %llu-%llu seen %llu", k,
        (unsigned long long)e->first_frame, (unsigned long long)e->last_frame,
        (unsigned long long)e->frames_seen);
  CHECK(near(e->first_x, pos_x(o, o->from)) && near(e->first_y, o->y0) &&
            near(e->last_x, pos_x(o, o->to)) && near(e->last_y, o->y0),
        "events: object %d from %.1f,%.1f to %.1f,%.1f", k, e->first_x,
        e->first_y, e->last_x, e->last_y);
}

void test_events(void)
{
  GpucclTracker *t = new_tracker(20, MAX_LOST);
  GpucclTrackEvents ev;
  GpucclBlob blobs[N_OBJ];
  int obj[N_OBJ], lost = 0;
  uint32_t tid[N_OBJ], ids[N_OBJ] = {0}, next_id = 1;

  CHECK(!gpuccl_tracker_events(t, &ev) && ev.n_started == 0,
        "events: before any update");
  for (int f = 0; f < FRAMES; f++) {
    size_t n = scene_frame(f, blobs, obj);
    CHECK(gpuccl_tracker_update(t, blobs, n, tid), "events: frame %d", f);
    CHECK(gpuccl_tracker_events(t, &ev) && ev.frame == (uint64_t)f,
          "events: frame %d reported as %llu", f,
          (unsigned long long)ev.frame);
    size_t expect_started = 0;
    for (size_t i = 0; i < n; i++)
      if (script[obj[i]].from == f) {
        ids[obj[i]] = next_id++;
        CHECK(expect_started < ev.n_started &&
                  ev.started[expect_started] == i && tid[i] == ids[obj[i]],
              "events: frame %d, object %d did not start track %u", f,
              obj[i], ids[obj[i]]);
        expect_started++;
      }
    CHECK(ev.n_started == expect_started, "events: frame %d started %zu",
          f, ev.n_started);
    for (size_t i = 0; i < ev.n_ended; i++)
      check_lost(&ev.ended[i], ids, f);
    lost += (int)ev.n_ended;
  }
  /* Objects 0 and 2 end inside the scene (frames 12 and 9). */
  CHECK(lost == 2, "events: %d tracks ended", lost);
  gpuccl_tracker_reset(t);
  CHECK(!gpuccl_tracker_events(t, &ev) && ev.n_ended == 0,
        "events: after a reset");
  gpuccl_tracker_free(t);
}

/* max_tracks: the tracks unseen longest go first, reported as capped with
 * their last position; a new track dropped at once is started and ended
 * in the same update. */
void test_events_cap(void)
{
  GpucclTrackerParams p;
  gpuccl_tracker_params_init(&p);
  p.max_distance = 5;
  p.max_lost = 100;
  p.max_tracks = 2;
  GpucclTracker *t = gpuccl_tracker_new(&p);
  GpucclBlob a = blob_at(10, 10, 1), b = blob_at(50, 10, 1),
             c[2] = {blob_at(90, 10, 1), blob_at(130, 10, 1)};
  GpucclBlob ab[2] = {a, b}, ac[3] = {a, c[0], c[1]};
  uint32_t tid[3];
  GpucclTrackEvents ev;

  CHECK(t && gpuccl_tracker_update(t, ab, 2, tid), "cap events: frame 0");
  CHECK(gpuccl_tracker_update(t, &a, 1, tid), "cap events: frame 1");
  /* Frame 2: a seen, b unseen 2 frames, c[0], c[1] new: 4 tracks, 2 go:
   * b (unseen longest), then the newest, c[1] (id 4). */
  CHECK(gpuccl_tracker_update(t, ac, 3, tid), "cap events: frame 2");
  CHECK(gpuccl_tracker_events(t, &ev) && ev.n_started == 2 &&
            ev.n_ended == 2,
        "cap events: %zu started, %zu ended", ev.n_started, ev.n_ended);
  if (ev.n_ended == 2) {
    CHECK(ev.ended[0].id == 2 && ev.ended[0].reason == GPUCCL_TRACK_CAPPED &&
              ev.ended[0].last_frame == 0 && near(ev.ended[0].last_x, 50),
          "cap events: first ended %u (reason %d, last frame %llu)",
          ev.ended[0].id, ev.ended[0].reason,
          (unsigned long long)ev.ended[0].last_frame);
    CHECK(ev.ended[1].id == 4 && ev.ended[1].first_frame == 2 &&
              ev.ended[1].frames_seen == 1 && near(ev.ended[1].first_x, 130),
          "cap events: second ended %u", ev.ended[1].id);
  }
  gpuccl_tracker_free(t);
}
