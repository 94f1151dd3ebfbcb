/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU backend's masks and blob intensities (gpuccl.h). A mask clears
 * foreground bits after binarisation; intensities are read over the runs
 * pass 1 kept, so no label image is written for them. */
#include "cpu.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* Bit i set when m[i] != 0, for n <= 64 bytes: 16 at a time with SSE2
 * (a compare with zero and its byte mask). */
static uint64_t nonzero_bits(const uint8_t *m, int n)
{
  uint64_t bits = 0;
  int i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(m + i));
    const unsigned zeros = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
    bits |= (uint64_t)(~zeros & 0xffffu) << i;
  }
#endif
  for (; i < n; i++)
    bits |= (uint64_t)(m[i] != 0) << i;
  return bits;
}

/* Only words with foreground read the mask: a sparse frame reads little
 * of it. */
void gpuccl_cpu_mask_bits(const Binarizer *b, int y, int width,
                          uint64_t *bits)
{
  const uint8_t *m = b->mask + (size_t)y * width;
  for (int x = 0; x < width; x += 64)
    if (bits[x >> 6]) {
      const int n = width - x < 64 ? width - x : 64;
      bits[x >> 6] &= nonzero_bits(m + x, n);
    }
}

/* Per provisional label first (a run's label is near its neighbours':
 * labels open in raster order), then folded into the components in label
 * order, in place: component parent[l] <= l, so its entry is one whose
 * own provisional sums have already moved on. */
GpucclStatus gpuccl_cpu_intensity(GpucclContext *ctx,
                                  const GpucclImage *image,
                                  const Binarizer *b, const KeptRuns *kept,
                                  const GpucclBlob *blobs, size_t n_blobs,
                                  GpucclError *error)
{
  const uint32_t n_prov = kept->n_provisional;
  GpucclBlobIntensity *acc =
      gpuccl_intensity_reserve(ctx, n_prov > 1 ? n_prov - 1 : 1, error);
  if (!acc)
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  for (int y = 0; y < image->height; y++) {
    const uint8_t *row = (const uint8_t *)image->data + y * image->stride;
    for (uint32_t r = kept->row_start[y]; r < kept->row_start[y + 1]; r++) {
      const Run *run = &kept->runs[r];
      GpucclBlobIntensity *e = &acc[run->label - 1];
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
  for (uint32_t l = 1; l < n_prov; l++) {
    const GpucclBlobIntensity v = acc[l - 1];
    GpucclBlobIntensity *c = &acc[kept->parent[l] - 1];
    acc[l - 1] = (GpucclBlobIntensity){0, UINT32_MAX, 0};
    c->sum += v.sum;
    c->min = v.min < c->min ? v.min : c->min;
    c->max = v.max > c->max ? v.max : c->max;
  }
  gpuccl_intensity_select(acc, blobs, n_blobs);
  return GPUCCL_OK;
}
