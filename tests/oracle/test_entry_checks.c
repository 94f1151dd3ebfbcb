/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The argument checks of every entry point, one regression per hole that
 * issue 19 found: each case failed (or crashed) before its fix.
 *
 *  - gpuccl_process: a stride whose stride x height overflows, or makes
 *    a plane larger than any object can be (SIGSEGV before);
 *  - gpuccl_draw: frame strides below a row, on every plane of every
 *    format, PACKED4 channel offsets past the pixel (written past the
 *    frame before), planes that wrap; line widths near INT_MAX draw what
 *    the widest line draws (wrong pixels before);
 *  - gpuccl_process_draw: each part checked as the separate calls check
 *    it (the frame against the image of the same call), a failure leaves
 *    an empty result and no frame drawn, and the bytes drawn are those of
 *    gpuccl_process + gpuccl_draw;
 *  - gpuccl_volume_process: width x height x depth that wraps size_t, row
 *    and slice strides that overflow (labeling into malloc(0) before);
 *  - GpucclError is reset by a later success (kept the old status before);
 *  - the sized inits never write past the caller's struct.
 *
 * Frames and images are allocated to their exact size, so a write past
 * them is an ASan / valgrind error. $GPUCCL_TEST_BACKEND=cuda runs the
 * library calls on the CUDA backend (exit 77 without a device). */
#include "gpuccl.h"
#include "gpuccl_track.h"
#include "gpuccl_volume.h"
#include "test_check.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

/* status is INVALID_ARGUMENT, with a message naming `word`. */
static void expect_invalid(GpucclStatus status, const GpucclError *e,
                           const char *word, const char *what)
{
  EXPECT(status == GPUCCL_ERROR_INVALID_ARGUMENT &&
             e->status == GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(e->message, word),
         "%s: %s, \"%s\" (expected invalid argument naming \"%s\")", what,
         gpuccl_status_name(status), e->message, word);
}

static GpucclBackend test_backend(void)
{
  const char *b = getenv("GPUCCL_TEST_BACKEND");
  return b && strcmp(b, "cuda") == 0 ? GPUCCL_BACKEND_CUDA : GPUCCL_BACKEND_CPU;
}

/* Two rectangles on a 40 x 30 image: blobs (3,4)-(10,9) and (20,12)-(33,25). */
enum { W = 40, H = 30 };
static uint8_t image_pixels[W * H];

