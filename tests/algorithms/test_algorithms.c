/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every labeling algorithm beside HA4 (BUF, BUF_IC, BKE, BKE_IC, OUF,
 * HYBRID3, STAVA_BENES) against
 * the CPU backend on the whole test corpus: labels and blob table
 * identical, for every connectivity the algorithm supports, labels on and
 * off; binarisation options and blob filters on a sample. Connectivities
 * an algorithm does not support must be refused with
 * GPUCCL_ERROR_UNSUPPORTED on CUDA and accepted by the CPU backend. The
 * CPU backend is itself checked against Leptonica and OpenCV
 * (tests/oracle). HYBRID3's convergence loop runs to its fixed point on an
 * image that needs many rounds, in a CUDA graph and on the host.
 *
 * Usage: test-algorithms [--reduced] [--max-pixels N] [--only NAME]
 * (--reduced: every third image, up to 300x300, for compute-sanitizer;
 * --max-pixels: a smaller size cap for racecheck, which runs two orders of
 * magnitude slower; --only: one algorithm). Exits 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "cuda/cuda_internal.h"
#include "gpu_check.h"

static const struct {
  GpucclAlgorithm alg;
  const char *name;
  bool conn4; /* supports 4-connectivity on CUDA */
} algorithms[] = {
    {GPUCCL_ALGORITHM_BUF, "BUF", false},
    {GPUCCL_ALGORITHM_BUF_IC, "BUF_IC", false},
    {GPUCCL_ALGORITHM_BKE, "BKE", false},
    {GPUCCL_ALGORITHM_BKE_IC, "BKE_IC", false},
    {GPUCCL_ALGORITHM_OUF, "OUF", true},
    {GPUCCL_ALGORITHM_HYBRID3, "HYBRID3", true},
    {GPUCCL_ALGORITHM_STAVA_BENES, "STAVA_BENES", true},
};
#define N_ALGORITHMS (sizeof algorithms / sizeof algorithms[0])

static int failures, checks;

static const char *algorithm_name(GpucclAlgorithm alg)
{
  for (size_t a = 0; a < N_ALGORITHMS; a++)
    if (algorithms[a].alg == alg)
      return algorithms[a].name;
  return "?";
}

static void check(GpucclContext *gpu, GpucclContext *cpu,
                  const GpucclImage *img, const GpucclParams *p,
                  const char *image_name, const char *variant)
{
  char name[256];
  snprintf(name, sizeof name, "%s [%s %d-conn %s]", image_name,
           algorithm_name(p->algorithm), p->connectivity, variant);
  checks++;
  if (!gpu_check_same(gpu, cpu, img, p, name))
    failures++;
}

/* An unsupported connectivity: UNSUPPORTED with a message on CUDA (and no
 * result), a normal result on the CPU backend. */
static void check_refusal(GpucclContext *gpu, GpucclContext *cpu,
                          const GpucclImage *img, GpucclParams p)
{
  GpucclResult r;
  GpucclError err = {0};
  checks++;
  GpucclStatus st = gpuccl_process(gpu, img, &p, &r, &err);
  if (st != GPUCCL_ERROR_UNSUPPORTED || err.message[0] == 0 ||
      r.n_components != 0 || r.blobs) {
    printf("FAIL %s %d-conn on CUDA: %s (%s), expected "
           "unsupported with a message and an empty result\n",
           algorithm_name(p.algorithm), p.connectivity, gpuccl_status_name(st),
           err.message);
    failures++;
  }
  checks++;
  st = gpuccl_process(cpu, img, &p, &r, &err);
  if (st != GPUCCL_OK) {
    printf("FAIL %s %d-conn on the CPU backend: %s (%s)\n",
           algorithm_name(p.algorithm), p.connectivity, gpuccl_status_name(st),
           err.message);
    failures++;
  }
}

/* Binarisation options and filters: the same picture as U16 and PACKED4
 * (gpu_check.h), Otsu, invert, area filter, max_blobs. */
