/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation by motion on the CPU: each sample against its pixel of the
 * background model (motion.h), the model learned in the same pass over the
 * row, with SSE2: 8-bit samples 16 pixels at a time (PACKED4 rows first
 * made 8-bit samples, 64 at a time: rows_cpu.c) against a uint16_t model
 * or a previous-frame one of bytes, U16 samples 4 at a time against a
 * uint32_t one or 8 at a time against the previous frame's; rows' tails
 * one pixel at a time, the sample read as sample_at reads it. */
#include "cpu.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* 16 U8 pixels against their uint16_t model values, 8 to a vector, as
 * motion.h computes them one by one: their foreground bits (bit i = pixel
 * i, before invert and warm-up) and the model learned. The step is
 * computed on |d|, the same floor as gpuccl_motion_learn's: the high half of
 * |d| * rate (mulhi) plus the rounding carry out of the low half (mullo):
 * + 32768 above the model, + 32767 below. rate < 65536 here (1: copied). */
static unsigned motion16_u8(const uint8_t *samples, uint16_t *model,
                            const GpucclMotion *m, __m128i thr, __m128i rate)
{
  const __m128i zero = _mm_setzero_si128();
  const __m128i v = _mm_loadu_si128((const __m128i *)samples);
  const __m128i s[2] = {_mm_unpacklo_epi8(v, zero),
                        _mm_unpackhi_epi8(v, zero)};
  __m128i over[2];
  for (int h = 0; h < 2; h++) {
    __m128i *q = (__m128i *)(model + 8 * h);
    const __m128i b = _mm_loadu_si128(q);
    const __m128i level =
        _mm_srli_epi16(_mm_add_epi16(b, _mm_set1_epi16(128)), 8);
    const __m128i d = m->fresh ? zero
                               : _mm_or_si128(_mm_subs_epu16(s[h], level),
                                              _mm_subs_epu16(level, s[h]));
    over[h] = _mm_cmpgt_epi16(d, thr); /* d, thr <= 255: signed is fine */
    const __m128i target = _mm_slli_epi16(s[h], 8);
    __m128i nb = target;
    if (m->rate < GPUCCL_MOTION_RATE_ONE) {
      const __m128i up = _mm_subs_epu16(target, b);
      const __m128i down = _mm_subs_epu16(b, target);
      const __m128i up_step =
          _mm_add_epi16(_mm_mulhi_epu16(up, rate),
                        _mm_srli_epi16(_mm_mullo_epi16(up, rate), 15));
      /* carry of + 32767: the low half above 32768, as a signed compare
       * with the top bit flipped (-1 where it carries) */
      const __m128i low = _mm_xor_si128(_mm_mullo_epi16(down, rate),
                                        _mm_set1_epi16((short)0x8000));
      const __m128i down_step = _mm_sub_epi16(_mm_mulhi_epu16(down, rate),
                                              _mm_cmpgt_epi16(low, zero));
      nb = _mm_sub_epi16(_mm_add_epi16(b, up_step), down_step);
    }
    if (m->selective) /* learn where the pixel matches: not over */
      nb = _mm_or_si128(_mm_and_si128(over[h], b),
                        _mm_andnot_si128(over[h], nb));
    _mm_storeu_si128(q, nb);
  }
  return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(over[0], over[1]));
}

/* 16 8-bit pixels against a previous-frame model (motion.h, `previous`:
 * rate 1, not selective): D = |s - p| byte by byte, the samples stored as
 * the model. thr8: the threshold with its top bit flipped, in bytes. */
static unsigned motion16_previous(const uint8_t *samples, uint8_t *model,
                                  const GpucclMotion *m, __m128i thr8)
{
  const __m128i s = _mm_loadu_si128((const __m128i *)samples);
  unsigned over = 0;
  if (!m->fresh) {
    const __m128i p = _mm_loadu_si128((const __m128i *)model);
    const __m128i d = _mm_or_si128(_mm_subs_epu8(s, p), _mm_subs_epu8(p, s));
    const __m128i flip = _mm_set1_epi8((char)0x80);
    over = (unsigned)_mm_movemask_epi8(
        _mm_cmpgt_epi8(_mm_xor_si128(d, flip), thr8));
  }
  _mm_storeu_si128((__m128i *)model, s);
  return over;
}

/* The foreground bits of 64 8-bit samples at x of row y, before invert
 * and warm-up. */
