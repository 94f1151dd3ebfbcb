/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracker tests on synthetic sequences: the scene generator knows which
 * object each blob is, and the test checks that the tracker's ids follow
 * the objects (one id per object for its whole life, never shared, never
 * reused).
 *
 * Usage: test_track [case]   (no case: run them all)
 */
#define _DEFAULT_SOURCE /* M_PI */
#include "gpuccl_track.h"
#include "fault.h"
#include "nearest_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      failures++;                                                            \
      fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);             \
      fprintf(stderr, __VA_ARGS__);                                          \
      fputc('\n', stderr);                                                   \
    }                                                                        \
  } while (0)

/* The sums that put a blob's centroid at (x, y) (x, y >= 0), to within
 * half a pixel over its area. */
static void set_centroid(GpucclBlob *b, double x, double y)
{
  b->sum_x = (uint64_t)llround(x * (double)b->area);
  b->sum_y = (uint64_t)llround(y * (double)b->area);
}

/* The area of a blob's box, as if it filled it. */
static void fill_box(GpucclBlob *b)
{
  b->area = (uint32_t)((b->x1 - b->x0 + 1) * (b->y1 - b->y0 + 1));
}

/* A blob of half-size r around (x, y), as the labeling would report it. */
static GpucclBlob blob_at(double x, double y, int r)
{
  GpucclBlob b = {0};
  b.x0 = (uint16_t)fmax(0, floor(x) - r);
  b.y0 = (uint16_t)fmax(0, floor(y) - r);
  b.x1 = (uint16_t)(floor(x) + r);
  b.y1 = (uint16_t)(floor(y) + r);
  fill_box(&b);
  set_centroid(&b, x, y);
  return b;
}

/* Centroids no labeling gives but a caller's table may hold: NaN (0 / 0),
 * infinite (an area of 0), and beyond any frame (sums at their maximum). */
static void bad_centroid(GpucclBlob *b, int k)
{
  static const struct {
    uint32_t area;
    uint64_t sum_x, sum_y;
  } bad[] = {{0, 0, 0},          {0, 5, 0},         {0, 0, 5},
             {1, UINT64_MAX, 50}, {1, 50, UINT64_MAX}, {3, UINT64_MAX, UINT64_MAX}};
  const int i = k % (int)(sizeof bad / sizeof *bad);
  b->area = bad[i].area;
  b->sum_x = bad[i].sum_x;
  b->sum_y = bad[i].sum_y;
}

/* Small deterministic generator (xorshift), so sequences are reproducible. */
static uint32_t rng_state = 12345;
static double rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state / 4294967296.0;
}

/* Blobs of a frame are reported in raster order by the labeling, which
 * changes as objects move: shuffle to make sure order is not what matches. */
static void shuffle(GpucclBlob *b, int *obj, size_t n)
{
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)(rnd() * i);
    GpucclBlob tb = b[i - 1]; b[i - 1] = b[j]; b[j] = tb;
    int to = obj[i - 1]; obj[i - 1] = obj[j]; obj[j] = to;
  }
}

/* Per-object id bookkeeping shared by the cases. */
typedef struct {
  uint32_t id[16384]; /* id seen for each object, 0 before its first frame */
  uint32_t max_id;    /* largest id handed out so far */
} Ids;

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Record frame ids: an object keeps its id; within a frame ids are
 * distinct; a new object gets an id larger than all earlier ones. */
static void check_frame(Ids *ids, const int *obj, const uint32_t *tid,
                        size_t n, int frame, const char *what)
{
  static uint32_t sorted[16384];
  memcpy(sorted, tid, n * sizeof *tid);
  qsort(sorted, n, sizeof *sorted, cmp_u32);
  for (size_t i = 1; i < n; i++)
    CHECK(sorted[i] != sorted[i - 1], "%s frame %d: id %u given twice", what, frame, sorted[i]);
  for (size_t i = 0; i < n; i++) {
    CHECK(tid[i] != 0, "%s frame %d: blob %zu has no id", what, frame, i);
    uint32_t *known = &ids->id[obj[i]];
    if (*known == 0) {
      CHECK(tid[i] > ids->max_id, "%s frame %d: object %d got old id %u (max %u)",
            what, frame, obj[i], tid[i], ids->max_id);
      *known = tid[i];
    } else {
      CHECK(tid[i] == *known, "%s frame %d: object %d changed id %u -> %u",
            what, frame, obj[i], *known, tid[i]);
    }
  }
  for (size_t i = 0; i < n; i++)
    if (tid[i] > ids->max_id)
      ids->max_id = tid[i];
}

