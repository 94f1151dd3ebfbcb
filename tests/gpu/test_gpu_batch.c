/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process_batch on CUDA: every image's result equals the CPU
 * backend's for the same image and parameters (sizes, formats,
 * connectivities, algorithms, label images, Otsu, filters, segments mode,
 * query points and intensities mixed in one batch; HYBRID3's loop inside
 * the graph, with no host round trip); batches repeated with new content
 * in the same buffers (the kept graph), reordered, grown and shrunk; the
 * background model of each image; nothing allocated in steady state; the
 * errors, each naming the image; and contexts on two GPUs, where there are
 * two. Exits 77 without a usable GPU. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "cuda/cuda_internal.h"
#include "gpu_check.h"

static int failures, checks;

enum { MAX_ITEMS = 13 };

/* One image of a batch, its parameters, and a CUDA context of its own. */
typedef struct {
  int width, height;
  size_t stride;
  uint8_t *pixels;
  GpuCheckWide wide;
  GpucclImage image;
  GpucclParams params;
  float qx[3], qy[3];
  GpucclNearestRequest queries;
} Item;

static void item_fill(Item *it, double density, int granularity,
                      unsigned seed)
{
  corpus_random(it->pixels, it->width, it->height, it->stride, density,
                granularity, seed);
  const GpucclPixelFormat format = it->image.format;
  gpu_check_wide_free(&it->wide);
  gpu_check_wide_new(&it->wide, it->pixels, it->width, it->height,
                     it->stride, seed);
  it->image = format == GPUCCL_PIXEL_U16       ? it->wide.u16
              : format == GPUCCL_PIXEL_PACKED4 ? it->wide.packed4
                                               : it->wide.u8;
}

static void item_init(Item *it, int width, int height, GpucclPixelFormat format)
{
  memset(it, 0, sizeof *it);
  it->width = width;
  it->height = height;
  it->stride = (size_t)width + 3;
  it->pixels = malloc(it->stride * height);
  if (!it->pixels)
    abort();
  it->image.format = format;
  item_fill(it, 0.4, 2, 1);
  gpuccl_params_init(&it->params);
  it->params.threshold = format == GPUCCL_PIXEL_U16 ? 0x7fff : 127;
}

static void item_free(Item *it)
{
  gpu_check_wide_free(&it->wide);
  free(it->pixels);
}

/* The mixed batch: what each image asks for. */
static void mixed_items(Item *items, int *n)
{
  int k = 0;
  item_init(&items[k++], 1920, 1080, GPUCCL_PIXEL_U8);
  item_init(&items[k], 643, 481, GPUCCL_PIXEL_U8);
  items[k++].params.connectivity = 4;
  item_init(&items[k], 640, 480, GPUCCL_PIXEL_PACKED4);
  items[k].params.channel = GPUCCL_CHANNEL_RED;
  items[k++].params.want_labels = true;
  item_init(&items[k], 317, 251, GPUCCL_PIXEL_U16);
  items[k++].params.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  item_init(&items[k], 1, 1, GPUCCL_PIXEL_U8);
  items[k++].params.min_area = 0;
  item_init(&items[k], 4000, 17, GPUCCL_PIXEL_U8);
  items[k].params.min_area = 3;
  items[k++].params.max_area = 40;
  item_init(&items[k], 800, 600, GPUCCL_PIXEL_U8);
  items[k++].params.max_blobs = 25;
  item_init(&items[k], 512, 512, GPUCCL_PIXEL_U8);
  items[k++].params.algorithm = GPUCCL_ALGORITHM_BKE;
  item_init(&items[k], 300, 200, GPUCCL_PIXEL_U8);
  items[k].params.algorithm = GPUCCL_ALGORITHM_OUF;
  items[k++].params.connectivity = 4;
  item_init(&items[k], 256, 256, GPUCCL_PIXEL_U8);
  items[k++].params.algorithm = GPUCCL_ALGORITHM_HYBRID3; /* a WHILE node */
  item_init(&items[k], 200, 150, GPUCCL_PIXEL_U8);
  items[k++].params.mode = GPUCCL_MODE_SEGMENTS; /* not a graph */
  item_init(&items[k], 640, 360, GPUCCL_PIXEL_U8);
  Item *q = &items[k++];
  for (int i = 0; i < 3; i++) {
    q->qx[i] = 100.0f + 150.0f * i;
    q->qy[i] = 50.0f + 90.0f * i;
  }
  q->queries.x = q->qx;
  q->queries.y = q->qy;
  q->queries.n = 3;
  q->params.nearest = &q->queries; /* not a graph */
  item_init(&items[k], 480, 320, GPUCCL_PIXEL_U8);
  items[k++].params.want_intensity = true; /* not a graph */
  *n = k;
}

