/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker tests' scenes and checks: blobs as the labeling would report
 * them (and as it never would: bad centroids), a seeded generator, the
 * per-object id bookkeeping, and the cases of each test file. */
#ifndef GPUCCL_TRACK_SCENE_H
#define GPUCCL_TRACK_SCENE_H

#include "gpuccl_track.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int failures;

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      failures++;                                                            \
      fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);             \
      fprintf(stderr, __VA_ARGS__);                                          \
      fputc('\n', stderr);                                                   \
    }                                                                        \
  } while (0)

/* Per-object id bookkeeping shared by the cases. */
typedef struct {
  uint32_t id[16384]; /* id seen for each object, 0 before its first frame */
  uint32_t max_id;    /* largest id handed out so far */
} Ids;

/* The sums that put a blob's centroid at (x, y) (x, y >= 0), to within
 * half a pixel over its area. */
void set_centroid(GpucclBlob *b, double x, double y);

/* The area of a blob's box, as if it filled it. */
void fill_box(GpucclBlob *b);

/* A blob of half-size r around (x, y), as the labeling would report it. */
GpucclBlob blob_at(double x, double y, int r);

/* Centroids no labeling gives but a caller's table may hold: NaN (0 / 0),
 * infinite (an area of 0), and beyond any frame (sums at their maximum). */
void bad_centroid(GpucclBlob *b, int k);

/* A seeded generator (xorshift) in [0, 1): every sequence reproducible. */
double rnd(void);

/* Blobs of a frame are reported in raster order by the labeling, which
 * changes as objects move: shuffle to make sure order is not what matches. */
void shuffle(GpucclBlob *b, int *obj, size_t n);

/* Record frame ids: an object keeps its id; within a frame ids are
 * distinct; a new object gets an id larger than all earlier ones. */
void check_frame(Ids *ids, const int *obj, const uint32_t *tid, size_t n,
                 int frame, const char *what);

/* A tracker with this gate and max_lost (exits 99 when out of memory). */
GpucclTracker *new_tracker(double gate, int max_lost);

/* A blob with an explicit box (half sizes rx, ry) around integer (x, y). */
GpucclBlob box_at(int x, int y, int rx, int ry);

/* The cases (test_track.c runs them by name). */
void test_moving(void);
void test_new_blobs(void);
void test_reappear(void);
void test_crossing(void);
void test_params_live(void);
void test_reset(void);
void test_oom(void);
void test_greedy(void);
void test_dense(void);
void test_ties(void);
void test_greedy_reference(void);
void test_crowded_cell(void);
void test_border(void);
void test_many(void);
void test_bad_values(void);
void test_nearest_given(void);
void test_nearest_stale(void);
void test_far_infinite_gate(void);
void test_bad_args(void);
void test_nearest_api(void);
void test_gate_bound(void);
void test_track_cap(void);
void test_events(void);
void test_events_cap(void);

#endif /* GPUCCL_TRACK_SCENE_H */
