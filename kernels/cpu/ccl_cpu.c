/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend: run-based two-pass labeling with union-find over runs.
 *
 * Pass 1, row by row: binarize the row into a bitmask (rows_cpu.c,
 * motion_cpu.c), cut it into runs of foreground pixels, and link each run
 * to the runs of the row above that touch it (4- or 8-connectivity). A run touching
 * none opens a new provisional label; labels are opened in raster order, and
 * union always keeps the smaller root. The run holding a component's first
 * pixel has nothing above it, so it opens the component's smallest label,
 * which ends up as the root. Area, sums and bounding box are accumulated
 * per provisional label as runs are found. Only the runs of the previous row
 * are needed, unless the label image is wanted: then all runs are kept.
 * Then one flattening sweep numbers the roots 1..N in label order, which is
 * the raster order of first pixels, and folds the partial features into the
 * blob table. Pass 2 (only when the label image is wanted) writes each
 * stored run with its final label.
 *
 * Segments mode (GPUCCL_MODE_SEGMENTS, label maps): a run is a maximal
 * stretch of equal non-zero samples instead of foreground bits, so a row
 * of touching classes gives one run per class; a run links only to runs
 * above of the same value, and each provisional label remembers its value
 * for the blob table. Everything else is the same code.
 *
 * No recursion; all buffers live in the context and only grow. */
#include "cpu.h"
#include "../draw_host.h"

#include "../blob_select.h"
#include "../fault.h"
#include "../otsu.h"

#include <stdlib.h>
#include <string.h>

/* Features of the runs that opened or joined one provisional label. */
typedef struct {
  uint64_t area, sum_x, sum_y;
  uint16_t x0, x1, y0, y1;
} Partial;

typedef struct {
  uint64_t *bits;
  size_t bits_cap;
  Run *runs;
  size_t runs_cap;
  uint32_t *run_value; /* segments mode: value of each run in runs */
  size_t run_value_cap;
  uint32_t *row_start; /* first run of each row, when runs are kept */
  size_t row_start_cap;
  uint32_t *parent; /* union-find forest, then the final label map */
  size_t parent_cap;
  Partial *partial;
  size_t partial_cap;
  uint32_t *label_value; /* segments mode: value of each provisional label */
  size_t label_value_cap;
  GpucclBlob *blobs;
  size_t blobs_cap;
  uint32_t *values; /* segments mode: GpucclResult.values */
  size_t values_cap;
  uint64_t *scratch;
  size_t scratch_cap;
  uint32_t *labels;
  size_t labels_cap;
} CpuState;

/* Make *buf hold at least `need` elements. keep: preserve the contents. */
static bool reserve(void **buf, size_t *cap, size_t need, size_t elem,
                    bool keep, const char *what, GpucclError *error)
{
  if (need <= *cap)
    return true;
  void *grown = NULL;
  if (!gpuccl_fault_hit(GPUCCL_FAULT_ALLOC)) {
    if (keep) {
      grown = realloc(*buf, need * elem);
    } else {
      free(*buf);
      *buf = NULL;
      *cap = 0;
      grown = malloc(need * elem);
    }
  }
  if (!grown) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "CPU backend: cannot allocate %zu bytes for the %s",
                     need * elem, what);
    return false;
  }
  *buf = grown;
  *cap = need;
  return true;
}

#define RESERVE(state, field, need, keep, what, error)                        \
  reserve((void **)&(state)->field, &(state)->field##_cap, (need),            \
          sizeof *(state)->field, (keep), (what), (error))

/* ---- binarization ------------------------------------------------------ */

static void histogram(const GpucclImage *image, const Binarizer *b,
                      uint32_t hist[256])
{
  memset(hist, 0, 256 * sizeof *hist);
  for (int y = 0; y < image->height; y++) {
    const uint8_t *row = (const uint8_t *)image->data + y * image->stride;
    switch (image->format) {
    case GPUCCL_PIXEL_U8:
      for (int x = 0; x < image->width; x++)
        hist[row[x]]++;
      break;
    case GPUCCL_PIXEL_U16: /* the high byte, as gpuccl.h defines */
      for (int x = 0; x < image->width; x++)
        hist[sample_at(row, x, b) >> 8]++;
      break;
    case GPUCCL_PIXEL_PACKED4:
      for (int x = 0; x < image->width; x++)
        hist[sample_at(row, x, b)]++;
      break;
    }
  }
}

