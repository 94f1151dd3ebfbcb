/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: libgpuccl on the CPU backend.
 *
 * The input chooses an image (size 1..512 a side, stride padding, pixel
 * format, channel offsets), the parameters and the pixels; one input in
 * eight instead builds arbitrary, mostly invalid arguments, which must be
 * refused with GPUCCL_ERROR_INVALID_ARGUMENT exactly when the documented
 * contract says they are invalid. Valid calls are checked against
 * properties that need no oracle: the label image against the thresholded
 * pixels (adjacent foreground pixels share a label, each label is one
 * connected region, labels 1..N in raster order) and the blob table against
 * the label image (areas, boxes, sums, filters, max-blobs). Overlays drawn
 * afterwards (line width narrowed to a budget, fuzz_budget.h) must stay
 * inside their frame, never touch the stride padding and, for boxes alone,
 * stay inside the blobs' boxes.
 *
 * Built with -fsanitize=fuzzer,address,undefined under clang; with any
 * other compiler it links fuzz_replay.c and replays its input files. */
#define _GNU_SOURCE /* qsort_r */
#include "fuzz_backend.h"
#include "fuzz_budget.h"
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "fuzz_samples.h"

#include <gpuccl.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool passes_area(const GpucclParams *p, uint64_t area)
{
  return area >= p->min_area && (p->max_area == 0 || area <= p->max_area);
}

/* Checks that hold for any blob table, labels or not. */
static void check_table(const GpucclImage *img, const GpucclParams *p,
                        const GpucclResult *r)
{
  FUZZ_CHECK(r->width == img->width && r->height == img->height,
             "result size %dx%d for a %dx%d image", r->width, r->height,
             img->width, img->height);
  FUZZ_CHECK(r->n_blobs <= r->n_components, "%zu blobs of %u components",
             r->n_blobs, r->n_components);
  FUZZ_CHECK(r->n_components <= (uint64_t)img->width * img->height,
             "%u components in %d pixels", r->n_components,
             img->width * img->height);
  FUZZ_CHECK(p->max_blobs == 0 || r->n_blobs <= p->max_blobs,
             "%zu blobs with max_blobs %u", r->n_blobs, p->max_blobs);
  FUZZ_CHECK(r->n_blobs == 0 || r->blobs, "%zu blobs but no table",
             r->n_blobs);
  FUZZ_CHECK(p->want_labels == (r->labels != NULL),
             "labels %s but want_labels %d", r->labels ? "returned" : "missing",
             p->want_labels);
  int max_t = img->format == GPUCCL_PIXEL_U16 ? 65535 : 255;
  if (p->auto_threshold == GPUCCL_AUTO_THRESHOLD_NONE)
    FUZZ_CHECK(r->threshold == p->threshold, "threshold %d applied, %d asked",
               r->threshold, p->threshold);
  else
    FUZZ_CHECK(r->threshold >= 0 && r->threshold <= max_t &&
                   (img->format != GPUCCL_PIXEL_U16 ||
                    (r->threshold & 0xff) == 0xff),
               "Otsu threshold %d", r->threshold);
  uint64_t total = 0;
  for (size_t i = 0; i < r->n_blobs; i++) {
    const GpucclBlob *b = &r->blobs[i];
    FUZZ_CHECK(b->id >= 1 && b->id <= r->n_components, "blob id %u of %u",
               b->id, r->n_components);
    FUZZ_CHECK(i == 0 || b->id > r->blobs[i - 1].id, "ids not increasing");
    FUZZ_CHECK(b->x0 <= b->x1 && b->x1 < (uint32_t)img->width &&
                   b->y0 <= b->y1 && b->y1 < (uint32_t)img->height,
               "blob %u box %u,%u..%u,%u outside %dx%d", b->id, b->x0, b->y0,
               b->x1, b->y1, img->width, img->height);
    uint64_t box = (uint64_t)(b->x1 - b->x0 + 1) * (b->y1 - b->y0 + 1);
    FUZZ_CHECK(b->area >= 1 && b->area <= box, "blob %u area %u, box %llu",
               b->id, b->area, (unsigned long long)box);
    FUZZ_CHECK(passes_area(p, b->area), "blob %u area %u fails the filter",
               b->id, b->area);
    const uint64_t area = b->area;
    FUZZ_CHECK(b->sum_x >= area * b->x0 && b->sum_x <= area * b->x1 &&
                   b->sum_y >= area * b->y0 && b->sum_y <= area * b->y1,
               "blob %u sums outside its box", b->id);
    const double cx = gpuccl_blob_cx(b), cy = gpuccl_blob_cy(b);
    FUZZ_CHECK(cx >= b->x0 && cx <= b->x1 && cy >= b->y0 && cy <= b->y1,
               "blob %u centroid %g,%g outside its box", b->id, cx, cy);
    total += b->area;
  }
  FUZZ_CHECK(total <= (uint64_t)img->width * img->height,
             "areas add up to %llu in %d pixels", (unsigned long long)total,
             img->width * img->height);
}