static void label_rectangles(GpucclContext *ctx)
{
  memset(image_pixels, 0, sizeof image_pixels);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if ((x >= 3 && x <= 10 && y >= 4 && y <= 9) ||
          (x >= 20 && x <= 33 && y >= 12 && y <= 25))
        image_pixels[y * W + x] = 255;
  GpucclImage img = {image_pixels, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams p;
  gpuccl_params_init(&p);
  p.want_labels = true;
  GpucclResult r;
  GpucclError e = {0};
  EXPECT(gpuccl_process(ctx, &img, &p, &r, &e) == GPUCCL_OK && r.n_blobs == 2,
         "labeling the rectangles: %s", e.message);
}

static void check_process(GpucclContext *ctx)
{
  GpucclParams p;
  gpuccl_params_init(&p);
  GpucclResult r;
  GpucclError e = {0};
  /* stride x height overflows size_t. */
  GpucclImage img = {image_pixels, W, H, SIZE_MAX / 4, GPUCCL_PIXEL_U8, 0, 0, 0};
  expect_invalid(gpuccl_process(ctx, &img, &p, &r, &e), &e, "stride",
                 "stride x height overflowing");
  /* No overflow, but a plane larger than any object (PTRDIFF_MAX). */
  img.stride = SIZE_MAX / 32;
  expect_invalid(gpuccl_process(ctx, &img, &p, &r, &e), &e, "stride",
                 "plane larger than any object");
  /* A success clears the error of the last call. */
  img.stride = W;
  EXPECT(gpuccl_process(ctx, &img, &p, &r, &e) == GPUCCL_OK &&
             e.status == GPUCCL_OK && e.message[0] == '\0',
         "error after a success: %s \"%s\"", gpuccl_status_name(e.status),
         e.message);
}

/* The plane sizes gpuccl.h gives each frame format at W x H. */
typedef struct {
  GpucclFrameFormat format;
  const char *name;
  int planes;
  size_t row[3], rows[3];
} FrameShape;

static const FrameShape shapes[] = {
    {GPUCCL_FRAME_GRAY8, "GRAY8", 1, {W}, {H}},
    {GPUCCL_FRAME_GRAY16, "GRAY16", 1, {2 * W}, {H}},
    {GPUCCL_FRAME_NV12, "NV12", 2, {W, W}, {H, H / 2}},
    {GPUCCL_FRAME_I420, "I420", 3, {W, W / 2, W / 2}, {H, H / 2, H / 2}},
    {GPUCCL_FRAME_PACKED4, "PACKED4", 1, {4 * W}, {H}},
};

/* A frame of `shape` whose planes are each exactly stride * rows bytes,
 * filled with 7; stride[i] = row[i] + pad. */
static GpucclFrame frame_new(const FrameShape *s, size_t pad)
{
  GpucclFrame f = {.format = s->format, .width = W, .height = H,
                   .offset_r = 0, .offset_g = 1, .offset_b = 2};
  for (int i = 0; i < s->planes; i++) {
    f.stride[i] = s->row[i] + pad;
    f.data[i] = malloc(f.stride[i] * s->rows[i]);
    if (!f.data[i])
      abort();
    memset(f.data[i], 7, f.stride[i] * s->rows[i]);
  }
  return f;
}

static void frame_free(GpucclFrame *f)
{
  for (int i = 0; i < 3; i++)
    free(f->data[i]);
}

static GpucclDrawParams draw_params(unsigned flags, int line_width)
{
  return (GpucclDrawParams){flags, 255, 255, 255, line_width};
}

static void check_draw_frames(GpucclContext *ctx)
{
  const unsigned all = GPUCCL_DRAW_BOXES | GPUCCL_DRAW_CENTROIDS |
                       GPUCCL_DRAW_LABELS;
  GpucclDrawParams dp = draw_params(all, 3);
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    const FrameShape *s = &shapes[k];
    char what[96];
    for (int i = 0; i < s->planes; i++) {
      /* Plane i one byte short a row: each row would reach into the next,
       * the last past the allocation. */
      GpucclFrame f = frame_new(s, 0);
      free(f.data[i]);
      f.stride[i] = s->row[i] - 1;
      f.data[i] = malloc(f.stride[i] * s->rows[i]);
      GpucclError e = {0};
      snprintf(what, sizeof what, "%s plane %d stride %zu", s->name, i,
               f.stride[i]);
      expect_invalid(gpuccl_draw(ctx, &f, &dp, &e), &e, "stride", what);
      /* A stride whose rows overflow or wrap. */
      f.stride[i] = SIZE_MAX / 2;
      snprintf(what, sizeof what, "%s plane %d stride SIZE_MAX / 2", s->name,
               i);
      expect_invalid(gpuccl_draw(ctx, &f, &dp, &e), &e, "stride", what);
      frame_free(&f);
    }
    GpucclFrame f = frame_new(s, 0);
    GpucclError e = {GPUCCL_ERROR_INTERNAL, "left from before"};
    EXPECT(gpuccl_draw(ctx, &f, &dp, &e) == GPUCCL_OK && e.status == GPUCCL_OK &&
               e.message[0] == '\0',
           "%s: a good frame: %s \"%s\"", s->name, gpuccl_status_name(e.status),
           e.message);
    frame_free(&f);
  }
  /* PACKED4 channel offsets past the pixel: 200 wrote far past the frame. */
  const uint8_t bad[] = {4, 200, 255};
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < 3; b++) {
      GpucclFrame f = frame_new(&shapes[4], 0);
      uint8_t *off[3] = {&f.offset_r, &f.offset_g, &f.offset_b};
      *off[c] = bad[b];
      GpucclError e = {0};
      char what[64];
      snprintf(what, sizeof what, "PACKED4 offset %d = %u", c, bad[b]);
      expect_invalid(gpuccl_draw(ctx, &f, &dp, &e), &e, "offset", what);
      frame_free(&f);
    }
}

/* gpuccl_process_draw: its overlay's checks, and the same bytes as the
 * two calls it stands for. */
