/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pipeline bench's scene: bright discs on a dark background (see
 * pipeline_bench.h), as gray levels and written into video frames. */
#include "pipeline_bench.h"

#include <math.h>
#include <string.h>

typedef struct
{
  double x, y, vx, vy, r;
} Disc;

/* Disc i of the lattice scene at frame `index`: lattice cells of about
 * w * h / n pixels each, a home jittered by up to 8 px from the cell's
 * centre, a circle of radius 6 px around it, one turn per N_FRAMES. Discs
 * of radius 4 then stay apart as long as a cell is wider than 2 * (8 + 6
 * + 4) = 36 px (1 000 discs at 1080p: cells of 45 px). */
static void
lattice_disc (GRand * rand, int w, int h, int n_discs, int i, int index,
    Disc * d)
{
  int cols = MAX (1, (int) ceil (sqrt ((double) n_discs * w / h)));
  int rows = (n_discs + cols - 1) / cols;
  double cw = (double) w / cols, ch = (double) h / rows;
  double jx = g_rand_double_range (rand, -8, 8);
  double jy = g_rand_double_range (rand, -8, 8);
  double phase = g_rand_double_range (rand, 0, 2 * G_PI);
  double a = phase + 2 * G_PI * index / N_FRAMES;

  d->r = 4;
  d->x = (i % cols + 0.5) * cw + jx + 6 * cos (a);
  d->y = (i / cols + 0.5) * ch + jy + 6 * sin (a);
}

/* Gray levels of frame `index`: discs at 220 on a background at 20. */
void
scene_levels (guint8 * levels, int w, int h, int n_discs, gboolean lattice,
    int index)
{
  GRand *rand = g_rand_new_with_seed (1234);
  double scale = h / 1080.0;

  memset (levels, 20, (size_t) w * h);
  for (int i = 0; i < n_discs; i++) {
    Disc d;
    if (lattice) {
      lattice_disc (rand, w, h, n_discs, i, index, &d);
    } else {
      d.r = g_rand_double_range (rand, 6, 40) * scale;
      d.x = g_rand_double_range (rand, d.r, w - d.r);
      d.y = g_rand_double_range (rand, d.r, h - d.r);
      d.vx = g_rand_double_range (rand, -4, 4) * scale;
      d.vy = g_rand_double_range (rand, -4, 4) * scale;
      d.x += d.vx * index;
      d.y += d.vy * index;
    }
    int y0 = MAX (0, (int) (d.y - d.r)), y1 = MIN (h - 1, (int) (d.y + d.r));
    for (int y = y0; y <= y1; y++) {
      double dy = y - d.y, half = sqrt (MAX (0.0, d.r * d.r - dy * dy));
      int x0 = MAX (0, (int) ceil (d.x - half));
      int x1 = MIN (w - 1, (int) floor (d.x + half));
      if (x1 >= x0)
        memset (levels + (size_t) y * w + x0, 220, x1 - x0 + 1);
    }
  }
  g_rand_free (rand);
}

/* Write the levels into a frame: the Y plane (NV12: neutral chroma) or
 * R = G = B (alpha opaque). */
void
fill_frame (GstVideoFrame * f, const guint8 * levels)
{
  int w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  guint8 *p0 = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  int s0 = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);

  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_RGBA) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        guint8 *px = p0 + (size_t) y * s0 + 4 * x, v = levels[y * w + x];
        px[0] = px[1] = px[2] = v;
        px[3] = 255;
      }
    return;
  }
  for (int y = 0; y < h; y++)
    memcpy (p0 + (size_t) y * s0, levels + (size_t) y * w, w);
  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_NV12)
    memset (GST_VIDEO_FRAME_PLANE_DATA (f, 1), 128,
        (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (f, 1) *
        GST_VIDEO_FRAME_COMP_HEIGHT (f, 1));
}