typedef struct {
  uint64_t area, sum_x, sum_y;
  uint32_t x0, y0, x1, y1;
} Stats;

static int by_area_then_id(const void *a, const void *b, void *stats_)
{
  const Stats *stats = stats_;
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  if (stats[ia].area != stats[ib].area)
    return stats[ia].area > stats[ib].area ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static int by_id(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  return ia < ib ? -1 : ia > ib;
}

/* Flood fill from (x, y) over pixels of the same label; returns the count.
 * `queue` and `seen` hold width * height entries. */
static uint64_t flood(const uint32_t *labels, int w, int h, int conn, int x,
                      int y, uint32_t *queue, uint8_t *seen)
{
  uint32_t l = labels[(size_t)y * w + x];
  size_t head = 0, tail = 0;
  queue[tail++] = (uint32_t)((size_t)y * w + x);
  seen[(size_t)y * w + x] = 1;
  while (head < tail) {
    uint32_t i = queue[head++];
    int px = (int)(i % (uint32_t)w), py = (int)(i / (uint32_t)w);
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if ((dx == 0 && dy == 0) || (conn == 4 && dx != 0 && dy != 0))
          continue;
        int nx = px + dx, ny = py + dy;
        if (nx < 0 || ny < 0 || nx >= w || ny >= h)
          continue;
        size_t j = (size_t)ny * w + nx;
        if (labels[j] == l && !seen[j]) {
          seen[j] = 1;
          queue[tail++] = (uint32_t)j;
        }
      }
  }
  return tail;
}