/* ---- segments mode: runs of equal values ------------------------------- */

/* The runs of one row in segments mode, with their values; returns how
 * many (at most the width: every pixel may differ from its neighbour). */
static size_t extract_value_runs(const uint8_t *row, int width,
                                 const Binarizer *b, Run *out,
                                 uint32_t *values)
{
  size_t n = 0;
  int x = 0;
  while (x < width) {
    const uint32_t v = sample_at(row, x, b);
    if (v == 0) {
      x++;
      continue;
    }
    const int start = x;
    while (++x < width && sample_at(row, x, b) == v)
      ;
    out[n] = (Run){(uint16_t)start, (uint16_t)(x - 1), 0};
    values[n++] = v;
  }
  return n;
}

/* ---- pass 1 ------------------------------------------------------------ */

static inline unsigned ctz64(uint64_t v) { return (unsigned)__builtin_ctzll(v); }

/* The runs of one bitmask row; returns how many. */
static size_t extract_runs(const uint64_t *bits, int words, Run *out)
{
  size_t n = 0;
  bool open = false;
  unsigned start = 0;
  for (int i = 0; i < words; i++) {
    uint64_t w = bits[i];
    unsigned base = 64u * (unsigned)i;
    if (open) {
      if (w == ~UINT64_C(0))
        continue;
      unsigned z = ctz64(~w);
      out[n++] = (Run){(uint16_t)start, (uint16_t)(base + z - 1), 0};
      open = false;
      w &= ~UINT64_C(0) << z;
    }
    while (w) {
      unsigned a = ctz64(w);
      uint64_t zeros_after = ~w & (~UINT64_C(0) << a);
      if (!zeros_after) { /* the run goes on into the next word */
        start = base + a;
        open = true;
        break;
      }
      unsigned z = ctz64(zeros_after);
      out[n++] = (Run){(uint16_t)(base + a), (uint16_t)(base + z - 1), 0};
      w &= ~UINT64_C(0) << z;
    }
  }
  if (open) /* tail bits are 0, so only a full last word ends here */
    out[n++] = (Run){(uint16_t)start, (uint16_t)(64u * (unsigned)words - 1), 0};
  return n;
}

