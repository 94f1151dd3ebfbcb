/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 bitmask arithmetic (Hennequin et al. 2018, Alg. 1 and Alg. 7), usable
 * from host and device. On the device the intrinsics are CUDA's; on the host
 * they are scalar emulations with the same edge cases (__clz(0) = 32,
 * __ffs(0) = 0), so a CPU test (tests/gpu/test_ha4_bits.c) checks the very
 * formulas the kernels run.
 *
 * A bitmask holds one bit per pixel of a warp row: bit i is pixel x0 + i.
 * A "segment" is a run of set bits. Shifts by the full word width are
 * undefined in C and C++, so the formulas guard them explicitly instead of
 * relying on PTX's clamping. */
#ifndef GPUCCL_HA4_BITS_H
#define GPUCCL_HA4_BITS_H

#include <stdint.h>

#ifdef __CUDACC__
#define GPUCCL_HA4_HD __host__ __device__
#else
#define GPUCCL_HA4_HD
#endif

/* __clz / __ffs and their 64-bit forms. */
static inline GPUCCL_HA4_HD int gpuccl_clz32(uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __clz((int)v);
#else
  int n = 0;
  if (v == 0)
    return 32;
  while (!(v & 0x80000000u)) {
    v <<= 1;
    n++;
  }
  return n;
#endif
}

static inline GPUCCL_HA4_HD int gpuccl_ffs32(uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __ffs((int)v);
#else
  if (v == 0)
    return 0;
  int n = 1;
  while (!(v & 1u)) {
    v >>= 1;
    n++;
  }
  return n;
#endif
}

static inline GPUCCL_HA4_HD int gpuccl_clz64(uint64_t v)
{
#ifdef __CUDA_ARCH__
  return __clzll((long long)v);
#else
  uint32_t hi = (uint32_t)(v >> 32);
  return hi ? gpuccl_clz32(hi) : 32 + gpuccl_clz32((uint32_t)v);
#endif
}

static inline GPUCCL_HA4_HD int gpuccl_ffs64(uint64_t v)
{
#ifdef __CUDA_ARCH__
  return __ffsll((long long)v);
#else
  uint32_t lo = (uint32_t)v;
  if (lo)
    return gpuccl_ffs32(lo);
  uint32_t hi = (uint32_t)(v >> 32);
  return hi ? 32 + gpuccl_ffs32(hi) : 0;
#endif
}

/* Alg. 1 start_distance: how many set bits lie directly below bit tx (0 when
 * bit tx - 1 is clear), tx in 0..32. For tx = 32 this is the run ending at
 * the top bit: 32 for a full word, the __clz(0) case. */
static inline GPUCCL_HA4_HD int gpuccl_start_distance32(uint32_t pixels, int tx)
{
  if (tx == 0)
    return 0;
  return gpuccl_clz32(~(pixels << (32 - tx)));
}

/* Alg. 1 end_distance: for a set bit tx (0..31), the length of its run from
 * tx upwards, tx included. */
static inline GPUCCL_HA4_HD int gpuccl_end_distance32(uint32_t pixels, int tx)
{
  if (tx == 31)
    return 1;
  return gpuccl_ffs32(~(pixels >> (tx + 1)));
}

/* The same on 64-bit masks, bit index b in 0..64 / 0..63. */
static inline GPUCCL_HA4_HD int gpuccl_start_distance64(uint64_t pixels, int b)
{
  if (b == 0)
    return 0;
  return gpuccl_clz64(~(pixels << (64 - b)));
}

static inline GPUCCL_HA4_HD int gpuccl_end_distance64(uint64_t pixels, int b)
{
  if (b == 63)
    return 1;
  return gpuccl_ffs64(~(pixels >> (b + 1)));
}

/* Alg. 7: thread tx of a warp owns bits 2tx and 2tx+1. Its candidate bit is
 * 2tx, or 2tx+1 when 2tx is clear (a segment can start at most at one of
 * the two). */
static inline GPUCCL_HA4_HD int gpuccl_pair_bit(uint64_t pixels, int tx)
{
  return 2 * tx + (int)(~(pixels >> (2 * tx)) & 1u);
}

/* Bit i of a 32-bit word moved to bit 2i of a 64-bit word: joins two
 * __ballot_sync masks (even and odd pixels of the pairs) into one. */
static inline GPUCCL_HA4_HD uint64_t gpuccl_spread_bits(uint32_t v)
{
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000ffff0000ffffull;
  x = (x | (x << 8)) & 0x00ff00ff00ff00ffull;
  x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

/* Address of the first pixel of the segment holding set bit i of `mask`
 * (pixel address k), where `carry` set pixels ended the previous word of
 * the row: a run reaching bit 0 continues them. The strip labeling kernel
 * keeps `carry` from word to word with start_distance(mask, 32 or 64). */
static inline GPUCCL_HA4_HD uint32_t gpuccl_segment_start32(uint32_t mask,
                                                            int i,
                                                            uint32_t carry,
                                                            uint32_t k)
{
  int d = gpuccl_start_distance32(mask, i);
  return k - (uint32_t)d - (d == i ? carry : 0u);
}

static inline GPUCCL_HA4_HD uint32_t gpuccl_segment_start64(uint64_t mask,
                                                            int i,
                                                            uint32_t carry,
                                                            uint32_t k)
{
  int d = gpuccl_start_distance64(mask, i);
  return k - (uint32_t)d - (d == i ? carry : 0u);
}

/* The carry after a word of `bits` bits (32 or 64). */
static inline GPUCCL_HA4_HD uint32_t gpuccl_next_carry64(uint64_t mask,
                                                         int bits,
                                                         uint32_t carry)
{
  int d = bits == 32 ? gpuccl_start_distance32((uint32_t)mask, 32)
                     : gpuccl_start_distance64(mask, 64);
  return (uint32_t)d + (d == bits ? carry : 0u);
}

/* Sum of the integers x0..x0+count-1 (Alg. 6's phi(x1) - phi(x0 - 1)). */
static inline GPUCCL_HA4_HD uint64_t gpuccl_run_sum(uint64_t x0, uint64_t count)
{
  return ((2 * x0 + count - 1) * count) / 2;
}

#endif /* GPUCCL_HA4_BITS_H */
