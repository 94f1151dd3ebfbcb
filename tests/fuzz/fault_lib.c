/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fault injection into libgpuccl: every allocation (and, with CUDA, every
 * launch) of a fixed workload fails once, in turn. Each failure must come
 * back as GPUCCL_ERROR_OUT_OF_MEMORY (GPUCCL_ERROR_DEVICE for a launch)
 * with a message, the context must stay usable (the same call then
 * succeeds with the right result) and everything must be freed at the end
 * (run under valgrind or ASan for that: the 'memcheck' suite; on the CUDA
 * backend the library's own count of device and pinned allocations must
 * be back to 0, which no host-side checker can see).
 *
 * The images are grids of squares, the volume a grid of cubes, so the
 * right result is known without running any labeling.
 * GPUCCL_TEST_BACKEND=cuda runs it on the GPU (exit 77 without one). */
#include "fault_loop.h"

#include <gpuccl.h>
#include <gpuccl_volume.h>
#ifdef GPUCCL_HAVE_CUDA
#include "cuda/cuda_internal.h" /* gpuccl_cuda_live_allocations */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GpucclStatus expected_status;
static int hits;

#define FAIL(...)                                                     \
  do {                                                                \
    fprintf(stderr, "GPUCCL_FAULT=%s: ", getenv("GPUCCL_FAULT"));     \
    fprintf(stderr, __VA_ARGS__);                                     \
    fputc('\n', stderr);                                              \
    exit(FAULT_FAILED);                                               \
  } while (0)

/* A failed call: the injected fault, reported as it should be. Returns
 * whether the call is to be retried. */
static int failed(GpucclStatus st, const GpucclError *err, const char *what)
{
  if (st == GPUCCL_OK)
    return 0;
  if (st != expected_status || err->status != st || !err->message[0])
    FAIL("%s: %s (%s), expected %s with a message", what,
         gpuccl_status_name(st), err->message,
         gpuccl_status_name(expected_status));
  if (++hits > 1)
    FAIL("%s failed again after the one injected fault: %s", what,
         err->message);
  printf("%s failed as injected: %s\n", what, err->message);
  return 1;
}

/* side x side squares every `step` pixels, sample 200 on 0. */
typedef struct {
  int width, height, side, step;
  GpucclPixelFormat format;
  int want_labels;
  unsigned max_blobs;
  int otsu;
} Job;

static void *make_image(const Job *job, GpucclImage *img)
{
  size_t bpp = job->format == GPUCCL_PIXEL_U16 ? 2
               : job->format == GPUCCL_PIXEL_PACKED4 ? 4 : 1;
  size_t stride = (size_t)job->width * bpp + 3;
  uint8_t *data = calloc((size_t)job->height, stride);
  if (!data)
    FAIL("out of memory in the test");
  for (int y = 0; y < job->height; y++)
    for (int x = 0; x < job->width; x++) {
      if (x % job->step >= job->side || y % job->step >= job->side)
        continue;
      uint8_t *p = data + (size_t)y * stride + (size_t)x * bpp;
      if (job->format == GPUCCL_PIXEL_U16) {
        uint16_t v = 200u << 8;
        memcpy(p, &v, 2);
      } else {
        memset(p, 200, bpp);
      }
    }
  *img = (GpucclImage){.data = data, .width = job->width,
                       .height = job->height, .stride = stride,
                       .format = job->format, .offset_r = 0, .offset_g = 1,
                       .offset_b = 2};
  return data;
}

static void check_result(const Job *job, const GpucclResult *r)
{
  /* whole squares along each axis, and a clipped one at the end */
  int nx = (job->width + job->step - 1) / job->step;
  int ny = (job->height + job->step - 1) / job->step;
  size_t n = (size_t)nx * ny;
  size_t want = job->max_blobs && job->max_blobs < n ? job->max_blobs : n;
  if (r->n_components != n || r->n_blobs != want)
    FAIL("%dx%d: %u components, %zu blobs; %zu and %zu expected", job->width,
         job->height, r->n_components, r->n_blobs, n, want);
  for (size_t i = 0; i < r->n_blobs; i++) {
    const GpucclBlob *b = &r->blobs[i];
    if (b->x0 % job->step || b->y0 % job->step ||
        b->area != (uint64_t)(b->x1 - b->x0 + 1) * (b->y1 - b->y0 + 1))
      FAIL("%dx%d: blob %u is not a square of the grid", job->width,
           job->height, b->id);
  }
  if (job->want_labels != (r->labels != NULL))
    FAIL("labels %s", r->labels ? "unasked for" : "missing");
}