/* The label image against the pixels, and the table against the labels. */
static void check_labels(const GpucclImage *img, const GpucclParams *p,
                         const GpucclResult *r)
{
  const int w = img->width, h = img->height;
  const size_t n = (size_t)w * h;
  const uint32_t *lab = r->labels;
  uint32_t seen_max = 0;
  Stats *stats = calloc((size_t)r->n_components + 1, sizeof *stats);
  uint32_t *queue = malloc(n * sizeof *queue);
  uint8_t *seen = calloc(n, 1);
  FUZZ_CHECK(stats && queue && seen, "out of memory in the checker");

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int s = sample_at(img, p->channel, x, y);
      bool fg = p->invert ? s <= r->threshold : s > r->threshold;
      uint32_t l = lab[(size_t)y * w + x];
      FUZZ_CHECK(fg == (l != 0), "pixel %d,%d sample %d threshold %d "
                 "invert %d has label %u", x, y, s, r->threshold, p->invert, l);
      if (!l)
        continue;
      FUZZ_CHECK(l <= seen_max + 1, "label %u at %d,%d before label %u", l, x,
                 y, seen_max + 1);
      if (l == seen_max + 1) {
        seen_max = l;
        FUZZ_CHECK(l <= r->n_components, "label %u of %u components", l,
                   r->n_components);
        /* The region of l: everything the flood reaches must be all of l,
         * checked below once the counts are known. */
        stats[l].area = flood(lab, w, h, p->connectivity, x, y, queue, seen);
        stats[l].x0 = (uint32_t)x;
        stats[l].y0 = (uint32_t)y;
        stats[l].x1 = (uint32_t)x;
        stats[l].y1 = (uint32_t)y;
      }
      /* Adjacent foreground pixels are one component (forward neighbours
       * are enough: every pair is seen from one side). */
      for (int k = 0; k < 4; k++) {
        static const int ndx[4] = {1, -1, 0, 1}, ndy[4] = {0, 1, 1, 1};
        if (p->connectivity == 4 && ndx[k] != 0 && ndy[k] != 0)
          continue;
        int nx = x + ndx[k], ny = y + ndy[k];
        if (nx < 0 || nx >= w || ny >= h)
          continue;
        uint32_t m = lab[(size_t)ny * w + nx];
        FUZZ_CHECK(m == 0 || m == l, "neighbours %d,%d and %d,%d labeled %u "
                   "and %u", x, y, nx, ny, l, m);
      }
    }
  FUZZ_CHECK(seen_max == r->n_components, "labels reach %u of %u components",
             seen_max, r->n_components);

  /* Area counted pixel by pixel must equal the flood's: one region each. */
  uint64_t *count = calloc((size_t)r->n_components + 1, sizeof *count);
  FUZZ_CHECK(count, "out of memory in the checker");
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint32_t l = lab[(size_t)y * w + x];
      if (!l)
        continue;
      Stats *s = &stats[l];
      count[l]++;
      s->sum_x += (uint64_t)x;
      s->sum_y += (uint64_t)y;
      if ((uint32_t)x < s->x0) s->x0 = (uint32_t)x;
      if ((uint32_t)x > s->x1) s->x1 = (uint32_t)x;
      if ((uint32_t)y > s->y1) s->y1 = (uint32_t)y;
    }
  for (uint32_t l = 1; l <= r->n_components; l++)
    FUZZ_CHECK(count[l] == stats[l].area, "label %u has %llu pixels, its "
               "connected region %llu", l, (unsigned long long)count[l],
               (unsigned long long)stats[l].area);

  /* The expected table: the filters, then the largest max_blobs. */
  uint32_t *keep = malloc(((size_t)r->n_components + 1) * sizeof *keep);
  FUZZ_CHECK(keep, "out of memory in the checker");
  size_t n_keep = 0;
  for (uint32_t l = 1; l <= r->n_components; l++)
    if (passes_area(p, stats[l].area))
      keep[n_keep++] = l;
  if (p->max_blobs && n_keep > p->max_blobs) {
    qsort_r(keep, n_keep, sizeof *keep, by_area_then_id, stats);
    n_keep = p->max_blobs;
    qsort(keep, n_keep, sizeof *keep, by_id);
  }
  FUZZ_CHECK(r->n_blobs == n_keep, "%zu blobs, %zu expected", r->n_blobs,
             n_keep);
  for (size_t i = 0; i < n_keep; i++) {
    const GpucclBlob *b = &r->blobs[i];
    const Stats *s = &stats[keep[i]];
    FUZZ_CHECK(b->id == keep[i] && b->area == s->area && b->x0 == s->x0 &&
                   b->y0 == s->y0 && b->x1 == s->x1 && b->y1 == s->y1 &&
                   b->sum_x == s->sum_x && b->sum_y == s->sum_y,
               "blob %zu (id %u) differs from label %u's pixels", i, b->id,
               keep[i]);
  }
  free(keep);
  free(count);
  free(seen);
  free(queue);
  free(stats);
}

/* A frame of `format` with exact plane sizes (last row tight), stride
 * padding filled with a sentinel. */
