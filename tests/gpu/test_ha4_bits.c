/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The warp-level arithmetic of the segment tail's kernels, on the CPU: the
 * end distance of Alg. 1 and Alg. 6's run sums, each against a naive bit
 * walk.
 * ha4_bits.h is the header the kernels include, so CI (no GPU) checks the
 * same formulas with scalar emulations of __clz/__ffs (and their edge
 * cases __clz(0) = 32, __ffs(0) = 0). */
#include <stdint.h>
#include <stdio.h>

#include "cuda/ha4_bits.h"

static int failures;
static long checks;

#define EXPECT_PRINTED 20 /* the rest only counted */
#include "test_check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) /* xorshift64* */
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

static int bit(uint64_t m, int i) { return (int)((m >> i) & 1u); }

/* Naive: run of set bits from i upwards within `bits` bits. */
static int naive_up(uint64_t m, int i, int bits)
{
  int n = 0;
  while (i + n < bits && bit(m, i + n))
    n++;
  return n;
}

static void check_intrinsics(void)
{
  EXPECT(gpuccl_clz32(0) == 32, "clz32(0) = %d", gpuccl_clz32(0));
  EXPECT(gpuccl_ffs32(0) == 0, "ffs32(0) = %d", gpuccl_ffs32(0));
  for (int i = 0; i < 32; i++) {
    EXPECT(gpuccl_clz32(1u << i) == 31 - i, "clz32(1<<%d)", i);
    EXPECT(gpuccl_ffs32(1u << i) == i + 1, "ffs32(1<<%d)", i);
  }
  for (int r = 0; r < 100000; r++) {
    uint32_t w = (uint32_t)next();
    if (w) {
      EXPECT(gpuccl_clz32(w) == __builtin_clz(w), "clz32(%x)", w);
      EXPECT(gpuccl_ffs32(w) == __builtin_ffs((int)w), "ffs32(%x)", w);
    }
  }
}

/* Masks with every kind of edge: empty, full, single bits, alternating,
 * runs touching either end, random at several densities. */
static uint64_t sample_mask(int r)
{
  switch (r % 10) {
  case 0: return 0;
  case 1: return ~0ull;
  case 2: return 0x5555555555555555ull << (r / 10 % 2);
  case 3: return 1ull << (r / 10 % 64);
  case 4: return ~0ull << (r / 10 % 64);
  case 5: return ~0ull >> (r / 10 % 64);
  case 6: return next() & next();
  case 7: return next() | next();
  default: return next();
  }
}

static void check_distances(void)
{
  for (int r = 0; r < 20000; r++) {
    uint32_t m32 = (uint32_t)sample_mask(r);
    for (int i = 0; i < 32; i++)
      if (bit(m32, i))
        EXPECT(gpuccl_end_distance32(m32, i) == naive_up(m32, i, 32),
               "end_distance32(%08x, %d) = %d, want %d", m32, i,
               gpuccl_end_distance32(m32, i), naive_up(m32, i, 32));
  }
}

static void check_run_sums(void)
{
  for (uint64_t x0 = 0; x0 < 20000; x0 += 37)
    for (uint64_t count = 1; count <= 64; count++) {
      uint64_t want = 0;
      for (uint64_t x = x0; x < x0 + count; x++)
        want += x;
      EXPECT(gpuccl_run_sum(x0, count) == want, "run_sum(%llu, %llu)",
             (unsigned long long)x0, (unsigned long long)count);
    }
  /* The widest row: 16384 pixels. */
  EXPECT(gpuccl_run_sum(16383 - 63, 64) ==
             (uint64_t)64 * (16383 - 63) + 63 * 64 / 2,
         "run_sum at the right edge");
}

int main(void)
{
  check_intrinsics();
  check_distances();
  check_run_sums();
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
