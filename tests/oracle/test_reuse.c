/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One context, many frames: images growing and shrinking, label image on
 * and off, connectivity switching. Every frame must match OpenCV exactly,
 * so buffers kept from a larger or smaller earlier frame cannot leak into
 * a later result. */
#include "check.h"
#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
  static const int sizes[][2] = {
      {64, 48},  {640, 480}, {1, 1},   {33, 1000}, {1000, 33}, {65, 65},
      {1920, 1080}, {2, 2}, {641, 481}, {16, 16}, {1024, 1024}, {31, 7},
      /* the largest sides accepted (GPUCCL_MAX_SIDE) */
      {16384, 9}, {9, 16384}};
  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  if (!ctx) {
    printf("no CPU context: %s\n", error.message);
    return 1;
  }
  int failures = 0, frames = 0;
  for (int round = 0; round < 3; round++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int w = sizes[s][0], h = sizes[s][1];
      size_t stride = (size_t)w + (size_t)(s % 3) * 7;
      uint8_t *img = malloc(stride * h);
      uint32_t *expected = malloc((size_t)w * h * sizeof *expected);
      OracleStats *stats = malloc(((size_t)w * h + 1) * sizeof *stats);
      double density = 0.3 + 0.1 * (double)((s + round) % 4);
      corpus_random(img, w, h, stride, density, 1 + (int)(s % 3),
                    (uint32_t)(round * 100 + s));
      int conn = (s + round) % 2 ? 4 : 8;
      long n = oracle_opencv(img, w, h, stride, conn, expected, stats,
                             (size_t)w * h + 1);
      GpucclImage image = {img, w, h, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
      GpucclParams params;
      gpuccl_params_init(&params);
      params.connectivity = conn;
      params.want_labels = (s + round) % 3 != 0;
      GpucclResult r;
      char what[96];
      snprintf(what, sizeof what, "round %d frame %zu %dx%d %d-conn labels=%d",
               round, s, w, h, conn, params.want_labels);
      frames++;
      bool ok = n >= 0 &&
                gpuccl_process(ctx, &image, &params, &r, &error) == GPUCCL_OK &&
                (long)r.n_components == n && r.n_blobs == (size_t)n &&
                r.width == w && r.height == h &&
                (params.want_labels ? check_labels(what, &r, expected, n)
                                    : r.labels == NULL) &&
                check_blobs(what, &r, stats, n, false);
      if (!ok) {
        printf("FAIL %s (%s)\n", what, error.message);
        failures++;
      }
      free(img);
      free(expected);
      free(stats);
    }
  gpuccl_context_free(ctx);
  printf("%d frames, %d failures\n", frames, failures);
  return failures ? 1 : 0;
}