static void check_process_draw(GpucclContext *ctx)
{
  GpucclImage img = {image_pixels, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams p;
  gpuccl_params_init(&p);
  GpucclResult r;
  GpucclError e = {0};
  GpucclDrawParams dp = draw_params(GPUCCL_DRAW_BOXES, 2);
  GpucclFrame f = frame_new(&shapes[2], 0);

  expect_invalid(gpuccl_process_draw(ctx, &img, &p, NULL, &dp, &r, &e), &e,
                 "frame", "no frame");
  EXPECT(r.n_blobs == 0 && r.blobs == NULL, "no frame: %zu blobs returned",
         r.n_blobs);
  expect_invalid(gpuccl_process_draw(ctx, &img, &p, &f, NULL, &r, &e), &e,
                 "draw parameters", "no draw parameters");
  f.width = W - 1;
  expect_invalid(gpuccl_process_draw(ctx, &img, &p, &f, &dp, &r, &e), &e,
                 "image", "frame narrower than the image");
  f.width = W;
  dp.line_width = 0;
  expect_invalid(gpuccl_process_draw(ctx, &img, &p, &f, &dp, &r, &e), &e,
                 "line width", "line width 0");
  dp = draw_params(GPUCCL_DRAW_LABELS, 1);
  expect_invalid(gpuccl_process_draw(ctx, &img, &p, &f, &dp, &r, &e), &e,
                 "want_labels", "labels without want_labels");
  /* Nothing was drawn, and no result is left for gpuccl_draw either. */
  const uint8_t *y = f.data[0];
  size_t touched = 0;
  for (size_t i = 0; i < (size_t)W * H; i++)
    touched += y[i] != 7;
  EXPECT(touched == 0, "refused calls drew %zu pixels", touched);
  dp = draw_params(GPUCCL_DRAW_BOXES, 1);
  expect_invalid(gpuccl_draw(ctx, &f, &dp, &e), &e, "last result",
                 "gpuccl_draw after a refused gpuccl_process_draw");
  /* A stride below a row, on the chroma plane. */
  f.stride[1] = W - 1;
  expect_invalid(gpuccl_process_draw(ctx, &img, &p, &f, &dp, &r, &e), &e,
                 "stride", "NV12 chroma stride below a row");
  frame_free(&f);

  /* Every format and overlay: the bytes of gpuccl_process + gpuccl_draw. */
  p.want_labels = true;
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
    for (unsigned flags = 1; flags < 8; flags++) {
      GpucclFrame one = frame_new(&shapes[k], 3), two = frame_new(&shapes[k], 3);
      dp = draw_params(flags, 2);
      EXPECT(gpuccl_process_draw(ctx, &img, &p, &one, &dp, &r, &e) ==
                     GPUCCL_OK &&
                 r.n_blobs == 2,
             "%s flags %u: %s", shapes[k].name, flags, e.message);
      EXPECT(gpuccl_process(ctx, &img, &p, &r, &e) == GPUCCL_OK &&
                 gpuccl_draw(ctx, &two, &dp, &e) == GPUCCL_OK,
             "%s flags %u, separate calls: %s", shapes[k].name, flags,
             e.message);
      int differ = 0, drawn = 0;
      for (int i = 0; i < shapes[k].planes; i++) {
        const size_t n = one.stride[i] * shapes[k].rows[i];
        differ += memcmp(one.data[i], two.data[i], n) != 0;
        for (size_t b = 0; b < n; b++)
          drawn += ((const uint8_t *)one.data[i])[b] != 7;
      }
      EXPECT(differ == 0 && drawn > 0,
             "%s flags %u: %d planes differ from the separate calls', %d "
             "bytes drawn", shapes[k].name, flags, differ, drawn);
      frame_free(&one);
      frame_free(&two);
    }
  label_rectangles(ctx); /* the result the other checks draw */
}

/* Line widths past the frame draw what the widest does: boxes filled,
 * crosses covering the frame. Expected pixels from the rectangles alone. */
static void check_line_width(GpucclContext *ctx)
{
  const int widths[] = {INT_MAX, INT_MAX - 1, INT_MAX / 2, INT_MAX / 3 + 1,
                        1 << 20, 100};
  for (size_t k = 0; k < sizeof widths / sizeof *widths; k++)
    for (int crosses = 0; crosses < 2; crosses++) {
      GpucclFrame f = frame_new(&shapes[0], 0);
      GpucclDrawParams dp = draw_params(
          crosses ? GPUCCL_DRAW_CENTROIDS : GPUCCL_DRAW_BOXES, widths[k]);
      GpucclError e = {0};
      EXPECT(gpuccl_draw(ctx, &f, &dp, &e) == GPUCCL_OK, "line width %d: %s",
             widths[k], e.message);
      int wrong = 0;
      const uint8_t *px = f.data[0];
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
          const bool in_box = image_pixels[y * W + x] != 0; /* filled boxes */
          const uint8_t want = crosses || in_box ? 255 : 7;
          wrong += px[(size_t)y * W + x] != want;
        }
      EXPECT(wrong == 0, "line width %d, %s: %d pixels differ from the widest "
             "line's", widths[k], crosses ? "crosses" : "boxes", wrong);
      frame_free(&f);
    }
}