/* The intensities a batch left on gpu against those of the CPU call just
 * made on the same image. */
static void check_intensities(GpucclContext *gpu, GpucclContext *cpu,
                              uint32_t n_blobs, const char *name)
{
  const GpucclBlobIntensity *g = gpuccl_blob_intensities(gpu);
  const GpucclBlobIntensity *c = gpuccl_blob_intensities(cpu);
  EXPECT(g && c, "%s: intensities missing (gpu %p, cpu %p)", name,
         (const void *)g, (const void *)c);
  if (!g || !c)
    return;
  uint32_t differ = 0;
  for (uint32_t b = 0; b < n_blobs; b++)
    differ += g[b].sum != c[b].sum || g[b].min != c[b].min ||
              g[b].max != c[b].max;
  EXPECT(differ == 0, "%s: %u of %u blobs' intensities differ", name, differ,
         n_blobs);
}

/* One batch of items[order[i]] on gpus[i], each result against the CPU
 * backend's. */
static void check_batch(GpucclContext **gpus, GpucclContext *cpu,
                        Item *items, const int *order, int n,
                        const char *what)
{
  GpucclImage images[MAX_ITEMS] = {0};
  const GpucclParams *params[MAX_ITEMS] = {0};
  GpucclResult results[MAX_ITEMS];
  for (int i = 0; i < n; i++) {
    images[i] = items[order[i]].image;
    params[i] = &items[order[i]].params;
  }
  GpucclError e = {0};
  GpucclStatus s = gpuccl_process_batch(gpus, images, params, (size_t)n,
                                        results, &e);
  EXPECT(s == GPUCCL_OK, "%s: batch: %s", what, e.message);
  if (s != GPUCCL_OK)
    return;
  for (int i = 0; i < n; i++) {
    char name[96];
    snprintf(name, sizeof name, "%s, image %d (%dx%d)", what, i,
             images[i].width, images[i].height);
    GpucclResult rc;
    GpucclError ec = {0};
    /* The CPU answers no queries: compare those with a GPU call alone. */
    GpucclParams cpu_params = *params[i];
    cpu_params.nearest = NULL;
    GpucclStatus sc = gpuccl_process(cpu, &images[i], &cpu_params, &rc, &ec);
    EXPECT(sc == GPUCCL_OK, "%s: cpu: %s", name, ec.message);
    EXPECT(sc == GPUCCL_OK &&
               gpu_check_same_result(&rc, &results[i], &images[i],
                                     params[i]->want_labels, name),
           "%s: batch result differs from the CPU's", name);
    if (params[i]->nearest && results[i].n_blobs)
      EXPECT(params[i]->nearest->answers != NULL,
             "%s: the queries were not answered", name);
    if (params[i]->want_intensity && sc == GPUCCL_OK)
      check_intensities(gpus[i], cpu, rc.n_blobs, name);
  }
}

/* The mixed batch's HYBRID3 image (on its own context) ran at least
 * min_rounds rounds of its loop, in the batch's graph: the host waited for
 * none of them. */
static void check_hybrid3_item(GpucclContext **gpus, const Item *items,
                               const int *order, int n, uint64_t host_before,
                               int min_rounds, const char *what)
{
  for (int i = 0; i < n; i++) {
    if (items[order[i]].params.algorithm != GPUCCL_ALGORITHM_HYBRID3)
      continue;
    const int rounds = gpuccl_cuda_hybrid3_rounds(gpus[i]);
    EXPECT(rounds >= min_rounds, "%s: HYBRID3 image %d ran %d rounds", what,
           i, rounds);
  }
  const uint64_t host = gpuccl_cuda_host_loop_rounds() - host_before;
  EXPECT(!gpuccl_cuda_graphs_on() || host == 0,
         "%s: the host waited for %llu HYBRID3 rounds in a graph", what,
         (unsigned long long)host);
}