static GpucclTracker *new_tracker(double gate, int max_lost)
{
  GpucclTrackerParams p;
  gpuccl_tracker_params_init(&p);
  p.max_distance = gate;
  p.max_lost = max_lost;
  GpucclTracker *t = gpuccl_tracker_new(&p);
  if (!t) {
    fprintf(stderr, "gpuccl_tracker_new failed\n");
    exit(99);
  }
  return t;
}

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

static void test_moving(void)
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

static void test_new_blobs(void)
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

static void test_reappear(void)
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

static void test_crossing(void)
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

static void test_params_live(void)
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

static void test_reset(void)
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
static void test_oom(void)
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
static void test_greedy(void)
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
static void test_dense(void)
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


/* ------------------------------------------------------------------ */
/* Edges of the matching: ties, crowded cells, borders, many blobs,    */
/* and the global greedy order against a brute-force reference.       */

/* IoU of two inclusive boxes given by centre and size, as docs/element.md
 * defines the tie-break (written here independently). */
static double ref_iou(double ax, double ay, double aw, double ah,
                      const GpucclBlob *b)
{
  double bx = (b->x0 + b->x1) / 2.0, by = (b->y0 + b->y1) / 2.0;
  double bw = (double)b->x1 - b->x0 + 1, bh = (double)b->y1 - b->y0 + 1;
  double ix = fmin(ax + aw / 2, bx + bw / 2) - fmax(ax - aw / 2, bx - bw / 2);
  double iy = fmin(ay + ah / 2, by + bh / 2) - fmax(ay - ah / 2, by - bh / 2);
  if (!(ix > 0 && iy > 0))
    return 0.0;
  return ix * iy / (aw * ah + bw * bh - ix * iy);
}

/* A blob with an explicit box (half sizes rx, ry) around integer (x, y). */
static GpucclBlob box_at(int x, int y, int rx, int ry)
{
  GpucclBlob b = blob_at(x, y, 0);
  b.x0 = (uint16_t)(x - rx);
  b.x1 = (uint16_t)(x + rx);
  b.y0 = (uint16_t)(y - ry);
  b.y1 = (uint16_t)(y + ry);
  fill_box(&b);
  set_centroid(&b, x, y);
  return b;
}

/* Exact ties: a blob exactly between two tracks goes to the one whose box
 * overlaps it more; with equal overlaps, to the older track. And the same
 * input always gives the same ids. */
static void test_ties(void)
{
  /* Track A (older) has a 3x3 box, track B a 9x9 box; the blob, 9x9,
   * appears exactly between them: B's box overlaps it more, B wins. */
  for (int order = 0; order < 2; order++) {
    GpucclTracker *t = new_tracker(30, 5);
    GpucclBlob first[2] = {box_at(100, 100, 1, 1), box_at(110, 100, 4, 4)};
    uint32_t ids[2], now[2];
    gpuccl_tracker_update(t, first, 2, ids);
    GpucclBlob mid[2] = {box_at(105, 100, 4, 4), box_at(400, 400, 1, 1)};
    if (order) { GpucclBlob s = mid[0]; mid[0] = mid[1]; mid[1] = s; }
    gpuccl_tracker_update(t, mid, 2, now);
    CHECK(now[order] == ids[1], "tie by overlap (order %d): blob got %u, expected %u (B)",
          order, now[order], ids[1]);
    gpuccl_tracker_free(t);
  }
  /* Same boxes: the older track (A, created first) wins; then two
   * trackers fed the same symmetric scene agree id for id. */
  GpucclTracker *t = new_tracker(30, 5), *u = new_tracker(30, 5);
  GpucclBlob first[2] = {box_at(100, 100, 2, 2), box_at(120, 100, 2, 2)};
  uint32_t ids[2], now[1];
  gpuccl_tracker_update(t, first, 2, ids);
  GpucclBlob mid = box_at(110, 100, 2, 2);
  gpuccl_tracker_update(t, &mid, 1, now);
  CHECK(now[0] == ids[0], "tie with equal overlaps: blob got %u, expected the older %u",
        now[0], ids[0]);
  gpuccl_tracker_free(t);
  /* A square of four tracks and four blobs, each blob at the same distance
   * from two tracks: a cycle of ties, resolved the same way every time. */
  t = new_tracker(30, 5);
  GpucclBlob sq[4] = {box_at(100, 100, 2, 2), box_at(120, 100, 2, 2),
                      box_at(120, 120, 2, 2), box_at(100, 120, 2, 2)};
  GpucclBlob rot[4] = {box_at(110, 100, 2, 2), box_at(120, 110, 2, 2),
                       box_at(110, 120, 2, 2), box_at(100, 110, 2, 2)};
  uint32_t a[4], b[4], c[4], d[4];
  /* Order: distance, overlap (none here), older track, lower blob index:
   * track k takes blob k (the midpoint after its corner). */
  gpuccl_tracker_update(t, sq, 4, a);
  gpuccl_tracker_update(u, sq, 4, c);
  gpuccl_tracker_update(t, rot, 4, b);
  gpuccl_tracker_update(u, rot, 4, d);
  for (int i = 0; i < 4; i++) {
    CHECK(b[i] == d[i], "cycle of ties: blob %d got %u and %u in twin trackers", i, b[i], d[i]);
    CHECK(b[i] == a[i], "cycle of ties: blob %d got %u, expected %u", i, b[i], a[i]);
  }
  gpuccl_tracker_free(t);
  gpuccl_tracker_free(u);
}