static inline uint32_t find_root(uint32_t *parent, uint32_t x)
{
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

/* Pass 1 over the whole image. Returns the number of provisional labels
 * (label 0 unused), or 0 with *error set when an allocation failed. */
static uint32_t label_runs(CpuState *s, const GpucclImage *image,
                           const Binarizer *b, int connectivity,
                           bool keep_runs, GpucclError *error)
{
  const int width = image->width, height = image->height;
  const int words = (width + 63) / 64;
  const bool seg = b->segments;
  /* Binary runs have a gap between them; value runs need not. */
  const size_t row_runs = seg ? (size_t)width : ((size_t)width + 1) / 2;
  const size_t max_labels = row_runs * (size_t)height + 1;
  const int reach = connectivity == 8 ? 1 : 0;
  const size_t runs_need = keep_runs ? row_runs * height : 2 * row_runs;

  if (!RESERVE(s, bits, (size_t)words, false, "row bitmask", error) ||
      !RESERVE(s, runs, runs_need, false, "runs", error) ||
      (seg && !RESERVE(s, run_value, runs_need, false, "run values", error)) ||
      (keep_runs && !RESERVE(s, row_start, (size_t)height + 1, false,
                             "row index", error)))
    return 0;
  /* A first guess; grown on demand (at most one label per run). */
  size_t guess = (size_t)width * height / 64 + 1024;
  if (guess > max_labels)
    guess = max_labels;
  if (!RESERVE(s, parent, guess, false, "label forest", error) ||
      !RESERVE(s, partial, guess, false, "label features", error) ||
      (seg && !RESERVE(s, label_value, guess, false, "label values", error)))
    return 0;

  uint32_t *parent = s->parent;
  Partial *partial = s->partial;
  uint32_t next = 1;
  const Run *prev = NULL;
  const uint32_t *prev_value = NULL;
  size_t n_prev = 0, total = 0;
  if (keep_runs)
    s->row_start[0] = 0;

  for (int y = 0; y < height; y++) {
    const uint8_t *row = (const uint8_t *)image->data + y * image->stride;
    const size_t first = keep_runs ? total : (size_t)(y & 1) * row_runs;
    Run *cur = s->runs + first;
    uint32_t *cur_value = seg ? s->run_value + first : NULL;
    size_t n_cur;
    if (seg) {
      n_cur = extract_value_runs(row, width, b, cur, cur_value);
    } else {
      if (b->motion)
        gpuccl_cpu_motion_bits(row, y, width, b, s->bits);
      else
        gpuccl_cpu_row_bits(row, width, b, s->bits);
      if (b->mask)
        gpuccl_cpu_mask_bits(b, y, width, s->bits);
      n_cur = extract_runs(s->bits, words, cur);
    }

    size_t j = 0;
    for (size_t i = 0; i < n_cur; i++) {
      int lo = (int)cur[i].start - reach, hi = (int)cur[i].end + reach;
      /* Runs above that end left of this one end left of the next too. */
      while (j < n_prev && (int)prev[j].end < lo)
        j++;
      uint32_t label = 0;
      for (size_t k = j; k < n_prev && (int)prev[k].start <= hi; k++) {
        if (prev[k].label == label) /* same component, already joined */
          continue;
        if (seg && prev_value[k] != cur_value[i]) /* another class */
          continue;
        uint32_t r = find_root(parent, prev[k].label);
        if (label == 0) {
          label = r;
        } else if (r < label) {
          parent[label] = r;
          label = r;
        } else if (r > label) {
          parent[r] = label;
        }
      }
      uint32_t x0 = cur[i].start, x1 = cur[i].end, len = x1 - x0 + 1;
      if (label == 0) {
        /* Both arrays must hold the label; after a failed allocation one
         * may be larger than the other. */
        if (next >= s->parent_cap || next >= s->partial_cap ||
            (seg && next >= s->label_value_cap)) {
          size_t cap = s->parent_cap < s->partial_cap ? s->parent_cap
                                                      : s->partial_cap;
          if (seg && s->label_value_cap < cap)
            cap = s->label_value_cap;
          size_t grown = 2 * cap < max_labels ? 2 * cap : max_labels;
          if (!RESERVE(s, parent, grown, true, "label forest", error) ||
              !RESERVE(s, partial, grown, true, "label features", error) ||
              (seg && !RESERVE(s, label_value, grown, true, "label values",
                               error)))
            return 0;
          parent = s->parent;
          partial = s->partial;
        }
        label = next++;
        parent[label] = label;
        if (seg)
          s->label_value[label] = cur_value[i];
        partial[label] = (Partial){0, 0, 0, (uint16_t)x0, (uint16_t)x1,
                                   (uint16_t)y, (uint16_t)y};
      } else {
        /* Unconditional stores: the comparisons are coin flips on noisy
         * images, and a conditional move costs less than a mispredict. */
        Partial *p = &partial[label];
        p->x0 = (uint16_t)(x0 < p->x0 ? x0 : p->x0);
        p->x1 = (uint16_t)(x1 > p->x1 ? x1 : p->x1);
        p->y1 = (uint16_t)y; /* rows come in order */
      }
      Partial *p = &partial[label];
      p->area += len;
      p->sum_x += (uint64_t)(x0 + x1) * len / 2;
      p->sum_y += (uint64_t)y * len;
      cur[i].label = label;
    }
    if (keep_runs) {
      total += n_cur;
      s->row_start[y + 1] = (uint32_t)total;
    }
    prev = cur;
    prev_value = cur_value;
    n_prev = n_cur;
  }
  return next;
}

/* ---- resolution, features, label image --------------------------------- */

/* parent[] becomes the final label of every provisional one, and the blob
 * table gets one entry per component. Returns the number of components. */
static uint32_t resolve(CpuState *s, uint32_t n_prov)
{
  uint32_t *parent = s->parent;
  uint32_t n = 0;
  for (uint32_t l = 1; l < n_prov; l++) {
    /* parent[l] <= l, so parent[parent[l]] is final already; written
     * without a branch, roots and merged labels alternate at random. */
    uint32_t up = parent[l], root = up == l;
    n += root;
    uint32_t merged = parent[up];
    parent[l] = root ? n : merged;
  }
  return n;
}

/* segments: each blob's value from its root label into s->values. */
static void build_blobs(CpuState *s, uint32_t n_prov, bool segments)
{
  uint32_t seen = 0;
  for (uint32_t l = 1; l < n_prov; l++) {
    const Partial *p = &s->partial[l];
    uint32_t f = s->parent[l];
    GpucclBlob *blob = &s->blobs[f - 1];
    if (f > seen) { /* a root: the first provisional label of its component */
      seen = f;
      /* Areas fit 32 bits: at most GPUCCL_MAX_SIDE^2 pixels. */
      *blob = (GpucclBlob){.id = f, .area = (uint32_t)p->area, .x0 = p->x0,
                           .y0 = p->y0, .x1 = p->x1, .y1 = p->y1,
                           .sum_x = p->sum_x, .sum_y = p->sum_y};
      if (segments)
        s->values[f - 1] = s->label_value[l];
      continue;
    }
    if (p->x0 < blob->x0) blob->x0 = p->x0;
    if (p->y0 < blob->y0) blob->y0 = p->y0;
    if (p->x1 > blob->x1) blob->x1 = p->x1;
    if (p->y1 > blob->y1) blob->y1 = p->y1;
    blob->area += (uint32_t)p->area;
    blob->sum_x += p->sum_x;
    blob->sum_y += p->sum_y;
  }
}

static void write_labels(const CpuState *s, int width, int height)
{
  for (int y = 0; y < height; y++) {
    uint32_t *out = s->labels + (size_t)y * width;
    /* One wide clear, then the runs: cheaper than clearing each gap when
     * runs and gaps are a few pixels long. */
    memset(out, 0, (size_t)width * sizeof *out);
    for (uint32_t r = s->row_start[y]; r < s->row_start[y + 1]; r++) {
      const Run *run = &s->runs[r];
      uint32_t label = s->parent[run->label];
      for (uint32_t x = run->start; x <= run->end; x++)
        out[x] = label;
    }
  }
}

/* ---- backend entry points ---------------------------------------------- */

static GpucclStatus cpu_process(GpucclContext *ctx, const GpucclImage *image,
                                const GpucclParams *params,
                                GpucclResult *result, GpucclError *error)
{
  CpuState *s = ctx->priv;
  /* params->algorithm names GPU kernels; the CPU has one algorithm, and
   * every algorithm gives the same result, so it is not an error here. */
  const bool segments = params->mode == GPUCCL_MODE_SEGMENTS;
  Binarizer b = {
      .format = image->format,
      .segments = segments,
      .threshold = params->threshold,
      .invert = params->invert,
      .channel_offset = -1,
      .off_r = image->offset_r,
      .off_g = image->offset_g,
      .off_b = image->offset_b,
      .motion = gpuccl_motion_of(params),
      .mask = params->mask ? params->mask->data : NULL,
  };
  if (image->format == GPUCCL_PIXEL_PACKED4) {
    switch (params->channel) {
    case GPUCCL_CHANNEL_RED: b.channel_offset = image->offset_r; break;
    case GPUCCL_CHANNEL_GREEN: b.channel_offset = image->offset_g; break;
    case GPUCCL_CHANNEL_BLUE: b.channel_offset = image->offset_b; break;
    case GPUCCL_CHANNEL_LUMA: break;
    }
  }
  if (segments) {
    b.threshold = 0; /* unused; reported as 0 (gpuccl.h) */
  } else if (params->auto_threshold == GPUCCL_AUTO_THRESHOLD_OTSU) {
    uint32_t hist[256];
    if (b.motion)
      gpuccl_cpu_motion_histogram(image, &b, hist);
    else
      histogram(image, &b, hist);
    int t = gpuccl_otsu_threshold(hist);
    b.threshold = image->format == GPUCCL_PIXEL_U16 ? (t << 8) | 0xff : t;
  }

  uint32_t n_prov =
      label_runs(s, image, &b, params->connectivity,
                 params->want_labels || params->want_intensity, error);
  if (n_prov == 0)
    return error ? error->status : GPUCCL_ERROR_OUT_OF_MEMORY;
  uint32_t n = resolve(s, n_prov);
  if (!RESERVE(s, blobs, n ? n : 1, false, "blob table", error) ||
      (segments &&
       !RESERVE(s, values, n ? n : 1, false, "blob values", error)))
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  build_blobs(s, n_prov, segments);

  size_t keep_max = params->max_blobs < n ? params->max_blobs : 0;
  if (keep_max && !RESERVE(s, scratch, keep_max, false, "blob ranking", error))
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  uint32_t *values = segments ? s->values : NULL;
  size_t kept = gpuccl_select_blobs(s->blobs, values, n, params, s->scratch);
  const KeptRuns runs = {s->runs, s->row_start, s->parent, n_prov};
  if (params->want_intensity &&
      gpuccl_cpu_intensity(ctx, image, &b, &runs, s->blobs, kept, error))
    return error ? error->status : GPUCCL_ERROR_OUT_OF_MEMORY;

  if (params->want_labels) {
    size_t pixels = (size_t)image->width * image->height;
    if (!RESERVE(s, labels, pixels, false, "label image", error))
      return GPUCCL_ERROR_OUT_OF_MEMORY;
    write_labels(s, image->width, image->height);
  }

  *result = (GpucclResult){
      .width = image->width,
      .height = image->height,
      .n_components = n,
      .n_blobs = kept,
      .blobs = s->blobs,
      .values = values,
      .threshold = b.threshold,
      .labels = params->want_labels ? s->labels : NULL,
  };
  return GPUCCL_OK;
}

static GpucclStatus cpu_open(GpucclContext *ctx, int device_id,
                             GpucclError *error)
{
  (void)device_id;
  CpuState *s = gpuccl_fault_hit(GPUCCL_FAULT_ALLOC) ? NULL
                                                     : calloc(1, sizeof *s);
  if (!s)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "CPU backend: cannot allocate its state");
  ctx->priv = s;
  strcpy(ctx->device_name, "CPU");
  return GPUCCL_OK;
}