/* 2x2x2 cubes every 5 voxels, 5 x 4 x 2 of them, labeled on `backend`;
 * the volume is freed before returning. */
static void volume_job(GpucclBackend backend)
{
  enum { W = 24, H = 20, D = 10, STEP = 5, CUBES = 5 * 4 * 2 };
  static uint8_t voxels[D][H][W];
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        voxels[z][y][x] = x % STEP < 2 && y % STEP < 2 && z % STEP < 2 ? 200 : 0;
  GpucclError err = {0};
  GpucclVolume *vol = gpuccl_volume_new(backend, 0, &err);
  if (!vol) {
    failed(err.status == GPUCCL_OK ? GPUCCL_ERROR_INTERNAL : err.status, &err,
           "volume_new");
    if (!(vol = gpuccl_volume_new(backend, 0, &err)))
      FAIL("volume_new after the fault: %s", err.message);
  }
  const GpucclVolumeImage img = {.data = &voxels[0][0][0], .width = W,
                                 .height = H, .depth = D, .row_stride = W,
                                 .slice_stride = (size_t)W * H};
  GpucclVolumeParams p;
  gpuccl_volume_params_init(&p);
  p.want_labels = true;
  GpucclVolumeResult r;
  GpucclStatus st = gpuccl_volume_process(vol, &img, &p, &r, &err);
  if (failed(st, &err, "volume_process") &&
      (st = gpuccl_volume_process(vol, &img, &p, &r, &err)) != GPUCCL_OK)
    FAIL("volume_process after the fault: %s", err.message);
  if (r.n_components != CUBES || !r.labels)
    FAIL("volume: %u components%s; %d expected, with labels", r.n_components,
         r.labels ? "" : ", no labels", CUBES);
  for (uint32_t i = 0; i < r.n_components; i++)
    if (r.blobs[i].voxels != 8)
      FAIL("volume: blob %u has %llu voxels, 8 expected", r.blobs[i].id,
           (unsigned long long)r.blobs[i].voxels);
  gpuccl_volume_free(vol);
}