/* Global greedy, checked against a brute-force reference on scenes full
 * of exact ties (integer centroids, equal boxes): frame 0 creates one
 * track per blob (no velocity yet, so predictions are the old
 * centroids); frame 1's blobs must get exactly the ids the reference's
 * greedy gives: pairs within the gate, each track's 8 nearest (distance,
 * overlap, blob index), best pairs first (distance, larger overlap, older
 * track, lower blob index). */
typedef struct {
  double d2, iou;
  int track, blob;
} RefPair;

static int ref_pair_cmp(const void *pa, const void *pb)
{
  const RefPair *p = pa, *q = pb;
  if (p->d2 != q->d2) return p->d2 < q->d2 ? -1 : 1;
  if (p->iou != q->iou) return p->iou > q->iou ? -1 : 1;
  if (p->track != q->track) return p->track < q->track ? -1 : 1;
  return (p->blob > q->blob) - (p->blob < q->blob);
}

static void run_greedy_reference(int n, int span, double gate, int box)
{
  GpucclBlob *b0 = malloc((size_t)n * sizeof *b0), *b1 = malloc((size_t)n * sizeof *b1);
  uint32_t *id0 = malloc((size_t)n * sizeof *id0), *id1 = malloc((size_t)n * sizeof *id1);
  RefPair *pairs = malloc((size_t)n * n * sizeof *pairs), *mine = malloc((size_t)n * sizeof *mine);
  int *track_of = malloc((size_t)n * sizeof *track_of), *blob_of = malloc((size_t)n * sizeof *blob_of);
  for (int i = 0; i < n; i++) {
    int r = box ? 1 + (int)(rnd() * 3) : 1;
    b0[i] = box_at(10 + (int)(rnd() * span), 10 + (int)(rnd() * span), r, r);
    b1[i] = box_at(10 + (int)(rnd() * span), 10 + (int)(rnd() * span), box ? 1 + (int)(rnd() * 3) : 1, 2);
  }
  GpucclTracker *t = new_tracker(gate, 5);
  gpuccl_tracker_update(t, b0, (size_t)n, id0);
  gpuccl_tracker_update(t, b1, (size_t)n, id1);
  /* Reference: candidate lists, then global greedy. */
  size_t np = 0;
  for (int ti = 0; ti < n; ti++) {
    int nm = 0;
    double tx = gpuccl_blob_cx(&b0[ti]), ty = gpuccl_blob_cy(&b0[ti]);
    double tw = (double)b0[ti].x1 - b0[ti].x0 + 1, th = (double)b0[ti].y1 - b0[ti].y0 + 1;
    for (int bi = 0; bi < n; bi++) {
      double dx = gpuccl_blob_cx(&b1[bi]) - tx, dy = gpuccl_blob_cy(&b1[bi]) - ty;
      double d2 = dx * dx + dy * dy;
      if (d2 <= gate * gate)
        mine[nm++] = (RefPair){d2, ref_iou(tx, ty, tw, th, &b1[bi]), ti, bi};
    }
    qsort(mine, (size_t)nm, sizeof *mine, ref_pair_cmp); /* one track: distance, iou, blob */
    for (int k = 0; k < nm && k < 8; k++)
      pairs[np++] = mine[k];
  }
  qsort(pairs, np, sizeof *pairs, ref_pair_cmp);
  for (int i = 0; i < n; i++)
    track_of[i] = blob_of[i] = -1;
  for (size_t k = 0; k < np; k++)
    if (blob_of[pairs[k].track] < 0 && track_of[pairs[k].blob] < 0) {
      blob_of[pairs[k].track] = pairs[k].blob;
      track_of[pairs[k].blob] = pairs[k].track;
    }
  int wrong = 0;
  for (int bi = 0; bi < n; bi++) {
    bool ok = track_of[bi] >= 0 ? id1[bi] == id0[track_of[bi]] : id1[bi] > id0[n - 1];
    if (!ok && wrong++ < 5)
      CHECK(ok, "greedy reference n %d span %d gate %.0f: blob %d got %u, reference %s %u",
            n, span, gate, bi, id1[bi], track_of[bi] >= 0 ? "track id" : "a new id",
            track_of[bi] >= 0 ? id0[track_of[bi]] : 0);
  }
  CHECK(wrong == 0, "greedy reference n %d span %d gate %.0f: %d blobs differ", n, span, gate, wrong);
  gpuccl_tracker_free(t);
  free(b0); free(b1); free(id0); free(id1); free(pairs); free(mine);
  free(track_of); free(blob_of);
}