static void check_volumes(GpucclBackend backend)
{
  GpucclError e = {0};
  GpucclVolume *vol = gpuccl_volume_new(backend, 0, &e);
  EXPECT(vol != NULL, "volume object: %s", e.message);
  if (!vol)
    return;
  GpucclVolumeParams p;
  gpuccl_volume_params_init(&p);
  GpucclVolumeResult r;
  static uint8_t data[64];
  /* 2^22 x 2^21 x 2^21 = 2^64 voxels: wrapped to 0 before. */
  GpucclVolumeImage v = {data, 1 << 22, 1 << 21, 1 << 21, 1 << 22,
                         (size_t)1 << 43};
  expect_invalid(gpuccl_volume_process(vol, &v, &p, &r, &e), &e, "volume size",
                 "volume of 2^64 voxels");
  /* Small sizes, strides whose products overflow or wrap. */
  GpucclVolumeImage s = {data, 4, 4, 4, SIZE_MAX / 2, SIZE_MAX};
  expect_invalid(gpuccl_volume_process(vol, &s, &p, &r, &e), &e, "strides",
                 "row stride x height overflowing");
  s = (GpucclVolumeImage){data, 4, 4, 4, 4, SIZE_MAX / 2};
  expect_invalid(gpuccl_volume_process(vol, &s, &p, &r, &e), &e, "strides",
                 "slice stride x depth overflowing");
  s = (GpucclVolumeImage){data, 4, 4, 4, 4, 15};
  expect_invalid(gpuccl_volume_process(vol, &s, &p, &r, &e), &e, "strides",
                 "slices overlapping");
  /* Strides that fit the address space but no volume (issue 28). */
  s = (GpucclVolumeImage){data, 4, 2, 1, (size_t)1 << 40, (size_t)1 << 41};
  expect_invalid(gpuccl_volume_process(vol, &s, &p, &r, &e), &e, "largest",
                 "row stride 2^40");
  s = (GpucclVolumeImage){data, 4, 1, 2, 4, (size_t)1 << 40};
  expect_invalid(gpuccl_volume_process(vol, &s, &p, &r, &e), &e, "largest",
                 "slice stride 2^40");
  s = (GpucclVolumeImage){data, 4, 4, 4, 4, 16};
  EXPECT(gpuccl_volume_process(vol, &s, &p, &r, &e) == GPUCCL_OK &&
             e.status == GPUCCL_OK && e.message[0] == '\0',
         "a good 4x4x4 volume after the errors: %s", e.message);
  gpuccl_volume_free(vol);
}

/* The sized inits write their struct's bytes and nothing past a smaller
 * size (an application built against an older, smaller struct). */
