/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The volume API (gpuccl_volume.h) against an independent oracle written
 * here: a breadth-first flood fill over 26-neighbours, started from each
 * unlabeled foreground voxel in raster order (so its numbering is raster
 * order of first voxel by construction), and its own blob sums. Seeded
 * random volumes (YACCLAB-style density x granularity cubes), odd and
 * degenerate sizes, padded strides.
 *
 * Usage: test-volume --cpu | --cuda   (--cuda exits 77 without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuccl_volume.h"

#define SKIP 77

typedef struct {
  int w, h, d;
  size_t rs, ss;
  uint8_t *data;
} Vol;

static uint32_t rng_state;
static uint32_t rnd(void)
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

/* Cubes of side g set with probability density/100; junk in the padding. */
static Vol make_volume(int w, int h, int d, int density, int g, uint32_t seed)
{
  Vol v = {w, h, d, (size_t)w + 3, 0, NULL};
  v.ss = v.rs * h + 5;
  v.data = malloc(v.ss * d);
  if (!v.data)
    abort();
  rng_state = seed;
  for (size_t i = 0; i < v.ss * d; i++)
    v.data[i] = (uint8_t)(rnd() & 0x7f); /* background, <= 127 */
  for (int z = 0; z < d; z += g)
    for (int y = 0; y < h; y += g)
      for (int x = 0; x < w; x += g) {
        if ((int)(rnd() % 100) >= density)
          continue;
        for (int k = z; k < z + g && k < d; k++)
          for (int j = y; j < y + g && j < h; j++)
            for (int i = x; i < x + g && i < w; i++)
              v.data[k * v.ss + j * v.rs + i] = (uint8_t)(128 + rnd() % 128);
      }
  return v;
}

/* The oracle: BFS labels and blob table. */
static uint32_t oracle(const Vol *v, uint32_t *labels, GpucclVolumeBlob **out)
{
  const size_t n = (size_t)v->w * v->h * v->d;
  uint32_t *queue = malloc(n * sizeof *queue);
  size_t cap = 64;
  GpucclVolumeBlob *blobs = calloc(cap, sizeof *blobs);
  if (!queue || !blobs)
    abort();
  memset(labels, 0, n * sizeof *labels);
  uint32_t count = 0;
#define FG(x, y, z) (v->data[(size_t)(z) * v->ss + (size_t)(y) * v->rs + (x)] > 127)
  for (size_t s = 0; s < n; s++) {
    int sx = (int)(s % v->w), sy = (int)(s / v->w % v->h),
        sz = (int)(s / ((size_t)v->w * v->h));
    if (labels[s] || !FG(sx, sy, sz))
      continue;
    if (count == cap) {
      blobs = realloc(blobs, 2 * cap * sizeof *blobs);
      if (!blobs)
        abort();
      memset(blobs + cap, 0, cap * sizeof *blobs);
      cap *= 2;
    }
    GpucclVolumeBlob *b = &blobs[count++];
    b->id = count;
    b->x0 = b->y0 = b->z0 = UINT32_MAX;
    size_t head = 0, tail = 0;
    queue[tail++] = (uint32_t)s;
    labels[s] = count;
    while (head < tail) {
      size_t q = queue[head++];
      int x = (int)(q % v->w), y = (int)(q / v->w % v->h),
          z = (int)(q / ((size_t)v->w * v->h));
      b->voxels++;
      b->sum_x += x;
      b->sum_y += y;
      b->sum_z += z;
      if ((uint32_t)x < b->x0) b->x0 = x;
      if ((uint32_t)y < b->y0) b->y0 = y;
      if ((uint32_t)z < b->z0) b->z0 = z;
      if ((uint32_t)x > b->x1) b->x1 = x;
      if ((uint32_t)y > b->y1) b->y1 = y;
      if ((uint32_t)z > b->z1) b->z1 = z;
      for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy, nz = z + dz;
            if (nx < 0 || ny < 0 || nz < 0 || nx >= v->w || ny >= v->h ||
                nz >= v->d || !FG(nx, ny, nz))
              continue;
            size_t r = ((size_t)nz * v->h + ny) * v->w + nx;
            if (!labels[r]) {
              labels[r] = count;
              queue[tail++] = (uint32_t)r;
            }
          }
    }
    b->cx = (double)b->sum_x / b->voxels;
    b->cy = (double)b->sum_y / b->voxels;
    b->cz = (double)b->sum_z / b->voxels;
  }
#undef FG
  free(queue);
  *out = blobs;
  return count;
}

static int failures, checks;

