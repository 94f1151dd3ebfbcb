/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host overlays: the blobs of the last result drawn into a frame in host
 * memory, in place, for every backend (the CPU backend's gpuccl_draw, the
 * CUDA backend's boxes and crosses on a host frame, gpuccl_draw_ids).
 * Which pixels get which values is defined in draw_common.h (shared with
 * the CUDA overlays); this file only walks the pixels. Boxes and
 * crosses cost O(perimeter) per blob, drawn as small rectangles; only the
 * label colouring visits every pixel. */
#include "draw_host.h"
#include "backend.h" /* gpuccl_set_error */
#include "draw_common.h"

#include <stdlib.h>
#include <string.h>

/* One colour, ready to store in any frame format. */
typedef struct {
  uint8_t y, u, v;
  uint16_t y16;
  uint8_t r, g, b;
} Pen;

/* GRAY16 rows may start at any byte (the stride is free), so 16-bit
 * samples are stored through memcpy, never through a cast pointer. */
static inline void store_u16(uint8_t *p, uint16_t v)
{
  memcpy(p, &v, sizeof v);
}

static Pen pen_from_rgb(uint8_t r, uint8_t g, uint8_t b)
{
  GpucclYuv yuv = gpuccl_draw_yuv601(r, g, b);
  Pen pen = {yuv.y, yuv.u, yuv.v, (uint16_t)(yuv.y * 257u), r, g, b};
  return pen;
}

static uint8_t *row_of(const GpucclFrame *f, int plane, int y)
{
  return (uint8_t *)f->data[plane] + (size_t)y * f->stride[plane];
}

/* n bytes of value v: overlay spans are mostly a few bytes (the sides of
 * a box), where a plain loop beats a memset call. */
static inline void fill_u8(uint8_t *p, uint8_t v, int n)
{
  if (n > 32) {
    memset(p, v, (size_t)n);
    return;
  }
  for (int i = 0; i < n; i++)
    p[i] = v;
}

/* Chroma samples cx0..cx1 of chroma rows cy0..cy1 (4:2:0 formats only). */
static void chroma_rect(const GpucclFrame *f, int cx0, int cy0, int cx1,
                        int cy1, const Pen *pen)
{
  int n = cx1 - cx0 + 1;
  for (int cy = cy0; cy <= cy1; cy++) {
    if (f->format == GPUCCL_FRAME_NV12) {
      uint8_t *uv = row_of(f, 1, cy) + 2 * cx0;
      for (int i = 0; i < n; i++) {
        uv[2 * i] = pen->u;
        uv[2 * i + 1] = pen->v;
      }
    } else {
      fill_u8(row_of(f, 1, cy) + cx0, pen->u, n);
      fill_u8(row_of(f, 2, cy) + cx0, pen->v, n);
    }
  }
}

/* The rectangle x0..x1 × y0..y1 (inclusive), clipped to the frame; for
 * 4:2:0 frames also every chroma sample covering one of its pixels — the
 * chroma rectangle x0/2..x1/2 × y0/2..y1/2, written once. */
static void fill_rect(const GpucclFrame *f, int x0, int y0, int x1, int y1,
                      const Pen *pen)
{
  x0 = x0 < 0 ? 0 : x0;
  y0 = y0 < 0 ? 0 : y0;
  x1 = x1 >= f->width ? f->width - 1 : x1;
  y1 = y1 >= f->height ? f->height - 1 : y1;
  if (x1 < x0 || y1 < y0)
    return;
  int n = x1 - x0 + 1;
  switch (f->format) {
  case GPUCCL_FRAME_GRAY8:
    for (int y = y0; y <= y1; y++)
      fill_u8(row_of(f, 0, y) + x0, pen->y, n);
    break;
  case GPUCCL_FRAME_GRAY16:
    for (int y = y0; y <= y1; y++) {
      uint8_t *p = row_of(f, 0, y) + 2 * (size_t)x0;
      for (int i = 0; i < n; i++)
        store_u16(p + 2 * (size_t)i, pen->y16);
    }
    break;
  case GPUCCL_FRAME_NV12:
  case GPUCCL_FRAME_I420:
    for (int y = y0; y <= y1; y++)
      fill_u8(row_of(f, 0, y) + x0, pen->y, n);
    chroma_rect(f, x0 / 2, y0 / 2, x1 / 2, y1 / 2, pen);
    break;
  case GPUCCL_FRAME_PACKED4:
    for (int y = y0; y <= y1; y++) {
      uint8_t *p = row_of(f, 0, y) + 4 * (size_t)x0;
      for (int i = 0; i < n; i++, p += 4) {
        p[f->offset_r] = pen->r;
        p[f->offset_g] = pen->g;
        p[f->offset_b] = pen->b;
      }
    }
    break;
  }
}

/* gpuccl_draw_on_box() as rectangles: top and bottom bands, then the left and
 * right bands of the rows between. */
static void draw_box(const GpucclFrame *f, const GpucclBlob *b, int w,
                     const Pen *pen)
{
  int x0 = (int)b->x0, y0 = (int)b->y0, x1 = (int)b->x1, y1 = (int)b->y1;
  if (x1 - x0 + 1 <= 2 * w || y1 - y0 + 1 <= 2 * w) {
    fill_rect(f, x0, y0, x1, y1, pen); /* too small to have an inside */
    return;
  }
  fill_rect(f, x0, y0, x1, y0 + w - 1, pen);
  fill_rect(f, x0, y1 - w + 1, x1, y1, pen);
  fill_rect(f, x0, y0 + w, x0 + w - 1, y1 - w, pen);
  fill_rect(f, x1 - w + 1, y0 + w, x1, y1 - w, pen);
}

/* gpuccl_draw_on_cross() as two rectangles, clipped to the frame. */
static void draw_cross(const GpucclFrame *f, const GpucclBlob *b, int w,
                       const Pen *pen)
{
  GpucclCross c = gpuccl_draw_cross(gpuccl_blob_cx(b), gpuccl_blob_cy(b), w);
  fill_rect(f, c.px - c.arm, c.py + c.lo, c.px + c.arm, c.py + c.hi, pen);
  fill_rect(f, c.px + c.lo, c.py - c.arm, c.px + c.hi, c.py + c.arm, pen);
}

/* Store one pen at luma pixel (x, y) of a frame (no chroma). */
static void put_luma(const GpucclFrame *f, int x, int y, const Pen *pen)
{
  uint8_t *row = row_of(f, 0, y);
  switch (f->format) {
  case GPUCCL_FRAME_GRAY16:
    store_u16(row + 2 * (size_t)x, pen->y16);
    break;
  case GPUCCL_FRAME_PACKED4:
    row[4 * (size_t)x + f->offset_r] = pen->r;
    row[4 * (size_t)x + f->offset_g] = pen->g;
    row[4 * (size_t)x + f->offset_b] = pen->b;
    break;
  default:
    row[x] = pen->y;
    break;
  }
}

/* Label colouring. pen_of[label] is the pen index + 1 of a blob of the
 * table, 0 for background and filtered components. */
static void draw_labels(const GpucclFrame *f, const uint32_t *labels,
                        const uint8_t *pen_of, const Pen *pens)
{
  int w = f->width, h = f->height;
  for (int y = 0; y < h; y++) {
    const uint32_t *lrow = labels + (size_t)y * w;
    for (int x = 0; x < w; x++) {
      uint8_t k = pen_of[lrow[x]];
      if (k)
        put_luma(f, x, y, &pens[k - 1]);
    }
  }
  if (f->format != GPUCCL_FRAME_NV12 && f->format != GPUCCL_FRAME_I420)
    return;
  /* Chroma: the first covered luma pixel that is coloured. */
  for (int cy = 0; cy < (h + 1) / 2; cy++) {
    for (int cx = 0; cx < (w + 1) / 2; cx++) {
      uint8_t k = 0;
      for (int i = 0; i < 4 && !k; i++) {
        int x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
        if (x < w && y < h)
          k = pen_of[labels[(size_t)y * w + x]];
      }
      if (k)
        chroma_rect(f, cx, cy, cx, cy, &pens[k - 1]);
    }
  }
}

static GpucclStatus draw_all_labels(const GpucclResult *last,
                                    const GpucclFrame *frame,
                                    GpucclError *error)
{
  Pen pens[GPUCCL_DRAW_PALETTE_SIZE];
  for (uint32_t i = 0; i < GPUCCL_DRAW_PALETTE_SIZE; i++) {
    GpucclRgb rgb = gpuccl_draw_palette_rgb(i);
    pens[i] = pen_from_rgb(rgb.r, rgb.g, rgb.b);
  }
  /* Sized by the components, not the pixels: cheap at any frame size. */
  uint8_t *pen_of = calloc((size_t)last->n_components + 1, 1);
  if (!pen_of)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate the label colour table");
  for (size_t i = 0; i < last->n_blobs; i++) {
    uint32_t id = last->blobs[i].id;
    if (id <= last->n_components)
      pen_of[id] = (uint8_t)(gpuccl_draw_palette_index(id) + 1);
  }
  draw_labels(frame, last->labels, pen_of, pens);
  free(pen_of);
  return GPUCCL_OK;
}

/* One number, digit cells as small rectangles, clipped by fill_rect. */
static void draw_number(const GpucclFrame *f, uint32_t n, GpucclIdPlace at,
                        const Pen *pen)
{
  char digits[10];
  int count = 0;
  do {
    digits[count++] = (char)(n % 10);
    n /= 10;
  } while (n);
  for (int k = 0; k < count; k++) {
    unsigned d = (unsigned)digits[count - 1 - k];
    int left = at.x + k * 4 * at.cell;
    for (int row = 0; row < 5; row++) {
      unsigned bits = gpuccl_draw_digit_row(d, row);
      for (int col = 0; col < 3; col++)
        if (bits & (4u >> col)) {
          int x = left + col * at.cell, y = at.y + row * at.cell;
          fill_rect(f, x, y, x + at.cell - 1, y + at.cell - 1, pen);
        }
    }
  }
}

void gpuccl_host_draw_ids(const GpucclResult *last, const GpucclFrame *frame,
                          const GpucclDrawParams *params, const uint32_t *ids)
{
  Pen pen = pen_from_rgb(params->r, params->g, params->b);
  for (size_t i = 0; i < last->n_blobs; i++) {
    const GpucclBlob *b = &last->blobs[i];
    uint32_t id = ids ? ids[i] : b->id;
    if (id == 0)
      continue;
    draw_number(frame, id,
                gpuccl_draw_id_place((int)b->x0, (int)b->y0, (int)b->y1,
                                     frame->height, params->line_width),
                &pen);
  }
}

GpucclStatus gpuccl_draw_on_host(const GpucclResult *last,
                                 const GpucclFrame *frame,
                                 const GpucclDrawParams *params,
                                 GpucclError *error)
{
  if (params->flags & GPUCCL_DRAW_LABELS) {
    GpucclStatus status = draw_all_labels(last, frame, error);
    if (status != GPUCCL_OK)
      return status;
  }
  Pen pen = pen_from_rgb(params->r, params->g, params->b);
  for (size_t i = 0; i < last->n_blobs; i++) {
    if (params->flags & GPUCCL_DRAW_BOXES)
      draw_box(frame, &last->blobs[i], params->line_width, &pen);
    if (params->flags & GPUCCL_DRAW_CENTROIDS)
      draw_cross(frame, &last->blobs[i], params->line_width, &pen);
  }
  return GPUCCL_OK;
}
