/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracker tests on synthetic sequences: the scene generator knows which
 * object each blob is, and the test checks that the tracker's ids follow
 * the objects (one id per object for its whole life, never shared, never
 * reused).
 *
 * This file: objects that move, appear, vanish and cross, parameters
 * and resets, allocation failures; track_order_cases.c the order of pairs
 * (ties, the global greedy reference, crowded cells, borders, bad values);
 * track_nearest_cases.c the device path (the nearest blobs given);
 * track_bound_cases.c the bounds on work and live tracks.
 *
 * Usage: test_track [case]   (no case: run them all)
 */
#define _DEFAULT_SOURCE /* M_PI */
#include "track_scene.h"
#include "fault.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects on a lattice, each swinging around its home on an ellipse of
 * its own phase and direction, with a little position noise: every id must
 * stay with its object. The swing (amplitude < spacing / 4) keeps objects
 * apart; speed and turning make a tracker without prediction or with a
 * wrong neighbour lookup fail. */
static void run_moving(int n_side, double spacing, double omega, double gate,
                       int frames, const char *what)
{
  size_t n = (size_t)n_side * n_side;
  double amp = spacing / 4.5;
  double *phase = malloc(n * sizeof *phase), *dir = malloc(n * sizeof *dir);
  GpucclBlob *b = malloc(n * sizeof *b);
  int *obj = malloc(n * sizeof *obj);
  uint32_t *tid = malloc(n * sizeof *tid);
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  for (size_t i = 0; i < n; i++) {
    phase[i] = rnd() * 2 * M_PI;
    dir[i] = rnd() < 0.5 ? -1 : 1;
  }
  GpucclTracker *t = new_tracker(gate, 3);
  for (int f = 0; f < frames; f++) {
    for (size_t i = 0; i < n; i++) {
      double a = phase[i] + dir[i] * omega * f;
      double x = spacing * (double)(i % n_side) + amp * cos(a) + 0.2 * (rnd() - 0.5);
      double y = spacing * (double)(i / n_side) + 0.7 * amp * sin(a) + 0.2 * (rnd() - 0.5);
      b[i] = blob_at(x + spacing, y + spacing, 2); /* coordinates >= 0 */
      obj[i] = (int)i;
    }
    shuffle(b, obj, n);
    CHECK(gpuccl_tracker_update(t, b, n, tid), "%s: update failed", what);
    check_frame(&ids, obj, tid, n, f, what);
  }
  CHECK(ids.max_id == n, "%s: %u ids for %zu objects", what, ids.max_id, n);
  gpuccl_tracker_free(t);
  free(phase); free(dir); free(b); free(obj); free(tid);
}

void test_moving(void)
{
  /* Up to ~11 px/frame, faster than the gap a nearest-neighbour tracker
   * tolerates at the turning points. */
  run_moving(5, 100, 0.5, 40, 60, "moving 25 fast");
  /* 1 024 objects: many grid cells, blobs crossing cell borders all the
   * time; catches a neighbour lookup that misses adjacent cells. */
  run_moving(32, 40, 0.3, 15, 60, "moving 1024 dense");
  /* Gate smaller than a pixel: the grid clamps its cell size. */
  run_moving(8, 10, 0.05, 0.6, 20, "moving tiny gate");
  /* Gate three times the spacing: cells smaller than the gate, so tracks
   * search rings of cells and keep their nearest candidates only. */
  run_moving(24, 10, 0.3, 30, 40, "moving crowded gate");
  run_moving(12, 10, 0.3, INFINITY, 20, "moving infinite gate");
}

void test_new_blobs(void)
{
  GpucclTracker *t = new_tracker(30, 2);
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  GpucclBlob b[8];
  int obj[8];
  uint32_t tid[8];
  for (int f = 0; f < 30; f++) {
    size_t n = 0;
    /* Object k (0..5) lives from frame 5k on, object 0 dies at frame 12,
     * and object 6 appears at object 0's old place at frame 20 (after its
     * track expired): it must get a new id. */
    for (int k = 0; k < 6; k++) {
      if (f < 5 * k || (k == 0 && f >= 12))
        continue;
      b[n] = blob_at(50 + 100 * k + f, 100, 3);
      obj[n++] = k;
    }
    if (f >= 20) {
      b[n] = blob_at(50 + 12, 100, 3);
      obj[n++] = 6;
    }
    CHECK(gpuccl_tracker_update(t, b, n, tid), "update failed");
    check_frame(&ids, obj, tid, n, f, "new blobs");
  }
  CHECK(ids.max_id == 7, "7 objects got %u ids", ids.max_id);
  for (int k = 0; k < 7; k++)
    for (int j = 0; j < k; j++)
      CHECK(ids.id[k] != ids.id[j], "objects %d and %d share id %u", j, k, ids.id[k]);
  gpuccl_tracker_free(t);
}

