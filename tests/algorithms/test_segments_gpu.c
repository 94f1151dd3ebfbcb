/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Segments mode on CUDA (Stava and Benes, the paper's multi-valued mode)
 * on the maps of segments_maps.h: every result against the OpenCV oracle
 * (value included) and against the CPU backend (gpu_check_same: status,
 * counts, threshold, every blob field, labels), as U8, U16 and PACKED4,
 * 4- and 8-connectivity, algorithm DEFAULT and STAVA_BENES, labels on and
 * off, the blob filters (max_blobs sorts on the device). Every other CUDA
 * algorithm must refuse segments mode (UNSUPPORTED, naming STAVA_BENES);
 * binary frames on the same context afterwards still match the CPU and
 * carry value 1.
 *
 * Usage: test-segments-gpu [--reduced]   (--reduced: maps up to 300x300,
 * for compute-sanitizer). Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"
#include "segments_maps.h"

static int failures, checks;

/* CUDA against the oracle, then CUDA against the CPU backend. */
static void check(GpucclContext *gpu, GpucclContext *cpu, const SegExpect *e,
                  const SegMap *m, const GpucclImage *img,
                  const GpucclParams *p, const char *variant)
{
  char name[256];
  snprintf(name, sizeof name, "%s [%s %s %d-conn %s]", m->name,
           seg_format_name(img->format),
           p->algorithm == GPUCCL_ALGORITHM_DEFAULT ? "DEFAULT" : "STAVA_BENES",
           p->connectivity, variant);
  checks++;
  if (!seg_process_check(gpu, e, m, img, p, name))
    failures++;
  checks++;
  if (!gpu_check_same(gpu, cpu, img, p, name))
    failures++;
}

typedef struct {
  GpucclContext *gpu, *cpu;
} Contexts;

static void check_image(const SegMap *m, const GpucclImage *img, size_t k,
                        int conn, const SegExpect *e, void *user)
{
  GpucclContext *gpu = ((Contexts *)user)->gpu, *cpu = ((Contexts *)user)->cpu;
  GpucclParams p;
  seg_params(&p, conn);
  p.algorithm =
      k % 2 ? GPUCCL_ALGORITHM_STAVA_BENES : GPUCCL_ALGORITHM_DEFAULT;
  check(gpu, cpu, e, m, img, &p, "labels");
  seg_params_filtered(&p, k);
  check(gpu, cpu, e, m, img, &p, "table, filtered");
}

/* Every CUDA algorithm but Stava-Benes refuses segments mode. */
static void check_refusals(GpucclContext *gpu)
{
  SegMap *m = seg_map_checker(40, 40, 2, 1, 2);
  GpucclImage img = seg_image(m, GPUCCL_PIXEL_U8, 0);
  for (int a = GPUCCL_ALGORITHM_HA4; a <= GPUCCL_ALGORITHM_LAST; a++) {
    if (a == GPUCCL_ALGORITHM_STAVA_BENES)
      continue;
    GpucclParams p;
    gpuccl_params_init(&p);
    p.mode = GPUCCL_MODE_SEGMENTS;
    p.algorithm = (GpucclAlgorithm)a;
    GpucclResult r;
    GpucclError err = {0};
    checks++;
    GpucclStatus st = gpuccl_process(gpu, &img, &p, &r, &err);
    if (st != GPUCCL_ERROR_UNSUPPORTED || !strstr(err.message, "STAVA_BENES") ||
        r.n_components != 0 || r.blobs) {
      printf("FAIL algorithm %d in segments mode: %s (%s), expected "
             "unsupported naming STAVA_BENES and an empty result\n",
             a, gpuccl_status_name(st), err.message);
      failures++;
    }
  }
  seg_image_free(&img);
  seg_map_free(m);
}

/* Binary frames after segments frames on the same context: identical to
 * the CPU, value 1 in every blob. */
static void check_binary_after(GpucclContext *gpu, GpucclContext *cpu)
{
  SegMap *m = seg_map_blocks(300, 200, 3, 5, 30, 255, 31);
  GpucclImage img = seg_image(m, GPUCCL_PIXEL_U8, 1);
  const GpucclAlgorithm algs[] = {GPUCCL_ALGORITHM_DEFAULT,
                                  GPUCCL_ALGORITHM_STAVA_BENES};
  for (size_t a = 0; a < 2; a++) {
    GpucclParams p;
    gpuccl_params_init(&p);
    p.threshold = 100;
    p.algorithm = algs[a];
    p.want_labels = true;
    checks++;
    if (!gpu_check_same(gpu, cpu, &img, &p, "binary after segments"))
      failures++;
    GpucclResult r;
    checks++;
    bool ok = gpuccl_process(gpu, &img, &p, &r, NULL) == GPUCCL_OK &&
              r.n_blobs > 0 && r.values == NULL;
    if (!ok) {
      printf("FAIL binary mode on CUDA: values returned\n");
      failures++;
    }
  }
  seg_image_free(&img);
  seg_map_free(m);
}

int main(int argc, char **argv)
{
  bool reduced = argc > 1 && !strcmp(argv[1], "--reduced");
  if (argc > 2 || (argc == 2 && !reduced)) {
    printf("usage: %s [--reduced]\n", argv[0]);
    return 2;
  }
  GpucclContext *cpu = gpu_check_cpu_context();
  GpucclContext *gpu = gpu_check_context(); /* exit 77 without a GPU */
  Contexts ctx = {gpu, cpu};
  const size_t maps =
      seg_each_image(reduced ? 300 * 300 : 0, check_image, &ctx, &failures);
  check_refusals(gpu);
  check_binary_after(gpu, cpu);
  printf("%s: %zu maps, %d checks, %d failures\n", failures ? "FAIL" : "PASS",
         maps, checks, failures);
  gpuccl_context_free(gpu);
  gpuccl_context_free(cpu);
  return failures ? 1 : 0;
}