static uint64_t motion64_bytes(const uint8_t *samples, int y, int x,
                               int width, const GpucclMotion *m,
                               unsigned threshold)
{
  const size_t at = (size_t)y * width + x;
  uint64_t word = 0;
  if (m->previous) {
    const __m128i thr8 = _mm_set1_epi8((char)(threshold ^ 0x80));
    for (int k = 0; k < 4; k++)
      word |= (uint64_t)motion16_previous(samples + 16 * k,
                                          (uint8_t *)m->model + at + 16 * k,
                                          m, thr8)
              << (16 * k);
    return word;
  }
  const __m128i thr = _mm_set1_epi16((short)threshold);
  const __m128i rate = _mm_set1_epi16((short)(uint16_t)m->rate);
  for (int k = 0; k < 4; k++)
    word |= (uint64_t)motion16_u8(samples + 16 * k,
                                  (uint16_t *)m->model + at + 16 * k, m, thr,
                                  rate)
            << (16 * k);
  return word;
}

/* (a * rate + round) >> 16 in each 32-bit lane (a < 2^32, rate < 2^16,
 * round < 2^16: the product needs 64 bits, two lanes per multiply). */
static __m128i scaled_step(__m128i a, __m128i rate, __m128i round)
{
  const __m128i low32 = _mm_set1_epi64x(0xffffffff);
  const __m128i even = _mm_srli_epi64(
      _mm_add_epi64(_mm_mul_epu32(a, rate), _mm_and_si128(round, low32)), 16);
  const __m128i odd = _mm_srli_epi64(
      _mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), rate),
                    _mm_srli_epi64(round, 32)),
      16);
  return _mm_or_si128(_mm_and_si128(even, low32), _mm_slli_epi64(odd, 32));
}

/* 4 U16 pixels against their uint32_t model values (16 fraction bits), as
 * motion.h computes them: their foreground bits (bit i = pixel i, before
 * invert and warm-up) and the model learned. Unsigned 32-bit compares as
 * signed ones with the top bit flipped; the step on |target - B| as
 * gpuccl_motion_learn does for U16, + 32768 above the model, + 32767
 * below. */
static unsigned motion4_u16(const uint8_t *samples, uint32_t *model,
                            const GpucclMotion *m, __m128i thr, __m128i rate)
{
  const __m128i zero = _mm_setzero_si128();
  const __m128i top = _mm_set1_epi32((int)0x80000000u);
  const __m128i s =
      _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)samples), zero);
  const __m128i b = _mm_loadu_si128((const __m128i *)model);
  const __m128i level =
      _mm_srli_epi32(_mm_add_epi32(b, _mm_set1_epi32(32768)), 16);
  const __m128i diff = _mm_sub_epi32(s, level);
  const __m128i sign = _mm_srai_epi32(diff, 31);
  const __m128i d = m->fresh ? zero
                             : _mm_sub_epi32(_mm_xor_si128(diff, sign), sign);
  const __m128i over = _mm_cmpgt_epi32(d, thr); /* both < 2^16 */
  const __m128i target = _mm_slli_epi32(s, 16);
  __m128i nb = target;
  if (m->rate < GPUCCL_MOTION_RATE_ONE) {
    /* below: all ones where target < B */
    const __m128i below = _mm_cmpgt_epi32(_mm_xor_si128(b, top),
                                          _mm_xor_si128(target, top));
    const __m128i gap = _mm_sub_epi32(target, b); /* target - B mod 2^32 */
    const __m128i a = _mm_sub_epi32(_mm_xor_si128(gap, below), below);
    const __m128i step = scaled_step(
        a, rate, _mm_add_epi32(_mm_set1_epi32(32768), below));
    nb = _mm_add_epi32(b, _mm_sub_epi32(_mm_xor_si128(step, below), below));
  }
  if (m->selective) /* learn where the pixel matches: not over */
    nb = _mm_or_si128(_mm_and_si128(over, b), _mm_andnot_si128(over, nb));
  _mm_storeu_si128((__m128i *)model, nb);
  return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(over));
}

/* 8 U16 pixels against a previous-frame model (motion.h, `previous`): D =
 * |s - p| lane by lane, D > thr where D - thr does not saturate to 0, the
 * samples stored as the model. */