/* One object, moving at speed px/frame, hidden for `gap` frames: it gets
 * its id back when gap <= max_lost, a new one otherwise. A second object
 * that stays visible must keep its id throughout. */
static void run_gap(int gap, int max_lost, double speed)
{
  GpucclTracker *t = new_tracker(25, max_lost);
  GpucclBlob b[2];
  uint32_t tid[2];
  uint32_t first = 0, other = 0;
  for (int f = 0; f < 30 + gap; f++) {
    size_t n = 0;
    bool hidden = f >= 10 && f < 10 + gap;
    b[n++] = blob_at(400, 300, 4); /* the steady one, first */
    if (!hidden)
      b[n++] = blob_at(100 + speed * f, 120 + 0.5 * speed * f, 4);
    CHECK(gpuccl_tracker_update(t, b, n, tid), "update failed");
    if (f == 0) {
      other = tid[0];
      first = tid[1];
    }
    CHECK(tid[0] == other, "gap %d: steady object changed id", gap);
    if (f == 10 + gap) {
      if (gap <= max_lost)
        CHECK(tid[1] == first, "gap %d <= max_lost %d speed %.0f: id %u, expected %u back",
              gap, max_lost, speed, tid[1], first);
      else
        CHECK(tid[1] != first && tid[1] > other && tid[1] > first,
              "gap %d > max_lost %d: id %u should be new (old %u)", gap, max_lost,
              tid[1], first);
    }
  }
  gpuccl_tracker_free(t);
}

void test_reappear(void)
{
  for (int max_lost = 0; max_lost <= 6; max_lost += 3)
    for (int gap = 1; gap <= max_lost + 2; gap++)
      for (double speed = 0; speed <= 8; speed += 4)
        run_gap(gap, max_lost, speed);
}

/* Two objects on crossing paths: A moves right, B left, `offset` pixels
 * apart vertically. With merge, the labeling sees one blob (union box,
 * mean centroid) while they overlap, as it would for real pixels. */
static void run_crossing(double speed, double offset, bool merge, int r)
{
  GpucclTracker *t = new_tracker(3 * speed + 10, 5);
  uint32_t idA = 0, idB = 0;
  int frames = (int)(600 / speed) + 1;
  for (int f = 0; f < frames; f++) {
    double xa = 100 + speed * f, xb = 700 - speed * f;
    double ya = 200, yb = 200 + offset;
    GpucclBlob b[2];
    uint32_t tid[2];
    size_t n = 2;
    bool merged = merge && fabs(xa - xb) <= 2 * r && fabs(ya - yb) <= 2 * r;
    if (merged) {
      b[0] = blob_at((xa + xb) / 2, (ya + yb) / 2, r);
      b[0].x0 = (uint16_t)(fmin(xa, xb) - r);
      b[0].x1 = (uint16_t)(fmax(xa, xb) + r);
      fill_box(&b[0]);
      set_centroid(&b[0], (xa + xb) / 2, (ya + yb) / 2);
      n = 1;
    } else {
      b[0] = blob_at(xa, ya, r);
      b[1] = blob_at(xb, yb, r);
      if (f % 2) { /* report them in either order */
        GpucclBlob s = b[0]; b[0] = b[1]; b[1] = s;
      }
    }
    CHECK(gpuccl_tracker_update(t, b, n, tid), "update failed");
    /* Two identical blobs (paths meeting exactly) cannot be told apart. */
    if (merged || (xa == xb && ya == yb))
      continue;
    uint32_t a = f % 2 ? tid[1] : tid[0], bb = f % 2 ? tid[0] : tid[1];
    if (f == 0) {
      idA = a;
      idB = bb;
    }
    CHECK(a == idA && bb == idB,
          "crossing speed %.0f offset %.0f%s frame %d: ids %u/%u, expected %u/%u",
          speed, offset, merge ? " merged" : "", f, a, bb, idA, idB);
  }
  gpuccl_tracker_free(t);
}

void test_crossing(void)
{
  /* Speeds and offsets where the nearest blob to a track's last position
   * is the other object right after they pass: only prediction helps. */
  for (double speed = 2; speed <= 20; speed += 3)
    for (double offset = 0; offset <= 6; offset += 3)
      run_crossing(speed, offset, false, 4);
  for (double speed = 3; speed <= 12; speed += 3)
    for (double offset = 0; offset <= 4; offset += 2)
      run_crossing(speed, offset, true, 6);
}