typedef struct {
  GpucclFrame f;
  int planes;
  size_t row_bytes[3], rows[3], size[3];
} FuzzFrame;

static void frame_alloc(FuzzFrame *ff, GpucclFrameFormat format, int w, int h,
                        size_t pad, const FuzzBytes *in)
{
  memset(ff, 0, sizeof *ff);
  ff->f.format = format;
  ff->f.width = w;
  ff->f.height = h;
  size_t cw = (size_t)(w + 1) / 2, ch = (size_t)(h + 1) / 2;
  switch (format) {
  case GPUCCL_FRAME_GRAY8: ff->planes = 1; ff->row_bytes[0] = w; break;
  case GPUCCL_FRAME_GRAY16: ff->planes = 1; ff->row_bytes[0] = 2 * (size_t)w; break;
  case GPUCCL_FRAME_PACKED4: ff->planes = 1; ff->row_bytes[0] = 4 * (size_t)w; break;
  case GPUCCL_FRAME_NV12:
    ff->planes = 2; ff->row_bytes[0] = w; ff->row_bytes[1] = 2 * cw; break;
  case GPUCCL_FRAME_I420:
    ff->planes = 3; ff->row_bytes[0] = w; ff->row_bytes[1] = cw;
    ff->row_bytes[2] = cw; break;
  }
  for (int i = 0; i < ff->planes; i++) {
    ff->rows[i] = i == 0 ? (size_t)h : ch;
    ff->f.stride[i] = ff->row_bytes[i] + pad;
    ff->size[i] = ff->f.stride[i] * (ff->rows[i] - 1) + ff->row_bytes[i];
    ff->f.data[i] = malloc(ff->size[i]);
    FUZZ_CHECK(ff->f.data[i], "out of memory for a frame");
    fuzz_fill(in, ff->f.data[i], ff->size[i]);
    for (size_t y = 0; y + 1 < ff->rows[i]; y++)
      memset((uint8_t *)ff->f.data[i] + y * ff->f.stride[i] + ff->row_bytes[i],
             0xa5, pad);
  }
}

static void frame_free(FuzzFrame *ff)
{
  for (int i = 0; i < ff->planes; i++)
    free(ff->f.data[i]);
}

/* How many of the first n blobs' boxes cover each pixel, as a
 * (width + 1) x (height + 1) array: corner marks, then 2D prefix sums,
 * linear in pixels + blobs. */
static int32_t *boxes_cover(const GpucclResult *r, size_t n)
{
  size_t w = (size_t)r->width + 1, h = (size_t)r->height + 1;
  int32_t *c = calloc(w * h, sizeof *c);
  FUZZ_CHECK(c, "out of memory in the checker");
  for (size_t i = 0; i < n; i++) {
    const GpucclBlob *b = &r->blobs[i];
    c[b->y0 * w + b->x0]++;
    c[b->y0 * w + b->x1 + 1]--;
    c[(b->y1 + 1) * w + b->x0]--;
    c[(b->y1 + 1) * w + b->x1 + 1]++;
  }
  for (size_t y = 0; y < h; y++)
    for (size_t x = 0; x < w; x++)
      c[y * w + x] += (x ? c[y * w + x - 1] : 0) + (y ? c[(y - 1) * w + x] : 0) -
                      (x && y ? c[(y - 1) * w + x - 1] : 0);
  return c;
}

