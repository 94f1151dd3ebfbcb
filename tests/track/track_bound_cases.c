/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracker cases on its bounds (issue 28, see test_track.c): the work of
 * one update whatever the gate, and the number of live tracks. */
#include "track_scene.h"
#include "track_internal.h" /* GpucclTracker.visited, n_tracks */

#include <stdlib.h>
#include <string.h>

/* n blobs at random in the left or the right half of a 1920 x 1080 frame,
 * halves alternating: with a gate wider than the frame, every track
 * matches a blob ~960 px away, learns that velocity and predicts far off
 * the next frame's blobs. */
static void halves_frame(GpucclBlob *b, size_t n, int frame)
{
  for (size_t i = 0; i < n; i++) {
    int x = (int)(rnd() * 960) + (frame & 1 ? 960 : 0);
    int y = (int)(rnd() * 1080);
    b[i] = blob_at(x, y, 0);
    b[i].id = (uint32_t)i + 1;
  }
}

/* Cells and entries the searches read per track and frame, over frames
 * 2..7 of the halves scene. */
static double visits_per_track(size_t n, double gate)
{
  GpucclBlob *b = malloc(n * sizeof *b);
  uint32_t *tid = malloc(n * sizeof *tid);
  GpucclTracker *t = new_tracker(gate, 5);
  uint64_t before = 0, tracks = 0;
  for (int f = 0; f < 8; f++) {
    halves_frame(b, n, f);
    if (f == 2)
      before = t->visited;
    if (f >= 2)
      tracks += t->n_tracks;
    CHECK(gpuccl_tracker_update(t, b, n, tid), "gate bound: update failed");
  }
  double per = (double)(t->visited - before) / (double)(tracks ? tracks : 1);
  gpuccl_tracker_free(t);
  free(tid);
  free(b);
  return per;
}

/* A gate wider than the frame must not make an update quadratic: the
 * reads per track stay bounded as the blobs grow 4x and 16x (before, a
 * far prediction's search read every cell of the box around it, most of
 * the grid: time per frame grew with n^2). */
void test_gate_bound(void)
{
  const size_t sizes[] = {512, 2048, 8192};
  double per[3];
  for (int k = 0; k < 3; k++) {
    per[k] = visits_per_track(sizes[k], 1e6);
    printf("gate 1e6, %zu blobs: %.0f cells and entries read per track\n",
           sizes[k], per[k]);
  }
  /* The grid's side grows as sqrt(n): reads per track may grow with it
   * (the nearest row), not with n. */
  CHECK(per[2] < 4.0 * per[0] && per[2] < 1500,
        "reads per track %.0f at 8192 blobs, %.0f at 512", per[2], per[0]);
}

/* max_tracks: after every update at most that many tracks live; the
 * tracks unseen longest go first, then the newest; blobs of a frame with
 * more blobs than the cap still get distinct non-zero ids. */
void test_track_cap(void)
{
  enum { N = 60, CAP = 100 };
  GpucclTrackerParams p;
  gpuccl_tracker_params_init(&p);
  p.max_distance = 5;
  p.max_lost = 1000;
  p.max_tracks = CAP;
  GpucclTracker *t = gpuccl_tracker_new(&p);
  GpucclBlob s0[N], s1[N], many[3 * CAP];
  uint32_t id0[N], tid[3 * CAP];
  for (int i = 0; i < N; i++) {
    s0[i] = blob_at(20 + 20 * (i % 10), 20 + 20 * (i / 10), 1);
    s1[i] = blob_at(20 + 20 * (i % 10), 500 + 20 * (i / 10), 1);
  }
  CHECK(gpuccl_tracker_update(t, s0, N, id0), "cap: frame 0");
  /* Frame 1: s0 unseen (lost 1), s1 new: 120 tracks, the 20 newest of
   * the unseen ones go (s0's last 20). */
  CHECK(gpuccl_tracker_update(t, s1, N, tid), "cap: frame 1");
  CHECK(t->n_tracks == CAP, "cap: %zu tracks live after frame 1",
        t->n_tracks);
  /* Frame 2: s0 back: its first 40 keep their ids, the last 20 get new
   * ones. */
  CHECK(gpuccl_tracker_update(t, s0, N, tid), "cap: frame 2");
  int kept = 0, kept_first = 0;
  for (int i = 0; i < N; i++) {
    kept += tid[i] == id0[i];
    kept_first += i < N - 20 && tid[i] == id0[i];
  }
  CHECK(kept == N - 20 && kept_first == N - 20,
        "cap: %d of s0 kept their ids (%d of the first 40)", kept,
        kept_first);
  CHECK(t->n_tracks <= CAP, "cap: %zu tracks after frame 2", t->n_tracks);
  /* A frame of 3 x CAP blobs: every blob an id, distinct and non-zero. */
  for (int i = 0; i < 3 * CAP; i++)
    many[i] = blob_at(10 + 12 * (i % 30), 800 + 12 * (i / 30), 1);
  CHECK(gpuccl_tracker_update(t, many, 3 * CAP, tid), "cap: many");
  int bad = 0;
  for (int i = 0; i < 3 * CAP; i++) {
    bad += tid[i] == 0;
    for (int j = 0; j < i; j++)
      bad += tid[i] == tid[j];
  }
  CHECK(bad == 0 && t->n_tracks == CAP, "cap: %d bad ids, %zu tracks", bad,
        t->n_tracks);
  /* Noise with a long max_lost: the live tracks stay at the cap. */
  for (int f = 0; f < 20; f++) {
    for (int i = 0; i < 3 * CAP; i++)
      many[i] = blob_at(rnd() * 1900, rnd() * 1000, 0);
    CHECK(gpuccl_tracker_update(t, many, 3 * CAP, tid), "cap: noise");
    CHECK(t->n_tracks <= CAP, "cap: %zu tracks", t->n_tracks);
  }
  gpuccl_tracker_free(t);
}
