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

int main(void)
{
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