static void test_greedy_reference(void)
{
  /* Sparse, dense (many candidates beyond the 8 kept), crowded coordinates
   * (many exact ties), a gate below the spacing and one above the span. */
  for (int rep = 0; rep < 4; rep++) {
    run_greedy_reference(300, 400, 30, rep % 2);
    run_greedy_reference(500, 60, 10, rep % 2);
    run_greedy_reference(400, 20, 6, rep % 2);
    run_greedy_reference(200, 300, 5, rep % 2);
    run_greedy_reference(60, 100, INFINITY, rep % 2);
  }
}

/* Many blobs in one grid cell: a tight cluster of 400 objects 1 px apart
 * while two far outliers stretch the grid (one cell then holds the whole
 * cluster); every object jitters by at most 0.1 px per axis (with the
 * velocity learnt from that noise a prediction is off by at most 0.4 px
 * per axis, nearer its object than any other) and keeps its id. */
static void test_crowded_cell(void)
{
  enum { SIDE = 20, N = SIDE * SIDE + 2 };
  static GpucclBlob b[N];
  static int obj[N];
  static uint32_t tid[N];
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  GpucclTracker *t = new_tracker(5, 2);
  for (int f = 0; f < 10; f++) {
    size_t n = 0;
    for (int i = 0; i < SIDE * SIDE; i++) {
      obj[n] = (int)n;
      b[n++] = blob_at(500 + i % SIDE + 0.2 * (rnd() - 0.5),
                       500 + i / SIDE + 0.2 * (rnd() - 0.5), 0);
    }
    obj[n] = (int)n;
    b[n++] = blob_at(2, 3, 1);
    obj[n] = (int)n;
    b[n++] = blob_at(1915, 1075, 1);
    shuffle(b, obj, n);
    CHECK(gpuccl_tracker_update(t, b, n, tid), "crowded cell: update failed");
    check_frame(&ids, obj, tid, n, f, "crowded cell");
  }
  CHECK(ids.max_id == N, "crowded cell: %u ids for %d objects", ids.max_id, N);
  gpuccl_tracker_free(t);
}

/* Blobs on the image border: objects sliding along the four edges and
 * corners (centroids at 0 and at the far edge, the grid's extremes), one
 * that leaves over the left edge (its prediction goes off the grid) and
 * comes back within max_lost, and one that stays out longer. */
