/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rows to foreground bits in threshold mode (by motion: motion_cpu.c):
 * U8 rows 16 pixels per SSE2 compare, U16 rows 8, PACKED4 rows by one
 * channel 16 per SSE2 step, and PACKED4 rows by their BT.601 luma in one
 * pass: luma and threshold fused, eight pixels per AVX2 step (sixteen per
 * AVX-512BW step), no branch per pixel (the per-pixel loop this replaced
 * spent ~30x the GRAY8 row's time on the same frame, bench/pipeline_bench,
 * 1080p), and no sums for a vector whose pixels are all on one side of
 * the threshold (RGB_NIBBLE below). Also the 8-bit
 * samples of PACKED4 pixels, for motion.
 *
 * The luma is gpuccl_luma601()'s fixed point, exactly:
 *   luma > t  <=>  (19595 r + 38470 g + 7471 b + 32768) >> 16 > t
 *             <=>  19595 r + 38470 g + 7471 b > ((t + 1) << 16) - 32769,
 * a 32-bit compare without the shift. The sum comes from two
 * _mm256_madd_epi16 (signed 16-bit pairs): (r, g) by (19595, 19235) and
 * (b, g) by (7471, 19235), since 38470 does not fit a signed 16-bit
 * coefficient but its halves do. A byte shuffle built from the channel
 * offsets puts each pixel's r, g, b into those 16-bit lanes, so every
 * PACKED4 layout takes the same code. A frame read from DRAM is bound by
 * the reads (4 bytes a pixel), not by this arithmetic. */
#include "cpu.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define GPUCCL_LUMA_AVX2 1
#include <immintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The sum's bound for threshold t, clamped: t >= 255 keeps every pixel
 * out, t < 0 lets every one in. */
static int32_t luma_sum_limit(int t)
{
  int64_t limit = ((int64_t)t + 1) * 65536 - 32769;
  if (limit > INT32_MAX)
    return INT32_MAX;
  if (limit < INT32_MIN)
    return INT32_MIN;
  return (int32_t)limit;
}

#ifdef GPUCCL_LUMA_AVX2
/* The weights sum to 65536, so a pixel's luma lies between the smallest
 * and the largest of its r, g, b: when all those bytes of a vector's
 * pixels are > t, every luma is; when none is, no luma is. Only vectors
 * with both (an edge, or colour around t) need the sums. The bits of the
 * r, g, b bytes in a pixel's 4-bit share of a byte mask: */
#define RGB_NIBBLE(r, g, b) ((1u << (r)) | (1u << (g)) | (1u << (b)))

__attribute__((target("avx2"))) static void
luma_words_avx2(const uint8_t *row, int words, int off_r, int off_g, int off_b,
                int t, uint64_t *bits)
{
  /* Per 128-bit lane (four pixels): pixel p's bytes r and g (and b and g)
   * into the 16-bit lanes 2p, 2p + 1; 0x80 writes a zero high byte. */
  uint8_t mask_rg[32], mask_bg[32];
  for (int i = 0; i < 32; i++) {
    int p = (i % 16) / 4, k = i % 4;
    mask_rg[i] = (uint8_t)(k == 0 ? 4 * p + off_r : k == 2 ? 4 * p + off_g : 0x80);
    mask_bg[i] = (uint8_t)(k == 0 ? 4 * p + off_b : k == 2 ? 4 * p + off_g : 0x80);
  }
  const __m256i rg = _mm256_loadu_si256((const __m256i *)mask_rg);
  const __m256i bg = _mm256_loadu_si256((const __m256i *)mask_bg);
  const __m256i k_rg = _mm256_set1_epi32(19595 | 19235 << 16);
  const __m256i k_bg = _mm256_set1_epi32(7471 | 19235 << 16);
  const __m256i lim = _mm256_set1_epi32(luma_sum_limit(t));
  /* Unsigned byte > t as a signed compare with the top bits flipped; the
   * movemask bits of the r, g, b bytes of eight pixels. */
  const __m256i flip = _mm256_set1_epi8((char)0x80);
  const __m256i t8 = _mm256_set1_epi8((char)(t ^ 0x80));
  const uint32_t rgb = RGB_NIBBLE(off_r, off_g, off_b) * 0x11111111u;

  for (int w = 0; w < words; w++) {
    const uint8_t *p = row + 256 * (size_t)w;
    uint64_t m = 0;
    for (int k = 0; k < 8; k++) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
      const __m256i gt8 = _mm256_cmpgt_epi8(_mm256_xor_si256(v, flip), t8);
      const uint32_t above = rgb & (uint32_t)_mm256_movemask_epi8(gt8);
      uint64_t px = above ? 0xff : 0; /* uniform: see RGB_NIBBLE */
      if (above && above != rgb) {
        __m256i sum = _mm256_add_epi32(
            _mm256_madd_epi16(_mm256_shuffle_epi8(v, rg), k_rg),
            _mm256_madd_epi16(_mm256_shuffle_epi8(v, bg), k_bg));
        __m256i gt = _mm256_cmpgt_epi32(sum, lim);
        px = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(gt));
      }
      m |= px << (8 * k);
    }
    bits[w] = m;
  }
}