static void compare(GpucclVolume *vol, const Vol *v, GpucclVolumeAlgorithm alg,
                    bool want_labels, const char *name)
{
  const size_t n = (size_t)v->w * v->h * v->d;
  uint32_t *ol = malloc(n * sizeof *ol);
  GpucclVolumeBlob *ob;
  uint32_t oc = oracle(v, ol, &ob);
  GpucclVolumeImage img = {v->data, v->w, v->h, v->d, v->rs, v->ss};
  GpucclVolumeParams p;
  gpuccl_volume_params_init(&p);
  p.algorithm = alg;
  p.want_labels = want_labels;
  GpucclVolumeResult r;
  GpucclError err = {0};
  checks++;
  GpucclStatus st = gpuccl_volume_process(vol, &img, &p, &r, &err);
  const char *what = NULL;
  size_t at = 0;
  if (st != GPUCCL_OK) {
    printf("FAIL %s: %s (%s)\n", name, gpuccl_status_name(st), err.message);
    failures++;
    goto out;
  }
  if (r.n_components != oc)
    what = "component count";
  for (uint32_t i = 0; !what && i < oc; i++) {
    const GpucclVolumeBlob *a = &ob[i], *b = &r.blobs[i];
    if (a->id != b->id || a->voxels != b->voxels || a->sum_x != b->sum_x ||
        a->sum_y != b->sum_y || a->sum_z != b->sum_z || a->x0 != b->x0 ||
        a->y0 != b->y0 || a->z0 != b->z0 || a->x1 != b->x1 ||
        a->y1 != b->y1 || a->z1 != b->z1 || a->cx != b->cx ||
        a->cy != b->cy || a->cz != b->cz) {
      what = "blob";
      at = i;
    }
  }
  if (!what && want_labels) {
    if (!r.labels)
      what = "labels missing";
    for (size_t i = 0; !what && i < n; i++)
      if (r.labels[i] != ol[i]) {
        what = "label";
        at = i;
      }
  } else if (!what && r.labels)
    what = "labels without want_labels";
  if (what) {
    printf("FAIL %s: %s differs (index %zu; oracle %u components, got %u)\n",
           name, what, at, oc, r.n_components);
    failures++;
  }
out:
  free(ol);
  free(ob);
}

int main(int argc, char **argv)
{
  const bool cuda = argc > 1 && !strcmp(argv[1], "--cuda");
  GpucclError err = {0};
  if (cuda && !gpuccl_cuda_available(0, &err)) {
    printf("SKIP: no usable CUDA device: %s\n", err.message);
    return SKIP;
  }
  GpucclVolume *vol = gpuccl_volume_new(
      cuda ? GPUCCL_BACKEND_CUDA : GPUCCL_BACKEND_CPU, 0, &err);
  if (!vol) {
    printf("%s: volume object: %s\n", cuda ? "SKIP" : "FAIL", err.message);
    return cuda ? SKIP : 1;
  }
  static const int sizes[][3] = {{1, 1, 1}, {1, 1, 9}, {7, 1, 1}, {2, 2, 2},
                                 {3, 5, 7}, {16, 16, 16}, {33, 17, 9},
                                 {64, 48, 40}, {1, 31, 2}, {95, 67, 3}};
  const GpucclVolumeAlgorithm algs[] = {GPUCCL_VOLUME_BUF, GPUCCL_VOLUME_BKE,
                                        GPUCCL_VOLUME_DEFAULT};
  static const char *alg_names[] = {"default", "BUF", "BKE"};
  uint32_t seed = 1;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int density = 0; density <= 100; density += 20)
      for (int g = 1; g <= 4; g *= 2, seed++) {
        Vol v = make_volume(sizes[s][0], sizes[s][1], sizes[s][2], density, g,
                            seed);
        for (size_t a = 0; a < (cuda ? 3u : 1u); a++) {
          char name[128];
          snprintf(name, sizeof name, "%dx%dx%d d=%d%% g=%d seed=%u %s",
                   v.w, v.h, v.d, density, g, seed,
                   cuda ? alg_names[algs[a]] : "cpu");
          compare(vol, &v, algs[a], (seed + a) % 3 != 0, name);
        }
        free(v.data);
        if (failures > 20)
          goto done;
      }
  /* One larger volume near the percolation density, long components. */
  Vol big = make_volume(160, 150, 140, 25, 1, 4242);
  for (size_t a = 0; a < (cuda ? 2u : 1u); a++)
    compare(vol, &big, algs[a], true, cuda ? "160x150x140 d=25% g=1" : "160x150x140 cpu");
  free(big.data);
  /* Bad input: refused with a message, never a crash. */
  {
    GpucclVolumeImage bad = {NULL, 4, 4, 4, 4, 16};
    GpucclVolumeParams p;
    gpuccl_volume_params_init(&p);
    GpucclVolumeResult r;
    checks++;
    if (gpuccl_volume_process(vol, &bad, &p, &r, &err) !=
        GPUCCL_ERROR_INVALID_ARGUMENT) {
      printf("FAIL: NULL data accepted\n");
      failures++;
    }
    uint8_t one = 200;
    GpucclVolumeImage small = {&one, 1, 1, 1, 0, 0};
    checks++;
    if (gpuccl_volume_process(vol, &small, &p, &r, &err) !=
        GPUCCL_ERROR_INVALID_ARGUMENT) {
      printf("FAIL: row stride 0 accepted\n");
      failures++;
    }
  }
done:
  printf("%s: %s, %d checks, %d failures\n", failures ? "FAIL" : "PASS",
         cuda ? "CUDA" : "CPU", checks, failures);
  gpuccl_volume_free(vol);
  return failures ? 1 : 0;
}