static void test_border(void)
{
  enum { W = 640, H = 480, N = 10 };
  GpucclBlob b[N];
  int obj[N];
  uint32_t tid[N];
  static Ids ids;
  memset(&ids, 0, sizeof ids);
  GpucclTracker *t = new_tracker(20, 3);
  uint32_t leaver = 0, stayer = 0;
  for (int f = 0; f < 40; f++) {
    size_t n = 0;
    double s = 3.0 * f;
    double along[8][2] = {{30 + s, 0}, {W - 1, 30 + s}, {W - 31 - s, H - 1}, {0, H - 31 - s},
                          {0, 0}, {W - 1, 0}, {W - 1, H - 1}, {0, H - 1}};
    for (int k = 0; k < 8; k++) {
      obj[n] = k;
      b[n++] = blob_at(along[k][0], along[k][1], 1);
    }
    /* Object 8 walks left at 4 px/frame from x = 20 to the edge, is gone
     * at frames 6 and 7 (max_lost 3) and comes back at the edge walking
     * right: it gets its id back. */
    if (f < 6 || (f >= 8 && f < 20)) {
      double x = f < 6 ? 20 - 4.0 * f : 4.0 * (f - 8);
      obj[n] = 8;
      b[n++] = blob_at(x, 240, 1);
    }
    /* Object 9 sits at the right edge, leaves for 5 frames (> max_lost)
     * and returns: a new object. */
    if (f < 10 || f >= 15) {
      obj[n] = f < 10 ? 9 : 10;
      b[n++] = blob_at(W - 1, 400, 1);
    }
    shuffle(b, obj, n);
    CHECK(gpuccl_tracker_update(t, b, n, tid), "border: update failed");
    for (size_t i = 0; i < n; i++) {
      if (obj[i] == 8 && f == 0) leaver = tid[i];
      if (obj[i] == 9 && f == 0) stayer = tid[i];
    }
    check_frame(&ids, obj, tid, n, f, "border");
  }
  CHECK(ids.id[8] == leaver && ids.id[10] != stayer && ids.id[10] > stayer,
        "border: leaver %u/%u, returner %u vs %u", ids.id[8], leaver, ids.id[10], stayer);
  gpuccl_tracker_free(t);
}

/* 10 000 objects on a lattice, each swinging around its home: every id
 * stays with its object. */
static void test_many(void)
{
  run_moving(100, 12, 0.3, 6, 12, "moving 10000");
}


/* Bad values never crash and never disturb the good blobs: centroids that
 * are NaN, infinite or far beyond any frame, with a finite and an infinite
 * gate. The finite objects keep their ids. */
static void test_bad_values(void)
{
  for (int g = 0; g < 2; g++) {
    GpucclTracker *t = new_tracker(g ? INFINITY : 20, 2);
    uint32_t first[3] = {0};
    for (int f = 0; f < 8; f++) {
      GpucclBlob b[9];
      uint32_t tid[9];
      size_t n = 0;
      for (int k = 0; k < 3; k++)
        b[n++] = blob_at(100 + 200 * k + f, 100, 2);
      for (int k = 0; k < 6; k++) {
        GpucclBlob x = blob_at(50, 50, 1);
        bad_centroid(&x, k + f);
        b[n++] = x;
      }
      CHECK(gpuccl_tracker_update(t, b, n, tid), "bad values: update failed");
      for (int k = 0; k < 3; k++) {
        if (f == 0)
          first[k] = tid[k];
        CHECK(tid[k] == first[k] && tid[k] != 0,
              "bad values (gate %s) frame %d: object %d id %u, expected %u",
              g ? "inf" : "20", f, k, tid[k], first[k]);
      }
    }
    gpuccl_tracker_free(t);
  }
}

/* ------------------------------------------------------------------ */
/* The device path: gpuccl_tracker_update_nearest with each track's     */
/* nearest blob given, as the CUDA backend returns it, must give the    */
/* very ids of the tracker's own search.                                 */

/* Two trackers fed the same frames: `own` searches itself, `given` gets
 * every track's nearest blob from nearest_ref. */
typedef struct {
  GpucclTracker *own, *given;
  GpucclNearest near[16384];
  uint32_t a[16384], b[16384];
  int frames, settled, unsettled;
} Twins;

static void twins_init(Twins *tw, double gate, int max_lost)
{
  tw->own = new_tracker(gate, max_lost);
  tw->given = new_tracker(gate, max_lost);
  tw->frames = tw->settled = tw->unsettled = 0;
}

