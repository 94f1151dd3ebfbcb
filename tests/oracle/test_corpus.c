/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend against an independent oracle (Leptonica or OpenCV) on a
 * shard of the whole corpus, 4- and 8-connectivity: label image and blob
 * table must agree exactly, with and without the label image requested.
 *
 * usage: test-corpus leptonica|opencv SHARD SHARDS */
#include "check.h"
#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  if (argc != 4 || (strcmp(argv[1], "leptonica") && strcmp(argv[1], "opencv"))) {
    fprintf(stderr, "usage: %s leptonica|opencv SHARD SHARDS\n", argv[0]);
    return 2;
  }
  bool lept = strcmp(argv[1], "leptonica") == 0;
  size_t shard = strtoul(argv[2], NULL, 10), shards = strtoul(argv[3], NULL, 10);
  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  if (!ctx) {
    printf("no CPU context: %s\n", error.message);
    return 1;
  }
  size_t images = 0, unavailable = 0, failures = 0;
  uint64_t components = 0;
  for (size_t i = shard; i < corpus_size(); i += shards) {
    CorpusImage img;
    int rc = corpus_image(i, &img);
    if (rc == 1) {
      printf("# image %zu (%s) unavailable\n", i, img.name);
      unavailable++;
      continue;
    }
    if (rc != 0) {
      printf("image %zu: cannot generate\n", i);
      failures++;
      continue;
    }
    size_t pixels = (size_t)img.width * img.height;
    uint32_t *expected = malloc(pixels * sizeof *expected);
    OracleStats *stats = malloc((pixels + 1) * sizeof *stats);
    for (int conn = 4; conn <= 8 && expected && stats; conn += 4) {
      char what[160];
      snprintf(what, sizeof what, "image %zu (%s) %d-conn vs %s", i, img.name,
               conn, argv[1]);
      long n = lept ? oracle_leptonica(img.data, img.width, img.height,
                                       img.stride, conn, expected)
                    : oracle_opencv(img.data, img.width, img.height, img.stride,
                                    conn, expected, stats, pixels + 1);
      if (n < 0) {
        printf("%s: oracle failed\n", what);
        failures++;
        continue;
      }
      if (lept) /* Leptonica gives labels only: features from its labels */
        oracle_stats_from_labels(expected, img.width, img.height, (uint32_t)n,
                                 stats);
      components += (uint64_t)n;
      GpucclImage image = {.data = img.data, .width = img.width,
                           .height = img.height, .stride = img.stride,
                           .format = GPUCCL_PIXEL_U8};
      GpucclParams params;
      gpuccl_params_init(&params);
      params.connectivity = conn;
      for (int want = 1; want >= 0; want--) {
        params.want_labels = want;
        GpucclResult result;
        if (gpuccl_process(ctx, &image, &params, &result, &error) != GPUCCL_OK) {
          printf("%s: gpuccl_process failed: %s\n", what, error.message);
          failures++;
          continue;
        }
        bool ok = (!want || check_labels(what, &result, expected, n)) &&
                  (long)result.n_components == n && result.n_blobs == (size_t)n &&
                  check_blobs(what, &result, stats, n, lept);
        if (!ok) {
          printf("%s: mismatch (labels %s, %u components, %zu blobs, oracle %ld)\n",
                 what, want ? "on" : "off", result.n_components, result.n_blobs, n);
          failures++;
        }
      }
    }
    if (!expected || !stats) {
      printf("image %zu: out of memory\n", i);
      failures++;
    }
    free(expected);
    free(stats);
    corpus_image_free(&img);
    images++;
  }
  gpuccl_context_free(ctx);
  printf("%s shard %zu/%zu: %zu images x 2 connectivities, %llu oracle "
         "components, %zu unavailable, %zu failures\n",
         argv[1], shard, shards, images, (unsigned long long)components,
         unavailable, failures);
  return failures ? 1 : 0;
}
