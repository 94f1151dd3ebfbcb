/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See segments_maps.h. */
#include "segments_maps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "segments test: out of memory (%zu bytes)\n", n);
    abort();
  }
  return p;
}

static void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "segments test: out of memory (%zu x %zu bytes)\n", n,
            size);
    abort();
  }
  return p;
}

static uint32_t next_random(uint32_t *state) /* xorshift32 */
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static SegMap *map_new(int width, int height, const char *name)
{
  SegMap *m = xcalloc(1, sizeof *m);
  m->width = width;
  m->height = height;
  m->values = xcalloc((size_t)width * height, sizeof *m->values);
  snprintf(m->name, sizeof m->name, "%s %dx%d", name, width, height);
  return m;
}

#define AT(m, x, y) ((m)->values[(size_t)(y) * (m)->width + (x)])

/* Class c (1..classes) spread over 1..max_value: distinct, and far apart
 * in wide formats. */
static uint32_t class_value(int c, int classes, uint32_t max_value)
{
  return 1 + (uint32_t)((uint64_t)(c - 1) * (max_value - 1) /
                        (uint64_t)(classes > 1 ? classes - 1 : 1));
}

SegMap *seg_map_blocks(int width, int height, int g, int classes,
                       int bg_percent, uint32_t max_value, uint32_t seed)
{
  char name[64];
  snprintf(name, sizeof name, "blocks g%d %d classes bg%d%% max %u", g,
           classes, bg_percent, max_value);
  SegMap *m = map_new(width, height, name);
  uint32_t state = seed * 2654435761u + 1;
  const int bw = (width + g - 1) / g, bh = (height + g - 1) / g;
  uint32_t *block = xmalloc((size_t)bw * bh * sizeof *block);
  for (size_t i = 0; i < (size_t)bw * bh; i++) {
    const bool bg = (int)(next_random(&state) % 100) < bg_percent;
    const int c = 1 + (int)(next_random(&state) % (uint32_t)classes);
    block[i] = bg ? 0 : class_value(c, classes, max_value);
  }
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      AT(m, x, y) = block[(size_t)(y / g) * bw + x / g];
  free(block);
  return m;
}

SegMap *seg_map_checker(int width, int height, int cell, uint32_t a,
                        uint32_t b)
{
  char name[64];
  snprintf(name, sizeof name, "checker cell %d (%u/%u)", cell, a, b);
  SegMap *m = map_new(width, height, name);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      AT(m, x, y) = ((x / cell + y / cell) & 1) ? a : b;
  return m;
}

SegMap *seg_map_quads(int width, int height, uint32_t max_value)
{
  SegMap *m = map_new(width, height, "2x2 quads");
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      AT(m, x, y) = class_value(1 + (x & 1) + 2 * (y & 1), 4, max_value);
  return m;
}

SegMap *seg_map_stripes(int width, int height, int side, int classes,
                        bool vertical, uint32_t max_value)
{
  char name[64];
  snprintf(name, sizeof name, "%s stripes %d of %d classes",
           vertical ? "vertical" : "horizontal", side, classes);
  SegMap *m = map_new(width, height, name);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      AT(m, x, y) = class_value(1 + ((vertical ? x : y) / side) % classes,
                                classes, max_value);
  return m;
}

SegMap *seg_map_serpentine(int width, int height, uint32_t a, uint32_t b)
{
  SegMap *m = map_new(width, height, "serpentine");
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      bool on;
      switch (y % 4) {
      case 0:
      case 2: on = true; break;
      case 1: on = x == width - 1; break;
      default: on = x == 0; break;
      }
      AT(m, x, y) = on ? a : b;
    }
  return m;
}

SegMap *seg_map_rings(int width, int height, uint32_t a, uint32_t b)
{
  SegMap *m = map_new(width, height, "rings");
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int d = x < y ? x : y;
      if (width - 1 - x < d)
        d = width - 1 - x;
      if (height - 1 - y < d)
        d = height - 1 - y;
      AT(m, x, y) = (d & 1) ? a : b;
    }
  return m;
}

void seg_map_free(SegMap *m)
{
  if (m) {
    free(m->values);
    free(m);
  }
}

