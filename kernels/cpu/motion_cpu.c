/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation by motion on the CPU: each sample against its pixel of the
 * background model (motion.h), the model learned in the same pass over the
 * row. One loop per model type, the sample read as ccl_cpu.c reads it. */
#include "cpu.h"

/* Bits of pixels [x, x + n) (n <= 64) of row y, a model of type T. */
#define MOTION_WORD(T, shift)                                                  \
  do {                                                                         \
    T *model = (T *)m->model + (size_t)y * width;                              \
    for (int i = 0; i < n; i++) {                                              \
      uint32_t v = model[x + i];                                               \
      word |= (uint64_t)gpuccl_motion_pixel(sample_at(row, x + i, b), &v, m,   \
                                            threshold, b->invert, (shift))     \
              << i;                                                            \
      model[x + i] = (T)v;                                                     \
    }                                                                          \
  } while (0)

void gpuccl_cpu_motion_bits(const uint8_t *row, int y, int width,
                            const Binarizer *b, uint64_t *bits)
{
  const GpucclMotion *m = b->motion;
  const unsigned threshold = (unsigned)b->threshold;
  const bool wide = b->format == GPUCCL_PIXEL_U16;
  for (int x = 0, w = 0; x < width; x += 64, w++) {
    const int n = width - x < 64 ? width - x : 64;
    uint64_t word = 0;
    if (wide)
      MOTION_WORD(uint32_t, 16);
    else
      MOTION_WORD(uint16_t, 8);
    bits[w] = word;
  }
}

void gpuccl_cpu_motion_histogram(const GpucclImage *image, const Binarizer *b,
                                 uint32_t hist[256])
{
  const bool wide = image->format == GPUCCL_PIXEL_U16;
  const unsigned shift = gpuccl_motion_shift(wide);
  const size_t width = (size_t)image->width;
  memset(hist, 0, 256 * sizeof *hist);
  for (int y = 0; y < image->height; y++) {
    const uint8_t *row = (const uint8_t *)image->data + y * image->stride;
    for (size_t x = 0; x < width; x++) {
      const size_t i = (size_t)y * width + x;
      const uint32_t v = wide ? ((const uint32_t *)b->motion->model)[i]
                              : ((const uint16_t *)b->motion->model)[i];
      const unsigned d =
          gpuccl_motion_frame_diff(sample_at(row, (int)x, b), v, b->motion,
                                   shift);
      hist[wide ? d >> 8 : d]++; /* U16: the high byte, as gpuccl.h says */
    }
  }
}
