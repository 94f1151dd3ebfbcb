/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How many S4DLS + label-backtracking pass pairs HYBRID3 needs on the real
 * pictures: a CPU emulation of kernels/cuda/hybrid3_s4dls.cu and
 * hybrid3_label_backtracking.cu (initial label = the pixel's raster
 * address, walks capped at REACH pixels, loop until a pair changes
 * nothing). The GPU updates labels in place while other threads read
 * them, in no fixed order, so two orders bracket it: "in place" (raster
 * order, a read sees this pass's earlier writes) and "jacobi" (every read
 * sees the previous pass). Pictures as gpuccl-bench --real binarises them.
 *
 *   gcc -O2 -std=c11 -o hybrid3-passes docs/algorithms/tools/hybrid3_passes.c \
 *     bench/real_images.c -Ibench -Ikernels $(pkg-config --cflags --libs lept) \
 *     -LBUILD/kernels -lgpuccl -Wl,-rpath,BUILD/kernels
 *   ./hybrid3-passes PICTURES SIDE CONNECTIVITY [NAME-PART]   (REACH=n)
 *
 * SIDE 0 = native size, else scaled to that longer side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real_images.h"

static int reach = 16; /* H3_REACH of hybrid3_s4dls.cu */
static int width, height;
static bool conn8;
static const uint8_t *fg_pixels;

static bool fg(int x, int y)
{
  return x >= 0 && y >= 0 && x < width && y < height &&
         fg_pixels[(size_t)y * width + x];
}

/* Smallest label met walking from (x, y) in one direction. */
static uint32_t walk(const uint32_t *label, int x, int y, int dx, int dy,
                     uint32_t m)
{
  for (int s = 0; s < reach; s++) {
    x += dx;
    y += dy;
    if (!fg(x, y))
      break;
    const uint32_t v = label[(size_t)y * width + x];
    if (v < m)
      m = v;
  }
  return m;
}

/* One S4DLS pass, reading `in`, writing `out` (the same array: in place). */
static bool s4dls(const uint32_t *in, uint32_t *out)
{
  bool changed = false;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const size_t k = (size_t)y * width + x;
      if (!fg_pixels[k])
        continue;
      const uint32_t own = in[k];
      uint32_t m = walk(in, x, y, -1, 0, own);
      m = walk(in, x, y, 0, -1, m);
      if (conn8) {
        m = walk(in, x, y, -1, -1, m);
        m = walk(in, x, y, 1, -1, m);
      }
      if (m >= own) { /* the lower group only when the upper had nothing */
        m = walk(in, x, y, 1, 0, m);
        m = walk(in, x, y, 0, 1, m);
        if (conn8) {
          m = walk(in, x, y, 1, 1, m);
          m = walk(in, x, y, -1, 1, m);
        }
      }
      if (m < own) {
        out[k] = m;
        changed = true;
      }
    }
  return changed;
}

/* One label-backtracking pass: every label follows its chain to the end. */
static bool backtrack(const uint32_t *in, uint32_t *out)
{
  bool changed = false;
  for (size_t k = 0; k < (size_t)width * height; k++) {
    if (!fg_pixels[k])
      continue;
    uint32_t r = in[k];
    while (in[r] != r)
      r = in[r];
    if (r != in[k]) {
      out[k] = r;
      changed = true;
    }
  }
  return changed;
}

/* Pass pairs until one changes nothing (that one counted, as the host loop
 * of forest_dispatch.cu runs it); at most `cap`. */
static int pass_pairs(bool jacobi, int cap)
{
  const size_t n = (size_t)width * height;
  uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  if (!a || !b) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t k = 0; k < n; k++)
    a[k] = b[k] = (uint32_t)k;
  int pairs = 0;
  bool changed = true;
  while (changed && pairs < cap) {
    pairs++;
    if (jacobi) {
      changed = s4dls(a, b);
      memcpy(a, b, n * sizeof *a);
      changed |= backtrack(a, b);
      memcpy(a, b, n * sizeof *a);
    } else {
      changed = s4dls(a, a);
      changed |= backtrack(a, a);
    }
  }
  free(a);
  free(b);
  return pairs;
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: %s PICTURES SIDE CONNECTIVITY [NAME-PART]\n",
            argv[0]);
    return 2;
  }
  if (getenv("REACH"))
    reach = atoi(getenv("REACH"));
  const int sides[1] = {atoi(argv[2])};
  conn8 = atoi(argv[3]) == 8;
  RealImage *images;
  const int n = real_images_load(argv[1], sides, 1, &images);
  if (n < 0)
    return 1;
  for (int i = 0; i < n; i++) {
    if (argc > 4 && !strstr(images[i].name, argv[4]))
      continue;
    width = images[i].width;
    height = images[i].height;
    fg_pixels = images[i].data;
    const int in_place = pass_pairs(false, 5000);
    const int jacobi = pass_pairs(true, 5000);
    printf("%s %dx%d: pass pairs in place %d, jacobi %d\n", images[i].name,
           width, height, in_place, jacobi);
    fflush(stdout);
  }
  real_images_free(images, n);
  return 0;
}
