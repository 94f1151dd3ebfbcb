/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See track_scene.h. */
#include "track_scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int failures;


/* The sums that put a blob's centroid at (x, y) (x, y >= 0), to within
 * half a pixel over its area. */
void set_centroid(GpucclBlob *b, double x, double y)
{
  b->sum_x = (uint64_t)llround(x * (double)b->area);
  b->sum_y = (uint64_t)llround(y * (double)b->area);
}

/* The area of a blob's box, as if it filled it. */
void fill_box(GpucclBlob *b)
{
  b->area = (uint32_t)((b->x1 - b->x0 + 1) * (b->y1 - b->y0 + 1));
}

/* A blob of half-size r around (x, y), as the labeling would report it. */
GpucclBlob blob_at(double x, double y, int r)
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
void bad_centroid(GpucclBlob *b, int k)
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
double rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state / 4294967296.0;
}

/* Blobs of a frame are reported in raster order by the labeling, which
 * changes as objects move: shuffle to make sure order is not what matches. */
void shuffle(GpucclBlob *b, int *obj, size_t n)
{
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)(rnd() * i);
    GpucclBlob tb = b[i - 1]; b[i - 1] = b[j]; b[j] = tb;
    int to = obj[i - 1]; obj[i - 1] = obj[j]; obj[j] = to;
  }
}


static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Record frame ids: an object keeps its id; within a frame ids are
 * distinct; a new object gets an id larger than all earlier ones. */
void check_frame(Ids *ids, const int *obj, const uint32_t *tid,
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

GpucclTracker *new_tracker(double gate, int max_lost)
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

/* A blob with an explicit box (half sizes rx, ry) around integer (x, y). */
GpucclBlob box_at(int x, int y, int rx, int ry)
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
