/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracker cases on the device path (see test_track.c). */
#include "track_scene.h"
#include "nearest_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void test_nearest_given(void)
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
void test_nearest_stale(void)
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
void test_far_infinite_gate(void)
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
void test_bad_args(void)
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
void test_nearest_api(void)
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
