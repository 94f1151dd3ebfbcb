/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See gpu_check.h. */
#include "gpu_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GpucclContext *gpu_check_context(void)
{
  GpucclError err = {0};
  if (!gpuccl_cuda_available(0, &err)) {
    printf("SKIP: no usable CUDA device: %s\n", err.message);
    exit(GPU_TEST_SKIP);
  }
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &err);
  if (!ctx) {
    printf("SKIP: CUDA context: %s (%s)\n", err.message,
           gpuccl_status_name(err.status));
    exit(GPU_TEST_SKIP);
  }
  return ctx;
}

GpucclContext *gpu_check_cpu_context(void)
{
  GpucclError err = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  if (!ctx) {
    printf("FAIL: CPU context: %s\n", err.message);
    exit(1);
  }
  return ctx;
}

void gpu_check_wide_new(GpuCheckWide *wide, const uint8_t *data, int width,
                        int height, size_t stride, unsigned seed)
{
  const size_t s16 = (size_t)width * 2 + 6, s32 = (size_t)width * 4 + 12;
  wide->buf16 = malloc(s16 * height);
  wide->buf32 = malloc(s32 * height);
  if (!wide->buf16 || !wide->buf32)
    abort();
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint8_t v = data[(size_t)y * stride + x];
      uint8_t junk = (uint8_t)(x * 7 + y * 13 + seed);
      uint16_t s = (uint16_t)((v << 8) | junk);
      memcpy(wide->buf16 + y * s16 + 2 * (size_t)x, &s, 2);
      uint8_t *px = wide->buf32 + y * s32 + 4 * (size_t)x;
      px[0] = v ? 200 : 40;
      px[1] = v ? (uint8_t)(150 + junk % 100) : junk % 100;
      px[2] = junk;
      px[3] = (uint8_t)~junk;
    }
  wide->u8 = (GpucclImage){data, width, height, stride, GPUCCL_PIXEL_U8,
                           0, 0, 0};
  wide->u16 = (GpucclImage){wide->buf16, width, height, s16,
                            GPUCCL_PIXEL_U16, 0, 0, 0};
  wide->packed4 = (GpucclImage){wide->buf32, width, height, s32,
                                GPUCCL_PIXEL_PACKED4, 0, 1, 2};
}

void gpu_check_wide_free(GpuCheckWide *wide)
{
  free(wide->buf16);
  free(wide->buf32);
  wide->buf16 = wide->buf32 = NULL;
}

static bool same_blob(const GpucclBlob *a, const GpucclBlob *b)
{
  return a->id == b->id && a->x0 == b->x0 && a->y0 == b->y0 &&
         a->x1 == b->x1 && a->y1 == b->y1 && a->area == b->area &&
         a->sum_x == b->sum_x && a->sum_y == b->sum_y;
}

static void print_blob(const char *who, const GpucclBlob *b)
{
  printf("  %s: id %u box (%u,%u)-(%u,%u) area %u sums %llu %llu c %.17g "
         "%.17g\n",
         who, b->id, b->x0, b->y0, b->x1, b->y1, b->area,
         (unsigned long long)b->sum_x, (unsigned long long)b->sum_y,
         gpuccl_blob_cx(b), gpuccl_blob_cy(b));
}

bool gpu_check_same(GpucclContext *gpu, GpucclContext *cpu,
                    const GpucclImage *image, const GpucclParams *params,
                    const char *name)
{
  return gpu_check_same_params(gpu, cpu, image, params, params, name);
}

bool gpu_check_same_params(GpucclContext *gpu, GpucclContext *cpu,
                           const GpucclImage *image,
                           const GpucclParams *gpu_params,
                           const GpucclParams *params, const char *name)
{
  GpucclResult rc, rg;
  GpucclError ec = {0}, eg = {0};
  GpucclStatus sc = gpuccl_process(cpu, image, params, &rc, &ec);
  GpucclStatus sg = gpuccl_process(gpu, image, gpu_params, &rg, &eg);
  if (sc != GPUCCL_OK || sg != GPUCCL_OK) {
    printf("FAIL %s: cpu %s (%s), gpu %s (%s)\n", name,
           gpuccl_status_name(sc), ec.message, gpuccl_status_name(sg),
           eg.message);
    return false;
  }
  return gpu_check_same_result(&rc, &rg, image, params->want_labels, name);
}

bool gpu_check_same_result(const GpucclResult *cpu, const GpucclResult *gpu,
                           const GpucclImage *image, bool want_labels,
                           const char *name)
{
  const GpucclResult rc = *cpu, rg = *gpu;
  const char *what = NULL;
  if (rc.n_components != rg.n_components)
    what = "component count";
  else if (rc.n_blobs != rg.n_blobs)
    what = "blob count";
  else if (rc.threshold != rg.threshold)
    what = "threshold";
  if (what) {
    printf("FAIL %s: %s: cpu %u/%zu/%d, gpu %u/%zu/%d\n", name, what,
           rc.n_components, rc.n_blobs, rc.threshold, rg.n_components,
           rg.n_blobs, rg.threshold);
    return false;
  }
  for (size_t i = 0; i < rc.n_blobs; i++)
    if (!same_blob(&rc.blobs[i], &rg.blobs[i])) {
      printf("FAIL %s: blob %zu differs\n", name, i);
      print_blob("cpu", &rc.blobs[i]);
      print_blob("gpu", &rg.blobs[i]);
      return false;
    }
  if (!rc.values != !rg.values) {
    printf("FAIL %s: values: cpu %p, gpu %p\n", name,
           (const void *)rc.values, (const void *)rg.values);
    return false;
  }
  for (size_t i = 0; rc.values && i < rc.n_blobs; i++)
    if (rc.values[i] != rg.values[i]) {
      printf("FAIL %s: blob %zu value: cpu %u, gpu %u\n", name, i,
             rc.values[i], rg.values[i]);
      return false;
    }
  if (want_labels) {
    size_t n = (size_t)image->width * image->height;
    if (!rc.labels || !rg.labels) {
      printf("FAIL %s: labels missing (cpu %p, gpu %p)\n", name,
             (const void *)rc.labels, (const void *)rg.labels);
      return false;
    }
    for (size_t i = 0; i < n; i++)
      if (rc.labels[i] != rg.labels[i]) {
        printf("FAIL %s: label at (%zu, %zu): cpu %u, gpu %u\n", name,
               i % image->width, i / image->width, rc.labels[i],
               rg.labels[i]);
        return false;
      }
  } else if (rg.labels) {
    printf("FAIL %s: labels returned without want_labels\n", name);
    return false;
  }
  return true;
}