static void twins_frame(Twins *tw, const GpucclBlob *blobs, size_t n, const char *what)
{
  GpucclNearestRequest q;
  size_t nt = gpuccl_tracker_predict(tw->given, &q);
  nearest_ref(q.x, q.y, nt, blobs, n, tw->near);
  q.answers = tw->near;
  for (size_t i = 0; i < nt; i++) {
    if (tw->near[i].blob == GPUCCL_NO_BLOB) tw->unsettled++; else tw->settled++;
  }
  CHECK(gpuccl_tracker_update(tw->own, blobs, n, tw->a), "%s: update failed", what);
  CHECK(gpuccl_tracker_update_nearest(tw->given, blobs, n, &q, tw->b),
        "%s: update_nearest failed", what);
  int wrong = 0;
  for (size_t i = 0; i < n; i++)
    if (tw->a[i] != tw->b[i] && wrong++ < 3)
      CHECK(tw->a[i] == tw->b[i], "%s frame %d: blob %zu got %u with its own search, %u with the nearest given",
            what, tw->frames, i, tw->a[i], tw->b[i]);
  tw->frames++;
}

static void twins_free(Twins *tw)
{
  gpuccl_tracker_free(tw->own);
  gpuccl_tracker_free(tw->given);
}

/* Squares wandering in a small room: they touch, merge into one blob (box
 * and centroid of both) and part, appear and vanish; some frames have
 * integer centroids, so exact ties (unsettled tracks) come up too. */
static size_t room_frame(int f, GpucclBlob *b, double (*pos)[4], int n_obj)
{
  size_t n = 0;
  for (int i = 0; i < n_obj; i++) {
    double *p = pos[i];
    p[0] += p[2]; p[1] += p[3];
    if (p[0] < 5 || p[0] > 195) p[2] = -p[2];
    if (p[1] < 5 || p[1] > 195) p[3] = -p[3];
    if ((i * 7 + f) % 23 == 0)
      continue; /* missing this frame */
    double x = f % 3 == 0 ? floor(p[0]) : p[0], y = f % 3 == 0 ? floor(p[1]) : p[1];
    GpucclBlob nb = blob_at(x, y, 2);
    size_t k = 0;
    while (k < n && !(fabs(gpuccl_blob_cx(&b[k]) - x) < 4 &&
                      fabs(gpuccl_blob_cy(&b[k]) - y) < 4))
      k++;
    if (k == n) {
      b[n++] = nb;
      continue;
    }
    GpucclBlob *m = &b[k]; /* merge */
    set_centroid(m, (gpuccl_blob_cx(m) + x) / 2, (gpuccl_blob_cy(m) + y) / 2);
    m->x0 = m->x0 < nb.x0 ? m->x0 : nb.x0; m->y0 = m->y0 < nb.y0 ? m->y0 : nb.y0;
    m->x1 = m->x1 > nb.x1 ? m->x1 : nb.x1; m->y1 = m->y1 > nb.y1 ? m->y1 : nb.y1;
  }
  return n;
}

