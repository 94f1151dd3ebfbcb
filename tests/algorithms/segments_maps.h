/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Label maps for the segments-mode tests (GPUCCL_MODE_SEGMENTS), and their
 * independent oracle: OpenCV's connectedComponentsWithStats on (map == v)
 * for every distinct non-zero value v, the components of all values then
 * numbered in raster order of their first pixel, as gpuccl numbers them.
 *
 * A map is a plain array of values (one per pixel); it is rendered into a
 * U8, U16 or PACKED4 image with padded rows full of junk, so the library
 * has to read exactly what the format says. */
#ifndef GPUCCL_SEGMENTS_MAPS_H
#define GPUCCL_SEGMENTS_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuccl.h"

typedef struct {
  char name[96];
  int width, height;
  uint32_t *values; /* width * height, row after row */
} SegMap;

/* Every generator returns a map owned by the caller (seg_map_free), or
 * aborts when out of memory (a test machine fault, not a finding).
 * max_value bounds the values: 255 (U8), 65535 (U16), 0xffffff (PACKED4). */

/* g x g blocks, each 0 with probability bg_percent %, else one of
 * `classes` values spread over 1..max_value (so U16 maps use values far
 * above 255). */
SegMap *seg_map_blocks(int width, int height, int g, int classes,
                       int bg_percent, uint32_t max_value, uint32_t seed);
/* Checkerboard of cells of side `cell`, values a and b (no background). */
SegMap *seg_map_checker(int width, int height, int cell, uint32_t a,
                        uint32_t b);
/* Four values tiled 2 x 2: no pixel has an equal neighbour, even with
 * 8-connectivity, so every pixel is its own component. */
SegMap *seg_map_quads(int width, int height, uint32_t max_value);
/* Stripes of `side` pixels cycling through `classes` values, touching
 * (no background); vertical or horizontal. */
SegMap *seg_map_stripes(int width, int height, int side, int classes,
                        bool vertical, uint32_t max_value);
/* One long serpentine of value a (a single component) with rows of value
 * b between its turns: deep union-find chains, two touching classes. */
SegMap *seg_map_serpentine(int width, int height, uint32_t a, uint32_t b);
/* Concentric square rings of width 1 alternating a, b: rings of one value
 * never touch, the other value is always next to them. */
SegMap *seg_map_rings(int width, int height, uint32_t a, uint32_t b);
void seg_map_free(SegMap *m);

/* The maps of the segments tests, i = 0, 1, ...; NULL past the last. */
SegMap *seg_map_standard(size_t i);
/* The largest value of the map (which formats can hold it). */
uint32_t seg_map_max_value(const SegMap *m);

/* The map as an image of `format` with rows padded by `pad` pixels of junk
 * (non-zero bytes); PACKED4 as B, G, R, X (BGRx: offsets R 2, G 1, B 0)
 * with junk in X. Free with seg_image_free. */
GpucclImage seg_image(const SegMap *m, GpucclPixelFormat format, int pad);
void seg_image_free(GpucclImage *img);

const char *seg_format_name(GpucclPixelFormat format);

/* Segments-mode parameters: the connectivity, labels on. */
void seg_params(GpucclParams *p, int connectivity);
/* Labels off and one blob filter, chosen by k: min_area 3, max_blobs 5 or
 * max_area 50. */
void seg_params_filtered(GpucclParams *p, size_t k);

/* The oracle's answer for one connectivity. */
typedef struct {
  uint32_t n;         /* components */
  uint32_t *labels;   /* width * height, 1..n in raster order, 0 background */
  GpucclBlob *blobs;  /* n entries, every field as gpuccl defines it */
  uint32_t *values;   /* n entries: each blob's value (GpucclResult.values) */
} SegExpect;

/* false (with a message) when OpenCV failed or disagreed with itself. */
bool seg_oracle(const SegMap *m, int connectivity, SegExpect *out);
void seg_expect_free(SegExpect *e);

/* Compare a result of gpuccl_process(params) on the map with the oracle:
 * counts, every blob field (value included), the blob filters of params
 * (min/max area, max_blobs), the labels when they were asked for, and
 * threshold 0. Prints the first difference under `name`. */
bool seg_check(const SegExpect *e, const SegMap *m, const GpucclParams *p,
               const GpucclResult *r, const char *name);

/* gpuccl_process on ctx, then seg_check; prints the failure (a status
 * other than OK too) under `name`. */
bool seg_process_check(GpucclContext *ctx, const SegExpect *e,
                       const SegMap *m, const GpucclImage *img,
                       const GpucclParams *p, const char *name);

/* For every standard map of at most max_pixels pixels (0: all), both
 * connectivities (the oracle's answer e) and every format that holds the
 * map's values: the map as an image of that format, rows padded by 0-3
 * junk pixels, then fn. k = the map's index + the format's position, so
 * parameters chosen from k vary from one image to the next. Returns how
 * many maps ran; adds the oracle's failures (printed) to *failures. Stops
 * after 20 failures. */
typedef void (*SegImageFn)(const SegMap *m, const GpucclImage *img, size_t k,
                           int connectivity, const SegExpect *e, void *user);
size_t seg_each_image(size_t max_pixels, SegImageFn fn, void *user,
                      int *failures);

#endif /* GPUCCL_SEGMENTS_MAPS_H */