static void check_sized_inits(void)
{
  unsigned char buf[512];
  const size_t sizes[] = {0, 1, 4, 8, 13};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    const size_t n = sizes[k];
    int past = 0;
    memset(buf, 0xab, sizeof buf);
    gpuccl_params_init_sized((GpucclParams *)(void *)buf, n);
    gpuccl_tracker_params_init_sized((GpucclTrackerParams *)(void *)(buf + 128), n);
    gpuccl_volume_params_init_sized((GpucclVolumeParams *)(void *)(buf + 256), n);
    for (int s = 0; s < 3; s++)
      for (size_t i = n; i < 128; i++)
        past += buf[128 * s + i] != 0xab;
    EXPECT(past == 0, "init of %zu bytes wrote %d bytes past them", n, past);
  }
  GpucclParams full;
  memset(&full, 0xab, sizeof full);
  gpuccl_params_init(&full);
  EXPECT(full.threshold == 127 && full.connectivity == 8 && !full.nearest &&
             full.min_area == 0 && full.max_blobs == 0,
         "gpuccl_params_init: threshold %d, connectivity %d", full.threshold,
         full.connectivity);
}

/* Issue 28: every call that reads a caller's parameters reads only the
 * caller's size of them (an application built against an older, smaller
 * struct), the fields past it taking their defaults; a larger struct is
 * refused only when it sets a field this library does not know. Each
 * struct is allocated to exactly its size: reading past it is an ASan or
 * valgrind error (before, the calls took no size and read the whole
 * struct). */