static void mixed_batches(GpucclContext **gpus, GpucclContext *cpu)
{
  Item items[MAX_ITEMS];
  int n = 0;
  mixed_items(items, &n);
  int order[MAX_ITEMS];
  for (int i = 0; i < n; i++)
    order[i] = i;
  const uint64_t host_before = gpuccl_cuda_host_loop_rounds();
  check_batch(gpus, cpu, items, order, n, "mixed");
  check_hybrid3_item(gpus, items, order, n, host_before, 2, "mixed");
  /* New content in the same buffers: the kept graph, new blob counts
   * (past the downloaded share of the table too). */
  const double densities[] = {0.0, 0.1, 0.62, 0.3};
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < n; i++)
      item_fill(&items[i], densities[(round + i) % 4], 1 + (round + i) % 4,
                (unsigned)(10 * round + i));
    char what[32];
    snprintf(what, sizeof what, "mixed round %d", round);
    check_batch(gpus, cpu, items, order, n, what);
  }
  /* Reversed, then a shorter batch, then the whole one again. */
  for (int i = 0; i < n; i++)
    order[i] = n - 1 - i;
  check_batch(gpus, cpu, items, order, n, "reversed");
  check_batch(gpus, cpu, items, order, 3, "first three");
  check_batch(gpus, cpu, items, order, n, "reversed again");
  /* Its last content is empty: one round, which moved nothing. */
  check_hybrid3_item(gpus, items, order, n, host_before, 1, "reversed again");
  for (int i = 0; i < n; i++)
    item_free(&items[i]);
}

/* 1080p frames batch after batch, from two sets of buffers in turn (as
 * frames from a pool come): each set keeps its graph, the results follow
 * the frames, and nothing is allocated after the first round of each. */
static void steady_state(GpucclContext **gpus, GpucclContext *cpu)
{
  enum { N = 8, SETS = 2 };
  Item items[SETS][N];
  int order[N];
  for (int k = 0; k < SETS; k++)
    for (int i = 0; i < N; i++) {
      item_init(&items[k][i], 1920, 1080, GPUCCL_PIXEL_U8);
      item_fill(&items[k][i], 0.05 * (i + 1) + 0.2 * k, 4, 50u + i + 10 * k);
      order[i] = i;
    }
  for (int k = 0; k < SETS; k++)
    check_batch(gpus, cpu, items[k], order, N, "steady warm-up");
  const uint64_t before = gpuccl_cuda_alloc_calls();
  for (int round = 0; round < 10; round++) {
    GpucclImage images[N];
    const GpucclParams *params[N];
    GpucclResult results[N];
    for (int i = 0; i < N; i++) {
      images[i] = items[round % SETS][i].image;
      params[i] = &items[round % SETS][i].params;
    }
    GpucclError e = {0};
    EXPECT(gpuccl_process_batch(gpus, images, params, N, results, &e) ==
               GPUCCL_OK,
           "steady batch %d: %s", round, e.message);
  }
  EXPECT(gpuccl_cuda_alloc_calls() == before,
         "10 batches of %d frames made %llu allocation calls", N,
         (unsigned long long)(gpuccl_cuda_alloc_calls() - before));
  /* New content in the buffers of both sets: the kept graphs read it. */
  for (int round = 0; round < 4; round++) {
    const int k = round % SETS;
    for (int i = 0; i < N; i++)
      item_fill(&items[k][i], 0.1 + 0.07 * ((i + round) % 6), 2, 70u + round);
    check_batch(gpus, cpu, items[k], order, N, "steady, new content");
  }
  for (int k = 0; k < SETS; k++)
    for (int i = 0; i < N; i++)
      item_free(&items[k][i]);
}

/* A camera's frame alone right after a batch it was part of, not its
 * lead: the batch's graph ran on the lead's stream and the host returned
 * once every image's flag was up (an empty frame's after its tile stage),
 * so the camera's own stream must wait for the rest of that graph, which
 * still uses the camera's buffers. Its lone frame against the CPU's. */