static void check_draw(GpucclContext *ctx, FuzzBytes *in,
                       const GpucclParams *p, const GpucclResult *r)
{
  FuzzFrame ff;
  GpucclFrameFormat format = (GpucclFrameFormat)fuzz_range(in, 0, 4);
  frame_alloc(&ff, format, r->width, r->height, (size_t)fuzz_range(in, 0, 5),
              in);
  ff.f.offset_r = (uint8_t)fuzz_range(in, 0, 3);
  ff.f.offset_g = (uint8_t)fuzz_range(in, 0, 3);
  ff.f.offset_b = (uint8_t)fuzz_range(in, 0, 3);
  /* One decision per statement: initializers are evaluated in no fixed
   * order, and gcc and clang differ. */
  GpucclDrawParams dp;
  dp.flags = fuzz_u8(in) & 7u;
  dp.r = fuzz_u8(in);
  dp.g = fuzz_u8(in);
  dp.b = fuzz_u8(in);
  dp.line_width = fuzz_range(in, -1, 40);
  /* Narrowed to the overlay budget for this many blobs (fuzz_budget.h). */
  /* Ids on top (gpuccl_draw_ids): the blob ids, or numbers of any size
   * (0: none drawn). */
  uint8_t ids_choice = fuzz_u8(in);
  bool draw_ids = ids_choice & 1;
  dp.line_width = fuzz_line_width_cap(r->n_blobs, dp.line_width, draw_ids);
  uint32_t *ids = NULL;
  if (draw_ids && (ids_choice & 2)) {
    ids = malloc((r->n_blobs + 1) * sizeof *ids);
    FUZZ_CHECK(ids, "out of memory");
    for (size_t i = 0; i < r->n_blobs; i++)
      ids[i] = fuzz_u8(in) & 1 ? (uint32_t)fuzz_u8(in) : UINT32_MAX - fuzz_u8(in);
  }
  uint8_t *before = malloc(ff.size[0]);
  FUZZ_CHECK(before, "out of memory");
  memcpy(before, ff.f.data[0], ff.size[0]);

  GpucclError err = {0};
  GpucclStatus st = gpuccl_draw(ctx, &ff.f, &dp, &err);
  bool invalid = dp.line_width < 1 ||
                 ((dp.flags & GPUCCL_DRAW_LABELS) && !p->want_labels);
  if (invalid)
    FUZZ_CHECK(st == GPUCCL_ERROR_INVALID_ARGUMENT,
               "draw with line width %d, flags %u, want_labels %d: %s",
               dp.line_width, dp.flags, p->want_labels,
               gpuccl_status_name(st));
  else
    FUZZ_CHECK(st == GPUCCL_OK || st == GPUCCL_ERROR_UNSUPPORTED,
               "draw failed: %s (%s)", gpuccl_status_name(st), err.message);
  if (draw_ids) {
    GpucclStatus st_ids = gpuccl_draw_ids(ctx, &ff.f, &dp, ids, &err);
    FUZZ_CHECK(st_ids == (dp.line_width < 1 ? GPUCCL_ERROR_INVALID_ARGUMENT
                                            : GPUCCL_OK),
               "draw_ids with line width %d: %s (%s)", dp.line_width,
               gpuccl_status_name(st_ids), err.message);
  }

  for (int i = 0; i < ff.planes; i++)
    for (size_t y = 0; y + 1 < ff.rows[i]; y++)
      for (size_t k = ff.row_bytes[i]; k < ff.f.stride[i]; k++)
        FUZZ_CHECK(((uint8_t *)ff.f.data[i])[y * ff.f.stride[i] + k] == 0xa5,
                   "draw wrote into the stride padding of plane %d row %zu",
                   i, y);
  /* Without a failure, nothing drawn means nothing changed; boxes alone
   * change only pixels inside some blob's box (they grow inwards). */
  if (st == GPUCCL_OK && !draw_ids &&
      (dp.flags == 0 || dp.flags == GPUCCL_DRAW_BOXES)) {
    int32_t *cover = boxes_cover(r, dp.flags ? r->n_blobs : 0);
    size_t bpp = ff.row_bytes[0] / (size_t)r->width;
    for (int y = 0; y < r->height; y++)
      for (int x = 0; x < r->width; x++) {
        size_t o = (size_t)y * ff.f.stride[0] + (size_t)x * bpp;
        if (!memcmp(before + o, (uint8_t *)ff.f.data[0] + o, bpp))
          continue;
        FUZZ_CHECK(cover[(size_t)y * (r->width + 1) + x] > 0,
                   "draw flags %u changed pixel %d,%d outside every blob "
                   "box", dp.flags, x, y);
      }
    free(cover);
  }
  free(before);
  free(ids);
  frame_free(&ff);
}

