/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend against the CPU backend on the whole test corpus: labels
 * and blob table identical, 4- and 8-connectivity, both HA4 variants (32
 * and 64 pixels per warp row), labels on and off; then the binarisation
 * options (U16, PACKED4 luma and channels, invert, Otsu) and the blob
 * filters on a sample of it. The CPU backend is itself checked against
 * Leptonica and OpenCV (tests/oracle).
 *
 * Usage: test-gpu-corpus [--reduced]   (--reduced: every 9th image up to
 * 200 x 200, for compute-sanitizer). Exits 77 without a usable GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "gpu_check.h"

static int failures, checks;

static void check(GpucclContext *gpu, GpucclContext *cpu,
                  const GpucclImage *img, const GpucclParams *p,
                  const char *image_name, const char *variant)
{
  char name[256];
  snprintf(name, sizeof name, "%s [%s]", image_name, variant);
  checks++;
  if (!gpu_check_same(gpu, cpu, img, p, name))
    failures++;
}

/* The corpus image as U16 and PACKED4 frames (gpu_check.h) under every
 * binarisation option, and the blob filters. */
static void variants(GpucclContext *gpu, GpucclContext *cpu,
                     const CorpusImage *ci, size_t index)
{
  GpuCheckWide wide;
  gpu_check_wide_new(&wide, ci->data, ci->width, ci->height, ci->stride,
                     (unsigned)index);
  const GpucclImage u8 = wide.u8, u16 = wide.u16, p4 = wide.packed4;
  GpucclParams p;
  gpuccl_params_init(&p);
  p.want_labels = true;
  p.connectivity = index % 2 ? 4 : 8;

  p.threshold = 0x7fff;
  check(gpu, cpu, &u16, &p, ci->name, "U16 t=32767");
  p.invert = true;
  check(gpu, cpu, &u16, &p, ci->name, "U16 inverted");
  p.invert = false;
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  check(gpu, cpu, &u16, &p, ci->name, "U16 Otsu");
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE;

  p.threshold = 100;
  p.channel = GPUCCL_CHANNEL_LUMA;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 luma");
  p.channel = GPUCCL_CHANNEL_RED;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 red");
  p.channel = GPUCCL_CHANNEL_GREEN;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 green");
  p.channel = GPUCCL_CHANNEL_BLUE;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 blue");
  p.channel = GPUCCL_CHANNEL_LUMA;
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 luma Otsu");

  /* U8 with grey junk so Otsu has something to split. */
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE;
  p.channel = GPUCCL_CHANNEL_GREEN;
  p.threshold = 149;
  p.invert = true;
  check(gpu, cpu, &p4, &p, ci->name, "PACKED4 green inverted");
  p.invert = false;

  p.threshold = 127;
  p.want_labels = false;
  p.min_area = 3;
  check(gpu, cpu, &u8, &p, ci->name, "min_area 3");
  p.max_area = 40;
  check(gpu, cpu, &u8, &p, ci->name, "area 3..40");
  p.max_blobs = 5;
  check(gpu, cpu, &u8, &p, ci->name, "area 3..40, 5 largest");
  p.min_area = 0;
  p.max_area = 0;
  p.max_blobs = 1;
  p.algorithm = GPUCCL_ALGORITHM_HA4_64;
  check(gpu, cpu, &u8, &p, ci->name, "largest blob, HA4-64");
  gpu_check_wide_free(&wide);
}

int main(int argc, char **argv)
{
  const bool reduced = argc > 1 && strcmp(argv[1], "--reduced") == 0;
  GpucclContext *gpu = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  printf("device: %s\n", gpuccl_context_device_name(gpu));
  const size_t n = corpus_size();
  size_t used = 0, unavailable = 0;
  for (size_t i = 0; i < n; i++) {
    if (reduced && i % 9)
      continue;
    CorpusImage ci;
    int rc = corpus_image(i, &ci);
    if (rc > 0) {
      unavailable++;
      continue;
    }
    if (rc < 0) {
      printf("FAIL: corpus image %zu could not be generated\n", i);
      failures++;
      continue;
    }
    if (reduced && (size_t)ci.width * ci.height > 200 * 200) {
      corpus_image_free(&ci);
      continue;
    }
    used++;
    GpucclImage img = {ci.data, ci.width, ci.height, ci.stride,
                       GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclParams p;
    gpuccl_params_init(&p);
    static const struct {
      int conn;
      GpucclAlgorithm alg;
      const char *name;
    } runs[] = {
        {4, GPUCCL_ALGORITHM_HA4, "4-conn HA4"},
        {8, GPUCCL_ALGORITHM_HA4, "8-conn HA4"},
        {4, GPUCCL_ALGORITHM_HA4_64, "4-conn HA4-64"},
        {8, GPUCCL_ALGORITHM_HA4_64, "8-conn HA4-64"},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
      p.connectivity = runs[r].conn;
      p.algorithm = runs[r].alg;
      p.want_labels = true;
      check(gpu, cpu, &img, &p, ci.name, runs[r].name);
    }
    /* Default algorithm, table only: the path without a label image. */
    p.algorithm = GPUCCL_ALGORITHM_DEFAULT;
    p.want_labels = false;
    check(gpu, cpu, &img, &p, ci.name, "8-conn default, no labels");
    if (i % 7 == 0)
      variants(gpu, cpu, &ci, i);
    corpus_image_free(&ci);
    if (failures > 20) {
      printf("too many failures, stopping\n");
      break;
    }
  }
  printf("%s: %zu images (%zu unavailable), %d checks, %d failures\n",
         failures ? "FAIL" : "PASS", used, unavailable, checks, failures);
  gpuccl_context_free(gpu);
  gpuccl_context_free(cpu);
  return failures ? 1 : 0;
}
