/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend's nearest-blob search (GpucclNearest, the tracker's
 * device path): every answer equals the tests' own brute force over the
 * result's blobs (nearest_ref.h, from gpuccl.h's definition), bit for bit;
 * a tracker given the answers hands out the very ids of a twin that
 * searches itself, frame after frame of moving squares that merge and
 * part; no answer when max_blobs selects or past GPUCCL_NEAREST_MAX_PAIRS.
 * Exits 77 without a usable GPU.
 *
 * Usage: test-gpu-nearest [--quick]   (--quick: fewer frames, for the
 * sanitizers) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h" /* GPUCCL_NEAREST_MAX_PAIRS (private) */
#include "gpu_check.h"
#include "gpuccl_track.h"
#include "moving_squares.h"
#include "nearest_ref.h"

static int failures, checks;


/* Small deterministic generator (xorshift). */
static uint32_t rng = 2463534242u;
static double rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng / 4294967296.0;
}

/* Compare the backend's answers to a request with the reference. */
static void check_answer(const GpucclResult *r, const GpucclNearestRequest *q,
                         const char *what, int frame)
{
  static GpucclNearest want[1 << 16];
  const size_t n = q->n;
  EXPECT(q->answers != NULL, "%s frame %d: no answer for %zu queries over %zu blobs",
         what, frame, n, r->n_blobs);
  if (!q->answers || n > sizeof want / sizeof *want)
    return;
  nearest_ref(q->x, q->y, n, r->blobs, r->n_blobs, want);
  int wrong = 0;
  for (size_t i = 0; i < n; i++) {
    const GpucclNearest *g = &q->answers[i], *w = &want[i];
    /* Bitwise for d2 (the tracker orders pairs by it); NaN never occurs:
     * no lane keeps one. */
    bool same = g->blob == w->blob && memcmp(&g->d2, &w->d2, sizeof g->d2) == 0;
    if (!same && wrong++ < 3)
      EXPECT(same, "%s frame %d: query %zu (%g, %g): blob %u d2 %.9g, reference blob %u d2 %.9g",
             what, frame, i, q->x[i], q->y[i], g->blob, g->d2, w->blob, w->d2);
    checks++;
  }
}

/* Twin trackers over a moving-squares sequence labeled on the GPU. */
static void run_sequence(GpucclContext *gpu, int w, int h, int n_squares,
                         int side, double gate, int frames, const char *what)
{
  uint8_t *img = malloc((size_t)w * h);
  MovingSquare *m = malloc((size_t)n_squares * sizeof *m);
  uint32_t *ids_own = malloc((size_t)n_squares * sizeof(uint32_t));
  uint32_t *ids_given = malloc((size_t)n_squares * sizeof(uint32_t));
  if (!img || !m || !ids_own || !ids_given)
    abort();
  for (int i = 0; i < n_squares; i++)
    m[i] = (MovingSquare){rnd() * (w - side), rnd() * (h - side), (rnd() - 0.5) * 8,
                   (rnd() - 0.5) * 8};
  GpucclTrackerParams tp;
  gpuccl_tracker_params_init(&tp);
  tp.max_distance = gate;
  GpucclTracker *own = gpuccl_tracker_new(&tp), *given = gpuccl_tracker_new(&tp);
  GpucclImage image = {img, w, h, (size_t)w, GPUCCL_PIXEL_U8, 0, 0, 0};
  size_t settled = 0, asked = 0;
  for (int f = 0; f < frames; f++) {
    moving_squares_step(img, w, h, side, m, n_squares);
    GpucclParams p;
    GpucclNearestRequest q;
    gpuccl_params_init(&p);
    gpuccl_tracker_predict(given, &q);
    p.nearest = &q;
    GpucclResult r;
    GpucclError e = {0};
    if (gpuccl_process(gpu, &image, &p, &r, &e) != GPUCCL_OK) {
      EXPECT(false, "%s frame %d: %s", what, f, e.message);
      break;
    }
    if (q.n) {
      check_answer(&r, &q, what, f);
      for (size_t i = 0; q.answers && i < q.n; i++)
        settled += q.answers[i].blob != GPUCCL_NO_BLOB;
      asked += q.n;
    }
    EXPECT(gpuccl_tracker_update(own, r.blobs, r.n_blobs, ids_own) &&
               gpuccl_tracker_update_nearest(given, r.blobs, r.n_blobs, &q,
                                             ids_given),
           "%s frame %d: tracker update failed", what, f);
    int wrong = 0;
    for (size_t i = 0; i < r.n_blobs; i++) {
      if (ids_own[i] != ids_given[i] && wrong++ < 3)
        EXPECT(false, "%s frame %d: blob %zu got %u from its own search, %u with the GPU's",
               what, f, i, ids_own[i], ids_given[i]);
      checks++;
    }
  }
  printf("%s: %d frames, %zu of %zu tracks settled on the GPU\n", what, frames,
         settled, asked);
  EXPECT(settled > asked / 2, "%s: only %zu of %zu settled", what, settled, asked);
  gpuccl_tracker_free(own);
  gpuccl_tracker_free(given);
  free(img); free(m); free(ids_own); free(ids_given);
}

/* Query points of every kind against one picture: inside and far outside
 * the frame, on blob centroids (distance 0), exactly between two blobs
 * (a tie), NaN and infinite; counts that are not a multiple of a block's
 * eight queries; more than one tile of 1024 blobs. */
