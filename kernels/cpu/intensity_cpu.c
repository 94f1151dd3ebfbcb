/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend's masks and blob intensities (gpuccl.h). A mask clears
 * foreground bits after binarisation; intensities are read over the runs
 * pass 1 kept, so no label image is written for them. */
#include "cpu.h"

GpucclStatus gpuccl_cpu_mask_copy(GpucclContext *ctx, void *dst,
                                  const GpucclImage *picture,
                                  GpucclError *error)
{
  (void)ctx;
  (void)error;
  const size_t w = (size_t)picture->width;
  for (int y = 0; y < picture->height; y++)
    memcpy((uint8_t *)dst + (size_t)y * w,
           (const uint8_t *)picture->data + (size_t)y * picture->stride, w);
  return GPUCCL_OK;
}

void gpuccl_cpu_mask_bits(const Binarizer *b, int y, int width,
                          uint64_t *bits)
{
  const uint8_t *m = b->mask + (size_t)y * width;
  for (int x = 0; x < width; x++)
    if (!m[x])
      bits[x >> 6] &= ~(1ull << (x & 63));
}

GpucclStatus gpuccl_cpu_intensity(GpucclContext *ctx,
                                  const GpucclImage *image,
                                  const Binarizer *b, const KeptRuns *kept,
                                  const GpucclBlob *blobs, size_t n_blobs,
                                  GpucclError *error)
{
  const uint32_t n = kept->n_components;
  GpucclBlobIntensity *out = gpuccl_intensity_reserve(ctx, n ? n : 1, error);
  if (!out)
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  for (int y = 0; y < image->height; y++) {
    const uint8_t *row = (const uint8_t *)image->data + y * image->stride;
    for (uint32_t r = kept->row_start[y]; r < kept->row_start[y + 1]; r++) {
      const Run *run = &kept->runs[r];
      GpucclBlobIntensity *e = &out[kept->parent[run->label] - 1];
      uint64_t sum = 0;
      uint32_t lo = e->min, hi = e->max;
      for (int x = run->start; x <= run->end; x++) {
        const uint32_t v = sample_at(row, x, b);
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      e->sum += sum;
      e->min = lo;
      e->max = hi;
    }
  }
  gpuccl_intensity_select(out, blobs, n_blobs);
  return GPUCCL_OK;
}