static GpucclContext *context(bool fresh)
{
  GpucclError err = {0};
  GpucclContext *ctx = fresh ? gpuccl_context_new(fuzz_backend(), 0, &err)
                             : fuzz_context(&err);
  FUZZ_CHECK(ctx, "no %s context: %s", gpuccl_backend_name(fuzz_backend()),
             err.message);
  return ctx;
}

/* Valid arguments: the result must be right. */
static void fuzz_valid(FuzzBytes *in)
{
  /* Mostly small images (fast, and where the edge cases are), one in
   * eight up to 512 a side. */
  int side = fuzz_range(in, 0, 7) == 0 ? 512 : 48;
  int w = fuzz_range(in, 1, side);
  int h = fuzz_range(in, 1, side);
  GpucclImage img = {.width = w, .height = h};
  img.format = (GpucclPixelFormat)fuzz_range(in, 0, 2);
  img.offset_r = (uint8_t)fuzz_range(in, 0, 3);
  img.offset_g = (uint8_t)fuzz_range(in, 0, 3);
  img.offset_b = (uint8_t)fuzz_range(in, 0, 3);
  size_t row = (size_t)w * bytes_per_pixel(img.format);
  img.stride = row + (size_t)fuzz_range(in, 0, 9);

  GpucclParams p;
  gpuccl_params_init(&p);
  p.threshold = img.format == GPUCCL_PIXEL_U16 ? fuzz_range(in, 0, 65535)
                                               : fuzz_range(in, 0, 255);
  p.invert = fuzz_bool(in);
  p.auto_threshold = fuzz_range(in, 0, 3) == 0 ? GPUCCL_AUTO_THRESHOLD_OTSU
                                               : GPUCCL_AUTO_THRESHOLD_NONE;
  p.channel = (GpucclChannel)fuzz_range(in, 0, 3);
  p.connectivity = fuzz_bool(in) ? 4 : 8;
  p.min_area = fuzz_range(in, 0, 3) ? 0 : (uint64_t)fuzz_range(in, 0, 64);
  p.max_area = fuzz_range(in, 0, 3) ? 0 : p.min_area + fuzz_range(in, 0, 64);
  p.max_blobs = fuzz_range(in, 0, 3) ? 0 : (uint32_t)fuzz_range(in, 1, 8);
  p.want_labels = fuzz_range(in, 0, 3) != 0;
  p.algorithm = (GpucclAlgorithm)(fuzz_range(in, 0, 7) == 0
                                      ? fuzz_range(in, 1, GPUCCL_ALGORITHM_LAST) : 0);
  bool fresh = fuzz_range(in, 0, 7) == 0;
  bool draw = fuzz_bool(in);

  /* Exactly the bytes the image covers: the last row ends the buffer, so
   * a read past it is an ASan error. */
  size_t size = img.stride * (size_t)(h - 1) + row;
  uint8_t *data = malloc(size);
  FUZZ_CHECK(data, "out of memory for the image");
  fuzz_fill(in, data, size);
  img.data = data;

  GpucclContext *ctx = context(fresh);
  GpucclResult r;
  GpucclError err = {0};
  GpucclStatus st = gpuccl_process(ctx, &img, &p, &r, &err);
  if (p.algorithm != GPUCCL_ALGORITHM_DEFAULT && st == GPUCCL_ERROR_UNSUPPORTED)
    goto out; /* a GPU algorithm the CPU backend may decline */
  FUZZ_CHECK(st == GPUCCL_OK, "valid %dx%d format %d stride %zu refused: "
             "%s (%s)", w, h, (int)img.format, img.stride,
             gpuccl_status_name(st), err.message);
  check_table(&img, &p, &r);
  if (r.labels)
    check_labels(&img, &p, &r);
  if (draw)
    check_draw(ctx, in, &p, &r);
out:
  if (fresh)
    gpuccl_context_free(ctx);
  free(data);
}