static void variants(GpucclContext *gpu, GpucclContext *cpu,
                     const CorpusImage *ci, GpucclAlgorithm alg)
{
  GpuCheckWide wide;
  gpu_check_wide_new(&wide, ci->data, ci->width, ci->height, ci->stride,
                     (unsigned)alg);
  const GpucclImage u8 = wide.u8, u16 = wide.u16, p4 = wide.packed4;
  GpucclParams p;
  gpuccl_params_init(&p);
  p.algorithm = alg;
  p.want_labels = true;
  p.threshold = 0x7fff;
  check(gpu, cpu, &u16, &p, ci->name, "U16");
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  check(gpu, cpu, &u16, &p, ci->name, "U16 Otsu");
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE;
  p.threshold = 100;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 luma");
  p.invert = true;
  check(gpu, cpu, &u8, &p, ci->name, "U8 inverted");
  p.invert = false;
  p.want_labels = false;
  p.min_area = 3;
  p.max_area = 5000;
  check(gpu, cpu, &u8, &p, ci->name, "area 3..5000");
  p.min_area = p.max_area = 0;
  p.max_blobs = 5;
  check(gpu, cpu, &u8, &p, ci->name, "max 5 blobs");
  gpu_check_wide_free(&wide);
}

/* A diagonal serpentine: 2-wide staircases on every fourth anti-diagonal,
 * joined end to end along the top and left edges, one path of ~side^2 / 4
 * pixels. 4-connected, S4DLS walks only along rows and columns, so the
 * smallest label climbs a staircase a step or two per round: hundreds of
 * rounds at side 256 (a CPU emulation: ~500). */
static void serpentine(uint8_t *img, int side)
{
  memset(img, 0, (size_t)side * side);
  for (int d = 0; d < side; d += 4) {
    for (int x = 0, y = d; y >= 0; x++, y--) {
      img[(size_t)y * side + x] = 255;
      if (x + 1 < side)
        img[(size_t)y * side + x + 1] = 255;
    }
    if (d + 4 >= side)
      continue;
    if ((d / 4) % 2) /* to the next staircase along the left edge */
      for (int y = d; y <= d + 4; y++)
        img[(size_t)y * side] = 255;
    else /* or along the top one */
      for (int x = d + 1; x <= d + 5 && x < side; x++)
        img[x] = 255;
  }
}

/* A CUDA context made with GPUCCL_CUDA_GRAPH=value (read at creation),
 * the caller's environment restored. */
static GpucclContext *context_with_graphs(const char *value)
{
  const char *was = getenv("GPUCCL_CUDA_GRAPH");
  char *saved = was ? strdup(was) : NULL;
  setenv("GPUCCL_CUDA_GRAPH", value, 1);
  GpucclContext *ctx = gpu_check_context();
  if (saved)
    setenv("GPUCCL_CUDA_GRAPH", saved, 1);
  else
    unsetenv("GPUCCL_CUDA_GRAPH");
  free(saved);
  return ctx;
}

/* HYBRID3's loop on the serpentine, as a WHILE node of the frame's graph
 * and as the host's loop: the CPU backend's labels (a loop that stopped
 * early leaves the path split), 4-connected in more than two rounds (more
 * than one moved a label; 8-connected walks climb the staircases, and a
 * GPU may finish in one), and only the host's loop waits for the host. */