static void cpu_close(GpucclContext *ctx)
{
  CpuState *s = ctx->priv;
  if (!s)
    return;
  free(s->bits);
  free(s->runs);
  free(s->run_value);
  free(s->label_value);
  free(s->row_start);
  free(s->parent);
  free(s->partial);
  free(s->blobs);
  free(s->values);
  free(s->scratch);
  free(s->labels);
  free(s);
  ctx->priv = NULL;
}

/* Plain memory, aligned for vector loads. */
static void *cpu_host_alloc(GpucclContext *ctx, size_t size,
                            GpucclMemory memory, GpucclError *error)
{
  (void)ctx;
  (void)memory;
  const size_t align = 64;
  void *p = NULL;
  if (size <= SIZE_MAX - align && !gpuccl_fault_hit(GPUCCL_FAULT_ALLOC))
    p = aligned_alloc(align, (size + align - 1) / align * align);
  if (!p)
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "CPU backend: cannot allocate %zu bytes of host memory",
                     size);
  return p;
}

static void cpu_host_free(GpucclContext *ctx, void *ptr)
{
  (void)ctx;
  free(ptr);
}

static void *cpu_model_alloc(GpucclContext *ctx, size_t bytes,
                             GpucclError *error)
{
  (void)ctx;
  void *p = gpuccl_fault_hit(GPUCCL_FAULT_ALLOC) ? NULL : calloc(1, bytes);
  if (!p)
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "CPU backend: cannot allocate %zu bytes for the "
                     "background model",
                     bytes);
  return p;
}

static void cpu_model_free(GpucclContext *ctx, void *model)
{
  (void)ctx;
  free(model);
}

static GpucclStatus cpu_draw(GpucclContext *ctx, const GpucclFrame *frame,
                             const GpucclDrawParams *params, GpucclError *error)
{
  return gpuccl_draw_on_host(&ctx->last, frame, params, error);
}

const GpucclBackendOps gpuccl_cpu_ops = {
    .kind = GPUCCL_BACKEND_CPU,
    .open = cpu_open,
    .close = cpu_close,
    .process = cpu_process,
    .draw = cpu_draw,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .model_alloc = cpu_model_alloc,
    .model_free = cpu_model_free,
    .mask_copy = gpuccl_cpu_mask_copy,
};