static void alone_after_batch(GpucclContext **gpus, GpucclContext *cpu)
{
  Item lead, empty, alone;
  item_init(&lead, 64, 48, GPUCCL_PIXEL_U8);
  item_init(&empty, 3840, 2160, GPUCCL_PIXEL_U8);
  item_init(&alone, 3840, 2160, GPUCCL_PIXEL_U8);
  item_fill(&lead, 0.1, 4, 91);
  item_fill(&empty, 0.0, 1, 92);
  item_fill(&alone, 0.02, 8, 93);
  GpucclResult want;
  GpucclError e = {0};
  EXPECT(gpuccl_process(cpu, &alone.image, &alone.params, &want, &e) ==
             GPUCCL_OK,
         "alone after batch: cpu: %s", e.message);
  GpucclResult kept = want;
  kept.blobs = malloc(want.n_blobs * sizeof *want.blobs + 1);
  if (!kept.blobs)
    abort();
  memcpy((void *)kept.blobs, want.blobs, want.n_blobs * sizeof *want.blobs);
  kept.labels = NULL;
  for (int round = 0; round < 60; round++) {
    const GpucclImage images[2] = {lead.image, empty.image};
    const GpucclParams *params[2] = {&lead.params, &empty.params};
    GpucclResult results[2], r;
    EXPECT(gpuccl_process_batch(gpus, images, params, 2, results, &e) ==
               GPUCCL_OK,
           "alone after batch %d: batch: %s", round, e.message);
    EXPECT(results[1].n_blobs == 0, "alone after batch %d: %zu blobs in "
           "an empty frame", round, (size_t)results[1].n_blobs);
    EXPECT(gpuccl_process(gpus[1], &alone.image, &alone.params, &r, &e) ==
               GPUCCL_OK,
           "alone after batch %d: %s", round, e.message);
    char name[48];
    snprintf(name, sizeof name, "alone after batch %d", round);
    EXPECT(gpu_check_same_result(&kept, &r, &alone.image, false, name),
           "%s: differs from the CPU's", name);
  }
  free((void *)kept.blobs);
  item_free(&lead);
  item_free(&empty);
  item_free(&alone);
}

/* Two cameras by motion: each context keeps its own model, batch after
 * batch, as a CPU context with a model of its own does one frame at a
 * time. */
static void background_models(GpucclContext **gpus, GpucclContext *cpu0,
                              GpucclContext *cpu1)
{
  GpucclContext *cpus[2] = {cpu0, cpu1};
  GpucclBackgroundParams bp;
  gpuccl_background_params_init(&bp);
  bp.mode = GPUCCL_BACKGROUND_AVERAGE;
  bp.learning_rate = 0.25;
  bp.warmup_frames = 0;
  GpucclBackground *gbg[2], *cbg[2];
  Item items[2];
  for (int k = 0; k < 2; k++) {
    GpucclError e = {0};
    gbg[k] = gpuccl_background_new(gpus[k], &bp, &e);
    cbg[k] = gpuccl_background_new(cpus[k], &bp, &e);
    if (!gbg[k] || !cbg[k]) {
      EXPECT(0, "background model: %s", e.message);
      return;
    }
    item_init(&items[k], 480 + 160 * k, 270 + 90 * k, GPUCCL_PIXEL_U8);
    items[k].params.threshold = 20;
  }
  for (int frame = 0; frame < 6; frame++) {
    GpucclImage images[2];
    GpucclParams gp[2], cp[2];
    const GpucclParams *params[2];
    GpucclResult results[2];
    for (int k = 0; k < 2; k++) {
      item_fill(&items[k], 0.2 + 0.1 * k, 2 + frame, 7u * frame + k);
      images[k] = items[k].image;
      gp[k] = cp[k] = items[k].params;
      gp[k].background = gbg[k];
      cp[k].background = cbg[k];
      params[k] = &gp[k];
    }
    GpucclError e = {0};
    GpucclStatus s = gpuccl_process_batch(gpus, images, params, 2, results,
                                          &e);
    EXPECT(s == GPUCCL_OK, "motion frame %d: %s", frame, e.message);
    for (int k = 0; k < 2 && s == GPUCCL_OK; k++) {
      GpucclResult rc;
      char name[64];
      snprintf(name, sizeof name, "motion frame %d, camera %d", frame, k);
      EXPECT(gpuccl_process(cpus[k], &images[k], &cp[k], &rc, &e) ==
                     GPUCCL_OK &&
                 gpu_check_same_result(&rc, &results[k], &images[k],
                                       false, name),
             "%s differs from the CPU's model", name);
    }
  }
  for (int k = 0; k < 2; k++) {
    gpuccl_background_free(gbg[k]);
    gpuccl_background_free(cbg[k]);
    item_free(&items[k]);
  }
}

