/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: gpuccl_draw and gpuccl_process_draw with arbitrary
 * frames and parameters.
 *
 * The input labels a small image (1..48 a side) and then describes a
 * GpucclFrame with no regard for validity: any format value, a size that
 * may not be the result's, planes that may be NULL, strides short of a
 * row, overflowing or merely huge, PACKED4 channel offsets up to 255, line
 * widths from -3 to INT_MAX, any flags, any colour. Whether the call is
 * valid is decided here from gpuccl.h alone:
 *  - invalid: the planes are 1-byte buffers; the call must return
 *    INVALID_ARGUMENT with a message and touch nothing (ASan);
 *  - valid: every plane is allocated to exactly what its rows span, and
 *    after the call the stride padding, a PACKED4 pixel's fourth byte and
 *    (boxes alone) every pixel outside the blobs' boxes are as before;
 *  - valid but too large to allocate here: not called.
 * Half the inputs label and draw in one call, gpuccl_process_draw, whose
 * frame is checked against its own image the same way.
 * Half the inputs then draw the ids too (gpuccl_draw_ids: the input's ids,
 * or the blob ids), checked the same way but for the boxes.
 * Exit: abort (FUZZ_CHECK) on any disagreement. */
#include "fuzz_backend.h"
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "gpuccl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PLANE_BYTES (16u << 20)

static GpucclContext *context(void)
{
  GpucclError e = {0};
  GpucclContext *ctx = fuzz_context(&e);
  FUZZ_CHECK(ctx, "%s context: %s", gpuccl_backend_name(fuzz_backend()),
             e.message);
  return ctx;
}

typedef struct {
  size_t rows, row; /* rows, and bytes in one, per gpuccl.h */
} Plane;

/* The planes of a frame format at w x h, from gpuccl.h: 4:2:0 chroma is
 * half size rounded up, NV12's UV two bytes a sample. 0: unknown. */
static int planes_of(int format, int w, int h, Plane p[3])
{
  const size_t cw = ((size_t)w + 1) / 2, ch = ((size_t)h + 1) / 2;
  switch (format) {
  case GPUCCL_FRAME_GRAY8: p[0] = (Plane){(size_t)h, (size_t)w}; return 1;
  case GPUCCL_FRAME_GRAY16: p[0] = (Plane){(size_t)h, 2 * (size_t)w}; return 1;
  case GPUCCL_FRAME_PACKED4: p[0] = (Plane){(size_t)h, 4 * (size_t)w}; return 1;
  case GPUCCL_FRAME_NV12:
    p[0] = (Plane){(size_t)h, (size_t)w};
    p[1] = (Plane){ch, 2 * cw};
    return 2;
  case GPUCCL_FRAME_I420:
    p[0] = (Plane){(size_t)h, (size_t)w};
    p[1] = p[2] = (Plane){ch, cw};
    return 3;
  }
  return 0;
}

/* What the rows of a plane span, without overflow. */
static unsigned __int128 span_of(const Plane *p, size_t stride)
{
  return (unsigned __int128)stride * (p->rows - 1) + p->row;
}

static size_t choose_stride(FuzzBytes *in, const Plane *p)
{
  int kind = fuzz_range(in, 0, 15);
  if (kind == 0)
    return p->row - (size_t)fuzz_range(in, 1, (int)p->row); /* short */
  if (kind == 1)
    return SIZE_MAX / (size_t)fuzz_range(in, 1, 8); /* overflowing */
  if (kind == 2)
    return (size_t)fuzz_u32(in) << 12; /* huge */
  return p->row + (size_t)fuzz_range(in, 0, 24);
}

static int choose_line_width(FuzzBytes *in)
{
  switch (fuzz_range(in, 0, 7)) {
  case 0: return fuzz_range(in, -3, 0);
  case 1: return INT_MAX - fuzz_u8(in);
  case 2: return 1 << fuzz_range(in, 10, 30);
  default: return fuzz_range(in, 1, 40);
  }
}

/* Inside some blob's box (plane-0 pixel x, y). */
static int in_a_box(const GpucclResult *r, int x, int y)
{
  for (size_t i = 0; i < r->n_blobs; i++)
    if (x >= r->blobs[i].x0 && x <= r->blobs[i].x1 && y >= r->blobs[i].y0 &&
        y <= r->blobs[i].y1)
      return 1;
  return 0;
}