static void long_loops(GpucclContext *cpu, int side)
{
  uint8_t *pixels = malloc((size_t)side * side);
  if (!pixels)
    abort();
  serpentine(pixels, side);
  const GpucclImage img = {pixels, side, side, (size_t)side,
                           GPUCCL_PIXEL_U8, 0, 0, 0};
  for (int graphed = 1; graphed >= 0; graphed--) {
    GpucclContext *gpu = context_with_graphs(graphed ? "1" : "0");
    for (int conn = 4; conn <= 8; conn += 4) {
      GpucclParams p;
      gpuccl_params_init(&p);
      p.algorithm = GPUCCL_ALGORITHM_HYBRID3;
      p.connectivity = conn;
      p.want_labels = true;
      char name[64];
      snprintf(name, sizeof name, "serpentine %d^2 (%s)", side,
               graphed ? "graph" : "host loop");
      const uint64_t host_before = gpuccl_cuda_host_loop_rounds();
      check(gpu, cpu, &img, &p, name, "labels");
      const int rounds = gpuccl_cuda_hybrid3_rounds(gpu);
      const uint64_t host = gpuccl_cuda_host_loop_rounds() - host_before;
      printf("%s %d-conn: %d rounds, %llu waited for by the host\n", name,
             conn, rounds, (unsigned long long)host);
      checks++;
      if (rounds < (conn == 4 ? 3 : 2) ||
          host != (graphed ? 0u : (uint64_t)rounds)) {
        printf("FAIL %s %d-conn: %d rounds, %llu on the host\n", name, conn,
               rounds, (unsigned long long)host);
        failures++;
      }
    }
    gpuccl_context_free(gpu);
  }
  free(pixels);
}

int main(int argc, char **argv)
{
  bool reduced = false;
  size_t max_pixels = 0; /* 0: no cap */
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reduced")) {
      reduced = true;
      if (!max_pixels)
        max_pixels = 300 * 300;
    } else if (!strcmp(argv[i], "--max-pixels") && i + 1 < argc)
      max_pixels = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      printf("usage: %s [--reduced] [--max-pixels N] [--only NAME]\n",
             argv[0]);
      return 2;
    }
  }
  GpucclContext *cpu = gpu_check_cpu_context();
  GpucclContext *gpu = gpu_check_context(); /* exit 77 without a GPU */

  const size_t n = corpus_size();
  size_t used = 0;
  bool refusals_checked = false;
  for (size_t i = 0; i < n; i++) {
    if (reduced && i % 3)
      continue;
    CorpusImage ci;
    int rc = corpus_image(i, &ci);
    if (rc > 0)
      continue; /* not available on this machine */
    if (rc < 0) {
      printf("FAIL: corpus image %zu could not be generated\n", i);
      failures++;
      continue;
    }
    if (max_pixels && (size_t)ci.width * ci.height > max_pixels) {
      corpus_image_free(&ci);
      continue;
    }
    used++;
    GpucclImage img = {ci.data, ci.width, ci.height, ci.stride,
                       GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclParams p;
    gpuccl_params_init(&p);
    for (size_t a = 0; a < N_ALGORITHMS; a++) {
      if (only && strcmp(only, algorithms[a].name))
        continue;
      p.algorithm = algorithms[a].alg;
      for (int conn = 4; conn <= 8; conn += 4) {
        p.connectivity = conn;
        if (conn == 4 && !algorithms[a].conn4) {
          if (!refusals_checked)
            check_refusal(gpu, cpu, &img, p);
          continue;
        }
        p.want_labels = true;
        check(gpu, cpu, &img, &p, ci.name, "labels");
        /* Table only (no relabeling kernel), on every other image. */
        if ((i + a) % 2 == 0) {
          p.want_labels = false;
          check(gpu, cpu, &img, &p, ci.name, "table only");
        }
      }
    }
    refusals_checked = true;
    const GpucclAlgorithm v = algorithms[(i / 5) % N_ALGORITHMS].alg;
    if (i % 5 == 0 && (!only || !strcmp(only, algorithm_name(v))))
      variants(gpu, cpu, &ci, v);
    corpus_image_free(&ci);
    if (failures > 20) {
      printf("too many failures, stopping\n");
      break;
    }
  }
  if (!only || !strcmp(only, "HYBRID3"))
    long_loops(cpu, reduced ? 96 : 256);
  printf("%s: %zu images, %d checks, %d failures\n",
         failures ? "FAIL" : "PASS", used, checks, failures);
  gpuccl_context_free(gpu);
  gpuccl_context_free(cpu);
  return failures ? 1 : 0;
}
