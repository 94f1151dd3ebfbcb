/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend's buffers: steady state allocates nothing (counted by
 * the backend's own cudaMalloc/cudaFree/cudaHostAlloc wrappers), frames
 * read from gpuccl_host_alloc() memory (COPY and MAPPED, the latter in
 * place) match the CPU backend, and a context survives size changes.
 * Exits 77 without a usable GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "cuda/cuda_internal.h"
#include "gpu_check.h"

static int failures, checks;


enum { W = 643, H = 481, N_FRAMES = 6 };

/* One frame of every kind the loop below runs. */
static void run_all(GpucclContext *gpu, uint8_t *frames[N_FRAMES],
                    size_t stride)
{
  for (int i = 0; i < N_FRAMES; i++) {
    GpucclImage img = {frames[i], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclParams p;
    gpuccl_params_init(&p);
    p.connectivity = i % 2 ? 4 : 8;
    p.want_labels = i % 3 == 0;
    p.auto_threshold = i == 2 ? GPUCCL_AUTO_THRESHOLD_OTSU
                              : GPUCCL_AUTO_THRESHOLD_NONE;
    p.max_blobs = i == 4 ? 10 : 0;
    p.min_area = i == 5 ? 4 : 0;
    p.algorithm = i % 2 ? GPUCCL_ALGORITHM_HA4_64 : GPUCCL_ALGORITHM_HA4;
    GpucclResult r;
    GpucclError e = {0};
    GpucclStatus s = gpuccl_process(gpu, &img, &p, &r, &e);
    EXPECT(s == GPUCCL_OK, "frame %d: %s", i, e.message);
  }
}

static void steady_state(GpucclContext *gpu)
{
  const size_t stride = W + 5;
  uint8_t *frames[N_FRAMES];
  for (int i = 0; i < N_FRAMES; i++) {
    frames[i] = malloc(stride * H);
    if (!frames[i])
      abort();
    corpus_random(frames[i], W, H, stride, 0.1 + 0.15 * i, 1 + (i % 3) * 3,
                  (uint32_t)(100 + i));
  }
  gpuccl_cuda_time_kernels(gpu, true);
  run_all(gpu, frames, stride); /* warm-up: every buffer gets its size */
  uint64_t before = gpuccl_cuda_alloc_calls();
  for (int round = 0; round < 5; round++)
    run_all(gpu, frames, stride);
  uint64_t after = gpuccl_cuda_alloc_calls();
  EXPECT(after == before,
         "steady state made %llu allocation calls over %d frames",
         (unsigned long long)(after - before), 5 * N_FRAMES);
  printf("steady state: %llu allocation calls over %d frames (%llu before)\n",
         (unsigned long long)(after - before), 5 * N_FRAMES,
         (unsigned long long)before);
  float ms = gpuccl_cuda_kernel_ms(gpu);
  EXPECT(ms > 0.0f, "kernel time %f ms", ms);
  /* Untimed, a graphed frame records no events and reports no time
   * (kernel by kernel, a frame is always timed). */
  gpuccl_cuda_time_kernels(gpu, false);
  GpucclImage img = {frames[1], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams p;
  GpucclResult r;
  GpucclError e = {0};
  gpuccl_params_init(&p);
  EXPECT(gpuccl_process(gpu, &img, &p, &r, &e) == GPUCCL_OK, "untimed: %s",
         e.message);
  ms = gpuccl_cuda_kernel_ms(gpu);
  if (gpuccl_cuda_graphs_on())
    EXPECT(ms < 0.0f, "untimed frame reported %f ms", ms);
  for (int i = 0; i < N_FRAMES; i++)
    free(frames[i]);
}

/* Blocks of the labeling context, or (contextless) of
 * gpuccl_host_alloc_on as a buffer pool allocates them: read alike. */
static void host_memory(GpucclContext *gpu, GpucclContext *cpu,
                        GpucclMemory memory, bool contextless,
                        const char *name)
{
  const size_t stride = W + 3;
  GpucclError e = {0};
  uint8_t *buf =
      contextless
          ? gpuccl_host_alloc_on(GPUCCL_BACKEND_CUDA, 0, stride * H, memory, &e)
          : gpuccl_host_alloc(gpu, stride * H, memory, &e);
  EXPECT(buf != NULL, "%s host_alloc: %s", name, e.message);
  if (!buf)
    return;
  GpucclParams p;
  gpuccl_params_init(&p);
  p.want_labels = true;
  for (int i = 0; i < 3; i++) {
    /* New content in the same buffer each frame: a mapped read must see
     * it (no stale copy). */
    corpus_random(buf, W, H, stride, 0.3 + 0.2 * i, 2, (uint32_t)(7 + i));
    GpucclImage img = {buf, W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
    char label[64];
    snprintf(label, sizeof label, "%s frame %d", name, i);
    EXPECT(gpu_check_same(gpu, cpu, &img, &p, label), "%s", label);
    /* An image that starts inside the block, not at its start. */
    GpucclImage sub = {buf + stride * 10 + 17, W - 40, H - 20, stride,
                       GPUCCL_PIXEL_U8, 0, 0, 0};
    snprintf(label, sizeof label, "%s frame %d offset", name, i);
    EXPECT(gpu_check_same(gpu, cpu, &sub, &p, label), "%s", label);
  }
  if (contextless)
    gpuccl_host_release(buf);
  else
    gpuccl_host_free(gpu, buf);
}

/* Frames of one shape at a few addresses in turn, as a pool of device
 * buffers hands them out (mapped blocks here: read in place, like device
 * memory): each result is its own frame's, and a frame at an address seen
 * lately runs the graph instance kept for it: nothing is captured (the
 * batch graph keeps 16, cuda_batch.cu). Every algorithm, HA4 with Otsu too;
 * alone and as a batch of two cameras. */
enum { POOL = 3 };

static const char *algorithm_name(GpucclAlgorithm a)
{
  static const char *const names[] = {"default", "ha4",    "ha4-64",
                                      "buf",     "buf-ic", "bke",
                                      "bke-ic",  "ouf",    "hybrid3",
                                      "stava-benes"};
  return (size_t)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

/* Round r of the pool: every block's frame once, at `skip` bytes into
 * it; returns the graphs captured meanwhile. */
static uint64_t pool_round(GpucclContext *gpu, GpucclContext *cpu,
                           uint8_t *const *pool, size_t stride, size_t skip,
                           const GpucclParams *p, int r)
{
  const uint64_t before = gpuccl_cuda_graph_captures();
  for (int k = 0; k < POOL; k++) {
    GpucclImage img = {pool[k] + skip, W - 5, H - 3, stride, GPUCCL_PIXEL_U8,
                       0, 0, 0};
    char label[80];
    snprintf(label, sizeof label, "pool %s%s round %d frame %d",
             algorithm_name(p->algorithm),
             p->auto_threshold ? " otsu" : "", r, k);
    EXPECT(gpu_check_same(gpu, cpu, &img, p, label), "%s", label);
  }
  return gpuccl_cuda_graph_captures() - before;
}

/* Two cameras, each frame of one from the pool, every pairing three
 * times; returns the graphs captured in the third pass (a camera's first
 * frames set how many blobs it downloads with the header, part of the
 * key: the second pass may still capture). */
static uint64_t pool_batches(GpucclContext *gpu, GpucclContext *cpu,
                             uint8_t *const *pool, size_t stride,
                             const GpucclParams *p)
{
  GpucclContext *second = gpu_check_context();
  GpucclContext *contexts[2] = {gpu, second};
  const GpucclParams *params[2] = {p, p};
  uint64_t before = 0;
  for (int round = 0; round < 6 * POOL; round++) {
    if (round == 4 * POOL)
      before = gpuccl_cuda_graph_captures();
    const int a = round % POOL, b = (a + 1 + round / POOL % 2) % POOL;
    GpucclImage imgs[2] = {
        {pool[a], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0},
        {pool[b], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0}};
    GpucclResult results[2];
    GpucclError e = {0};
    GpucclStatus st =
        gpuccl_process_batch(contexts, imgs, params, 2, results, &e);
    EXPECT(st == GPUCCL_OK, "batch round %d: %s", round, e.message);
    for (int i = 0; st == GPUCCL_OK && i < 2; i++) {
      GpucclResult rc;
      char label[80];
      snprintf(label, sizeof label, "batch %s round %d image %d",
               algorithm_name(p->algorithm), round, i);
      EXPECT(gpuccl_process(cpu, &imgs[i], p, &rc, &e) == GPUCCL_OK,
             "%s: cpu %s", label, e.message);
      EXPECT(gpu_check_same_result(&rc, &results[i], &imgs[i],
                                   p->want_labels, label),
             "%s", label);
    }
  }
  gpuccl_context_free(second);
  return gpuccl_cuda_graph_captures() - before;
}

static void moving_frames(GpucclContext *gpu, GpucclContext *cpu,
                          GpucclAlgorithm algorithm, bool otsu)
{
  const size_t stride = W + 7;
  uint8_t *pool[POOL];
  GpucclError e = {0};
  for (int k = 0; k < POOL; k++) {
    pool[k] = gpuccl_host_alloc(gpu, stride * H, GPUCCL_MEMORY_MAPPED, &e);
    EXPECT(pool[k] != NULL, "pool block %d: %s", k, e.message);
    if (!pool[k]) {
      while (k--)
        gpuccl_host_free(gpu, pool[k]);
      return;
    }
    /* One density: the blobs fetched with the header stay put. */
    corpus_random(pool[k], W, H, stride, 0.4, 3, (uint32_t)(300 + k));
  }
  GpucclParams p;
  gpuccl_params_init(&p);
  p.want_labels = true;
  p.algorithm = algorithm;
  p.connectivity = otsu ? 4 : 8;
  p.auto_threshold =
      otsu ? GPUCCL_AUTO_THRESHOLD_OTSU : GPUCCL_AUTO_THRESHOLD_NONE;
  /* Rounds 0 and 1 settle how many blobs each frame downloads with the
   * header (the last frame's count sets it, and it is part of the key);
   * round 2 finds every key kept. */
  uint64_t captured[10] = {0};
  captured[0] = pool_round(gpu, cpu, pool, stride, 0, &p, 0);
  captured[1] = pool_round(gpu, cpu, pool, stride, 0, &p, 1);
  captured[2] = pool_round(gpu, cpu, pool, stride, 0, &p, 2);
  /* Elsewhere in the blocks, another threshold (the same foreground in
   * these 0 / 255 pictures, another key): an instance each at most, then
   * kept. */
  const size_t skip = stride * 3 + 5;
  p.threshold = 90;
  captured[3] = pool_round(gpu, cpu, pool, stride, skip, &p, 3);
  captured[4] = pool_round(gpu, cpu, pool, stride, skip, &p, 4);
  captured[5] = pool_round(gpu, cpu, pool, stride, skip, &p, 5);
  captured[6] = pool_batches(gpu, cpu, pool, stride, &p);
  /* Intensities keep a frame out of the batch: the frame graph's own
   * instances (process_frame). */
  if (algorithm == GPUCCL_ALGORITHM_HA4 ||
      algorithm == GPUCCL_ALGORITHM_DEFAULT) {
    GpucclParams q = p;
    q.want_intensity = true;
    for (int r = 0; r < 3; r++)
      captured[7 + r] = pool_round(gpu, cpu, pool, stride, 0, &q, 6 + r);
  }
  printf("pool %s%s: captures per round %llu %llu %llu %llu %llu %llu, "
         "batches %llu, frame graphs %llu %llu %llu\n",
         algorithm_name(algorithm), otsu ? " otsu" : "",
         (unsigned long long)captured[0], (unsigned long long)captured[1],
         (unsigned long long)captured[2], (unsigned long long)captured[3],
         (unsigned long long)captured[4], (unsigned long long)captured[5],
         (unsigned long long)captured[6], (unsigned long long)captured[7],
         (unsigned long long)captured[8], (unsigned long long)captured[9]);
  EXPECT(captured[2] == 0 && captured[5] == 0 && captured[6] == 0 &&
             captured[9] == 0,
         "%s: frames at known addresses captured %llu, %llu, batches %llu, "
         "frame graphs %llu",
         algorithm_name(algorithm), (unsigned long long)captured[2],
         (unsigned long long)captured[5], (unsigned long long)captured[6],
         (unsigned long long)captured[9]);
  EXPECT(captured[3] <= POOL, "%s: %llu captures for %d new addresses",
         algorithm_name(algorithm), (unsigned long long)captured[3], POOL);
  for (int k = 0; k < POOL; k++)
    gpuccl_host_free(gpu, pool[k]);
}

static void size_changes(GpucclContext *gpu, GpucclContext *cpu)
{
  static const int sizes[][2] = {{1, 1},     {33, 2},  {2048, 3},
                                 {257, 257}, {64, 65}, {1, 700}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    int w = sizes[i][0], h = sizes[i][1];
    size_t stride = (size_t)w + 1;
    uint8_t *data = malloc(stride * h);
    if (!data)
      abort();
    corpus_random(data, w, h, stride, 0.5, 1, (uint32_t)i);
    GpucclImage img = {data, w, h, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclParams p;
    gpuccl_params_init(&p);
    p.want_labels = true;
    char label[64];
    snprintf(label, sizeof label, "size %dx%d", w, h);
    EXPECT(gpu_check_same(gpu, cpu, &img, &p, label), "%s", label);
    free(data);
  }
}

/* The device raises the host's flag of a sparse frame in blob records
 * (frame_done.cu), of an empty one in tile labeling, and the host reads
 * the results once it sees the flag: frames of four scenes in turn, each
 * against the CPU backend's result for its scene, so a table read before
 * the frame's writes arrived shows as the previous scene's. A label image
 * follows blob records, so those frames wait for the stream. Whether the
 * host returned on the flag or, past its spin (a slow GPU, a sanitizer),
 * on the stream is timing and only reported; that each flag was raised is
 * asserted. */
static void flagged_frames(GpucclContext *gpu, GpucclContext *cpu,
                           GpucclAlgorithm algorithm, int connectivity,
                           int rounds)
{
  enum { SCENES = 4 };
  const size_t stride = W;
  uint8_t *scenes[SCENES];
  GpucclResult want[SCENES];
  GpucclBlob *blobs[SCENES];
  uint32_t *labels[SCENES];
  GpucclParams p;
  GpucclError e = {0};
  gpuccl_params_init(&p);
  p.algorithm = algorithm;
  p.connectivity = connectivity;
  for (int k = 0; k < SCENES; k++) {
    scenes[k] = malloc(stride * H);
    if (!scenes[k])
      abort();
    /* Squares of 8 pixels at 2 % to 6 %: tens of blobs, the host's copy
     * holds them all; and an empty scene, which tile labeling finishes. */
    const double density = k + 1 < SCENES ? 0.02 + 0.02 * k : 0.0;
    corpus_random(scenes[k], W, H, stride, density, 8, (uint32_t)(500 + k));
    GpucclImage img = {scenes[k], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclResult r;
    p.want_labels = true;
    EXPECT(gpuccl_process(cpu, &img, &p, &r, &e) == GPUCCL_OK, "cpu: %s",
           e.message);
    blobs[k] = malloc(r.n_blobs * sizeof *r.blobs + 1);
    labels[k] = malloc((size_t)W * H * sizeof *r.labels);
    if (!blobs[k] || !labels[k])
      abort();
    memcpy(blobs[k], r.blobs, r.n_blobs * sizeof *r.blobs);
    memcpy(labels[k], r.labels, (size_t)W * H * sizeof *r.labels);
    want[k] = r;
    want[k].blobs = blobs[k];
    want[k].labels = labels[k];
  }
  for (int pass = 0; pass < 2; pass++) {
    p.want_labels = pass == 1;
    const uint64_t before = gpuccl_cuda_raised_frames();
    const uint64_t seen_before = gpuccl_cuda_flagged_frames();
    int empty_unraised = 0;
    for (int i = 0; i < rounds * SCENES; i++) {
      const int k = i % SCENES;
      GpucclImage img = {scenes[k], W, H, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
      GpucclResult r;
      char label[80];
      snprintf(label, sizeof label,
               "flagged frame %d (algorithm %d, scene %d, labels %d)", i,
               (int)algorithm, k, pass);
      const uint64_t raised_before = gpuccl_cuda_raised_frames();
      EXPECT(gpuccl_process(gpu, &img, &p, &r, &e) == GPUCCL_OK, "%s: %s",
             label, e.message);
      EXPECT(gpu_check_same_result(&want[k], &r, &img, p.want_labels, label),
             "%s", label);
      /* Past the first round, each empty frame by its flag. */
      if (k == SCENES - 1 && i >= SCENES &&
          gpuccl_cuda_raised_frames() == raised_before)
        empty_unraised++;
    }
    const uint64_t raised = gpuccl_cuda_raised_frames() - before;
    printf("algorithm %d, labels %d: %llu of %d frames raised their flag, "
           "%llu seen done by it\n",
           (int)algorithm, pass, (unsigned long long)raised,
           rounds * SCENES,
           (unsigned long long)(gpuccl_cuda_flagged_frames() - seen_before));
    /* The first frames may still fetch more blobs than the copy holds.
     * Kernel by kernel, no frame raises the flag. */
    if (pass == 0 && gpuccl_cuda_graphs_on()) {
      EXPECT(raised >= (uint64_t)(rounds - 1) * SCENES,
             "algorithm %d: %llu of %d sparse frames raised their flag",
             (int)algorithm, (unsigned long long)raised, rounds * SCENES);
      EXPECT(empty_unraised == 0,
             "algorithm %d: %d empty frames did not raise their flag",
             (int)algorithm, empty_unraised);
    } else
      EXPECT(raised == 0, "algorithm %d: %llu frames raised their flag with %s",
             (int)algorithm, (unsigned long long)raised,
             pass ? "a label image" : "no graphs");
  }
  for (int k = 0; k < SCENES; k++) {
    free(scenes[k]);
    free(blobs[k]);
    free(labels[k]);
  }
}

/* --quick: fewer flagged frames (for compute-sanitizer). */
int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  GpucclContext *gpu = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  GpucclError e = {0};
  EXPECT(gpuccl_context_backend(gpu) == GPUCCL_BACKEND_CUDA, "backend");
  steady_state(gpu);
  host_memory(gpu, cpu, GPUCCL_MEMORY_COPY, false, "COPY");
  host_memory(gpu, cpu, GPUCCL_MEMORY_MAPPED, false, "MAPPED");
  host_memory(gpu, cpu, GPUCCL_MEMORY_AUTO, false, "AUTO");
  int64_t live = gpuccl_cuda_live_allocations();
  host_memory(gpu, cpu, GPUCCL_MEMORY_COPY, true, "contextless COPY");
  host_memory(gpu, cpu, GPUCCL_MEMORY_MAPPED, true, "contextless MAPPED");
  EXPECT(gpuccl_cuda_live_allocations() == live,
         "contextless blocks not all released: %lld live, %lld before",
         (long long)gpuccl_cuda_live_allocations(), (long long)live);
  size_changes(gpu, cpu);
  /* Every labeler ends in blob records, and its tile stage finishes
   * frames without foreground. */
  flagged_frames(gpu, cpu, GPUCCL_ALGORITHM_HA4, 4, quick ? 3 : 40);
  for (int a = GPUCCL_ALGORITHM_HA4 + 1; a <= GPUCCL_ALGORITHM_LAST; a++)
    flagged_frames(gpu, cpu, (GpucclAlgorithm)a, 8, quick ? 2 : 8);
  for (int a = GPUCCL_ALGORITHM_HA4; a <= GPUCCL_ALGORITHM_LAST; a++)
    moving_frames(gpu, cpu, (GpucclAlgorithm)a, a == GPUCCL_ALGORITHM_HA4);
  moving_frames(gpu, cpu, GPUCCL_ALGORITHM_DEFAULT, false);
  /* The CUDA backend's overlays are not there yet: a clear status. */
  GpucclFrame frame = {0};
  uint8_t pixel[4] = {0};
  GpucclResult r;
  GpucclParams p;
  gpuccl_params_init(&p);
  GpucclImage one = {pixel, 1, 1, 1, GPUCCL_PIXEL_U8, 0, 0, 0};
  gpuccl_process(gpu, &one, &p, &r, &e);
  frame.format = GPUCCL_FRAME_GRAY8;
  frame.width = frame.height = 1;
  frame.data[0] = pixel;
  frame.stride[0] = 1;
  GpucclDrawParams dp = {GPUCCL_DRAW_BOXES, 255, 0, 0, 1};
  GpucclStatus s = gpuccl_draw(gpu, &frame, &dp, &e);
  EXPECT(s == GPUCCL_ERROR_UNSUPPORTED || s == GPUCCL_OK, "draw: %s",
         gpuccl_status_name(s));
  gpuccl_context_free(gpu);
  gpuccl_context_free(cpu);
  printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks,
         failures);
  return failures ? 1 : 0;
}
