/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation fused into tile labeling: one thread reads the 32 samples of
 * one bitmask word and returns their foreground bits (bit i = column x + i).
 * No binary image is ever stored. Pixels outside the image are background,
 * so partial tiles are masked, not padded. */
#ifndef GPUCCL_TILE_SAMPLES_CUH
#define GPUCCL_TILE_SAMPLES_CUH

#include "motion_layout.cuh"
#include "tile_common.cuh"

namespace tile {

__device__ __forceinline__ int threshold_of(const Image &im)
{
  return im.d_threshold ? *im.d_threshold : im.threshold;
}

/* Whether each of four 8-bit samples packed in v is above thr (or <= with
 * invert), as the top bit of its byte, without a comparison per sample: a
 * sample is above thr exactly when adding 255 - thr (`above`, in every
 * byte) carries out of its byte. The low seven bits of each byte are added
 * apart so that no carry crosses bytes. */
__device__ __forceinline__ uint32_t carries_of_bytes(uint32_t v,
                                                     uint32_t above,
                                                     uint32_t flip)
{
  const uint32_t low = (v & 0x7f7f7f7fu) + (above & 0x7f7f7f7fu);
  return (((v & above) | ((v | above) & low)) ^ flip) & 0x80808080u;
}

/* Carries (bits 7, 15, 23, 31) as bits 0..3: one multiply moves them to
 * 21..24. */
__device__ __forceinline__ uint32_t bits_of_carries(uint32_t carries)
{
  return ((carries >> 7) * 0x00204081u) >> 21 & 0xfu;
}

/* The same as bits 0..3 of the samples. */
__device__ __forceinline__ uint32_t bits_of_bytes(uint32_t v, uint32_t above,
                                                  uint32_t flip)
{
  return bits_of_carries(carries_of_bytes(v, above, flip));
}

/* `above` for a threshold of 8-bit samples: 255 - thr in every byte (none
 * above 255: 0). */
__device__ __forceinline__ uint32_t bytes_above(unsigned thr)
{
  return 0x01010101u * (255u - min(thr, 255u));
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

/* Difference mode of 8-bit samples on 16-byte boundaries (the model
 * `previous`: last frame's samples, a byte each; rate 1, not selective):
 * D = |s - previous| four bytes at a time, D > thr by the carry trick of
 * bits_of_bytes, and the samples themselves are the learned model. The
 * same bits and model as gpuccl_motion_pixel, a pixel at a time. */
__device__ __forceinline__ uint32_t previous_word_u8(const Image &im,
                                                     unsigned thr,
                                                     const uint4 *samples,
                                                     uint4 *model)
{
  const uint4 a = __ldg(samples), b = __ldg(samples + 1);
  const uint4 pa = model[0], pb = model[1];
  if (im.motion_learns) {
    model[0] = a;
    model[1] = b;
  }
  if (!im.motion.emit)
    return 0;
  const uint32_t s[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  const uint32_t v[8] = {pa.x, pa.y, pa.z, pa.w, pb.x, pb.y, pb.z, pb.w};
  const uint32_t above = bytes_above(thr);
  const uint32_t flip = im.invert ? 0x80808080u : 0u;
  uint32_t m = 0;
#pragma unroll
  for (int j = 0; j < 8; j++) {
    const uint32_t d = im.motion.fresh ? 0u : __vabsdiffu4(s[j], v[j]);
    m |= bits_of_bytes(d, above, flip) << (4 * j);
  }
  return m;
}

/* Bits 0 and 1: the two 16-bit lanes of a __vcmpgtu2 result. */
__device__ __forceinline__ uint32_t bits_of_halves(uint32_t over)
{
  return (over & 1u) | ((over >> 15) & 2u);
}

/* A threshold for __vcmpgtu2: thr in both halves (none is above 65535). */
__device__ __forceinline__ uint32_t halves_of(unsigned thr)
{
  return 0x00010001u * min(thr, 65535u);
}

/* Bits of 32 16-bit values, four 16-byte vectors in a row: bit i is value
 * i > thr, compared two at a time (thr2: halves_of). */
__device__ __forceinline__ uint32_t bits_of_u16(const uint4 (&v)[4],
                                                uint32_t thr2)
{
  uint32_t m = 0;
#pragma unroll
  for (int c = 0; c < 4; c++) {
    const uint32_t q[4] = {v[c].x, v[c].y, v[c].z, v[c].w};
#pragma unroll
    for (int j = 0; j < 4; j++)
      m |= bits_of_halves(__vcmpgtu2(q[j], thr2)) << (8 * c + 2 * j);
  }
  return m;
}

/* The same for U16 samples against their previous frame's (two bytes
 * each): D = |s - previous| two samples at a time, D > thr lane by lane. */
__device__ __forceinline__ uint32_t previous_word_u16(const Image &im,
                                                      unsigned thr,
                                                      const uint4 *samples,
                                                      uint4 *model)
{
  uint4 s[4], v[4];
#pragma unroll
  for (int c = 0; c < 4; c++) {
    s[c] = __ldg(samples + c);
    v[c] = model[c];
  }
  if (im.motion_learns) {
#pragma unroll
    for (int c = 0; c < 4; c++)
      model[c] = s[c];
  }
  if (!im.motion.emit)
    return 0;
  uint4 d[4] = {}; /* a fresh model's first frame: D = 0 */
  if (!im.motion.fresh) {
#pragma unroll
    for (int c = 0; c < 4; c++)
      d[c] = make_uint4(__vabsdiffu2(s[c].x, v[c].x),
                        __vabsdiffu2(s[c].y, v[c].y),
                        __vabsdiffu2(s[c].z, v[c].z),
                        __vabsdiffu2(s[c].w, v[c].w));
  }
  const uint32_t m = bits_of_u16(d, halves_of(thr));
  return im.invert ? ~m : m;
}

/* prmt in its sign mode (selector nibbles 8..11: byte 0..3's top bit in
 * every bit of the result's byte), which __byte_perm does not offer. */
template <unsigned SELECTOR>
__device__ __forceinline__ uint32_t byte_signs(uint32_t x)
{
  uint32_t r;
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "n"(SELECTOR));
  return r;
}

/* Background mode of four 8-bit samples (byte k of s: pixel k) against
 * their uint16_t model values (b01: pixels 0 and 1, the low half first;
 * b23): the pixels whose D is above the threshold (bits 0..3; `above` as
 * bits_of_bytes takes it), and their model learned; the same bits and
 * model as gpuccl_motion_pixel. What can go four to a word does:
 *   - the levels round(B) are the high bytes of B + 128 (B <= 255 << 8: no
 *     carry out of a half), D their distances to the samples, D > thr
 *     their carries;
 *   - a pixel not learned (selective) keeps its half of b01 or b23, by a
 *     mask of its carry spread over the half (byte_signs).
 * The step takes a pixel at a time its multiply; its target s << 8 is a
 * byte placed by byte_perm. */
__device__ __forceinline__ uint32_t background4_u8(const GpucclMotion &m,
                                                   uint32_t above, uint32_t s,
                                                   uint32_t &b01,
                                                   uint32_t &b23)
{
  const uint32_t level =
      __byte_perm(b01 + 0x00800080u, b23 + 0x00800080u, 0x7531);
  const uint32_t over =
      m.fresh ? 0u : carries_of_bytes(__vabsdiffu4(s, level), above, 0u);
  uint32_t l01, l23; /* learned */
  if (m.rate >= GPUCCL_MOTION_RATE_ONE) {
    l01 = __byte_perm(s, 0u, 0x1404); /* s << 8, a pixel a half */
    l23 = __byte_perm(s, 0u, 0x3424);
  } else {
    const uint32_t b[4] = {b01 & 0xffffu, b01 >> 16, b23 & 0xffffu,
                           b23 >> 16};
    uint32_t l[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      l[k] = gpuccl_motion_step8(__byte_perm(s, 0u, 0x4404 | k << 4), b[k],
                                 m.rate);
    l01 = __byte_perm(l[0], l[1], 0x5410);
    l23 = __byte_perm(l[2], l[3], 0x5410);
  }
  if (m.selective) {
    const uint32_t keep01 = byte_signs<0x9988>(over);
    const uint32_t keep23 = byte_signs<0xbbaa>(over);
    l01 = (b01 & keep01) | (l01 & ~keep01);
    l23 = (b23 & keep23) | (l23 & ~keep23);
  }
  b01 = l01;
  b23 = l23;
  return bits_of_carries(over);
}

/* A model of type T for samples of FMT (motion.h): B has SHIFT fraction
 * bits; a model of the samples' own type (`previous`) stores B >> SHIFT,
 * so a value read is shifted left by STORED (0 for the others). */
template <GpucclPixelFormat FMT, typename T> struct MotionModel {
  static constexpr unsigned SHIFT = FMT == GPUCCL_PIXEL_U16 ? 16u : 8u;
  static constexpr unsigned STORED =
      sizeof(T) == (FMT == GPUCCL_PIXEL_U16 ? 2u : 1u) ? SHIFT : 0u;
};

/* motion_word_of a pixel at a time: the word at the image's right edge,
 * or its model or samples off 16-byte boundaries. */
template <GpucclPixelFormat FMT, typename T>
__device__ __forceinline__ uint32_t motion_word_pixels(const Image &im,
                                                       unsigned thr,
                                                       const uint8_t *row,
                                                       int x, int y)
{
  constexpr unsigned SHIFT = MotionModel<FMT, T>::SHIFT;
  constexpr unsigned STORED = MotionModel<FMT, T>::STORED;
  T *const model = static_cast<T *>(im.motion.model);
  uint32_t m = 0;
  const int n = min(32, im.width - x);
  for (int i = 0; i < n; i++) {
    T *const v = model_chunked<T>
                     ? model + model_offset<T>(im.width, x + i, y)
                     : model + (size_t)y * im.width + x + i;
    uint32_t b = (uint32_t)*v << STORED;
    m |= (uint32_t)gpuccl_motion_pixel(sample_at<FMT>(im, row, x + i), &b,
                                       &im.motion, thr, im.invert, SHIFT)
         << i;
    if (im.motion_learns)
      *v = (T)(b >> STORED);
  }
  return m;
}

/* The foreground bits of pixels x .. x + 31 of row y (inside the image; x
 * a multiple of 32) by motion (motion.h): each sample against its model
 * value, read and (when this kernel learns) written back in the same pass,
 * 16 bytes at a time where the word lies whole in the image and its model
 * on 16-byte boundaries (motion_layout.cuh). Each thread owns its word's
 * model values: no other thread touches them. */
template <GpucclPixelFormat FMT, typename T>
__device__ __forceinline__ uint32_t motion_word_of(const Image &im,
                                                   unsigned thr,
                                                   const uint8_t *row, int x,
                                                   int y)
{
  constexpr unsigned SHIFT = MotionModel<FMT, T>::SHIFT;
  constexpr unsigned STORED = MotionModel<FMT, T>::STORED;
  /* An averaged model of 8-bit samples: four pixels a step. */
  constexpr bool BYTES4 = FMT != GPUCCL_PIXEL_U16 && sizeof(T) == 2;
  constexpr int PER = 16 / sizeof(T); /* model values per 16 bytes */
  T *const model = static_cast<T *>(im.motion.model);
  /* Row-major offsets written out here and below, not through
   * model_offset (the same values): so ptxas keeps the PACKED4 kernel at
   * 48 registers without spills; through it, 40 with spills and 4K RGBA
   * background frames 9 % slower (H100). */
  T *const word = model_chunked<T> ? model + model_offset<T>(im.width, x, y)
                                   : model + (size_t)y * im.width + x;
  uint32_t m = 0;
  if (x + 32 <= im.width &&
      (model_chunked<T> || (reinterpret_cast<uintptr_t>(word) & 15) == 0)) {
    /* Samples on a 16-byte boundary: vector loads (as the threshold path
     * reads them), four U8 samples a word of s. The averaged model of U16
     * samples reads them one by one: its model takes 32 registers, and
     * its samples 16 more would halve the kernel's blocks per SM. */
    const uint8_t *const first = row + x * (FMT == GPUCCL_PIXEL_U16 ? 2 : 1);
    const bool vector =
        (FMT == GPUCCL_PIXEL_U8 ||
         (FMT == GPUCCL_PIXEL_U16 && sizeof(T) == 2)) &&
        (reinterpret_cast<uintptr_t>(first) & 15) == 0;
    if constexpr (FMT == GPUCCL_PIXEL_U8 && sizeof(T) == 1)
      if (vector)
        return previous_word_u8(im, thr,
                                reinterpret_cast<const uint4 *>(first),
                                reinterpret_cast<uint4 *>(word));
    if constexpr (FMT == GPUCCL_PIXEL_U16 && sizeof(T) == 2)
      if (vector)
        return previous_word_u16(im, thr,
                                 reinterpret_cast<const uint4 *>(first),
                                 reinterpret_cast<uint4 *>(word));
    uint32_t s[8] = {};
    if (FMT == GPUCCL_PIXEL_U8 && vector) {
      const uint4 *p = reinterpret_cast<const uint4 *>(first);
      const uint4 a = __ldg(p), b = __ldg(p + 1);
      s[0] = a.x, s[1] = a.y, s[2] = a.z, s[3] = a.w;
      s[4] = b.x, s[5] = b.y, s[6] = b.z, s[7] = b.w;
    } else if (BYTES4) {
#pragma unroll
      for (int i = 0; i < 32; i++)
        s[i >> 2] |= sample_at<FMT>(im, row, x + i) << 8 * (i & 3);
    }
    /* All of the word's model loaded before any of it is written back: a
     * store evicts its line from L1, and loads between stores would each
     * go to L2 (the 4-byte model of U16 samples: 8 lines' worth a warp
     * instruction). */
    constexpr int CHUNKS = 32 / PER;
    uint4 *q = reinterpret_cast<uint4 *>(word);
    const size_t step = model_chunk_step<T>(im.width);
    uint4 v4[CHUNKS];
#pragma unroll
    for (int c = 0; c < CHUNKS; c++)
      v4[c] = q[c * step];
    if constexpr (BYTES4) {
      uint32_t b[16];
      memcpy(b, v4, sizeof b);
      const uint32_t above = bytes_above(thr);
#pragma unroll
      for (int j = 0; j < 8; j++)
        m |= background4_u8(im.motion, above, s[j], b[2 * j], b[2 * j + 1])
             << 4 * j;
      memcpy(v4, b, sizeof b);
      m = im.motion.emit ? (im.invert ? ~m : m) : 0u;
    } else {
#pragma unroll
      for (int c = 0; c < CHUNKS; c++) {
        T v[PER];
        memcpy(v, &v4[c], sizeof v4[c]);
#pragma unroll
        for (int j = 0; j < PER; j++) {
          const int i = c * PER + j;
          const unsigned sample = sample_at<FMT>(im, row, x + i);
          uint32_t b = (uint32_t)v[j] << STORED;
          m |= (uint32_t)gpuccl_motion_pixel(sample, &b, &im.motion, thr,
                                             im.invert, SHIFT)
               << i;
          v[j] = (T)(b >> STORED);
        }
        memcpy(&v4[c], v, sizeof v4[c]);
      }
    }
    if (im.motion_learns) {
#pragma unroll
      for (int c = 0; c < CHUNKS; c++)
        q[c * step] = v4[c];
    }
    return m;
  }
  return motion_word_pixels<FMT, T>(im, thr, row, x, y);
}

/* motion_word_of with the model's type: a previous-frame model in the
 * samples' type (uint16_t for U16, uint8_t otherwise), else uint32_t for
 * U16 and uint16_t for 8-bit samples. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ uint32_t motion_word(const Image &im, unsigned thr,
                                                const uint8_t *row, int x,
                                                int y)
{
  if (FMT == GPUCCL_PIXEL_U16)
    return im.motion.previous
               ? motion_word_of<FMT, uint16_t>(im, thr, row, x, y)
               : motion_word_of<FMT, uint32_t>(im, thr, row, x, y);
  if (im.motion.previous)
    return motion_word_of<FMT, uint8_t>(im, thr, row, x, y);
  return motion_word_of<FMT, uint16_t>(im, thr, row, x, y);
}

/* The foreground bits of pixels x .. x + 31 of row y. U8 and U16 words
 * inside the image on 16-byte boundaries take two or four vector loads;
 * the rest (image edge, odd strides, packed samples) go sample by
 * sample. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ uint32_t threshold_word(const Image &im,
                                                   unsigned thr, int x, int y)
{
  if (y >= im.height || x >= im.width)
    return 0;
  const uint8_t *row = im.data + (size_t)y * im.stride;
  if (im.motion.model)
    return motion_word<FMT>(im, thr, row, x, y);
  uint32_t m = 0;
  if (FMT == GPUCCL_PIXEL_U8 && x + 32 <= im.width &&
      ((reinterpret_cast<uintptr_t>(row) + (uintptr_t)x) & 15) == 0) {
    const uint4 *p = reinterpret_cast<const uint4 *>(row + x);
    const uint4 a = __ldg(p), b = __ldg(p + 1);
    const uint32_t above = bytes_above(thr);
    const uint32_t flip = im.invert ? 0x80808080u : 0u;
    const uint32_t q[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
    for (int j = 0; j < 8; j++)
      m |= bits_of_bytes(q[j], above, flip) << (4 * j);
    return m;
  }
  if (FMT == GPUCCL_PIXEL_U16 && x + 32 <= im.width &&
      ((reinterpret_cast<uintptr_t>(row) + 2 * (uintptr_t)x) & 15) == 0) {
    const uint4 *p = reinterpret_cast<const uint4 *>(row + 2 * (size_t)x);
    const uint4 v[4] = {__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3)};
    m = bits_of_u16(v, halves_of(thr));
    return im.invert ? ~m : m;
  }
  const int n = min(32, im.width - x);
  for (int i = 0; i < n; i++)
    m |= (uint32_t)((sample_at<FMT>(im, row, x + i) > thr) != im.invert) << i;
  return m;
}

/* The bits of pixels x .. x + 31 of row y whose mask byte is not 0
 * (inside the image): 4 bytes at a time where the word lies whole and
 * aligned in the mask, the carry trick of bits_of_bytes counting a byte
 * as set when it is above 0. */
__device__ __forceinline__ uint32_t mask_word(const Image &im, int x, int y)
{
  const uint8_t *m = im.mask + (size_t)y * im.width + x;
  uint32_t bits = 0;
  if (x + 32 <= im.width && (reinterpret_cast<uintptr_t>(m) & 3) == 0) {
    const uint32_t *w = reinterpret_cast<const uint32_t *>(m);
#pragma unroll
    for (int j = 0; j < 8; j++)
      bits |= bits_of_bytes(__ldg(w + j), 0xffffffffu, 0u) << (4 * j);
    return bits;
  }
  const int n = min(32, im.width - x);
  for (int i = 0; i < n; i++)
    bits |= (uint32_t)(m[i] != 0) << i;
  return bits;
}

/* The foreground bits of pixels x .. x + 31 of row y: the binarisation's,
 * and with a mask only where it is not 0. */
template <GpucclPixelFormat FMT>
__device__ __forceinline__ uint32_t load_word(const Image &im, unsigned thr,
                                              int x, int y)
{
  const uint32_t bits = threshold_word<FMT>(im, thr, x, y);
  return im.mask && bits ? bits & mask_word(im, x, y) : bits;
}

} /* namespace tile */

#endif /* GPUCCL_TILE_SAMPLES_CUH */
