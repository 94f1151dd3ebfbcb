/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What an overlay writes, pixel by pixel — shared by the CPU overlays
 * (draw_host.c) and the CUDA ones, so both backends draw the same
 * pixels with the same values. Header only, usable from host and device.
 *
 * Drawing order (later layers overwrite earlier ones):
 *   1. labels    — each pixel of a blob in the table (filtered components
 *                  stay untouched) in gpuccl_draw_palette(blob id);
 *   2. boxes     — the outline of each blob's bounding box, line_width
 *                  pixels thick, growing inwards (the box never leaves the
 *                  bounding box, so it never leaves the frame);
 *   3. centroids — a cross on each blob's centroid, clipped to the frame;
 *   4. ids       — a number beside each box (gpuccl_draw_id_place()) in
 *                  the digits of gpuccl_draw_digit_row(), clipped; drawn
 *                  on the host whatever the backend.
 * Boxes, crosses and ids share one colour, so their order is moot.
 *
 * Values written per frame format, for a colour (r, g, b):
 *   PACKED4  the R, G, B bytes at their offsets; the fourth byte untouched;
 *   GRAY8    Y of gpuccl_draw_yuv601();
 *   GRAY16   Y * 257 (full 16-bit scale);
 *   NV12/I420 Y on the luma plane; U and V on the chroma planes.
 * Chroma of 4:2:0 frames: sample (i, j) covers luma pixels (2i..2i+1,
 * 2j..2j+1).
 *   - boxes and crosses: a chroma sample is written when any luma pixel it
 *     covers is drawn (so drawing the luma pixel (x, y) also writes chroma
 *     sample (x / 2, y / 2) — a race-free rule, all share one colour);
 *   - labels: the chroma sample takes the colour of the first covered luma
 *     pixel, in the order (2i,2j), (2i+1,2j), (2i,2j+1), (2i+1,2j+1), that
 *     belongs to a blob of the table; untouched when none does.
 */
#ifndef GPUCCL_DRAW_COMMON_H
#define GPUCCL_DRAW_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GPUCCL_HD __host__ __device__
#else
#define GPUCCL_HD
#endif

typedef struct {
  uint8_t y, u, v;
} GpucclYuv;

typedef struct {
  uint8_t r, g, b;
} GpucclRgb;