static void run_queries(GpucclContext *gpu)
{
  enum { W = 400, H = 300 };
  static uint8_t img[W * H];
  static float qx[3000], qy[3000];
  memset(img, 0, sizeof img);
  /* 1 500 single pixels on even coordinates: blobs 2 px apart, integer
   * centroids, so midpoints tie exactly. */
  for (int i = 0; i < 1500; i++)
    img[(2 * (i / 100) + 10) * W + 2 * (i % 100) + 100] = 255;
  GpucclImage image = {img, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  const float special[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 3.4e38f};
  size_t n = 0;
  for (int i = 0; i < 1200; i++, n += 2) {
    qx[n] = (float)(rnd() * W);
    qy[n] = (float)(rnd() * H);
    /* On a centroid, or (every 7th) midway between two: a tie. */
    qx[n + 1] = (float)(100 + 2 * (i % 100));
    qy[n + 1] = (float)(10 + 2 * (i / 100) + (i % 7 == 0));
  }
  for (int i = 0; i < 36; i++, n++) {
    qx[n] = special[i % 6];
    qy[n] = i < 6 ? 20.0f : special[(i / 6) % 6];
  }
  const size_t counts[] = {1, 7, 9, 33, n};
  for (int c = 0; c < 5; c++) {
    GpucclParams p;
    GpucclNearestRequest q = {qx, qy, counts[c], NULL};
    gpuccl_params_init(&p);
    p.nearest = &q;
    GpucclResult r;
    GpucclError e = {0};
    EXPECT(gpuccl_process(gpu, &image, &p, &r, &e) == GPUCCL_OK, "queries: %s", e.message);
    EXPECT(r.n_blobs == 1500, "queries: %zu blobs", r.n_blobs);
    check_answer(&r, &q, "queries", c);
    size_t ties = 0;
    for (size_t i = 0; q.answers && i < counts[c]; i++)
      ties += q.answers[i].blob == GPUCCL_NO_BLOB;
    if (c == 4)
      EXPECT(ties > 36, "queries: %zu unsettled, the ties were not met", ties);
  }

  /* max_blobs selecting: no answer (it would index the unselected table);
   * a cap above the count selects nothing and answers. */
  for (int k = 0; k < 2; k++) {
    GpucclParams p;
    GpucclNearestRequest q = {qx, qy, 10, NULL};
    gpuccl_params_init(&p);
    p.nearest = &q;
    p.max_blobs = k ? 2000 : 100;
    GpucclResult r;
    GpucclError e = {0};
    EXPECT(gpuccl_process(gpu, &image, &p, &r, &e) == GPUCCL_OK, "max_blobs: %s", e.message);
    EXPECT(k ? q.answers != NULL : q.answers == NULL, "max_blobs %u: answers %p",
           p.max_blobs, (const void *)q.answers);
    if (k)
      check_answer(&r, &q, "max_blobs above the count", 0);
  }
}

/* Past GPUCCL_NEAREST_MAX_PAIRS the backend does not answer (a frame of
 * isolated pixels: 2^26 pairs would take milliseconds), and the next
 * frame answers again. */
static void run_too_many(GpucclContext *gpu, bool quick)
{
  enum { W = 1024, H = 1024 };
  uint8_t *img = calloc((size_t)W * H, 1);
  float *q = malloc(2048 * sizeof *q);
  if (!img || !q)
    abort();
  for (int y = 0; y < H; y += 2)
    for (int x = 0; x < W; x += 2)
      img[(size_t)y * W + x] = 255; /* 262 144 blobs */
  for (int i = 0; i < 2048; i++)
    q[i] = (float)(rnd() * W);
  GpucclImage image = {img, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  /* 256 x 262 144 is the bound itself: answered (slow under the
   * sanitizers, so --quick only asks past it). */
  const size_t counts[] = {1024, 256, 255};
  for (int c = 0; c < (quick ? 1 : 3); c++) {
    GpucclParams p;
    GpucclNearestRequest req = {q, q + 1024, counts[c], NULL};
    gpuccl_params_init(&p);
    p.nearest = &req;
    GpucclResult r;
    GpucclError e = {0};
    EXPECT(gpuccl_process(gpu, &image, &p, &r, &e) == GPUCCL_OK, "too many: %s", e.message);
    bool over = (unsigned long long)counts[c] * r.n_blobs > GPUCCL_NEAREST_MAX_PAIRS;
    EXPECT(over ? req.answers == NULL : req.answers != NULL,
           "%zu queries x %zu blobs: answers %p", counts[c], r.n_blobs,
           (const void *)req.answers);
    if (!over)
      check_answer(&r, &req, "just below the bound", c);
  }
  free(img);
  free(q);
}

int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  GpucclContext *gpu = gpu_check_context();
  run_queries(gpu);
  run_too_many(gpu, quick);
  run_sequence(gpu, 1920, 1080, 1000, 6, 50, quick ? 8 : 120, "1080p, 1000 squares");
  run_sequence(gpu, 1920, 1080, 5000, 6, 50, quick ? 4 : 40, "1080p, 5000 squares");
  run_sequence(gpu, 320, 240, 60, 5, 15, quick ? 10 : 200, "320x240, 60 squares");
  gpuccl_context_free(gpu);
  printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
  return failures ? 1 : 0;
}
