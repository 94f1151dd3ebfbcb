/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The samples of a fuzzed image as gpuccl.h defines them, for the targets
 * that check the library's binarisation (fuzz_gpuccl.c,
 * fuzz_background.c). */
#ifndef GPUCCL_FUZZ_SAMPLES_H
#define GPUCCL_FUZZ_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gpuccl.h>

static inline size_t bytes_per_pixel(int format)
{
  return format == GPUCCL_PIXEL_U16 ? 2 : format == GPUCCL_PIXEL_PACKED4 ? 4 : 1;
}

/* The sample the threshold applies to, as gpuccl.h defines it. */
static inline int sample_at(const GpucclImage *img, GpucclChannel channel,
                            int x, int y)
{
  const uint8_t *row = (const uint8_t *)img->data + (size_t)y * img->stride;
  switch (img->format) {
  case GPUCCL_PIXEL_U8:
    return row[x];
  case GPUCCL_PIXEL_U16: {
    uint16_t v;
    memcpy(&v, row + 2 * (size_t)x, sizeof v);
    return v;
  }
  case GPUCCL_PIXEL_PACKED4: {
    const uint8_t *p = row + 4 * (size_t)x;
    switch (channel) {
    case GPUCCL_CHANNEL_RED: return p[img->offset_r];
    case GPUCCL_CHANNEL_GREEN: return p[img->offset_g];
    case GPUCCL_CHANNEL_BLUE: return p[img->offset_b];
    case GPUCCL_CHANNEL_LUMA:
      return gpuccl_luma601(p[img->offset_r], p[img->offset_g],
                            p[img->offset_b]);
    }
  }
  }
  return 0;
}

#endif /* GPUCCL_FUZZ_SAMPLES_H */