GpucclImage seg_image(const SegMap *m, GpucclPixelFormat format, int pad)
{
  const size_t bpp = format == GPUCCL_PIXEL_U8 ? 1 : format == GPUCCL_PIXEL_U16 ? 2 : 4;
  const size_t stride = ((size_t)m->width + pad) * bpp;
  uint8_t *data = xmalloc(stride * m->height);
  memset(data, 0xa5, stride * m->height); /* junk in the padding */
  for (int y = 0; y < m->height; y++)
    for (int x = 0; x < m->width; x++) {
      const uint32_t v = AT(m, x, y);
      uint8_t *p = data + y * stride + x * bpp;
      if (format == GPUCCL_PIXEL_U8) {
        *p = (uint8_t)v;
      } else if (format == GPUCCL_PIXEL_U16) {
        const uint16_t s = (uint16_t)v;
        memcpy(p, &s, 2);
      } else {
        p[0] = (uint8_t)v;         /* B */
        p[1] = (uint8_t)(v >> 8);  /* G */
        p[2] = (uint8_t)(v >> 16); /* R */
        p[3] = (uint8_t)(x * 31 + y * 17 + 1); /* X: junk, ignored */
      }
    }
  GpucclImage img = {data, m->width, m->height, stride, format, 0, 0, 0};
  if (format == GPUCCL_PIXEL_PACKED4) {
    img.offset_r = 2;
    img.offset_g = 1;
    img.offset_b = 0;
  }
  return img;
}

void seg_image_free(GpucclImage *img)
{
  free((void *)img->data);
  img->data = NULL;
}

