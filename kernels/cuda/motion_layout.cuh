/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the CUDA backend keeps a pixel's background model value
 * (motion.h). One- and two-byte values (8-bit samples, and the previous
 * frame's 16-bit ones) are row-major, as on the CPU. Four-byte values
 * (16-bit samples, averaged) are chunked: rows padded
 * to whole 32-pixel words (background.c sizes the model so), and in each
 * row chunk c (16 bytes, 4 values) of every word before chunk c + 1 of
 * any. Tile labeling's threads, one per word and consecutive words in a
 * warp, then read consecutive 16 bytes (tile_samples.cuh), where a
 * row-major model put them 128 bytes apart; two-byte values gained
 * nothing so (docs/benchmarks.md). */
#ifndef GPUCCL_MOTION_LAYOUT_CUH
#define GPUCCL_MOTION_LAYOUT_CUH

#include <cstddef>
#include <cstdint>

#include "../motion.h"

template <typename T> constexpr bool model_chunked = sizeof(T) == 4;

/* 16-byte vectors from chunk c of a word's model to chunk c + 1. */
template <typename T>
__host__ __device__ __forceinline__ size_t model_chunk_step(int width)
{
  return model_chunked<T> ? (size_t)(width + 31) / 32 : 1;
}

/* Pixel (x, y)'s value, in values of type T from the model's start. */
template <typename T>
__host__ __device__ __forceinline__ size_t model_offset(int width, int x,
                                                        int y)
{
  if (!model_chunked<T>)
    return (size_t)y * width + x;
  constexpr int PER = 16 / sizeof(T);
  const int j = x % 32;
  return (size_t)y * ((width + 31) / 32 * 32) + (size_t)(x / 32) * PER +
         (size_t)(j / PER) * model_chunk_step<T>(width) * PER + j % PER;
}

/* Pixel (x, y)'s model value as B (gpuccl_motion_model_at's, in this
 * layout). */
__device__ __forceinline__ uint32_t cuda_model_at(const GpucclMotion &m,
                                                  int width, int x, int y,
                                                  bool wide)
{
  if (m.previous)
    return wide ? (uint32_t) static_cast<const uint16_t *>(
                      m.model)[model_offset<uint16_t>(width, x, y)]
                      << 16
                : (uint32_t) static_cast<const uint8_t *>(
                      m.model)[model_offset<uint8_t>(width, x, y)]
                      << 8;
  if (wide)
    return static_cast<const uint32_t *>(m.model)[model_offset<uint32_t>(
        width, x, y)];
  return static_cast<const uint16_t *>(
      m.model)[model_offset<uint16_t>(width, x, y)];
}

#endif /* GPUCCL_MOTION_LAYOUT_CUH */