void test_params_live(void)
{
  GpucclTracker *t = new_tracker(50, 5);
  GpucclBlob b;
  uint32_t id0, id;
  /* A still object that jumps: within the gate it keeps its id. */
  b = blob_at(200, 200, 3);
  gpuccl_tracker_update(t, &b, 1, &id0);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id == id0, "still object changed id");
  b = blob_at(230, 200, 3);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id == id0, "jump of 30 inside gate 50 lost the id");
  /* Shrink the gate on the live tracker: the track stays, but a jump of 30
   * from a still position no longer matches. Reset velocity first by
   * standing still a few frames. */
  for (int i = 0; i < 6; i++)
    gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id == id0, "still object changed id after jump");
  GpucclTrackerParams p;
  gpuccl_tracker_params_init(&p);
  p.max_distance = 20;
  p.max_lost = 1;
  gpuccl_tracker_set_params(t, &p);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id == id0, "set_params dropped the live track");
  b = blob_at(260, 200, 3);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id != id0 && id > id0, "jump of 30 outside gate 20 kept id %u", id);
  uint32_t id1 = id;
  /* max_lost lowered to 1: a gap of 2 frames now loses the track. */
  gpuccl_tracker_update(t, NULL, 0, NULL);
  gpuccl_tracker_update(t, NULL, 0, NULL);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id != id1 && id > id1, "gap 2 > max_lost 1 kept id %u", id);
  uint32_t id2 = id;
  gpuccl_tracker_update(t, NULL, 0, NULL);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id == id2, "gap 1 <= max_lost 1 lost id %u (got %u)", id2, id);
  /* Gate 0 (and NaN): nothing matches, every blob is new every frame. */
  p.max_distance = 0;
  gpuccl_tracker_set_params(t, &p);
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id > id2, "gate 0 matched");
  p.max_distance = NAN;
  gpuccl_tracker_set_params(t, &p);
  uint32_t prev = id;
  gpuccl_tracker_update(t, &b, 1, &id);
  CHECK(id > prev, "gate NaN matched");
  /* Infinite gate: everything can match, still one-to-one. */
  p.max_distance = INFINITY;
  p.max_lost = 5;
  gpuccl_tracker_set_params(t, &p);
  GpucclBlob two[2] = {blob_at(10, 10, 2), blob_at(1500, 900, 2)};
  uint32_t t0[2], t1[2];
  gpuccl_tracker_update(t, two, 2, t0);
  GpucclBlob moved[2] = {blob_at(1400, 950, 2), blob_at(40, 30, 2)};
  gpuccl_tracker_update(t, moved, 2, t1);
  CHECK(t1[0] == t0[1] && t1[1] == t0[0], "infinite gate: %u %u vs %u %u",
        t1[0], t1[1], t0[0], t0[1]);
  gpuccl_tracker_free(t);
}

void test_reset(void)
{
  GpucclTracker *t = new_tracker(50, 5);
  GpucclBlob b[3] = {blob_at(10, 10, 2), blob_at(100, 10, 2), blob_at(10, 100, 2)};
  uint32_t before[3], after[3];
  gpuccl_tracker_update(t, b, 3, before);
  gpuccl_tracker_update(t, b, 3, before);
  gpuccl_tracker_reset(t);
  gpuccl_tracker_update(t, b, 3, after);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      CHECK(after[i] != before[j], "id %u reused after reset", after[i]);
  uint32_t again[3];
  gpuccl_tracker_update(t, b, 3, again);
  CHECK(memcmp(again, after, sizeof again) == 0, "tracks lost after reset");
  /* The empty and NULL cases. */
  CHECK(gpuccl_tracker_update(t, NULL, 0, NULL), "empty update failed");
  CHECK(!gpuccl_tracker_update(NULL, b, 3, after), "NULL tracker accepted");
  gpuccl_tracker_free(t);
  gpuccl_tracker_free(NULL);
  /* A tracker made with default params (NULL) works. */
  t = gpuccl_tracker_new(NULL);
  CHECK(t && gpuccl_tracker_update(t, b, 3, after), "default tracker failed");
  gpuccl_tracker_free(t);
}

/* Run with GPUCCL_FAULT=alloc:N: the N-th allocation fails. The update
 * that meets it returns false with all ids 0 and leaves the tracker as it
 * was, so the objects keep their ids through that frame. The scene grows
 * from 1 to 400 objects so allocations happen over many frames. */