static inline GPUCCL_HD uint8_t gpuccl_draw_clamp8(int32_t v)
{
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Full-range (JPEG) BT.601, 16-bit fixed point, rounded. Y is the same as
 * gpuccl_luma601() so the overlay is consistent with the luma channel. The
 * chroma coefficients of each row sum to zero, so grey stays at 128. */
static inline GPUCCL_HD GpucclYuv gpuccl_draw_yuv601(uint8_t r, uint8_t g,
                                                     uint8_t b)
{
  GpucclYuv c;
  c.y = (uint8_t)((19595u * r + 38470u * g + 7471u * b + 32768u) >> 16);
  c.u = gpuccl_draw_clamp8(
      (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32768) >> 16);
  c.v = gpuccl_draw_clamp8(
      (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32768) >> 16);
  return c;
}

/* The label palette: 16 saturated, easily told apart colours. A blob's
 * colour depends on its id only, through a multiplicative hash, so
 * neighbouring ids (raster-order neighbours) get unrelated colours. */
#define GPUCCL_DRAW_PALETTE_SIZE 16u

static inline GPUCCL_HD uint32_t gpuccl_draw_palette_index(uint32_t id)
{
  return (id * 2654435761u) >> 28; /* Knuth's hash, top 4 bits: 0..15 */
}

static inline GPUCCL_HD GpucclRgb gpuccl_draw_palette_rgb(uint32_t index)
{
  /* 0xRRGGBB; a switch rather than a table so device code needs no
   * __constant__ copy. */
  uint32_t rgb;
  switch (index) {
  case 0: rgb = 0xe6194b; break;  /* red */
  case 1: rgb = 0x3cb44b; break;  /* green */
  case 2: rgb = 0xffe119; break;  /* yellow */
  case 3: rgb = 0x4363d8; break;  /* blue */
  case 4: rgb = 0xf58231; break;  /* orange */
  case 5: rgb = 0x911eb4; break;  /* purple */
  case 6: rgb = 0x46f0f0; break;  /* cyan */
  case 7: rgb = 0xf032e6; break;  /* magenta */
  case 8: rgb = 0xbcf60c; break;  /* lime */
  case 9: rgb = 0xfabebe; break;  /* pink */
  case 10: rgb = 0x008080; break; /* teal */
  case 11: rgb = 0xe6beff; break; /* lavender */
  case 12: rgb = 0x9a6324; break; /* brown */
  case 13: rgb = 0xfffac8; break; /* beige */
  case 14: rgb = 0x800000; break; /* maroon */
  default: rgb = 0xaaffc3; break; /* mint */
  }
  GpucclRgb c;
  c.r = (uint8_t)(rgb >> 16);
  c.g = (uint8_t)(rgb >> 8);
  c.b = (uint8_t)rgb;
  return c;
}

/* The colour of blob `id` when labels are drawn. */
static inline GPUCCL_HD GpucclRgb gpuccl_draw_palette(uint32_t id)
{
  return gpuccl_draw_palette_rgb(gpuccl_draw_palette_index(id));
}

/* Is (x, y) on the outline of the inclusive box (x0, y0)-(x1, y1) drawn
 * line_width pixels thick, growing inwards? A box narrower than twice the
 * line width is filled. */
static inline GPUCCL_HD bool gpuccl_draw_on_box(int x, int y, int x0, int y0,
                                               int x1, int y1, int line_width)
{
  if (x < x0 || x > x1 || y < y0 || y > y1)
    return false;
  return x - x0 < line_width || x1 - x < line_width ||
         y - y0 < line_width || y1 - y < line_width;
}

/* Lines at least this wide draw the same pixels whatever their width:
 * every box is filled (sides are at most GPUCCL_MAX_SIDE < 2 x this), and
 * a cross's bars are thicker and longer than twice the largest side, so
 * clipped to the frame it covers it all. gpuccl_draw clamps to it, so the
 * backends' sums of coordinates and widths never overflow an int. */
#define GPUCCL_DRAW_WIDEST_LINE 65536

/* The centroid cross: centred on the pixel nearest the centroid, arms of
 * 3 * line_width pixels on each side of the centre, bars line_width
 * pixels thick (for an even width the extra row/column is below/right of
 * the centre). */
typedef struct {
  int px, py; /* centre pixel */
  int arm;    /* half length of each bar */
  int lo, hi; /* bar thickness: offsets lo..hi around the centre line */
} GpucclCross;

static inline GPUCCL_HD GpucclCross gpuccl_draw_cross(double cx, double cy,
                                                      int line_width)
{
  GpucclCross c;
  /* cx, cy >= 0, so truncation of +0.5 rounds half up. */
  c.px = (int)(cx + 0.5);
  c.py = (int)(cy + 0.5);
  c.arm = 3 * line_width;
  c.lo = -((line_width - 1) / 2);
  c.hi = line_width / 2;
  return c;
}

/* Is (x, y) on the cross? (The caller clips to the frame.) */
static inline GPUCCL_HD bool gpuccl_draw_on_cross(int x, int y,
                                                 const GpucclCross *c)
{
  int dx = x - c->px, dy = y - c->py;
  bool horizontal = dx >= -c->arm && dx <= c->arm && dy >= c->lo &&
                    dy <= c->hi;
  bool vertical = dy >= -c->arm && dy <= c->arm && dx >= c->lo &&
                  dx <= c->hi;
  return horizontal || vertical;
}

/* Ids: decimal digits on a grid of 3 x 5 cells, each cell a square of
 * line_width + 1 pixels (at most GPUCCL_DRAW_MAX_CELL), one cell of space
 * between digits. Row `row`
 * (0 = top) of digit d as 3 bits, bit 2 the left cell. Host only. */
static inline unsigned gpuccl_draw_digit_row(unsigned d, int row)
{
  /* Octal: one digit per row of cells, the top row first. */
  static const unsigned short glyphs[10] = {
      075557, /* 0 */ 026222, /* 1 */ 071747, /* 2 */ 071717, /* 3 */
      055711, /* 4 */ 074717, /* 5 */ 074757, /* 6 */ 071111, /* 7 */
      075757, /* 8 */ 075717, /* 9 */
  };
  return (glyphs[d % 10] >> (3 * (4 - row))) & 7u;
}

/* Where the id of a box goes: its first digit's top-left pixel and the
 * cell size. Left-aligned with the box, one cell above it; below it when
 * there is no room above; over its top edge when neither fits. */
#define GPUCCL_DRAW_MAX_CELL 64

typedef struct {
  int x, y; /* top-left pixel of the first digit */
  int cell; /* pixels per cell side */
} GpucclIdPlace;

static inline GpucclIdPlace gpuccl_draw_id_place(int x0, int y0, int y1,
                                                 int height, int line_width)
{
  GpucclIdPlace p;
  int text_h;
  p.cell = line_width < GPUCCL_DRAW_MAX_CELL ? line_width + 1
                                             : GPUCCL_DRAW_MAX_CELL;
  text_h = 5 * p.cell;
  p.x = x0;
  if (y0 - p.cell - text_h >= 0)
    p.y = y0 - p.cell - text_h;
  else if (y1 + p.cell + text_h < height)
    p.y = y1 + 1 + p.cell;
  else
    p.y = y0;
  return p;
}

#endif /* GPUCCL_DRAW_COMMON_H */
