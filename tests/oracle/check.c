/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See check.h. */
#include "check.h"

#include <inttypes.h>
#include <stdio.h>

bool check_labels(const char *what, const GpucclResult *result,
                  const uint32_t *expected, long n_expected)
{
  if ((long)result->n_components != n_expected) {
    printf("%s: %u components, oracle %ld\n", what, result->n_components,
           n_expected);
    return false;
  }
  if (!result->labels) {
    printf("%s: no label image\n", what);
    return false;
  }
  size_t pixels = (size_t)result->width * result->height;
  for (size_t i = 0; i < pixels; i++)
    if (result->labels[i] != expected[i]) {
      printf("%s: label %u at (%zu, %zu), oracle %u\n", what,
             result->labels[i], i % (size_t)result->width,
             i / (size_t)result->width, expected[i]);
      return false;
    }
  return true;
}

bool check_blobs(const char *what, const GpucclResult *result,
                 const OracleStats *expected, long n_expected,
                 bool with_sums)
{
  for (size_t i = 0; i < result->n_blobs; i++) {
    const GpucclBlob *b = &result->blobs[i];
    if (b->id < 1 || (long)b->id > n_expected) {
      printf("%s: blob %zu has id %u, oracle has %ld components\n", what, i,
             b->id, n_expected);
      return false;
    }
    if (i > 0 && b->id <= result->blobs[i - 1].id) {
      printf("%s: blob ids not increasing at %zu\n", what, i);
      return false;
    }
    const OracleStats *e = &expected[b->id - 1];
    const double cx = gpuccl_blob_cx(b), cy = gpuccl_blob_cy(b);
    bool same = b->area == e->area && b->x0 == e->x0 && b->y0 == e->y0 &&
                b->x1 == e->x1 && b->y1 == e->y1 && cx == e->cx &&
                cy == e->cy &&
                (!with_sums || (b->sum_x == e->sum_x && b->sum_y == e->sum_y));
    if (!same) {
      printf("%s: blob %u area %u box %u,%u-%u,%u sums %" PRIu64
             ",%" PRIu64 " centroid %.17g,%.17g\n"
             "   oracle: area %" PRIu64 " box %u,%u-%u,%u sums %" PRIu64
             ",%" PRIu64 " centroid %.17g,%.17g\n",
             what, b->id, b->area, b->x0, b->y0, b->x1, b->y1, b->sum_x,
             b->sum_y, cx, cy, e->area, e->x0, e->y0, e->x1, e->y1,
             e->sum_x, e->sum_y, e->cx, e->cy);
      return false;
    }
  }
  return true;
}