static void check_sized_calls(GpucclContext *ctx, GpucclBackend backend)
{
  GpucclParams full;
  gpuccl_params_init(&full);
  full.threshold = 100;
  GpucclImage img = {image_pixels, W, H, W, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclResult r;
  GpucclError e = {0};
  /* Up to the end of connectivity: threshold 100, 8-connectivity; the
   * rest (mode, nearest, ...) defaults. */
  const size_t short_size = offsetof(GpucclParams, connectivity) + sizeof(int);
  /* Raw bytes, cast: a GpucclParams * taking a malloc() smaller than the
   * struct is what gcc 14's -Walloc-size warns about, and here on purpose. */
  unsigned char *short_bytes = malloc(short_size);
  GpucclParams *p = (GpucclParams *)(void *)short_bytes;
  memcpy(p, &full, short_size);
  EXPECT(gpuccl_process_sized(ctx, &img, p, short_size, &r, &e) == GPUCCL_OK &&
             r.n_blobs == 2 && r.threshold == 100,
         "parameters of %zu bytes: %s, %zu blobs", short_size, e.message,
         r.n_blobs);
  free(p);
  /* A larger struct: a zero tail is accepted, a set one refused. */
  unsigned char *big = calloc(1, sizeof full + 8);
  memcpy(big, &full, sizeof full);
  EXPECT(gpuccl_process_sized(ctx, &img, (GpucclParams *)(void *)big,
                              sizeof full + 8, &r, &e) == GPUCCL_OK,
         "a larger struct with a zero tail: %s", e.message);
  big[sizeof full + 5] = 1;
  expect_invalid(gpuccl_process_sized(ctx, &img, (GpucclParams *)(void *)big,
                                      sizeof full + 8, &r, &e),
                 &e, "fields past", "a larger struct with a field set");
  EXPECT(r.n_blobs == 0 && r.blobs == NULL, "refused: %zu blobs", r.n_blobs);
  free(big);

  /* The tracker's parameters as an older header had them (no max_tracks). */
  const size_t old_track = offsetof(GpucclTrackerParams, max_tracks);
  GpucclTrackerParams set;
  gpuccl_tracker_params_init(&set);
  set.max_distance = 10.0;
  unsigned char *old_track_bytes = malloc(old_track);
  GpucclTrackerParams *tp = (GpucclTrackerParams *)(void *)old_track_bytes;
  gpuccl_tracker_params_init_sized(tp, old_track);
  memcpy(tp, &set, old_track);
  GpucclTracker *t = gpuccl_tracker_new_sized(tp, old_track);
  EXPECT(t != NULL, "tracker from %zu-byte parameters", old_track);
  EXPECT(t && gpuccl_tracker_set_params_sized(t, tp, old_track),
         "set_params from %zu-byte parameters", old_track);
  free(tp);
  GpucclTrackerParams tbig[2];
  memset(tbig, 0, sizeof tbig);
  gpuccl_tracker_params_init(&tbig[0]);
  ((unsigned char *)tbig)[sizeof tbig[0] + 1] = 7;
  EXPECT(!gpuccl_tracker_new_sized(tbig, sizeof tbig) &&
             !gpuccl_tracker_set_params_sized(t, tbig, sizeof tbig),
         "tracker parameters with an unknown field set were taken");
  gpuccl_tracker_free(t);

  GpucclVolume *vol = gpuccl_volume_new(backend, 0, &e);
  static uint8_t cube[4 * 4 * 4];
  memset(cube, 200, sizeof cube);
  GpucclVolumeImage v = {cube, 4, 4, 4, 4, 16};
  const size_t old_vol = offsetof(GpucclVolumeParams, algorithm) +
                         sizeof(GpucclVolumeAlgorithm);
  unsigned char *old_vol_bytes = malloc(old_vol);
  GpucclVolumeParams *vp = (GpucclVolumeParams *)(void *)old_vol_bytes;
  gpuccl_volume_params_init_sized(vp, old_vol);
  GpucclVolumeResult vr;
  EXPECT(vol && gpuccl_volume_process_sized(vol, &v, vp, old_vol, &vr, &e) ==
                    GPUCCL_OK &&
             vr.n_components == 1 && vr.labels == NULL,
         "volume parameters of %zu bytes: %s", old_vol, e.message);
  free(vp);
  gpuccl_volume_free(vol);
}

/* Issue 28: NULL-safe getters, and a stride no real frame has. */
static void check_getters_and_strides(GpucclContext *ctx)
{
  EXPECT(gpuccl_context_backend(NULL) == GPUCCL_BACKEND_AUTO &&
             gpuccl_context_device_name(NULL) != NULL &&
             gpuccl_volume_backend(NULL) == GPUCCL_BACKEND_AUTO,
         "getters on NULL");
  GpucclParams p;
  gpuccl_params_init(&p);
  GpucclResult r;
  GpucclError e = {0};
  /* 2^62 x 2 rows fits the address space but no allocation: it crashed
   * in the binarization before. */
  GpucclImage img = {image_pixels, W, 2, (size_t)1 << 62, GPUCCL_PIXEL_U8,
                     0, 0, 0};
  expect_invalid(gpuccl_process(ctx, &img, &p, &r, &e), &e, "largest",
                 "stride 2^62");
  img.stride = GPUCCL_MAX_STRIDE + 1;
  expect_invalid(gpuccl_process(ctx, &img, &p, &r, &e), &e, "largest",
                 "stride GPUCCL_MAX_STRIDE + 1");
  /* The largest stride itself, on one row (only the row is read). */
  img.stride = GPUCCL_MAX_STRIDE;
  img.height = 1;
  EXPECT(gpuccl_process(ctx, &img, &p, &r, &e) == GPUCCL_OK,
         "stride GPUCCL_MAX_STRIDE: %s", e.message);
  GpucclFrame f = frame_new(&shapes[0], 0);
  GpucclDrawParams dp = draw_params(GPUCCL_DRAW_BOXES, 1);
  f.stride[0] = (size_t)1 << 40;
  label_rectangles(ctx);
  expect_invalid(gpuccl_draw(ctx, &f, &dp, &e), &e, "largest",
                 "frame stride 2^40");
  frame_free(&f);
}

int main(void)
{
  const GpucclBackend backend = test_backend();
  GpucclError e = {0};
  if (backend == GPUCCL_BACKEND_CUDA && !gpuccl_cuda_available(0, &e)) {
    printf("SKIP: no usable CUDA device: %s\n", e.message);
    return 77;
  }
  GpucclContext *ctx = gpuccl_context_new(backend, 0, &e);
  if (!ctx) {
    printf("FAIL: %s context: %s\n", gpuccl_backend_name(backend), e.message);
    return 1;
  }
  label_rectangles(ctx);
  check_draw_frames(ctx);
  check_line_width(ctx);
  check_process_draw(ctx);
  check_process(ctx);
  check_volumes(backend);
  check_sized_inits();
  check_sized_calls(ctx, backend);
  check_getters_and_strides(ctx);
  gpuccl_context_free(ctx);
  printf("%s: %s backend, %d checks, %d failures\n", failures ? "FAIL" : "PASS",
         gpuccl_backend_name(backend), checks, failures);
  return failures ? 1 : 0;
}
