/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation fused into tile labeling: one thread reads the 32 samples of
 * one bitmask word and returns their foreground bits (bit i = column x + i).
 * No binary image is ever stored. Pixels outside the image are background,
 * so partial tiles are masked, not padded. */
#ifndef GPUCCL_TILE_SAMPLES_CUH
#define GPUCCL_TILE_SAMPLES_CUH

#include "tile_common.cuh"

namespace tile {

__device__ __forceinline__ int threshold_of(const Image &im)
{
  return im.d_threshold ? *im.d_threshold : im.threshold;
}

/* Foreground bits of four 8-bit samples packed in v, shifted to `at`. */
__device__ __forceinline__ uint32_t bits_of_bytes(uint32_t v, unsigned thr,
                                                  bool invert, int at)
{
  uint32_t m = 0;
#pragma unroll
  for (int i = 0; i < 4; i++)
    m |= (uint32_t)((((v >> (8 * i)) & 0xffu) > thr) != invert) << i;
  return m << at;
}

template <GpucclPixelFormat FMT>
__device__ __forceinline__ unsigned sample_at(const Image &im,
                                              const uint8_t *row, int x)
{
  if (FMT == GPUCCL_PIXEL_U8)
    return row[x];
  if (FMT == GPUCCL_PIXEL_U16)
    return reinterpret_cast<const uint16_t *>(row)[x];
  const uint8_t *p = row + 4 * (size_t)x;
  if (im.luma)
    return gpuccl_luma601(p[im.off_r], p[im.off_g], p[im.off_b]);
  return p[im.channel_offset];
}

/* The foreground bits of pixels x .. x + 31 of row y. U8 words inside the
 * image on 16-byte boundaries take two vector loads; the rest (image edge,
 * odd strides, 16-bit and packed samples) go sample by sample. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ uint32_t load_word(const Image &im, unsigned thr,
                                              int x, int y)
{
  if (y >= im.height || x >= im.width)
    return 0;
  const uint8_t *row = im.data + (size_t)y * im.stride;
  uint32_t m = 0;
  if (FMT == GPUCCL_PIXEL_U8 && x + 32 <= im.width &&
      ((reinterpret_cast<uintptr_t>(row) + (uintptr_t)x) & 15) == 0) {
    const uint4 *p = reinterpret_cast<const uint4 *>(row + x);
    const uint4 a = __ldg(p), b = __ldg(p + 1);
    m = bits_of_bytes(a.x, thr, im.invert, 0) |
        bits_of_bytes(a.y, thr, im.invert, 4) |
        bits_of_bytes(a.z, thr, im.invert, 8) |
        bits_of_bytes(a.w, thr, im.invert, 12) |
        bits_of_bytes(b.x, thr, im.invert, 16) |
        bits_of_bytes(b.y, thr, im.invert, 20) |
        bits_of_bytes(b.z, thr, im.invert, 24) |
        bits_of_bytes(b.w, thr, im.invert, 28);
    return m;
  }
  const int n = min(32, im.width - x);
  for (int i = 0; i < n; i++)
    m |= (uint32_t)((sample_at<FMT>(im, row, x + i) > thr) != im.invert) << i;
  return m;
}

} /* namespace tile */

#endif /* GPUCCL_TILE_SAMPLES_CUH */
