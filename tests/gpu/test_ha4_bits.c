/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The warp-level arithmetic of the HA4 kernels, on the CPU: the distance
 * operators of Alg. 1 and Alg. 7, segment starts across words with the
 * carried run, the pair bit of the 64-pixel variant, the bit spreading that
 * joins two ballots, and Alg. 6's run sums — each against a naive bit walk.
 * ha4_bits.h is the header the kernels include, so CI (no GPU) checks the
 * same formulas with scalar emulations of __clz/__ffs (and their edge
 * cases __clz(0) = 32, __ffs(0) = 0). */
#include <stdint.h>
#include <stdio.h>

#include "cuda/ha4_bits.h"

static int failures;

#define EXPECT(cond, ...)                                                     \
  do {                                                                        \
    if (!(cond)) {                                                            \
      if (failures++ < 20) {                                                  \
        printf("FAIL %s:%d: ", __FILE__, __LINE__);                           \
        printf(__VA_ARGS__);                                                  \
        printf("\n");                                                         \
      }                                                                       \
    }                                                                         \
  } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) /* xorshift64* */
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

static int bit(uint64_t m, int i) { return (int)((m >> i) & 1u); }

/* Naive: set bits directly below bit i. */
static int naive_below(uint64_t m, int i)
{
  int n = 0;
  while (i - 1 - n >= 0 && bit(m, i - 1 - n))
    n++;
  return n;
}

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
  EXPECT(gpuccl_clz64(0) == 64, "clz64(0) = %d", gpuccl_clz64(0));
  EXPECT(gpuccl_ffs64(0) == 0, "ffs64(0) = %d", gpuccl_ffs64(0));
  for (int i = 0; i < 64; i++) {
    uint64_t v = 1ull << i;
    if (i < 32) {
      EXPECT(gpuccl_clz32((uint32_t)v) == 31 - i, "clz32(1<<%d)", i);
      EXPECT(gpuccl_ffs32((uint32_t)v) == i + 1, "ffs32(1<<%d)", i);
    }
    EXPECT(gpuccl_clz64(v) == 63 - i, "clz64(1<<%d)", i);
    EXPECT(gpuccl_ffs64(v) == i + 1, "ffs64(1<<%d)", i);
  }
  for (int r = 0; r < 100000; r++) {
    uint64_t v = next() >> (next() % 64);
    if (v == 0)
      continue;
    EXPECT(gpuccl_clz64(v) == __builtin_clzll(v), "clz64(%llx)",
           (unsigned long long)v);
    EXPECT(gpuccl_ffs64(v) == __builtin_ffsll((long long)v), "ffs64");
    uint32_t w = (uint32_t)v;
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
    uint64_t m = sample_mask(r);
    uint32_t m32 = (uint32_t)m;
    for (int i = 0; i <= 32; i++)
      EXPECT(gpuccl_start_distance32(m32, i) == naive_below(m32, i),
             "start_distance32(%08x, %d) = %d, want %d", m32, i,
             gpuccl_start_distance32(m32, i), naive_below(m32, i));
    for (int i = 0; i <= 64; i++)
      EXPECT(gpuccl_start_distance64(m, i) == naive_below(m, i),
             "start_distance64(%016llx, %d)", (unsigned long long)m, i);
    for (int i = 0; i < 32; i++)
      if (bit(m32, i))
        EXPECT(gpuccl_end_distance32(m32, i) == naive_up(m32, i, 32),
               "end_distance32(%08x, %d) = %d, want %d", m32, i,
               gpuccl_end_distance32(m32, i), naive_up(m32, i, 32));
    for (int i = 0; i < 64; i++)
      if (bit(m, i))
        EXPECT(gpuccl_end_distance64(m, i) == naive_up(m, i, 64),
               "end_distance64(%016llx, %d)", (unsigned long long)m, i);
    /* Alg. 7: the thread's candidate bit is its first set bit, or 2tx+1
     * when neither is set (then nothing starts there anyway). */
    for (int tx = 0; tx < 32; tx++) {
      int b = gpuccl_pair_bit(m, tx);
      int want = bit(m, 2 * tx) ? 2 * tx : 2 * tx + 1;
      EXPECT(b == want, "pair_bit(%016llx, %d) = %d", (unsigned long long)m,
             tx, b);
      /* At most one segment starts in a pair, and at the candidate bit. */
      for (int j = 0; j < 2; j++) {
        int i = 2 * tx + j;
        int starts = bit(m, i) && (i == 0 || !bit(m, i - 1));
        if (starts)
          EXPECT(i == b, "start at %d but candidate %d", i, b);
      }
    }
    /* Joining two ballots: even bits from one, odd from the other. */
    uint32_t even = 0, odd = 0;
    for (int t = 0; t < 32; t++) {
      even |= (uint32_t)bit(m, 2 * t) << t;
      odd |= (uint32_t)bit(m, 2 * t + 1) << t;
    }
    uint64_t joined = gpuccl_spread_bits(even) | (gpuccl_spread_bits(odd) << 1);
    EXPECT(joined == m, "spread: %016llx != %016llx",
           (unsigned long long)joined, (unsigned long long)m);
  }
}

/* A random row cut into words of 32 or 64 bits, as strip labeling walks
 * it: every set pixel's segment start through the carried run equals the
 * naive start. */
static void check_rows(int bits)
{
  enum { N_WORDS = 12 };
  for (int r = 0; r < 3000; r++) {
    uint64_t words[N_WORDS];
    for (int w = 0; w < N_WORDS; w++)
      words[w] = bits == 32 ? (uint32_t)sample_mask(r + w * 7)
                            : sample_mask(r + w * 7);
    uint32_t carry = 0, run_start = 0;
    for (int w = 0; w < N_WORDS; w++) {
      for (int i = 0; i < bits; i++) {
        uint32_t k = (uint32_t)(1000 + w * bits + i);
        int set = bit(words[w], i);
        int left = i > 0 ? bit(words[w], i - 1)
                         : (w > 0 ? bit(words[w - 1], bits - 1) : 0);
        if (set && !left)
          run_start = k;
        if (!set)
          continue;
        uint32_t got = bits == 32
                           ? gpuccl_segment_start32((uint32_t)words[w], i,
                                                    carry, k)
                           : gpuccl_segment_start64(words[w], i, carry, k);
        EXPECT(got == run_start, "%d-bit row %d word %d bit %d: start %u, "
               "want %u", bits, r, w, i, got, run_start);
      }
      uint32_t want_carry = 0;
      for (int j = w; j >= 0; j--) {
        int n = naive_below(words[j], bits);
        want_carry += (uint32_t)n;
        if (n < bits)
          break;
      }
      carry = gpuccl_next_carry64(words[w], bits, carry);
      EXPECT(carry == want_carry, "%d-bit carry %u, want %u", bits, carry,
             want_carry);
    }
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
  check_rows(32);
  check_rows(64);
  check_run_sums();
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