static int workload(void)
{
  const char *name = fault_backend_name();
  GpucclBackend backend = strcmp(name, "cuda") == 0   ? GPUCCL_BACKEND_CUDA
                          : strcmp(name, "auto") == 0 ? GPUCCL_BACKEND_AUTO
                                                      : GPUCCL_BACKEND_CPU;
  GpucclError err = {0};
  if (backend == GPUCCL_BACKEND_CUDA && !gpuccl_cuda_available(0, &err))
    return FAULT_SKIP;
  expected_status = strncmp(getenv("GPUCCL_FAULT"), "launch", 6) == 0
                        ? GPUCCL_ERROR_DEVICE
                        : GPUCCL_ERROR_OUT_OF_MEMORY;

  GpucclContext *ctx = gpuccl_context_new(backend, 0, &err);
  if (!ctx) {
    failed(err.status == GPUCCL_OK ? GPUCCL_ERROR_INTERNAL : err.status, &err,
           "context_new");
    ctx = gpuccl_context_new(backend, 0, &err);
    if (!ctx)
      FAIL("context_new after the fault: %s", err.message);
  }

  /* Growing, shrinking and regrowing sizes, every format and option that
   * allocates something of its own. */
  static const Job jobs[] = {
    {16, 16, 3, 5, GPUCCL_PIXEL_U8, 0, 0, 0},
    {640, 480, 7, 10, GPUCCL_PIXEL_U8, 1, 0, 0},
    {1000, 3, 2, 4, GPUCCL_PIXEL_U16, 0, 0, 1},
    {200, 300, 5, 8, GPUCCL_PIXEL_PACKED4, 0, 17, 0},
    {1920, 1080, 1, 2, GPUCCL_PIXEL_U8, 1, 100, 0},
    {33, 17, 4, 6, GPUCCL_PIXEL_U8, 1, 0, 1},
    {1920, 1080, 9, 12, GPUCCL_PIXEL_PACKED4, 1, 0, 0},
  };
  for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
    const Job *job = &jobs[j];
    GpucclImage img;
    void *data = make_image(job, &img);
    GpucclParams p;
    GpucclResult r;
    char what[64];
    gpuccl_params_init(&p);
    p.want_labels = job->want_labels;
    p.max_blobs = job->max_blobs;
    p.auto_threshold = job->otsu ? GPUCCL_AUTO_THRESHOLD_OTSU
                                 : GPUCCL_AUTO_THRESHOLD_NONE;
    snprintf(what, sizeof what, "process %dx%d", job->width, job->height);
    GpucclStatus st = gpuccl_process(ctx, &img, &p, &r, &err);
    if (failed(st, &err, what)) {
      if (r.n_blobs || r.blobs || r.labels)
        FAIL("%s failed but returned a result", what);
      st = gpuccl_process(ctx, &img, &p, &r, &err);
      if (st != GPUCCL_OK)
        FAIL("%s after the fault: %s", what, err.message);
    }
    check_result(job, &r);

    /* overlays into a copy of the image's frame */
    GpucclFrame frame = {.width = job->width, .height = job->height,
                         .offset_r = 0, .offset_g = 1, .offset_b = 2};
    frame.format = job->format == GPUCCL_PIXEL_U16 ? GPUCCL_FRAME_GRAY16
                   : job->format == GPUCCL_PIXEL_PACKED4 ? GPUCCL_FRAME_PACKED4
                                                        : GPUCCL_FRAME_GRAY8;
    frame.data[0] = data;
    frame.stride[0] = img.stride;
    GpucclDrawParams dp = {.flags = GPUCCL_DRAW_BOXES | GPUCCL_DRAW_CENTROIDS,
                           .r = 255, .line_width = 2};
    if (job->want_labels)
      dp.flags |= GPUCCL_DRAW_LABELS;
    snprintf(what, sizeof what, "draw %dx%d", job->width, job->height);
    st = gpuccl_draw(ctx, &frame, &dp, &err);
    if (failed(st, &err, what) &&
        (st = gpuccl_draw(ctx, &frame, &dp, &err)) != GPUCCL_OK)
      FAIL("%s after the fault: %s", what, err.message);
    free(data);
  }

  void *host = gpuccl_host_alloc(ctx, 1 << 20, GPUCCL_MEMORY_AUTO, &err);
  if (!host) {
    failed(err.status, &err, "host_alloc");
    host = gpuccl_host_alloc(ctx, 1 << 20, GPUCCL_MEMORY_AUTO, &err);
    if (!host)
      FAIL("host_alloc after the fault: %s", err.message);
  }
  memset(host, 1, 1 << 20);
  gpuccl_host_free(ctx, host);
  gpuccl_context_free(ctx);
  volume_job(backend);
#ifdef GPUCCL_HAVE_CUDA
  /* A buffer lost on an error path shows here, not in valgrind. */
  if (gpuccl_cuda_live_allocations() != 0)
    FAIL("%lld device or pinned allocations still held after every context "
         "and volume was freed", (long long)gpuccl_cuda_live_allocations());
#endif
  if (fault_was_hit() && !hits)
    FAIL("the injected fault happened but no call reported it");
  return hits ? FAULT_HANDLED : FAULT_NOT_HIT;
}

int main(int argc, char **argv)
{
  (void)argc;
  static const char *const sites[] = {"alloc", "launch", NULL};
  static const char *const cpu_required[] = {"alloc", NULL};
  static const char *const cuda_required[] = {"alloc", "launch", NULL};
  const char *backend = fault_backend_name();
  return fault_loop(argv, sites,
                    strcmp(backend, "cuda") == 0 ? cuda_required
                                                 : cpu_required,
                    workload);
}