/* ---- oracle ------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static size_t value_index(const uint32_t *vals, size_t n, uint32_t v)
{
  const uint32_t *p = bsearch(&v, vals, n, sizeof *vals, cmp_u32);
  return (size_t)(p - vals);
}

typedef struct {
  int x0, y0, x1, y1;
} Box;

bool seg_oracle(const SegMap *m, int connectivity, SegExpect *out)
{
  const int w = m->width, h = m->height;
  const size_t pixels = (size_t)w * h;
  memset(out, 0, sizeof *out);

  /* The distinct non-zero values and the box each one covers. */
  uint32_t *vals = xmalloc(pixels * sizeof *vals);
  size_t nv = 0;
  for (size_t i = 0; i < pixels; i++)
    if (m->values[i])
      vals[nv++] = m->values[i];
  qsort(vals, nv, sizeof *vals, cmp_u32);
  size_t u = 0;
  for (size_t i = 0; i < nv; i++)
    if (u == 0 || vals[i] != vals[u - 1])
      vals[u++] = vals[i];
  nv = u;
  Box *box = xmalloc((nv ? nv : 1) * sizeof *box);
  for (size_t i = 0; i < nv; i++)
    box[i] = (Box){w, h, -1, -1};
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint32_t v = AT(m, x, y);
      if (!v)
        continue;
      Box *b = &box[value_index(vals, nv, v)];
      if (x < b->x0) b->x0 = x;
      if (y < b->y0) b->y0 = y;
      if (x > b->x1) b->x1 = x;
      if (y > b->y1) b->y1 = y;
    }

  /* OpenCV per value, on the crop of its box; its components get the
   * provisional labels base + 1 .. base + n_v. OpenCV's own stats are
   * kept to cross-check the stats measured from the labels below. */
  uint32_t *prov = xcalloc(pixels, sizeof *prov);
  uint8_t *mask = xmalloc(pixels);
  uint32_t *crop = xmalloc(pixels * sizeof *crop);
  OracleStats *cv = xmalloc(pixels * sizeof *cv);
  OracleStats *cv_all = xmalloc((pixels + 1) * sizeof *cv_all);
  int *off_x = xmalloc((pixels + 1) * sizeof *off_x);
  int *off_y = xmalloc((pixels + 1) * sizeof *off_y);
  uint32_t base = 0;
  bool ok = true;
  for (size_t i = 0; i < nv && ok; i++) {
    const Box b = box[i];
    const int bw = b.x1 - b.x0 + 1, bh = b.y1 - b.y0 + 1;
    for (int y = 0; y < bh; y++)
      for (int x = 0; x < bw; x++)
        mask[(size_t)y * bw + x] = AT(m, b.x0 + x, b.y0 + y) == vals[i] ? 255 : 0;
    long n = oracle_opencv(mask, bw, bh, (size_t)bw, connectivity, crop, cv,
                           pixels);
    if (n <= 0) {
      printf("FAIL %s: OpenCV failed on value %u (%ld)\n", m->name, vals[i], n);
      ok = false;
      break;
    }
    for (int y = 0; y < bh; y++)
      for (int x = 0; x < bw; x++) {
        const uint32_t l = crop[(size_t)y * bw + x];
        if (l)
          prov[(size_t)(b.y0 + y) * w + b.x0 + x] = base + l;
      }
    for (long l = 0; l < n; l++) {
      cv_all[base + l + 1] = cv[l];
      off_x[base + l + 1] = b.x0;
      off_y[base + l + 1] = b.y0;
    }
    base += (uint32_t)n;
  }

  if (ok) {
    /* Raster order of first pixels over all values. */
    uint32_t *order = xcalloc((size_t)base + 1, sizeof *order);
    out->labels = xcalloc(pixels, sizeof *out->labels);
    out->blobs = xcalloc((size_t)base + 1, sizeof *out->blobs);
    out->values = xcalloc((size_t)base + 1, sizeof *out->values);
    uint32_t n = 0;
    for (size_t i = 0; i < pixels; i++) {
      const uint32_t l = prov[i];
      if (!l)
        continue;
      if (!order[l]) {
        order[l] = ++n;
        out->values[n - 1] = m->values[i];
      }
      out->labels[i] = order[l];
    }
    out->n = n;
    OracleStats *st = xmalloc(((size_t)n + 1) * sizeof *st);
    oracle_stats_from_labels(out->labels, w, h, n, st);
    for (uint32_t i = 0; i < n; i++) {
      GpucclBlob *b = &out->blobs[i];
      b->id = i + 1;
      b->x0 = st[i].x0;
      b->y0 = st[i].y0;
      b->x1 = st[i].x1;
      b->y1 = st[i].y1;
      b->area = (uint32_t)st[i].area;
      b->sum_x = st[i].sum_x;
      b->sum_y = st[i].sum_y;
    }
    /* OpenCV's own stats must say the same (the crop offsets added). */
    for (uint32_t l = 1; l <= base && ok; l++) {
      const GpucclBlob *b = &out->blobs[order[l] - 1];
      const OracleStats *c = &cv_all[l];
      const double dx = c->cx + off_x[l] - gpuccl_blob_cx(b);
      const double dy = c->cy + off_y[l] - gpuccl_blob_cy(b);
      if (c->area != b->area || c->x0 + off_x[l] != b->x0 ||
          c->y0 + off_y[l] != b->y0 || c->x1 + off_x[l] != b->x1 ||
          c->y1 + off_y[l] != b->y1 || dx > 1e-6 || dx < -1e-6 ||
          dy > 1e-6 || dy < -1e-6) {
        printf("FAIL %s: OpenCV's stats disagree with its labels\n", m->name);
        ok = false;
      }
    }
    free(st);
    free(order);
  }
  free(vals);
  free(box);
  free(prov);
  free(mask);
  free(crop);
  free(cv);
  free(cv_all);
  free(off_x);
  free(off_y);
  if (!ok)
    seg_expect_free(out);
  return ok;
}

void seg_expect_free(SegExpect *e)
{
  free(e->labels);
  free(e->blobs);
  free(e->values);
  memset(e, 0, sizeof *e);
}

/* ---- comparison -------------------------------------------------------- */

static bool passes_area(const GpucclBlob *b, const GpucclParams *p)
{
  return b->area >= p->min_area && (p->max_area == 0 || b->area <= p->max_area);
}

/* Whether oracle blob i is in the table params ask for: the area filter,
 * then the max_blobs largest (ties: the smaller id). */
static bool expected_kept(const SegExpect *e, uint32_t i,
                          const GpucclParams *p)
{
  const GpucclBlob *b = &e->blobs[i];
  if (!passes_area(b, p))
    return false;
  if (p->max_blobs == 0)
    return true;
  uint32_t stronger = 0;
  for (uint32_t j = 0; j < e->n; j++) {
    const GpucclBlob *o = &e->blobs[j];
    if (passes_area(o, p) &&
        (o->area > b->area || (o->area == b->area && o->id < b->id)))
      stronger++;
  }
  return stronger < p->max_blobs;
}