/* The same, sixteen pixels a step; the masks repeat per 128-bit lane. */
__attribute__((target("avx512f,avx512bw"))) static void
luma_words_avx512(const uint8_t *row, int words, int off_r, int off_g,
                  int off_b, int t, uint64_t *bits)
{
  uint8_t mask_rg[64], mask_bg[64];
  for (int i = 0; i < 64; i++) {
    int p = (i % 16) / 4, k = i % 4;
    mask_rg[i] = (uint8_t)(k == 0 ? 4 * p + off_r : k == 2 ? 4 * p + off_g : 0x80);
    mask_bg[i] = (uint8_t)(k == 0 ? 4 * p + off_b : k == 2 ? 4 * p + off_g : 0x80);
  }
  const __m512i rg = _mm512_loadu_si512(mask_rg);
  const __m512i bg = _mm512_loadu_si512(mask_bg);
  const __m512i k_rg = _mm512_set1_epi32(19595 | 19235 << 16);
  const __m512i k_bg = _mm512_set1_epi32(7471 | 19235 << 16);
  const __m512i lim = _mm512_set1_epi32(luma_sum_limit(t));
  const __m512i t8 = _mm512_set1_epi8((char)t);
  const uint64_t rgb = RGB_NIBBLE(off_r, off_g, off_b) *
                       UINT64_C(0x1111111111111111);

  for (int w = 0; w < words; w++) {
    const uint8_t *p = row + 256 * (size_t)w;
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
      __m512i v = _mm512_loadu_si512(p + 64 * k);
      const uint64_t above = rgb & _mm512_cmpgt_epu8_mask(v, t8);
      uint64_t px = above ? 0xffff : 0; /* uniform: see RGB_NIBBLE */
      if (above && above != rgb) {
        __m512i sum = _mm512_add_epi32(
            _mm512_madd_epi16(_mm512_shuffle_epi8(v, rg), k_rg),
            _mm512_madd_epi16(_mm512_shuffle_epi8(v, bg), k_bg));
        px = _mm512_cmpgt_epi32_mask(sum, lim);
      }
      m |= px << (16 * k);
    }
    bits[w] = m;
  }
}

/* The widest luma path the processor has, capped by GPUCCL_CPU_SIMD=avx2
 * or =none, so that the tests check every path on one machine. Found once;
 * racing first calls store the same value. */
enum { SIMD_UNKNOWN, SIMD_NONE, SIMD_AVX2, SIMD_AVX512 };

