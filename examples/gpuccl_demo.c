/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-demo: label one generated 8-bit picture (discs, a ring, bars and
 * speckle noise on a gradient) with libgpuccl and print the blob table and
 * a coarse picture of the labels. Backend: auto (CUDA when a device is
 * usable, else the CPU), or the first argument: cpu | cuda | auto. */
#include "gpuccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 640, H = 360 };

static void draw_scene(uint8_t *img)
{
  uint32_t seed = 2024;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      seed = seed * 1664525u + 1013904223u;
      int v = x * 90 / W + (int)(seed >> 28); /* dark gradient, noise */
      if ((seed >> 8) % 1500 == 0)            /* rare bright specks */
        v = 230;
      img[y * W + x] = (uint8_t)v;
    }
  static const int discs[][3] = {{90, 80, 40}, {250, 200, 60}, {520, 90, 25},
                                 {560, 280, 50}, {400, 300, 12}};
  for (size_t i = 0; i < sizeof discs / sizeof discs[0]; i++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int dx = x - discs[i][0], dy = y - discs[i][1], r = discs[i][2];
        if (dx * dx + dy * dy <= r * r)
          img[y * W + x] = 200;
      }
  for (int y = 0; y < H; y++) /* a ring: one blob with a hole */
    for (int x = 0; x < W; x++) {
      int dx = x - 400, dy = y - 150, d2 = dx * dx + dy * dy;
      if (d2 <= 55 * 55 && d2 >= 40 * 40)
        img[y * W + x] = 180;
    }
  for (int y = 250; y < 340; y++) /* two bars touching at a corner only */
    for (int x = 20; x < 60; x++)
      img[y * W + x] = 220;
  for (int y = 210; y < 250; y++)
    for (int x = 60; x < 140; x++)
      img[y * W + x] = 220;
}

int main(int argc, char **argv)
{
  GpucclBackend backend = GPUCCL_BACKEND_AUTO;
  if (argc > 1 && strcmp(argv[1], "cpu") == 0)
    backend = GPUCCL_BACKEND_CPU;
  else if (argc > 1 && strcmp(argv[1], "cuda") == 0)
    backend = GPUCCL_BACKEND_CUDA;

  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(backend, 0, &error);
  if (!ctx) {
    fprintf(stderr, "gpuccl-demo: %s\n", error.message);
    return 1;
  }
  uint8_t *img = malloc((size_t)W * H);
  if (!img) {
    gpuccl_context_free(ctx);
    return 1;
  }
  draw_scene(img);

  GpucclImage image = {img, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams params;
  gpuccl_params_init(&params);
  params.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  params.connectivity = 4; /* the bars touch diagonally: two blobs */
  params.min_area = 20;    /* drop the specks */
  params.want_labels = true;
  GpucclResult r;
  if (gpuccl_process(ctx, &image, &params, &r, &error) != GPUCCL_OK) {
    fprintf(stderr, "gpuccl-demo: %s\n", error.message);
    free(img);
    gpuccl_context_free(ctx);
    return 1;
  }

  printf("gpuccl demo: %dx%d generated picture on %s (%s), Otsu threshold %d, "
         "4-connectivity\n",
         W, H, gpuccl_backend_name(gpuccl_context_backend(ctx)),
         gpuccl_context_device_name(ctx), r.threshold);
  printf("%u components, %zu blobs of at least %llu pixels:\n\n",
         r.n_components, r.n_blobs, (unsigned long long)params.min_area);
  printf("  id  mark     area          bbox (x0,y0)-(x1,y1)      centroid\n");
  static const char marks[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  char mark_of[1 << 12] = {0};
  for (size_t i = 0; i < r.n_blobs; i++) {
    const GpucclBlob *b = &r.blobs[i];
    char mark = i < sizeof marks - 1 ? marks[i] : '#';
    if (b->id < sizeof mark_of)
      mark_of[b->id] = mark;
    printf("%4u   %c %8llu   (%3u,%3u)-(%3u,%3u)   (%7.2f, %7.2f)\n", b->id,
           mark, (unsigned long long)b->area, b->x0, b->y0, b->x1, b->y1,
           gpuccl_blob_cx(b), gpuccl_blob_cy(b));
  }

  /* One character per 8 x 16 pixels: the blob's mark, '.' for a pixel of
   * a filtered-out component, ' ' for background. */
  printf("\n");
  for (int y = 0; y + 8 < H; y += 16) {
    for (int x = 0; x < W; x += 8) {
      uint32_t l = r.labels[(y + 8) * W + x + 4];
      putchar(l == 0 ? ' ' : l < sizeof mark_of && mark_of[l] ? mark_of[l] : '.');
    }
    putchar('\n');
  }
  free(img);
  gpuccl_context_free(ctx);
  return 0;
}