void test_oom(void)
{
  enum { N_MAX = 400 };
  static GpucclBlob b[N_MAX];
  static int obj[N_MAX];
  static uint32_t tid[N_MAX];
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  GpucclTracker *t = new_tracker(20, 3);
  int failed = 0;
  for (int f = 0; f < 60; f++) {
    size_t n = f < 40 ? 1 + (size_t)f * 10 : N_MAX;
    for (size_t i = 0; i < n; i++) {
      b[i] = blob_at(50.0 * (i % 20) + 10 + f, 50.0 * (i / 20) + 10, 2);
      obj[i] = (int)i;
    }
    if (!gpuccl_tracker_update(t, b, n, tid)) {
      failed++;
      for (size_t i = 0; i < n; i++)
        CHECK(tid[i] == 0, "oom frame %d: id %u after failure", f, tid[i]);
      continue;
    }
    check_frame(&ids, obj, tid, n, f, "oom");
  }
  gpuccl_tracker_free(t);
  const char *fault = getenv("GPUCCL_FAULT");
  long want = fault ? strtol(strchr(fault, ':') ? strchr(fault, ':') + 1 : "0", NULL, 10) : 0;
  bool injected = want > 0 && gpuccl_fault_events(GPUCCL_FAULT_ALLOC) >= want;
  CHECK(failed == (injected ? 1 : 0), "%d failed updates, fault %s (%sinjected)",
        failed, fault ? fault : "unset", injected ? "" : "not ");
}

/* Best pairs first, globally: B's nearest blob is also A's nearest, B is
 * nearer and takes it, and A falls back to its second nearest. */
void test_greedy(void)
{
  GpucclTracker *t = new_tracker(30, 5);
  GpucclBlob still[2] = {blob_at(100, 100, 2), blob_at(112, 100, 2)};
  uint32_t ids[2], now[2];
  gpuccl_tracker_update(t, still, 2, ids);
  gpuccl_tracker_update(t, still, 2, ids);
  GpucclBlob moved[2] = {blob_at(110, 100, 2), blob_at(125, 100, 2)};
  CHECK(gpuccl_tracker_update(t, moved, 2, now), "greedy: update failed");
  CHECK(now[0] == ids[1] && now[1] == ids[0],
        "greedy: blob at 110 got %u (B is %u), blob at 125 got %u (A is %u)",
        now[0], ids[1], now[1], ids[0]);
  gpuccl_tracker_free(t);
}

/* Every pixel of a checkerboard its own blob (4-connectivity): thousands
 * of blobs inside each gate. Still objects keep their ids, and so do they
 * when the whole board shifts by a quarter pixel. */
void test_dense(void)
{
  enum { W = 160, H = 120, N = W * H / 2 };
  static GpucclBlob b[N];
  static int obj[N];
  static uint32_t tid[N];
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  GpucclTracker *t = new_tracker(50, 2);
  for (int f = 0; f < 4; f++) {
    size_t n = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        if ((x + y) % 2) {
          obj[n] = (int)n;
          b[n++] = blob_at(x + 0.25 * (f >= 2), y, 0);
        }
    CHECK(gpuccl_tracker_update(t, b, n, tid), "dense: update failed");
    check_frame(&ids, obj, tid, n, f, "dense");
  }
  CHECK(ids.max_id == N, "dense: %u ids for %d objects", ids.max_id, N);
  gpuccl_tracker_free(t);
}


/* 10 000 objects on a lattice, each swinging around its home: every id
 * stays with its object. */
void test_many(void)
{
  run_moving(100, 12, 0.3, 6, 12, "moving 10000");
}

static const struct {
  const char *name;
  void (*fn)(void);
} cases[] = {
  {"moving", test_moving},
  {"new-blobs", test_new_blobs},
  {"reappear", test_reappear},
  {"crossing", test_crossing},
  {"params-live", test_params_live},
  {"reset", test_reset},
  {"oom", test_oom},
  {"dense", test_dense},
  {"greedy", test_greedy},
  {"ties", test_ties},
  {"greedy-reference", test_greedy_reference},
  {"crowded-cell", test_crowded_cell},
  {"border", test_border},
  {"many", test_many},
  {"bad-values", test_bad_values},
  {"nearest-given", test_nearest_given},
  {"nearest-stale", test_nearest_stale},
  {"nearest-api", test_nearest_api},
  {"bad-args", test_bad_args},
  {"far-infinite-gate", test_far_infinite_gate},
  {"gate-bound", test_gate_bound},
  {"cap", test_track_cap},
  {"events", test_events},
  {"events-cap", test_events_cap},
};

int main(int argc, char **argv)
{
  int ran = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
      continue;
    int before = failures;
    cases[i].fn();
    printf("%s: %s\n", cases[i].name, failures == before ? "ok" : "FAILED");
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 99;
  }
  return failures ? 1 : 0;
}