static int simd_level(void)
{
  static atomic_int level;
  int l = atomic_load_explicit(&level, memory_order_relaxed);
  if (l != SIMD_UNKNOWN)
    return l;
  l = SIMD_NONE;
  if (__builtin_cpu_supports("avx2"))
    l = SIMD_AVX2;
  if (l == SIMD_AVX2 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512bw"))
    l = SIMD_AVX512;
  const char *cap = getenv("GPUCCL_CPU_SIMD");
  if (cap && !strcmp(cap, "avx2") && l > SIMD_AVX2)
    l = SIMD_AVX2;
  else if (cap && !strcmp(cap, "none"))
    l = SIMD_NONE;
  atomic_store_explicit(&level, l, memory_order_relaxed);
  return l;
}

#endif

/* The same for n <= 64 pixels from x, one at a time (rows' tails, and
 * processors without AVX2: ARM, Jetson). */
static uint64_t luma_bits_scalar(const uint8_t *row, int x, int n, int off_r,
                                 int off_g, int off_b, int32_t limit)
{
  const uint8_t *p = row + 4 * (size_t)x;
  uint64_t m = 0;
  for (int i = 0; i < n; i++, p += 4) {
    int32_t sum = 19595 * p[off_r] + 38470 * p[off_g] + 7471 * p[off_b];
    m |= (uint64_t)(sum > limit) << i;
  }
  return m;
}

static void luma_bits(const uint8_t *row, int width, int off_r, int off_g,
                          int off_b, int threshold, uint64_t *bits)
{
  const int32_t limit = luma_sum_limit(threshold);
  int full = width / 64, w = 0;
#ifdef GPUCCL_LUMA_AVX2
  /* threshold: 0..255 (process_checks.c), the byte compare's range */
  const int simd = simd_level();
  if (simd == SIMD_AVX512)
    luma_words_avx512(row, full, off_r, off_g, off_b, threshold, bits);
  else if (simd == SIMD_AVX2)
    luma_words_avx2(row, full, off_r, off_g, off_b, threshold, bits);
  if (simd != SIMD_NONE)
    w = full;
#endif
  for (; w < full; w++)
    bits[w] = luma_bits_scalar(row, 64 * w, 64, off_r, off_g, off_b, limit);
  if (width > 64 * full)
    bits[full] = luma_bits_scalar(row, 64 * full, width - 64 * full, off_r,
                                  off_g, off_b, limit);
}

/* One channel of PACKED4 rows (the byte at `offset` of each pixel) to
 * foreground bits, 16 pixels per SSE2 step: each pixel's byte moved to the
 * bottom of its 32-bit lane, the lanes packed to bytes in order (values
 * <= 255, so saturation never bites), then one signed compare with the top
 * bits flipped, as the U8 rows are compared. */
static void channel_bits(const uint8_t *row, int width, int offset,
                         int threshold, uint64_t *bits)
{
  int full = width / 64, w = 0;
  const unsigned t = (unsigned)threshold;
#if defined(__SSE2__)
  const __m128i up = _mm_cvtsi32_si128(24 - 8 * offset);
  const __m128i down = _mm_cvtsi32_si128(24);
  const __m128i flip = _mm_set1_epi8((char)0x80);
  const __m128i thr = _mm_set1_epi8((char)(t ^ 0x80));
  for (; w < full; w++) {
    const __m128i *p = (const __m128i *)(row + 256 * (size_t)w);
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
      __m128i c[4];
      for (int j = 0; j < 4; j++)
        c[j] = _mm_srl_epi32(_mm_sll_epi32(_mm_loadu_si128(p + 4 * k + j), up),
                             down);
      const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(c[0], c[1]),
                                             _mm_packs_epi32(c[2], c[3]));
      const __m128i gt = _mm_cmpgt_epi8(_mm_xor_si128(bytes, flip), thr);
      m |= (uint64_t)(uint16_t)_mm_movemask_epi8(gt) << (16 * k);
    }
    bits[w] = m;
  }
#endif
  for (; w <= full && 64 * w < width; w++) {
    const int n = width - 64 * w < 64 ? width - 64 * w : 64;
    const uint8_t *c = row + 256 * (size_t)w + offset;
    uint64_t m = 0;
    for (int i = 0; i < n; i++)
      m |= (uint64_t)(c[4 * i] > t) << i;
    bits[w] = m;
  }
}

/* Bits of pixels [x, x + n) (n <= 64) of U8 and U16 rows, one at a time (rows' tails, and without SSE2); one loop
 * per format so each compiles to straight-line code. */
static uint64_t bits_scalar(const uint8_t *row, int x, int n,
                            const Binarizer *b)
{
  uint64_t m = 0;
  unsigned t = (unsigned)b->threshold;
  switch (b->format) {
  case GPUCCL_PIXEL_U8:
    for (int i = 0; i < n; i++)
      m |= (uint64_t)(row[x + i] > t) << i;
    break;
  case GPUCCL_PIXEL_U16:
    for (int i = 0; i < n; i++) {
      uint16_t v;
      memcpy(&v, row + 2 * (size_t)(x + i), sizeof v);
      m |= (uint64_t)(v > t) << i;
    }
    break;
  case GPUCCL_PIXEL_PACKED4: /* above */
    break;
  }
  return m;
}

void gpuccl_cpu_row_bits(const uint8_t *row, int width, const Binarizer *b,
                         uint64_t *bits)
{
  int full = width / 64;
  int w = 0;
  if (b->format == GPUCCL_PIXEL_PACKED4) {
    if (b->channel_offset < 0)
      luma_bits(row, width, b->off_r, b->off_g, b->off_b, b->threshold,
                bits);
    else
      channel_bits(row, width, b->channel_offset, b->threshold, bits);
    w = full + 1; /* all words, the tail's too */
  }
#if defined(__SSE2__)
  if (b->format == GPUCCL_PIXEL_U8) {
    /* Unsigned v > t as a signed compare of both with the top bit flipped. */
    const __m128i flip = _mm_set1_epi8((char)0x80);
    const __m128i t = _mm_set1_epi8((char)(b->threshold ^ 0x80));
    for (; w < full; w++) {
      const uint8_t *p = row + 64 * (size_t)w;
      uint64_t m = 0;
      for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        __m128i gt = _mm_cmpgt_epi8(_mm_xor_si128(v, flip), t);
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(gt) << (16 * k);
      }
      bits[w] = m;
    }
  }
  if (b->format == GPUCCL_PIXEL_U16) { /* the same, 8 samples a vector */
    const __m128i flip = _mm_set1_epi16((short)0x8000);
    const __m128i t = _mm_set1_epi16((short)(b->threshold ^ 0x8000));
    for (; w < full; w++) {
      const __m128i *p = (const __m128i *)(row + 128 * (size_t)w);
      uint64_t m = 0;
      for (int k = 0; k < 4; k++) {
        __m128i lo = _mm_cmpgt_epi16(
            _mm_xor_si128(_mm_loadu_si128(p + 2 * k), flip), t);
        __m128i hi = _mm_cmpgt_epi16(
            _mm_xor_si128(_mm_loadu_si128(p + 2 * k + 1), flip), t);
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_packs_epi16(lo, hi))
             << (16 * k);
      }
      bits[w] = m;
    }
  }
