/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Word logic of tile labeling: which runs of two neighbouring rows touch,
 * found with bit operations on the rows' 32-pixel words instead of a search
 * per run. Host and device code, so tests check it against brute force
 * without a GPU (tests/gpu/test_tile_words.c).
 *
 * Bit i of a word is column 32 k + i of its row, so `w << 1` (with the left
 * word's bit 31 shifted in) moves column x - 1 onto column x. A is the row
 * above, B the row itself.
 *
 * A touching pair (run u of A, run r of B) gets exactly one key bit: at the
 * later of the two starts, or (8-connectivity) at u's start when u starts
 * one column after r ends, or at r's start when r starts one column after u
 * ends. A key at column x belongs to the run of B that holds x or ends at
 * x - 1 and to the run of A that holds x or ends at x - 1.
 *
 * The first key of each run of B names its first top neighbour (FTN); its
 * other keys are the "extras". Linking every run to its FTN is a plain
 * store (each run owns its parent), so only the extras need union-find. */
#ifndef GPUCCL_TILE_WORDS_CUH
#define GPUCCL_TILE_WORDS_CUH

#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TILE_WORDS_FN static inline __host__ __device__
#else
#define TILE_WORDS_FN static inline
#endif

TILE_WORDS_FN int tile_popc(uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}

/* Index of the lowest set bit of v (v != 0). */
TILE_WORDS_FN int tile_lowest(uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __ffs(v) - 1;
#else
  return __builtin_ctz(v);
#endif
}

/* First pixels of runs; `left`: the word to the left (0 at the tile's
 * edge). */
TILE_WORDS_FN uint32_t run_starts(uint32_t w, uint32_t left)
{
  return w & ~(w << 1 | left >> 31);
}

/* Last pixels of runs; `right`: the word to the right. */
TILE_WORDS_FN uint32_t run_ends(uint32_t w, uint32_t right)
{
  return w & ~(w >> 1 | right << 31);
}

/* One key bit per touching pair of runs of A (above) and B. */
TILE_WORDS_FN uint32_t pair_keys(uint32_t A, uint32_t A_left, uint32_t B,
                                 uint32_t B_left, bool conn8)
{
  const uint32_t sA = run_starts(A, A_left), sB = run_starts(B, B_left);
  if (!conn8) /* u starts over r, or r starts inside u */
    return (sA & B) | (sB & A & ~sA);
  const uint32_t A1 = A << 1 | A_left >> 31, B1 = B << 1 | B_left >> 31;
  return (sA & (B | B1)) | (sB & ((A & ~sA) | A1));
}

/* The first keys of B's runs, in two steps because a run can span words:
 * adding a run's start bit to its key-less pixels carries from its first
 * pixel up to its first key (or past its end, where no key is: 4-conn, or
 * an 8-conn key at end + 1 that then is the first). `sum` is that addition
 * in one word, with a carry in of 0; `carry_out` whether it carries out of
 * the word with a carry in of 0 (generate) and of 1 (propagate). */
struct FirstKeySum {
  uint32_t sum;
  bool generate, propagate;
};

TILE_WORDS_FN struct FirstKeySum first_key_sum(uint32_t B, uint32_t B_left,
                                               uint32_t keys)
{
  const uint32_t free_px = B & ~keys;
  struct FirstKeySum s;
  s.sum = free_px + run_starts(B, B_left);
  s.generate = s.sum < free_px;
  s.propagate = s.generate || s.sum == 0xffffffffu;
  return s;
}

/* The first keys of one word, given the carry into it from the word to
 * its left in the same row. */
TILE_WORDS_FN uint32_t first_keys(struct FirstKeySum s, uint32_t keys,
                                  uint32_t carry_in)
{
  return (s.sum + carry_in) & keys;
}

/* Carries into the words of a group of rows from the generate and
 * propagate bits of its words (bit i: word i), as a carry-lookahead adder
 * does: G + P carries exactly where a carry enters. `last` marks the last
 * word of each row, whose carry must not enter the next row. */
TILE_WORDS_FN uint32_t word_carries(uint32_t generate, uint32_t propagate,
                                    uint32_t last)
{
  generate &= ~last;
  propagate &= ~last;
  return (generate + propagate) ^ generate ^ propagate;
}

/* Bits of v in reverse order (bit 0 becomes bit 31). */
TILE_WORDS_FN uint32_t tile_brev(uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __brev(v);
#else
  uint32_t r = 0;
  for (int i = 0; i < 32; i++)
    r |= (v >> i & 1u) << (31 - i);
  return r;
#endif
}

/* The pixels of B next to a set pixel of row X (`left`, `right`: X's
 * neighbouring words): under, or (8-connectivity) diagonally next to. */
TILE_WORDS_FN uint32_t touching(uint32_t B, uint32_t X, uint32_t left,
                                uint32_t right, bool conn8)
{
  if (!conn8)
    return B & X;
  return B & (X | X << 1 | left >> 31 | X >> 1 | right << 31);
}

/* Runs of B that start and end in the word and have no pixel in `touch`:
 * their ends. Adding a run's start to its untouching pixels carries past
 * its end (to the background after it, or out of the word) exactly when
 * none of its pixels touches; runs are a gap apart, so carries never
 * meet. */
TILE_WORDS_FN uint32_t untouched_ends(uint32_t B, uint32_t starts,
                                      uint32_t ends, uint32_t touch)
{
  const uint32_t free_px = B & ~touch, sum = free_px + starts;
  return ((sum & ~B) >> 1 | (uint32_t)(sum < free_px) << 31) & ends;
}

/* The same runs' starts: the same addition from the ends, on the words
 * reversed. */
TILE_WORDS_FN uint32_t untouched_starts(uint32_t B, uint32_t starts,
                                        uint32_t ends, uint32_t touch)
{
  return tile_brev(untouched_ends(tile_brev(B), tile_brev(ends),
                                  tile_brev(starts), tile_brev(touch)));
}

/* The length of the run of B that starts at bit i and ends in the word. */
TILE_WORDS_FN uint32_t run_length(uint32_t B, int i)
{
  const uint32_t after = ~(B >> i); /* 0: the run is the whole word */
  return after ? (uint32_t)tile_lowest(after) : 32u;
}

/* The number of the run of a row holding column 32 k + i, or ending at
 * 32 k + i - 1 when that column is background: `base` is the number of the
 * first run starting in word k, `starts` the word's run starts. */
TILE_WORDS_FN uint32_t run_at(uint32_t base, uint32_t starts, int i)
{
  return base + (uint32_t)tile_popc(starts & (0xffffffffu >> (31 - i))) - 1u;
}

#endif /* GPUCCL_TILE_WORDS_CUH */
