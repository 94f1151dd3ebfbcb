/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 bitmask arithmetic (Hennequin et al. 2018, Alg. 1 and Alg. 6) of the
 * segment tail, usable from host and device. On the device the intrinsics
 * are CUDA's; on the host they are scalar emulations with the same edge
 * cases (__clz(0) = 32, __ffs(0) = 0), so a CPU test
 * (tests/gpu/test_ha4_bits.c) checks the very formulas the kernels run.
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

/* __clz and __ffs. */
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

/* Alg. 1 end_distance: for a set bit tx (0..31), the length of its run from
 * tx upwards, tx included. */
static inline GPUCCL_HA4_HD int gpuccl_end_distance32(uint32_t pixels, int tx)
{
  if (tx == 31)
    return 1;
  return gpuccl_ffs32(~(pixels >> (tx + 1)));
}

/* Sum of the integers x0..x0+count-1 (Alg. 6's phi(x1) - phi(x0 - 1)). */
static inline GPUCCL_HA4_HD uint64_t gpuccl_run_sum(uint64_t x0, uint64_t count)
{
  return ((2 * x0 + count - 1) * count) / 2;
}

#endif /* GPUCCL_HA4_BITS_H */