#endif
  for (; w < full; w++)
    bits[w] = bits_scalar(row, 64 * w, 64, b);
  int rest = width - 64 * full;
  if (rest > 0 && w == full)
    bits[full] = bits_scalar(row, 64 * full, rest, b);
  if (b->invert) {
    int words = (width + 63) / 64;
    for (w = 0; w < words; w++)
      bits[w] = ~bits[w];
    if (rest > 0)
      bits[full] &= (UINT64_C(1) << rest) - 1;
  }
}

#if defined(__SSE2__)
/* The 8-bit samples of 16 PACKED4 pixels, in order: each pixel's channel
 * byte, or its luma as the 32-bit sum of three _mm_madd_epi16 (bytes 0, 2
 * of each pixel in one vector's 16-bit lanes, bytes 1, 3 in another;
 * green's 38470 as 19235 twice, since it does not fit a signed 16-bit
 * coefficient), rounded and shifted as gpuccl_luma601() does. */
static __m128i packed4_samples16(const __m128i *p, const Binarizer *b)
{
  __m128i v[4];
  if (b->channel_offset >= 0) {
    const __m128i up = _mm_cvtsi32_si128(24 - 8 * b->channel_offset);
    const __m128i down = _mm_cvtsi32_si128(24);
    for (int j = 0; j < 4; j++)
      v[j] = _mm_srl_epi32(_mm_sll_epi32(_mm_loadu_si128(p + j), up), down);
  } else {
    int16_t k[4] = {0, 0, 0, 0}; /* coefficient of byte i of a pixel */
    k[b->off_r] = 19595, k[b->off_g] = 19235, k[b->off_b] = 7471;
    const __m128i k_even = _mm_set1_epi32((uint16_t)k[0] | k[2] << 16);
    const __m128i k_odd = _mm_set1_epi32((uint16_t)k[1] | k[3] << 16);
    const __m128i k_green = _mm_set1_epi32(19235 << (16 * (b->off_g / 2)));
    const __m128i low = _mm_set1_epi32(0x00ff00ff);
    const __m128i half = _mm_set1_epi32(32768);
    for (int j = 0; j < 4; j++) {
      const __m128i px = _mm_loadu_si128(p + j);
      const __m128i even = _mm_and_si128(px, low);
      const __m128i odd = _mm_srli_epi16(px, 8);
      const __m128i sum = _mm_add_epi32(
          _mm_add_epi32(_mm_madd_epi16(even, k_even),
                        _mm_madd_epi16(odd, k_odd)),
          _mm_madd_epi16(b->off_g % 2 ? odd : even, k_green));
      v[j] = _mm_srli_epi32(_mm_add_epi32(sum, half), 16);
    }
  }
  /* Lanes hold 0..255: the saturating packs keep them. */
  return _mm_packus_epi16(_mm_packs_epi32(v[0], v[1]),
                          _mm_packs_epi32(v[2], v[3]));
}
#endif

void gpuccl_cpu_packed4_samples(const uint8_t *pixels, const Binarizer *b,
                                uint8_t out[64])
{
#if defined(__SSE2__)
  /* One coefficient per byte: a layout naming one byte twice (allowed)
   * takes the loop below. */
  const bool distinct = b->off_r != b->off_g && b->off_r != b->off_b &&
                        b->off_g != b->off_b;
  if (b->channel_offset >= 0 || distinct) {
    for (int k = 0; k < 4; k++)
      _mm_storeu_si128((__m128i *)(out + 16 * k),
                       packed4_samples16((const __m128i *)pixels + 4 * k, b));
    return;
  }
#endif
  for (int i = 0; i < 64; i++)
    out[i] = (uint8_t)sample_at(pixels, i, b);
}