static void test_nearest_given(void)
{
  static Twins tw;
  static GpucclBlob b[16384];
  static int obj[16384];

  /* A lattice of swinging objects, shuffled every frame. */
  twins_init(&tw, 8, 3);
  for (int f = 0; f < 30; f++) {
    for (int i = 0; i < 900; i++) {
      double a = 0.4 * f + i;
      b[i] = blob_at(20 + 14 * (i % 30) + 3 * cos(a), 20 + 14 * (i / 30) + 2 * sin(a), 2);
      obj[i] = i;
    }
    shuffle(b, obj, 900);
    twins_frame(&tw, b, 900, "lattice");
  }
  twins_free(&tw);

  /* The room, with gates below and above the spacing. */
  const double gates[] = {6, 15, 60, INFINITY};
  for (int g = 0; g < 4; g++) {
    double pos[300][4];
    for (int i = 0; i < 300; i++)
      pos[i][0] = 5 + 190 * rnd(), pos[i][1] = 5 + 190 * rnd(),
      pos[i][2] = 6 * (rnd() - 0.5), pos[i][3] = 6 * (rnd() - 0.5);
    twins_init(&tw, gates[g], 2);
    for (int f = 0; f < 40; f++) {
      size_t n = room_frame(f, b, pos, 300);
      twins_frame(&tw, b, n, "room");
    }
    twins_free(&tw);
  }

  /* Integer centroids on a small span: ties everywhere. */
  twins_init(&tw, 10, 2);
  for (int f = 0; f < 10; f++) {
    for (int i = 0; i < 400; i++)
      b[i] = box_at(10 + (int)(rnd() * 40), 10 + (int)(rnd() * 40), 1 + (int)(rnd() * 2), 1);
    twins_frame(&tw, b, 400, "ties");
  }
  CHECK(tw.unsettled > 0, "ties: no track left unsettled, the fallback went untested");
  twins_free(&tw);

  /* Bad centroids beside good ones. */
  twins_init(&tw, 20, 2);
  for (int f = 0; f < 8; f++) {
    size_t n = 0;
    for (int k = 0; k < 3; k++)
      b[n++] = blob_at(100 + 200 * k + f, 100, 2);
    for (int k = 0; k < 5; k++) {
      GpucclBlob x = blob_at(50, 50, 1);
      bad_centroid(&x, k + f);
      b[n++] = x;
    }
    twins_frame(&tw, b, n, "bad values");
  }
  twins_free(&tw);
  CHECK(tw.settled > 0, "no track was settled by the nearest given");
}

/* The nearest given is only used for the prediction it answers, over the
 * blobs it was found in: after a reset, with a count that does not match,
 * for points that are not the tracker's, without a prediction since the
 * last update, or with answers from another table (a blob index past this
 * one's end, a distance that is not the blob's), the tracker searches
 * itself (same ids as a twin that never got any). */
static void test_nearest_stale(void)
{
  static Twins tw;
  GpucclBlob b[50];
  float copy[2][50];
  twins_init(&tw, 20, 3);
  for (int f = 0; f < 14; f++) {
    for (int i = 0; i < 50; i++)
      b[i] = blob_at(30 + 40 * (i % 10) + 2 * f, 30 + 40 * (i / 10), 2);
    GpucclNearestRequest q;
    size_t nt = gpuccl_tracker_predict(tw.given, &q);
    CHECK(f == 0 ? nt == 0 && q.n == 0 && !q.x && !q.y && !q.answers
                 : nt == 50 && q.n == 50 && q.x && q.y && !q.answers,
          "stale frame %d: predict gave %zu tracks", f, nt);
    nearest_ref(q.x, q.y, nt, b, 50, tw.near);
    q.answers = tw.near;
    switch (f) {
    case 4:
      gpuccl_tracker_reset(tw.given);
      gpuccl_tracker_reset(tw.own);
      break;
    case 5: /* indices from a larger table: out of this one */
      for (size_t i = 0; i < nt; i++)
        tw.near[i].blob = i % 2 ? 50 + (uint32_t)i : GPUCCL_NO_BLOB - 1;
      break;
    case 6: /* every track pointed at blob 0 at distance 0 */
      for (size_t i = 0; i < nt; i++)
        tw.near[i] = (GpucclNearest){0.0f, 0};
      break;
    case 7:
      q.n = nt - 1; /* does not answer the prediction */
      break;
    case 8: /* the same points, but not the tracker's own */
      memcpy(copy[0], q.x, nt * sizeof(float));
      memcpy(copy[1], q.y, nt * sizeof(float));
      q.x = copy[0];
      q.y = copy[1];
      break;
    case 9: {
      uint32_t skip[50];
      gpuccl_tracker_update(tw.given, b, 50, skip); /* no prediction since */
      gpuccl_tracker_update(tw.own, b, 50, skip);
      break;
    }
    case 10: /* the right answers over a table that lost its last blob */
      CHECK(gpuccl_tracker_update(tw.own, b, 49, tw.a), "stale: update failed");
      CHECK(gpuccl_tracker_update_nearest(tw.given, b, 49, &q, tw.b),
            "stale: update_nearest failed");
      for (int i = 0; i < 49; i++)
        CHECK(tw.a[i] == tw.b[i], "stale frame %d: blob %d got %u, own search %u", f,
              i, tw.b[i], tw.a[i]);
      continue;
    default: /* right answers */
      break;
    }
    CHECK(gpuccl_tracker_update(tw.own, b, 50, tw.a), "stale: update failed");
    CHECK(gpuccl_tracker_update_nearest(tw.given, b, 50, &q, tw.b),
          "stale: update_nearest failed");
    for (int i = 0; i < 50; i++)
      CHECK(tw.a[i] == tw.b[i], "stale frame %d: blob %d got %u, own search %u", f, i, tw.b[i], tw.a[i]);
  }
  twins_free(&tw);
}