static void print_blob(const char *who, const GpucclBlob *b, uint32_t value)
{
  printf("  %s: id %u value %u box (%u,%u)-(%u,%u) area %u sums %llu %llu "
         "c %.17g %.17g\n",
         who, b->id, value, b->x0, b->y0, b->x1, b->y1, b->area,
         (unsigned long long)b->sum_x, (unsigned long long)b->sum_y,
         gpuccl_blob_cx(b), gpuccl_blob_cy(b));
}

bool seg_check(const SegExpect *e, const SegMap *m, const GpucclParams *p,
               const GpucclResult *r, const char *name)
{
  if (r->n_components != e->n || r->threshold != 0 || r->width != m->width ||
      r->height != m->height) {
    printf("FAIL %s: %u components (expected %u), threshold %d (expected 0), "
           "%dx%d\n",
           name, r->n_components, e->n, r->threshold, r->width, r->height);
    return false;
  }
  size_t k = 0;
  for (uint32_t i = 0; i < e->n; i++) {
    if (!expected_kept(e, i, p))
      continue;
    const GpucclBlob *a = k < r->n_blobs ? &r->blobs[k] : NULL;
    const GpucclBlob *b = &e->blobs[i];
    const uint32_t value = a && r->values ? r->values[k] : 0;
    if (!a || a->id != b->id || value != e->values[i] || a->x0 != b->x0 ||
        a->y0 != b->y0 || a->x1 != b->x1 || a->y1 != b->y1 ||
        a->area != b->area || a->sum_x != b->sum_x || a->sum_y != b->sum_y) {
      printf("FAIL %s: blob %zu of the table differs%s\n", name, k,
             a && !r->values ? " (no values)" : "");
      if (a)
        print_blob("gpuccl", a, value);
      else
        printf("  gpuccl: table ends after %zu blobs\n", r->n_blobs);
      print_blob("oracle", b, e->values[i]);
      return false;
    }
    k++;
  }
  if (k != r->n_blobs) {
    printf("FAIL %s: %zu blobs in the table, expected %zu\n", name,
           r->n_blobs, k);
    return false;
  }
  if (p->want_labels) {
    if (!r->labels) {
      printf("FAIL %s: no label image\n", name);
      return false;
    }
    for (size_t i = 0; i < (size_t)m->width * m->height; i++)
      if (r->labels[i] != e->labels[i]) {
        printf("FAIL %s: label at (%zu, %zu) is %u, expected %u (value %u)\n",
               name, i % m->width, i / m->width, r->labels[i], e->labels[i],
               m->values[i]);
        return false;
      }
  }
  return true;
}

/* ---- the maps every segments test runs --------------------------------- */

SegMap *seg_map_standard(size_t i)
{
  switch (i) {
  /* random class maps, granularity 1..16, few to many classes */
  case 0: return seg_map_blocks(97, 61, 1, 3, 30, 255, 1);
  case 1: return seg_map_blocks(128, 128, 2, 8, 20, 255, 2);
  case 2: return seg_map_blocks(301, 203, 3, 250, 10, 255, 3);
  case 3: return seg_map_blocks(255, 257, 4, 40, 0, 255, 4); /* no background */
  case 4: return seg_map_blocks(512, 384, 8, 1000, 15, 65535, 5);
  case 5: return seg_map_blocks(640, 480, 16, 5, 50, 255, 6);
  case 6: return seg_map_blocks(64, 64, 1, 2, 0, 255, 7); /* two-class noise */
  case 7: return seg_map_blocks(1024, 768, 5, 200, 5, 0xffffff, 8);
  /* touching classes that must stay apart */
  case 8: return seg_map_checker(63, 65, 1, 1, 2);
  case 9: return seg_map_checker(100, 90, 3, 7, 200);
  case 10: return seg_map_checker(77, 51, 1, 300, 65535);
  case 11: return seg_map_quads(33, 31, 255);
  case 12: return seg_map_stripes(70, 40, 1, 3, true, 255);
  case 13: return seg_map_stripes(45, 77, 2, 2, false, 40000);
  case 14: return seg_map_rings(129, 127, 2, 5);
  /* long thin components, several merge levels */
  case 15: return seg_map_serpentine(200, 203, 1, 2);
  case 16: return seg_map_serpentine(1024, 1024, 9, 3);
  /* odd shapes */
  case 17: return seg_map_blocks(1, 1, 1, 1, 0, 255, 9);
  case 18: return seg_map_blocks(300, 1, 1, 4, 20, 255, 10);
  case 19: return seg_map_blocks(1, 300, 2, 4, 20, 255, 11);
  case 20: return seg_map_blocks(33, 2, 1, 3, 10, 255, 12);
  /* 75 000 one-pixel components: more than a buffer sized for a typical
   * class map holds (CUDA sizes its component buffers from the count) */
  case 21: return seg_map_quads(300, 250, 65535);
  default: return NULL;
  }
}

