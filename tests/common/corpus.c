/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared test corpus (see corpus.h): YACCLAB-style random images over
 * density x granularity at several sizes, odd widths and padded strides,
 * tiny and prime sizes, adversarial shapes, and real pictures that Debian's
 * libleptonica-dev ships, thresholded. Everything is derived from the image
 * index, so image i is the same in every run and every program. */
#include "corpus.h"

#include <leptonica/allheaders.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- MT19937 (Matsumoto and Nishimura), the generator YACCLAB uses ---- */

typedef struct {
  uint32_t mt[624];
  int index;
} Mt19937;

static void mt_seed(Mt19937 *g, uint32_t seed)
{
  g->mt[0] = seed;
  for (int i = 1; i < 624; i++)
    g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + (uint32_t)i;
  g->index = 624;
}

static uint32_t mt_next(Mt19937 *g)
{
  if (g->index >= 624) {
    for (int i = 0; i < 624; i++) {
      uint32_t y = (g->mt[i] & 0x80000000u) | (g->mt[(i + 1) % 624] & 0x7fffffffu);
      g->mt[i] = g->mt[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    g->index = 0;
  }
  uint32_t y = g->mt[g->index++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

/* Uniform in [0, 1), 32 bits of resolution. */
static double mt_unit(Mt19937 *g) { return mt_next(g) * (1.0 / 4294967296.0); }

/* ---- image helpers ----------------------------------------------------- */

/* A zeroed width x height image whose row padding (pad bytes) holds junk,
 * so a labeler that reads past the width is caught. */
static int image_new(CorpusImage *out, int width, int height, int pad)
{
  out->width = width;
  out->height = height;
  out->stride = (size_t)width + (size_t)pad;
  out->data = malloc(out->stride * (size_t)height);
  if (!out->data)
    return -1;
  Mt19937 g;
  mt_seed(&g, 0x5eed0000u + (uint32_t)(width * 31 + height));
  for (int y = 0; y < height; y++) {
    uint8_t *row = out->data + y * out->stride;
    memset(row, 0, (size_t)width);
    for (int x = width; x < width + pad; x++)
      row[x] = (uint8_t)(mt_next(&g) | 1); /* never 0, often > 127 */
  }
  return 0;
}

static inline void put(CorpusImage *img, int x, int y)
{
  if (x >= 0 && y >= 0 && x < img->width && y < img->height)
    img->data[y * img->stride + x] = 255;
}

static inline bool is_set(const CorpusImage *img, int x, int y)
{
  return img->data[y * img->stride + x] != 0;
}

void corpus_random(uint8_t *data, int width, int height, size_t stride,
                   double density, int granularity, uint32_t seed)
{
  Mt19937 g;
  mt_seed(&g, seed);
  for (int by = 0; by < height; by += granularity) {
    for (int bx = 0; bx < width; bx += granularity) {
      uint8_t v = mt_unit(&g) < density ? 255 : 0;
      for (int y = by; y < by + granularity && y < height; y++)
        for (int x = bx; x < bx + granularity && x < width; x++)
          data[y * stride + x] = v;
    }
  }
}

static int make_random(CorpusImage *out, int w, int h, int pad, double d,
                       int g, uint32_t seed)
{
  if (image_new(out, w, h, pad))
    return -1;
  corpus_random(out->data, w, h, out->stride, d, g, seed);
  snprintf(out->name, sizeof out->name, "random d=%.4g%% g=%d %dx%d pad=%d seed=%u",
           d * 100, g, w, h, pad, seed);
  return 0;
}

/* ---- families ---------------------------------------------------------- */

typedef struct {
  int w, h, pad;
} Size;

/* A: YACCLAB's grid, density 0..100 % by 10 x granularity 1..16. */
static const Size grid_sizes[] = {
    {64, 64, 0},  {100, 75, 13}, {128, 128, 0}, {33, 200, 7},
    {200, 33, 0}, {257, 129, 3}, {97, 61, 5},   {16, 16, 0},
    {320, 240, 0}, {511, 300, 1}, {48, 48, 2},
};
#define N_GRID_SIZES (sizeof grid_sizes / sizeof grid_sizes[0])
#define N_GRID (N_GRID_SIZES * 11 * 16)

static int gen_grid(size_t k, CorpusImage *out)
{
  const Size *s = &grid_sizes[k / 176];
  int d = (int)(k % 176) / 16, g = (int)(k % 16) + 1;
  return make_random(out, s->w, s->h, s->pad, d / 10.0, g, 1000u + (uint32_t)k);
}

/* B: widths around the 32- and 64-pixel word sizes. */
static const int odd_widths[] = {31, 32, 33, 63, 64, 65};
static const int odd_heights[] = {1, 2, 37};
static const double odd_densities[] = {0.2, 0.5, 0.8};
#define N_ODD (6 * 3 * 3 * 2)

static int gen_odd(size_t k, CorpusImage *out)
{
  int g = k % 2 ? 4 : 1;
  size_t r = k / 2;
  double d = odd_densities[r % 3];
  r /= 3;
  int h = odd_heights[r % 3];
  int w = odd_widths[r / 3];
  return make_random(out, w, h, (int)(k % 3) * 5, d, g, 2000u + (uint32_t)k);
}

/* C: 1x1, 1xN and Nx1. */
static const int line_lengths[] = {2, 3, 17, 64, 65, 1000};
#define N_TINY (4 + 6 * 2 * 2)

static int gen_tiny(size_t k, CorpusImage *out)
{
  if (k < 4) {
    if (image_new(out, 1, 1, k >= 2 ? 3 : 0))
      return -1;
    if (k % 2)
      put(out, 0, 0);
    snprintf(out->name, sizeof out->name, "1x1 %s pad=%d", k % 2 ? "on" : "off",
             k >= 2 ? 3 : 0);
    return 0;
  }
  k -= 4;
  int n = line_lengths[k / 4];
  double d = k % 2 ? 0.7 : 0.3;
  bool row = (k / 2) % 2 == 0;
  return make_random(out, row ? n : 1, row ? 1 : n, row ? 0 : 2, d, 1,
                     3000u + (uint32_t)k);
}

/* D: prime sizes. */
#define N_PRIME 20

static int gen_prime(size_t k, CorpusImage *out)
{
  if (k < 18)
    return make_random(out, 641, 481, (int)(k % 2) * 3, (double)(k / 2 + 1) / 10.0,
                       (int)(k % 2) + 1, 4000u + (uint32_t)k);
  return make_random(out, 1021, 769, 0, k == 18 ? 0.4073 : 0.5927, 1,
                     4000u + (uint32_t)k);
}

/* E: shapes that stress union-find and border handling. */

/* A 1-pixel square spiral with 1-pixel gaps: one very long component. */
static void draw_spiral(CorpusImage *img)
{
  static const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
  int x = 0, y = 0, dir = 0;
  put(img, x, y);
  for (;;) {
    int tries = 0;
    for (; tries < 2; tries++, dir = (dir + 1) % 4) {
      int nx = x + dx[dir], ny = y + dy[dir];
      int fx = nx + dx[dir], fy = ny + dy[dir];
      bool inside = nx >= 0 && ny >= 0 && nx < img->width && ny < img->height;
      bool far_inside = fx >= 0 && fy >= 0 && fx < img->width && fy < img->height;
      /* Step only where the gap to the turn already drawn stays open. */
      if (inside && !is_set(img, nx, ny) && !(far_inside && is_set(img, fx, fy)))
        break;
    }
    if (tries == 2)
      return;
    x += dx[dir];
    y += dy[dir];
    put(img, x, y);
  }
}

enum {
  SHAPE_SPIRAL,
  SHAPE_SERPENTINE_H,
  SHAPE_SERPENTINE_V,
  SHAPE_COMB_DOWN,
  SHAPE_COMB_UP,
  SHAPE_COMB_RIGHT,
  SHAPE_COMB_LEFT,
  SHAPE_CHECKER,
  SHAPE_ISOLATED,
  SHAPE_DIAGONALS,
  SHAPE_ONES,
  SHAPE_ZEROS,
  SHAPE_RANDOM, /* arg: density * 10000, arg2: granularity */
};

typedef struct {
  int shape, w, h, pad, arg, arg2;
} Shape;

static const Shape shapes[] = {
    {SHAPE_SPIRAL, 7, 7, 0, 0, 0},       {SHAPE_SPIRAL, 63, 63, 1, 0, 0},
    {SHAPE_SPIRAL, 64, 64, 0, 0, 0},     {SHAPE_SPIRAL, 101, 77, 3, 0, 0},
    {SHAPE_SPIRAL, 256, 256, 0, 0, 0},   {SHAPE_SPIRAL, 1001, 999, 5, 0, 0},
    {SHAPE_SERPENTINE_H, 64, 64, 0, 0, 0}, {SHAPE_SERPENTINE_H, 127, 129, 1, 0, 0},
    {SHAPE_SERPENTINE_H, 512, 512, 0, 0, 0}, {SHAPE_SERPENTINE_V, 64, 64, 0, 0, 0},
    {SHAPE_SERPENTINE_V, 127, 129, 1, 0, 0}, {SHAPE_SERPENTINE_V, 512, 512, 0, 0, 0},
    {SHAPE_COMB_DOWN, 64, 64, 0, 0, 0},  {SHAPE_COMB_DOWN, 300, 200, 2, 0, 0},
    {SHAPE_COMB_UP, 64, 64, 0, 0, 0},    {SHAPE_COMB_UP, 300, 200, 2, 0, 0},
    {SHAPE_COMB_RIGHT, 64, 64, 0, 0, 0}, {SHAPE_COMB_RIGHT, 300, 200, 2, 0, 0},
    {SHAPE_COMB_LEFT, 64, 64, 0, 0, 0},  {SHAPE_COMB_LEFT, 300, 200, 2, 0, 0},
    {SHAPE_CHECKER, 64, 64, 0, 1, 0},    {SHAPE_CHECKER, 65, 33, 3, 1, 0},
    {SHAPE_CHECKER, 512, 512, 0, 1, 0},  {SHAPE_CHECKER, 1, 9, 0, 1, 0},
    {SHAPE_CHECKER, 9, 1, 0, 1, 0},      {SHAPE_CHECKER, 64, 64, 0, 2, 0},
    {SHAPE_CHECKER, 100, 100, 1, 3, 0},
    /* More than 65 535 components (300 x 300 and 301 x 301 pixels). */
    {SHAPE_ISOLATED, 600, 600, 0, 2, 0}, {SHAPE_ISOLATED, 601, 601, 3, 2, 0},
    {SHAPE_ISOLATED, 800, 800, 0, 3, 0},
    {SHAPE_DIAGONALS, 256, 256, 0, 0, 0}, {SHAPE_DIAGONALS, 129, 67, 1, 0, 0},
    {SHAPE_ONES, 1, 1, 0, 0, 0},   {SHAPE_ONES, 64, 64, 0, 0, 0},
    {SHAPE_ONES, 65, 3, 2, 0, 0},  {SHAPE_ONES, 1000, 1000, 0, 0, 0},
    {SHAPE_ZEROS, 1, 1, 0, 0, 0},  {SHAPE_ZEROS, 64, 64, 0, 0, 0},
    {SHAPE_ZEROS, 65, 3, 2, 0, 0}, {SHAPE_ZEROS, 1000, 1000, 0, 0, 0},
    /* Percolation thresholds: 4-connected site percolation at 0.5927,
     * its 8-connected counterpart at 0.4073; the largest, most tangled
     * components appear there. */
    {SHAPE_RANDOM, 256, 256, 0, 5927, 1},  {SHAPE_RANDOM, 256, 256, 1, 4073, 1},
    {SHAPE_RANDOM, 1024, 1024, 0, 5927, 1}, {SHAPE_RANDOM, 1024, 1024, 0, 4073, 1},
    {SHAPE_RANDOM, 255, 257, 3, 5927, 1},  {SHAPE_RANDOM, 255, 257, 3, 4073, 1},
    {SHAPE_RANDOM, 1023, 1025, 0, 5927, 1}, {SHAPE_RANDOM, 1023, 1025, 0, 4073, 1},
    /* A few large frames. */
    {SHAPE_RANDOM, 2048, 2048, 0, 5000, 1}, {SHAPE_RANDOM, 1920, 1080, 0, 3000, 2},
    {SHAPE_RANDOM, 2048, 2048, 0, 5927, 1},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

static const char *const shape_names[] = {
    "spiral", "serpentine-h", "serpentine-v", "comb-down", "comb-up",
    "comb-right", "comb-left", "checker", "isolated", "diagonals",
    "ones", "zeros", "random"};

static int gen_shape(size_t k, CorpusImage *out)
{
  const Shape *s = &shapes[k];
  if (s->shape == SHAPE_RANDOM)
    return make_random(out, s->w, s->h, s->pad, s->arg / 10000.0, s->arg2,
                       5000u + (uint32_t)k);
  if (image_new(out, s->w, s->h, s->pad))
    return -1;
  int w = s->w, h = s->h;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      bool on = false;
      switch (s->shape) {
      case SHAPE_SERPENTINE_H: /* full rows joined at alternate ends */
        on = y % 2 == 0 || x == ((y / 2) % 2 == 0 ? w - 1 : 0);
        break;
      case SHAPE_SERPENTINE_V:
        on = x % 2 == 0 || y == ((x / 2) % 2 == 0 ? h - 1 : 0);
        break;
      case SHAPE_COMB_DOWN: on = y == 0 || x % 2 == 0; break;
      case SHAPE_COMB_UP: on = y == h - 1 || x % 2 == 0; break;
      case SHAPE_COMB_RIGHT: on = x == 0 || y % 2 == 0; break;
      case SHAPE_COMB_LEFT: on = x == w - 1 || y % 2 == 0; break;
      case SHAPE_CHECKER: on = (x / s->arg + y / s->arg) % 2 == 0; break;
      case SHAPE_ISOLATED: on = x % s->arg == 0 && y % s->arg == 0; break;
      case SHAPE_DIAGONALS: on = (x + y) % 4 == 0; break;
      case SHAPE_ONES: on = true; break;
      default: break;
      }
      if (on)
        put(out, x, y);
    }
  }
  if (s->shape == SHAPE_SPIRAL)
    draw_spiral(out);
  snprintf(out->name, sizeof out->name, "%s %dx%d pad=%d arg=%d",
           shape_names[s->shape], w, h, s->pad, s->arg);
  return 0;
}

/* F: real pictures shipped by libleptonica-dev, thresholded both ways. */
static const char *const pictures[] = {
    "/usr/share/doc/libleptonica-dev/dave-orig.png",
    "/usr/share/doc/libleptonica-dev/aneurisms8.jpg",
};
#define N_PICTURES (sizeof pictures / sizeof pictures[0])
#define N_REAL (N_PICTURES * 8 * 2)

static int gen_real(size_t k, CorpusImage *out)
{
  const char *path = pictures[k / 16];
  int t = 16 + 32 * (int)(k % 8);
  bool below = (k / 8) % 2; /* foreground: value <= t instead of > t */
  snprintf(out->name, sizeof out->name, "%s %s %d", strrchr(path, '/') + 1,
           below ? "<=" : ">", t);
  FILE *probe = fopen(path, "rb");
  if (!probe)
    return 1; /* not installed: the caller reports it as unavailable */
  fclose(probe);
  PIX *pix = pixRead(path);
  PIX *gray = pix ? pixConvertTo8(pix, 0) : NULL;
  pixDestroy(&pix);
  if (!gray)
    return -1;
  int w = pixGetWidth(gray), h = pixGetHeight(gray);
  int pad = (int)(k % 3);
  if (image_new(out, w, h, pad)) {
    pixDestroy(&gray);
    return -1;
  }
  l_uint32 *data = pixGetData(gray);
  int wpl = pixGetWpl(gray);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int v = GET_DATA_BYTE(data + y * wpl, x);
      if ((v > t) != below)
        put(out, x, y);
    }
  pixDestroy(&gray);
  char name[sizeof out->name + 48];
  snprintf(name, sizeof name, "%s %dx%d pad=%d", out->name, w, h, pad);
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, name);
  return 0;
}

typedef struct {
  size_t count;
  int (*generate)(size_t k, CorpusImage *out);
} Family;

static const Family families[] = {
    {N_GRID, gen_grid},   {N_ODD, gen_odd},       {N_TINY, gen_tiny},
    {N_PRIME, gen_prime}, {N_SHAPES, gen_shape},  {N_REAL, gen_real},
};

size_t corpus_size(void)
{
  size_t n = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    n += families[f].count;
  return n;
}

int corpus_image(size_t i, CorpusImage *out)
{
  memset(out, 0, sizeof *out);
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
    if (i < families[f].count) {
      int rc = families[f].generate(i, out);
      if (rc != 0) {
        free(out->data);
        out->data = NULL;
      }
      return rc;
    }
    i -= families[f].count;
  }
  return -1;
}

void corpus_image_free(CorpusImage *img)
{
  free(img->data);
  img->data = NULL;
}