/* What a valid draw may not have changed: padding, the fourth byte of a
 * PACKED4 pixel, and with boxes alone the pixels outside every box. */
static void check_untouched(const GpucclFrame *f, const Plane *p, int planes,
                            uint8_t *const before[3], const GpucclResult *r,
                            unsigned flags)
{
  const size_t bpp = f->format == GPUCCL_FRAME_GRAY16     ? 2
                     : f->format == GPUCCL_FRAME_PACKED4 ? 4
                                                          : 1;
  for (int i = 0; i < planes; i++) {
    const uint8_t *now = f->data[i];
    for (size_t y = 0; y < p[i].rows; y++) {
      const size_t end = y + 1 < p[i].rows ? f->stride[i] : p[i].row;
      for (size_t b = 0; b < end; b++) {
        const size_t at = y * f->stride[i] + b;
        if (now[at] == before[i][at])
          continue;
        const size_t x = b / bpp;
        FUZZ_CHECK(b < p[i].row, "plane %d row %zu: padding byte %zu written",
                   i, y, b);
        FUZZ_CHECK(f->format != GPUCCL_FRAME_PACKED4 ||
                       b % 4 == f->offset_r || b % 4 == f->offset_g ||
                       b % 4 == f->offset_b,
                   "PACKED4 pixel %zu,%zu: byte %zu written", x, y, b % 4);
        FUZZ_CHECK(flags != 0, "nothing to draw, plane %d byte %zu written",
                   i, at);
        FUZZ_CHECK(i > 0 || flags != GPUCCL_DRAW_BOXES ||
                       in_a_box(r, (int)x, (int)y),
                   "boxes only: pixel %zu,%zu outside every box written", x,
                   y);
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FuzzBytes in;
  fuzz_bytes_init(&in, data, size);
  const int w = fuzz_range(&in, 1, 48), h = fuzz_range(&in, 1, 48);
  GpucclParams params;
  gpuccl_params_init(&params);
  params.threshold = fuzz_u8(&in);
  params.connectivity = fuzz_bool(&in) ? 4 : 8;
  params.want_labels = fuzz_bool(&in);

  GpucclFrame f = {0};
  int format = fuzz_range(&in, 0, 15);
  f.format = (GpucclFrameFormat)(format > 5 ? format % 5 : format == 5 ? -1 : format);
  f.width = fuzz_range(&in, 0, 15) ? w : fuzz_range(&in, -1, w + 1);
  f.height = fuzz_range(&in, 0, 15) ? h : fuzz_range(&in, -1, h + 1);
  Plane p[3];
  const int planes = planes_of((int)f.format, w, h, p);
  int nulls = 0;
  for (int i = 0; i < planes; i++) {
    nulls |= (fuzz_range(&in, 0, 31) == 0) << i;
    f.stride[i] = choose_stride(&in, &p[i]);
  }
  uint8_t *offs[3] = {&f.offset_r, &f.offset_g, &f.offset_b};
  for (int c = 0; c < 3; c++)
    *offs[c] = fuzz_range(&in, 0, 15) ? (uint8_t)fuzz_range(&in, 0, 3)
                                      : fuzz_u8(&in);
  GpucclDrawParams dp = {(unsigned)fuzz_range(&in, 0, 15), fuzz_u8(&in),
                         fuzz_u8(&in), fuzz_u8(&in), 0};
  dp.line_width = choose_line_width(&in);
  const int ids_kind = fuzz_range(&in, 0, 3); /* 0, 1: none; 2: given; 3: NULL */
  /* Half the inputs label and draw in one call (gpuccl_process_draw): the
   * same contract, the frame checked against the image of that call. */
  const bool fused = fuzz_bool(&in);

  uint8_t *img = malloc((size_t)w * h);
  FUZZ_CHECK(img, "out of memory");
  fuzz_fill(&in, img, (size_t)w * h);
  GpucclImage image = {img, w, h, (size_t)w, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclResult r;
  GpucclError e = {0};
  GpucclContext *ctx = context();
  FUZZ_CHECK(gpuccl_process(ctx, &image, &params, &r, &e) == GPUCCL_OK,
             "labeling: %s", e.message);

  /* The contract, from gpuccl.h. */
  int valid = planes > 0 && f.width == w && f.height == h && nulls == 0 &&
              dp.line_width >= 1 &&
              (!(dp.flags & GPUCCL_DRAW_LABELS) || params.want_labels) &&
              (f.format != GPUCCL_FRAME_PACKED4 ||
               (f.offset_r <= 3 && f.offset_g <= 3 && f.offset_b <= 3));
  int allocatable = 1;
  for (int i = 0; i < planes; i++) {
    valid &= f.stride[i] >= p[i].row && f.stride[i] <= GPUCCL_MAX_STRIDE &&
             span_of(&p[i], f.stride[i]) <= PTRDIFF_MAX;
    allocatable &= span_of(&p[i], f.stride[i]) <= MAX_PLANE_BYTES;
  }
  uint8_t *before[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    const size_t n = valid && i < planes ? (size_t)span_of(&p[i], f.stride[i]) : 1;
    if (valid && !allocatable)
      break;
    if (i >= planes || (nulls >> i & 1))
      continue;
    f.data[i] = malloc(n);
    before[i] = malloc(n);
    FUZZ_CHECK(f.data[i] && before[i], "out of memory");
    for (size_t k = 0; k < n; k++)
      before[i][k] = (uint8_t)(0x5a ^ k * 131);
    memcpy(f.data[i], before[i], n);
  }
  if (!valid || allocatable) {
    GpucclError de = {GPUCCL_ERROR_INTERNAL, "left from before"};
    GpucclStatus st =
        fused ? gpuccl_process_draw(ctx, &image, &params, &f, &dp, &r, &de)
              : gpuccl_draw(ctx, &f, &dp, &de);
    if (fused && st != GPUCCL_OK)
      FUZZ_CHECK(r.n_blobs == 0 && r.blobs == NULL,
                 "refused process_draw left %zu blobs", r.n_blobs);
    if (valid) {
      FUZZ_CHECK(st == GPUCCL_OK && de.status == GPUCCL_OK && !de.message[0],
                 "valid draw (format %d, line width %d, flags %u): %s",
                 (int)f.format, dp.line_width, dp.flags, de.message);
      if (ids_kind >= 2) {
        uint32_t *ids = ids_kind == 2 ? malloc((r.n_blobs + 1) * sizeof *ids) : NULL;
        FUZZ_CHECK(ids_kind == 3 || ids, "out of memory");
        for (size_t i = 0; ids && i < r.n_blobs; i++)
          ids[i] = fuzz_u32(&in);
        st = gpuccl_draw_ids(ctx, &f, &dp, ids, &de);
        FUZZ_CHECK(st == GPUCCL_OK && de.status == GPUCCL_OK && !de.message[0],
                   "valid draw_ids: %s", de.message);
        free(ids);
      }
      /* The ids are drawn beside the boxes: the boxes-only rule is off. */
      check_untouched(&f, p, planes, before, &r,
                      ids_kind >= 2 ? ~0u : dp.flags);
    } else {
      FUZZ_CHECK(st == GPUCCL_ERROR_INVALID_ARGUMENT &&
                     de.status == st && de.message[0],
                 "invalid draw (format %d, %dx%d for %dx%d, line width %d, "
                 "offsets %u/%u/%u) returned %s",
                 (int)f.format, f.width, f.height, w, h, dp.line_width,
                 f.offset_r, f.offset_g, f.offset_b, gpuccl_status_name(st));
      if (ids_kind >= 2 && dp.flags & GPUCCL_DRAW_LABELS && !params.want_labels &&
          planes > 0)
        ; /* draw_ids ignores the flags: this frame may be valid for it */
      else if (ids_kind >= 2)
        FUZZ_CHECK(gpuccl_draw_ids(ctx, &f, &dp, NULL, &de) ==
                       GPUCCL_ERROR_INVALID_ARGUMENT,
                   "invalid frame taken by draw_ids: %s", de.message);
    }
  }
  for (int i = 0; i < 3; i++) {
    free(f.data[i]);
    free(before[i]);
  }
  free(img);
  return 0;
}