static unsigned motion8_u16_previous(const uint8_t *samples, uint16_t *model,
                                     const GpucclMotion *m, __m128i thr)
{
  const __m128i s = _mm_loadu_si128((const __m128i *)samples);
  unsigned over = 0;
  if (!m->fresh) {
    const __m128i p = _mm_loadu_si128((const __m128i *)model);
    const __m128i d = _mm_or_si128(_mm_subs_epu16(s, p), _mm_subs_epu16(p, s));
    const __m128i zero = _mm_setzero_si128();
    const __m128i at_most = _mm_cmpeq_epi16(_mm_subs_epu16(d, thr), zero);
    over = ~(unsigned)_mm_movemask_epi8(_mm_packs_epi16(at_most, zero)) &
           0xffu;
  }
  _mm_storeu_si128((__m128i *)model, s);
  return over;
}

/* The foreground bits of 64 U16 samples at x of row y, before invert and
 * warm-up. */
static uint64_t motion64_u16(const uint8_t *row, int y, int x, int width,
                             const GpucclMotion *m, unsigned threshold)
{
  if (m->previous) {
    uint16_t *model = (uint16_t *)m->model + (size_t)y * width + x;
    const __m128i thr =
        _mm_set1_epi16((short)(uint16_t)(threshold < 65535u ? threshold
                                                            : 65535u));
    uint64_t word = 0;
    for (int k = 0; k < 8; k++)
      word |= (uint64_t)motion8_u16_previous(row + 2 * ((size_t)x + 8 * k),
                                             model + 8 * k, m, thr)
              << (8 * k);
    return word;
  }
  uint32_t *model = (uint32_t *)m->model + (size_t)y * width + x;
  const __m128i thr = _mm_set1_epi32((int)threshold);
  const __m128i rate = _mm_set1_epi32((int)m->rate);
  uint64_t word = 0;
  for (int k = 0; k < 16; k++)
    word |= (uint64_t)motion4_u16(row + 2 * ((size_t)x + 4 * k),
                                  model + 4 * k, m, thr, rate)
            << (4 * k);
  return word;
}
#endif

/* Bits of pixels [x, x + n) (n <= 64) of row y, one at a time. */
static uint64_t motion_word_scalar(const uint8_t *row, int y, int x, int n,
                                   int width, const Binarizer *b)
{
  const GpucclMotion *m = b->motion;
  const bool wide = b->format == GPUCCL_PIXEL_U16;
  const unsigned shift = gpuccl_motion_shift(wide);
  uint64_t word = 0;
  for (int i = 0; i < n; i++) {
    const size_t at = (size_t)y * width + x + i;
    uint32_t v = gpuccl_motion_model_at(m, at, wide);
    word |= (uint64_t)gpuccl_motion_pixel(sample_at(row, x + i, b), &v, m,
                                          (unsigned)b->threshold, b->invert,
                                          shift)
            << i;
    gpuccl_motion_model_set(m, at, wide, v);
  }
  return word;
}

void gpuccl_cpu_motion_bits(const uint8_t *row, int y, int width,
                            const Binarizer *b, uint64_t *bits)
{
  const GpucclMotion *m = b->motion;
  for (int x = 0, w = 0; x < width; x += 64, w++) {
    const int n = width - x < 64 ? width - x : 64;
#if defined(__SSE2__)
    if (n == 64) {
      uint64_t word;
      if (b->format == GPUCCL_PIXEL_U16) {
        word = motion64_u16(row, y, x, width, m, (unsigned)b->threshold);
      } else {
        uint8_t packed[64];
        const uint8_t *samples = row + x;
        if (b->format == GPUCCL_PIXEL_PACKED4) {
          gpuccl_cpu_packed4_samples(row + 4 * (size_t)x, b, packed);
          samples = packed;
        }
        word = motion64_bytes(samples, y, x, width, m, (unsigned)b->threshold);
      }
      bits[w] = m->emit ? (b->invert ? ~word : word) : 0;
      continue;
    }
#endif
    bits[w] = motion_word_scalar(row, y, x, n, width, b);
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
      const uint32_t v = gpuccl_motion_model_at(b->motion, i, wide);
      const unsigned d =
          gpuccl_motion_frame_diff(sample_at(row, (int)x, b), v, b->motion,
                                   shift);
      hist[wide ? d >> 8 : d]++; /* U16: the high byte, as gpuccl.h says */
    }
  }
}