/* A refused batch says which image, and the contexts go on working. */
static void errors(GpucclContext **gpus, GpucclContext *cpu)
{
  Item items[3];
  for (int i = 0; i < 3; i++)
    item_init(&items[i], 64, 48, GPUCCL_PIXEL_U8);
  GpucclImage images[3] = {items[0].image, items[1].image, items[2].image};
  const GpucclParams *params[3] = {&items[0].params, &items[1].params,
                                   &items[2].params};
  GpucclResult results[3];
  GpucclError e = {0};
  GpucclContext *same[3] = {gpus[0], gpus[1], gpus[0]};
  EXPECT(gpuccl_process_batch(same, images, params, 3, results, &e) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(e.message, "images 0 and 2 share a context"),
         "a shared context: %s", e.message);
  GpucclContext *mixed[3] = {gpus[0], cpu, gpus[2]};
  EXPECT(gpuccl_process_batch(mixed, images, params, 3, results, &e) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strstr(e.message, "image 1"),
         "a CPU context among CUDA ones: %s", e.message);
  images[2].stride = 10; /* less than a row */
  EXPECT(gpuccl_process_batch(gpus, images, params, 3, results, &e) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strncmp(e.message, "image 2: ", 9) == 0 &&
             results[0].blobs == NULL,
         "a bad stride on image 2: %s", e.message);
  images[2] = items[2].image;
  GpucclParams bad = items[1].params;
  bad.connectivity = 5;
  params[1] = &bad;
  EXPECT(gpuccl_process_batch(gpus, images, params, 3, results, &e) ==
                 GPUCCL_ERROR_INVALID_ARGUMENT &&
             strncmp(e.message, "image 1: ", 9) == 0,
         "connectivity 5 on image 1: %s", e.message);
  params[1] = &items[1].params;
  EXPECT(gpuccl_process_batch(gpus, NULL, params, 3, results, &e) ==
             GPUCCL_ERROR_INVALID_ARGUMENT,
         "no images: %s", e.message);
  EXPECT(gpuccl_process_batch(gpus, images, params, 0, results, &e) ==
             GPUCCL_OK,
         "an empty batch: %s", e.message);
  int order[3] = {0, 1, 2};
  check_batch(gpus, cpu, items, order, 3, "after the errors");
  for (int i = 0; i < 3; i++)
    item_free(&items[i]);
}

/* Contexts on two GPUs in one batch (where there are two): one graph per
 * GPU, each image as the CPU labels it. */
static void two_gpus(GpucclContext **gpus, GpucclContext *cpu)
{
  if (!gpuccl_cuda_available(1, NULL)) {
    printf("two GPUs: skipped, one GPU\n");
    return;
  }
  GpucclError e = {0};
  GpucclContext *second[2] = {gpuccl_context_new(GPUCCL_BACKEND_CUDA, 1, &e),
                              gpuccl_context_new(GPUCCL_BACKEND_CUDA, 1, &e)};
  EXPECT(second[0] && second[1], "device 1: %s", e.message);
  if (!second[0] || !second[1])
    return;
  GpucclContext *mixed[4] = {gpus[0], second[0], gpus[1], second[1]};
  Item items[4];
  int order[4];
  for (int i = 0; i < 4; i++) {
    item_init(&items[i], 1280 - 100 * i, 720, GPUCCL_PIXEL_U8);
    item_fill(&items[i], 0.2 * (i + 1), 2, 90u + i);
    order[i] = i;
  }
  check_batch(mixed, cpu, items, order, 4, "two GPUs");
  check_batch(mixed, cpu, items, order, 4, "two GPUs again");
  for (int i = 0; i < 4; i++)
    item_free(&items[i]);
  gpuccl_context_free(second[0]);
  gpuccl_context_free(second[1]);
}

int main(void)
{
  GpucclContext *gpus[MAX_ITEMS];
  gpus[0] = gpu_check_context();
  for (int i = 1; i < MAX_ITEMS; i++)
    gpus[i] = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  GpucclContext *cpu1 = gpu_check_cpu_context();
  mixed_batches(gpus, cpu);
  steady_state(gpus, cpu);
  alone_after_batch(gpus, cpu);
  background_models(gpus, cpu, cpu1);
  errors(gpus, cpu);
  two_gpus(gpus, cpu);
  for (int i = 0; i < MAX_ITEMS; i++)
    gpuccl_context_free(gpus[i]);
  gpuccl_context_free(cpu);
  gpuccl_context_free(cpu1);
  printf("gpu-batch: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