uint32_t seg_map_max_value(const SegMap *m)
{
  uint32_t v = 0;
  for (size_t i = 0; i < (size_t)m->width * m->height; i++)
    if (m->values[i] > v)
      v = m->values[i];
  return v;
}

/* The formats that hold the map's values (U8 up to 255, U16 up to 65535,
 * PACKED4 always) into formats[]; returns how many. */
static int seg_map_formats(const SegMap *m, GpucclPixelFormat formats[3])
{
  const uint32_t max = seg_map_max_value(m);
  int n = 0;
  if (max <= 255)
    formats[n++] = GPUCCL_PIXEL_U8;
  if (max <= 65535)
    formats[n++] = GPUCCL_PIXEL_U16;
  formats[n++] = GPUCCL_PIXEL_PACKED4;
  return n;
}

const char *seg_format_name(GpucclPixelFormat format)
{
  return format == GPUCCL_PIXEL_U8    ? "U8"
         : format == GPUCCL_PIXEL_U16 ? "U16"
                                      : "PACKED4";
}

void seg_params(GpucclParams *p, int connectivity)
{
  gpuccl_params_init(p);
  p->mode = GPUCCL_MODE_SEGMENTS;
  p->connectivity = connectivity;
  p->want_labels = true;
}

void seg_params_filtered(GpucclParams *p, size_t k)
{
  p->want_labels = false;
  switch (k % 3) {
  case 0: p->min_area = 3; break;
  case 1: p->max_blobs = 5; break;
  default: p->max_area = 50; break;
  }
}

bool seg_process_check(GpucclContext *ctx, const SegExpect *e,
                       const SegMap *m, const GpucclImage *img,
                       const GpucclParams *p, const char *name)
{
  GpucclResult r;
  GpucclError err = {0};
  GpucclStatus st = gpuccl_process(ctx, img, p, &r, &err);
  if (st != GPUCCL_OK) {
    printf("FAIL %s: %s (%s)\n", name, gpuccl_status_name(st), err.message);
    return false;
  }
  return seg_check(e, m, p, &r, name);
}

/* fn on the map in every format that holds its values. */
static void each_format(const SegMap *m, size_t index, int conn,
                        const SegExpect *e, SegImageFn fn, void *user)
{
  GpucclPixelFormat formats[3];
  const int n_formats = seg_map_formats(m, formats);
  for (int f = 0; f < n_formats; f++) {
    const size_t k = index + (size_t)f;
    GpucclImage img = seg_image(m, formats[f], (int)(k % 4));
    fn(m, &img, k, conn, e, user);
    seg_image_free(&img);
  }
}

size_t seg_each_image(size_t max_pixels, SegImageFn fn, void *user,
                      int *failures)
{
  size_t maps = 0;
  for (size_t i = 0; *failures <= 20; i++) {
    SegMap *m = seg_map_standard(i);
    if (!m)
      break;
    if (max_pixels && (size_t)m->width * m->height > max_pixels) {
      seg_map_free(m);
      continue;
    }
    maps++;
    for (int conn = 4; conn <= 8; conn += 4) {
      SegExpect e;
      if (!seg_oracle(m, conn, &e)) {
        (*failures)++;
        continue;
      }
      each_format(m, i, conn, &e, fn, user);
      seg_expect_free(&e);
    }
    seg_map_free(m);
  }
  if (*failures > 20)
    printf("too many failures, stopping\n");
  return maps;
}