/* Arbitrary arguments: refused exactly when the contract says so. */
static void fuzz_arguments(FuzzBytes *in)
{
  static const int odd_sides[] = {-1, 0, GPUCCL_MAX_SIDE + 1, INT_MAX, INT_MIN};
  int w = fuzz_range(in, 0, 7) == 0 ? odd_sides[fuzz_range(in, 0, 4)]
                                    : fuzz_range(in, 1, 600);
  int h = fuzz_range(in, 0, 7) == 0 ? odd_sides[fuzz_range(in, 0, 4)]
                                    : fuzz_range(in, 1, 600);
  int format = fuzz_range(in, 0, 3); /* 3 is not a format */
  size_t bpp = format <= 2 ? bytes_per_pixel(format) : 1;
  size_t row = w > 0 && w <= 600 ? (size_t)w * bpp : 1;
  /* Strides below the row, down to 0, as well as padded ones. */
  size_t stride = row + (size_t)fuzz_range(in, 0, 8);
  stride = stride > 8 ? stride - 8 : 0;
  uint8_t off[3];
  for (int i = 0; i < 3; i++)
    off[i] = (uint8_t)fuzz_range(in, 0, 5);
  GpucclParams p;
  gpuccl_params_init(&p);
  p.threshold = fuzz_range(in, -3, 70000);
  p.invert = fuzz_bool(in);
  p.auto_threshold = (GpucclAutoThreshold)fuzz_range(in, -1, 2);
  p.channel = (GpucclChannel)fuzz_range(in, -1, 4);
  static const int conns[] = {4, 8, 0, 6, -4, 16};
  p.connectivity = conns[fuzz_range(in, 0, 5)];
  p.min_area = (uint64_t)fuzz_range(in, 0, 100);
  p.max_area = (uint64_t)fuzz_range(in, 0, 100);
  p.max_blobs = (uint32_t)fuzz_range(in, 0, 5);
  p.algorithm = (GpucclAlgorithm)fuzz_range(in, -1, GPUCCL_ALGORITHM_LAST + 1);
  unsigned nulls = fuzz_u8(in); /* which pointers are NULL */
  /* The caller's size of GpucclParams (docs/abi.md): mostly the header's;
   * else shorter (an older header: the fields past it take their
   * defaults), or longer with a tail that is zero (accepted) or sets a
   * byte (a field this library does not know: refused). The struct is
   * allocated to exactly that size, so reading past it is an ASan error. */
  unsigned sized = fuzz_range(in, 0, 7);
  size_t params_size = sized == 0 ? (size_t)fuzz_range(in, 0, sizeof p - 1)
                     : sized == 1 ? sizeof p + (size_t)fuzz_range(in, 1, 16)
                     : sizeof p;
  bool tail_set = sized == 1 && fuzz_bool(in);
  GpucclParams eff; /* what the library must read */
  gpuccl_params_init(&eff);
  memcpy(&eff, &p, params_size < sizeof p ? params_size : sizeof p);
  unsigned char *caller = calloc(1, params_size ? params_size : 1);
  FUZZ_CHECK(caller, "out of memory");
  memcpy(caller, &p, params_size < sizeof p ? params_size : sizeof p);
  if (tail_set)
    caller[params_size - 1] = 1;
  p = eff;

  bool size_ok = w >= 1 && h >= 1 && w <= GPUCCL_MAX_SIDE &&
                 h <= GPUCCL_MAX_SIDE;
  bool invalid =
      (nulls & 0x1f) == 1 || (nulls & 0x1f) == 2 || (nulls & 0x1f) == 3 ||
      (nulls & 0x1f) == 4 || (nulls & 0x1f) == 5 || format > 2 || !size_ok ||
      stride < row || tail_set ||
      (format == GPUCCL_PIXEL_PACKED4 && (off[0] > 3 || off[1] > 3 || off[2] > 3)) ||
      (p.connectivity != 4 && p.connectivity != 8) || p.threshold < 0 ||
      p.threshold > (format == GPUCCL_PIXEL_U16 ? 65535 : 255) ||
      (unsigned)p.auto_threshold > GPUCCL_AUTO_THRESHOLD_OTSU ||
      (unsigned)p.algorithm > GPUCCL_ALGORITHM_LAST ||
      ((unsigned)p.channel > GPUCCL_CHANNEL_BLUE &&
       format == GPUCCL_PIXEL_PACKED4);
  /* The case the contract leaves open: a bad channel on a format that has
   * no channels. (A crossed area range is valid: no blob passes.) */
  bool either = (unsigned)p.channel > GPUCCL_CHANNEL_BLUE;

  /* Only sizes that were accepted get memory; a refused call must not
   * touch it anyway, so refused ones get a 1-byte buffer: reading beyond
   * it is an ASan error. */
  size_t size = size_ok && w <= 600 && h <= 600 && stride >= row
                    ? stride * (size_t)(h - 1) + row
                    : 1;
  uint8_t *data = malloc(size);
  FUZZ_CHECK(data, "out of memory");
  fuzz_fill(in, data, size);
  GpucclImage img = {
    .data = (nulls & 0x1f) == 1 ? NULL : data, .width = w, .height = h,
    .stride = stride, .format = (GpucclPixelFormat)format,
    .offset_r = off[0], .offset_g = off[1], .offset_b = off[2],
  };
  GpucclContext *ctx = context(false);
  GpucclResult r;
  GpucclError err = {.status = GPUCCL_OK};
  GpucclStatus st = gpuccl_process_sized(
      (nulls & 0x1f) == 4 ? NULL : ctx, (nulls & 0x1f) == 2 ? NULL : &img,
      (nulls & 0x1f) == 3 ? NULL : (const GpucclParams *)(void *)caller,
      params_size, (nulls & 0x1f) == 5 ? NULL : &r,
      (nulls & 0x20) ? NULL : &err);
  if (!invalid && p.algorithm != GPUCCL_ALGORITHM_DEFAULT &&
      st == GPUCCL_ERROR_UNSUPPORTED)
    ; /* a GPU algorithm the CPU backend may decline */
  else if (invalid)
    FUZZ_CHECK(st == GPUCCL_ERROR_INVALID_ARGUMENT,
               "invalid call (%dx%d format %d stride %zu conn %d threshold %d "
               "nulls %u) returned %s", w, h, format, stride, p.connectivity,
               p.threshold, nulls & 0x1f, gpuccl_status_name(st));
  else if (either)
    FUZZ_CHECK(st == GPUCCL_OK || st == GPUCCL_ERROR_INVALID_ARGUMENT,
               "returned %s", gpuccl_status_name(st));
  else
    FUZZ_CHECK(st == GPUCCL_OK, "valid call refused: %s (%s)",
               gpuccl_status_name(st), err.message);
  if (st != GPUCCL_OK && !(nulls & 0x20))
    FUZZ_CHECK(err.status == st && err.message[0] != '\0',
               "error %s without a message", gpuccl_status_name(st));
  if (st == GPUCCL_OK)
    check_table(&img, &p, &r);
  free(caller);
  free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FuzzBytes in;
  fuzz_bytes_init(&in, data, size);
  if (fuzz_range(&in, 0, 7) == 0)
    fuzz_arguments(&in);
  else
    fuzz_valid(&in);
  return 0;
}
