/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The real pictures of `gpuccl-bench --real DIR`: every picture Leptonica
 * reads in DIR, made grey, optionally scaled, then binarised the way
 * YACCLAB's real datasets were made: Otsu's threshold (libgpuccl's CPU
 * backend, GPUCCL_AUTO_THRESHOLD_OTSU), foreground the smaller side of it
 * (dark text on a page, bright stars in the sky). Every runner then gets
 * the same 0/255 image, so their counts must agree. */
#ifndef GPUCCL_BENCH_REAL_IMAGES_H
#define GPUCCL_BENCH_REAL_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  char name[96];  /* file name without extension, "@SIDE" when scaled */
  int width, height;
  uint8_t *data;  /* width * height bytes, 0 or 255, stride = width */
  int threshold;  /* Otsu's, on the grey picture */
  bool dark;      /* foreground = grey <= threshold (the darker side) */
  double density; /* foreground fraction */
} RealImage;

/* Loads the pictures of `dir` in name order, once per entry of sides[]:
 * 0 = as they are, else scaled so the longer side is that many pixels.
 * Returns how many images are in *images (free with real_images_free),
 * or -1 after printing why on stderr (no directory, no picture, a picture
 * Leptonica cannot read). */
int real_images_load(const char *dir, const int *sides, int n_sides,
                     RealImage **images);
void real_images_free(RealImage *images, int n);

#endif /* GPUCCL_BENCH_REAL_IMAGES_H */
