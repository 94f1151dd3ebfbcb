/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Segments mode (GPUCCL_MODE_SEGMENTS, label maps) of the CPU backend, the
 * reference, against the OpenCV oracle of segments_maps.h: random class
 * maps at several granularities and class counts, touching classes that
 * must not merge (checkerboards, 2x2 quads, stripes, rings), a long
 * serpentine, odd sizes; as U8, U16 (values far above 255) and PACKED4
 * (whole colour), rows padded with junk, 4- and 8-connectivity, labels on
 * and off, the blob filters; binarisation parameters must be ignored.
 * Also a few counts known by construction, and the front's checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "segments_maps.h"

static int failures, checks;

static void expect(bool ok, const char *what)
{
  checks++;
  if (!ok) {
    printf("FAIL %s\n", what);
    failures++;
  }
}

static void run_check(GpucclContext *ctx, const SegExpect *e, const SegMap *m,
                      const GpucclImage *img, const GpucclParams *p,
                      const char *variant)
{
  char name[256];
  snprintf(name, sizeof name, "%s [%s %d-conn %s]", m->name,
           seg_format_name(img->format), p->connectivity, variant);
  checks++;
  if (!seg_process_check(ctx, e, m, img, p, name))
    failures++;
}

/* One image of a map, one connectivity. */
static void check_image(const SegMap *m, const GpucclImage *img, size_t k,
                        int conn, const SegExpect *e, void *user)
{
  GpucclContext *ctx = user;
  GpucclParams p;
  seg_params(&p, conn);
  run_check(ctx, e, m, img, &p, "labels");
  seg_params_filtered(&p, k);
  run_check(ctx, e, m, img, &p, "table, filtered");
  /* Binarisation parameters are ignored (not even checked). */
  seg_params(&p, conn);
  p.want_labels = (k & 1) != 0;
  p.threshold = 70000;
  p.invert = true;
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  p.channel = (GpucclChannel)99;
  run_check(ctx, e, m, img, &p, "binarisation ignored");
}

static uint32_t count_components(GpucclContext *ctx, const SegMap *m,
                                 GpucclMode mode, int conn)
{
  GpucclImage img = seg_image(m, GPUCCL_PIXEL_U16, 1);
  GpucclParams p;
  gpuccl_params_init(&p);
  p.mode = mode;
  p.connectivity = conn;
  p.threshold = 0; /* binary: every non-zero pixel */
  GpucclResult r;
  GpucclStatus st = gpuccl_process(ctx, &img, &p, &r, NULL);
  seg_image_free(&img);
  return st == GPUCCL_OK ? r.n_components : UINT32_MAX;
}

/* Counts known by construction, without any oracle. */
static void check_known_counts(GpucclContext *ctx)
{
  SegMap *m = seg_map_quads(37, 29, 255);
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 4) == 37 * 29,
         "2x2 quads, 4-conn: every pixel a component");
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 8) == 37 * 29,
         "2x2 quads, 8-conn: every pixel a component");
  expect(count_components(ctx, m, GPUCCL_MODE_BINARY, 8) == 1,
         "2x2 quads in binary mode: one component");
  seg_map_free(m);

  m = seg_map_checker(40, 30, 1, 1, 2);
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 4) == 40 * 30,
         "checkerboard of two classes, 4-conn: every pixel a component");
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 8) == 2,
         "checkerboard of two classes, 8-conn: two components");
  seg_map_free(m);

  m = seg_map_stripes(70, 9, 1, 3, true, 600);
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 8) == 70,
         "70 touching one-pixel stripes of 3 classes: 70 components");
  seg_map_free(m);

  m = seg_map_rings(41, 41, 1, 2);
  expect(count_components(ctx, m, GPUCCL_MODE_SEGMENTS, 8) == 21,
         "41x41 rings: 21 components");
  seg_map_free(m);
}

/* Binary mode: no values (gpuccl.h: every blob is foreground). */
static void check_binary_value(GpucclContext *ctx)
{
  SegMap *m = seg_map_blocks(90, 70, 2, 6, 40, 255, 21);
  GpucclImage img = seg_image(m, GPUCCL_PIXEL_U8, 2);
  GpucclParams p;
  gpuccl_params_init(&p);
  p.threshold = 0;
  GpucclResult r;
  bool ok = gpuccl_process(ctx, &img, &p, &r, NULL) == GPUCCL_OK &&
            r.n_blobs > 0 && r.values == NULL;
  expect(ok, "binary mode: blobs without values");
  seg_image_free(&img);
  seg_map_free(m);
}

static void check_front(GpucclContext *ctx)
{
  SegMap *m = seg_map_checker(8, 8, 2, 3, 4);
  GpucclImage img = seg_image(m, GPUCCL_PIXEL_U8, 0);
  GpucclParams p;
  gpuccl_params_init(&p);
  expect(p.mode == GPUCCL_MODE_BINARY, "gpuccl_params_init: binary mode");
  p.mode = (GpucclMode)7;
  GpucclResult r;
  GpucclError err = {0};
  GpucclStatus st = gpuccl_process(ctx, &img, &p, &r, &err);
  expect(st == GPUCCL_ERROR_INVALID_ARGUMENT && strstr(err.message, "mode") &&
             r.n_components == 0 && !r.blobs,
         "unknown mode: invalid argument, message, empty result");
  p.mode = GPUCCL_MODE_SEGMENTS;
  p.connectivity = 6;
  st = gpuccl_process(ctx, &img, &p, &r, &err);
  expect(st == GPUCCL_ERROR_INVALID_ARGUMENT,
         "segments mode still checks the connectivity");
  seg_image_free(&img);
  seg_map_free(m);
}

int main(void)
{
  GpucclError err = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  if (!ctx) {
    printf("FAIL: CPU context: %s\n", err.message);
    return 1;
  }
  const size_t maps = seg_each_image(0, check_image, ctx, &failures);
  check_known_counts(ctx);
  check_binary_value(ctx);
  check_front(ctx);
  gpuccl_context_free(ctx);
  printf("%s: %zu maps, %d checks, %d failures\n", failures ? "FAIL" : "PASS",
         maps, checks, failures);
  return failures ? 1 : 0;
}
