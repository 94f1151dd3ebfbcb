/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracker cases on the order of pairs (see test_track.c). */
#include "track_scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Exact ties: a blob exactly between two tracks goes to the one whose box
 * overlaps it more; with equal overlaps, to the older track. And the same
 * input always gives the same ids. */
void test_ties(void)
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

void test_greedy_reference(void)
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
void test_crowded_cell(void)
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
void test_border(void)
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


/* Bad values never crash and never disturb the good blobs: centroids that
 * are NaN, infinite or far beyond any frame, with a finite and an infinite
 * gate. The finite objects keep their ids. */
void test_bad_values(void)
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
