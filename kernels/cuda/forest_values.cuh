/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pixel values for the pixel-forest algorithms that compare neighbours
 * (Stava and Benes, and the adapter of forest_to_segments.cu), so one code
 * path serves both modes (gpuccl.h, GpucclMode): two pixels connect iff
 * their values are equal and non-zero.
 *
 *  - binary mode: the value is the foreground bit (1 or 0) of the bitmask
 *    image;
 *  - segments mode (f.cuts set): the raw sample, U8 and U16 as they are,
 *    PACKED4 as the whole colour 0xRRGGBB (black is background). */
#ifndef GPUCCL_FOREST_VALUES_CUH
#define GPUCCL_FOREST_VALUES_CUH

#include "block_mask.cuh"

/* The segments-mode value of pixel (x, y), inside the image (caller checks;
 * the format branch is uniform over a launch). */
__device__ __forceinline__ uint32_t forest_sample_value(const Ha4Frame &f,
                                                        int x, int y)
{
  const uint8_t *row = f.image + (size_t)y * f.stride;
  switch (f.format) {
  case GPUCCL_PIXEL_U16:
    return reinterpret_cast<const uint16_t *>(row)[x];
  case GPUCCL_PIXEL_PACKED4: {
    const uint8_t *p = row + 4 * (size_t)x;
    return (uint32_t)p[f.off_r] << 16 | (uint32_t)p[f.off_g] << 8 |
           p[f.off_b];
  }
  default:
    return row[x];
  }
}

/* The value of pixel (x, y) in either mode; 0 outside the image. */
__device__ __forceinline__ uint32_t forest_value(const Ha4Frame &f, int x,
                                                 int y)
{
  if (!f.cuts)
    return pixel_fg(f, x, y);
  if (x < 0 || y < 0 || x >= f.width || y >= f.height)
    return 0;
  return forest_sample_value(f, x, y);
}

#endif /* GPUCCL_FOREST_VALUES_CUH */