/* With an infinite gate a track matches its nearest blob however far it
 * is: also from a prediction more than 10^15 grid cells away, where the
 * grid search gave up before (found by fuzz-tracker: the device's answer
 * matched, the tracker's own search did not, and the two paths gave
 * different ids). */
static void test_far_infinite_gate(void)
{
  static Twins tw;
  twins_init(&tw, INFINITY, 2);
  GpucclBlob near = blob_at(397, 112, 2), far = near;
  far.area = 225;
  far.sum_x = 1123086576;
  far.sum_y = UINT64_MAX - 117; /* centroid y ~ 8.2e16 */
  twins_frame(&tw, &near, 1, "far: first frame");
  twins_frame(&tw, &far, 1, "far: second frame");
  CHECK(tw.a[0] == 1 && tw.b[0] == 1, "far blob: ids %u (own) and %u (given), "
        "expected the track's 1", tw.a[0], tw.b[0]);
  twins_free(&tw);
}

/* Unusable arguments: false, nothing written, no crash (track_ids NULL was
 * a NULL write before its check). */
static void test_bad_args(void)
{
  GpucclTracker *t = new_tracker(20, 3);
  GpucclBlob b[2] = {blob_at(10, 10, 1), blob_at(40, 10, 1)};
  uint32_t ids[2] = {7, 7};
  CHECK(!gpuccl_tracker_update(t, b, 2, NULL), "NULL track_ids accepted");
  CHECK(!gpuccl_tracker_update(t, NULL, 2, ids) && ids[0] == 7 && ids[1] == 7,
        "NULL blobs accepted or ids written");
  CHECK(!gpuccl_tracker_update(NULL, b, 2, ids) && ids[0] == 7,
        "NULL tracker accepted or ids written");
  CHECK(gpuccl_tracker_update(t, NULL, 0, NULL), "an empty frame refused");
  CHECK(gpuccl_tracker_update(t, b, 2, ids) && ids[0] == 1 && ids[1] == 2,
        "after the refusals: ids %u %u", ids[0], ids[1]);
  CHECK(gpuccl_tracker_predict(NULL, NULL) == 0, "predict without a tracker");
  gpuccl_tracker_free(t);
}

/* The library's side on the CPU backend: query points without
 * coordinates are refused with a message; valid ones get no answer (the
 * CPU backend does not search; the tracker then searches itself), and an
 * answer left in the request by the caller is cleared. */
static void test_nearest_api(void)
{
  GpucclError e = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &e);
  CHECK(ctx != NULL, "CPU context: %s", e.message);
  if (!ctx)
    return;
  uint8_t img[16 * 8] = {0};
  img[3 * 16 + 4] = img[5 * 16 + 10] = 255;
  GpucclImage image = {img, 16, 8, 16, GPUCCL_PIXEL_U8, 0, 0, 0};
  float qx[2] = {4, 9}, qy[2] = {3, 5};
  GpucclNearest junk[2] = {{0, 0}, {0, 1}};
  GpucclNearestRequest q = {.n = 2, .answers = junk};
  GpucclParams p;
  gpuccl_params_init(&p);
  p.nearest = &q;
  GpucclResult r;
  CHECK(gpuccl_process(ctx, &image, &p, &r, &e) == GPUCCL_ERROR_INVALID_ARGUMENT &&
            strstr(e.message, "query") && q.answers == NULL,
        "queries without coordinates: %s", e.message);
  q.x = qx;
  q.y = qy;
  q.answers = junk;
  CHECK(gpuccl_process(ctx, &image, &p, &r, &e) == GPUCCL_OK, "queries: %s", e.message);
  CHECK(r.n_blobs == 2 && q.answers == NULL, "CPU backend: %zu blobs, answers %p",
        r.n_blobs, (const void *)q.answers);
  gpuccl_context_free(ctx);
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
