/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The word logic of tile labeling (kernels/cuda/tile_words.cuh), on the CPU
 * so CI checks it: for random pairs of rows of a 256-pixel tile, the key
 * bits, first keys and extras computed word by word (carries passed as the
 * kernel's carry-lookahead passes them) against a brute-force enumeration
 * of runs and touching pairs: every touching pair of runs has exactly one
 * key, the first key of each run names its leftmost touching run above
 * (its first top neighbour), the extras name every other touching pair, and
 * run_at maps each key to the two runs of the pair. Also run starts and
 * ends against a walk along the row, and for random row triples the
 * isolated runs (untouched_starts / untouched_ends: inside one word, no
 * touching run in the rows above and below) and their lengths against the
 * enumeration; and for random row quadruples the same keys and first keys
 * over row-pair nodes (check_pair_nodes). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/tile_words.cuh"

#define WORDS 8
#define WIDTH (32 * WORDS)

static int failures;
static long checks;

#define EXPECT_PRINTED 20 /* the rest only counted */
#include "test_check.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) /* xorshift64* */
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

static int px(const uint32_t *row, int x)
{
  return x >= 0 && x < WIDTH && (row[x / 32] >> (x % 32) & 1u);
}

/* A row of random runs: pixel density d (0..100) and runs of 1..g pixels
 * on average, so long runs cross words. */
static void random_row(uint32_t *row, int d, int g)
{
  memset(row, 0, WORDS * sizeof *row);
  int on = (int)(next() % 100) < d;
  for (int x = 0; x < WIDTH; x++) {
    if (next() % (uint64_t)g == 0)
      on = (int)(next() % 100) < d;
    if (on)
      row[x / 32] |= 1u << (x % 32);
  }
}

typedef struct {
  int a, b;
} Run;

static int runs_of(const uint32_t *row, Run *runs)
{
  int n = 0;
  for (int x = 0; x < WIDTH; x++)
    if (px(row, x) && !px(row, x - 1)) {
      runs[n].a = x;
      while (px(row, x + 1))
        x++;
      runs[n++].b = x;
    }
  return n;
}

static int touch(Run u, Run r, int conn8)
{
  return u.a <= r.b + conn8 && r.a <= u.b + conn8;
}

/* The kernel's words for one row pair: keys, first keys, extras, and the
 * numbers of each word's first run start. */
typedef struct {
  uint32_t keys[WORDS], first[WORDS], extras[WORDS];
  uint32_t starts_a[WORDS], starts_b[WORDS], base_a[WORDS], base_b[WORDS];
} Words;

/* The words of nodes NA (above) and NB whose touching rows are KA and KB:
 * for runs, the rows themselves (NA = KA, NB = KB); for row-pair nodes,
 * the ORs of the pairs, touching through the upper pair's bottom row and
 * the lower pair's top row. */
static void kernel_words(const uint32_t *KA, const uint32_t *KB,
                         const uint32_t *NA, const uint32_t *NB, int conn8,
                         Words *w)
{
  struct FirstKeySum sums[WORDS];
  uint32_t generate = 0, propagate = 0, na = 0, nb = 0;
  for (int k = 0; k < WORDS; k++) {
    const int l = k > 0;
    w->keys[k] = pair_keys(KA[k], l ? KA[k - 1] : 0, KB[k], l ? KB[k - 1] : 0, conn8);
    sums[k] = first_key_sum(NB[k], l ? NB[k - 1] : 0, w->keys[k]);
    generate |= (uint32_t)sums[k].generate << k;
    propagate |= (uint32_t)sums[k].propagate << k;
    w->starts_a[k] = run_starts(NA[k], l ? NA[k - 1] : 0);
    w->starts_b[k] = run_starts(NB[k], l ? NB[k - 1] : 0);
    w->base_a[k] = na;
    w->base_b[k] = nb;
    na += tile_popc(w->starts_a[k]);
    nb += tile_popc(w->starts_b[k]);
  }
  /* The row is one of four in a warp's 32 lanes: put it in the second
   * place, with random rows' carries around it that must not leak in. */
  const uint32_t last = 0x80808080u;
  const uint32_t noise = (uint32_t)next();
  const uint32_t g = (noise & ~(0xffu << 8)) | generate << 8;
  const uint32_t p = ((noise | (uint32_t)next()) & ~(0xffu << 8)) | propagate << 8;
  const uint32_t carries = word_carries(g, p, last) >> 8;
  for (int k = 0; k < WORDS; k++) {
    w->first[k] = first_keys(sums[k], w->keys[k], carries >> k & 1u);
    w->extras[k] = w->keys[k] & ~w->first[k];
  }
}

/* Which nodes touch: runs at a connectivity (A1, B0 NULL), or row-pair
 * nodes, 8-connected, where a pixel of A1 in u touches one of B0 in r. */
typedef struct {
  int conn8;
  const uint32_t *A1, *B0;
} Touch;

static int touches(const Touch *t, Run u, Run r)
{
  if (!t->A1)
    return touch(u, r, t->conn8);
  for (int x = r.a; x <= r.b; x++)
    if (px(t->B0, x))
      for (int d = -1; d <= 1; d++)
        if (x + d >= u.a && x + d <= u.b && px(t->A1, x + d))
          return 1;
  return 0;
}

/* Every key of w, mapped to its pair of nodes (ra above, rb), against the
 * brute-force pairs: it names a touching pair, every touching pair has a
 * key (runs: exactly one; the runs inside a pair node may repeat a pair),
 * and the first key of each node names its leftmost touching node above
 * (its first top neighbour). */
static void check_keys(const Words *w, const Run *ra, int na, const Run *rb, int nb,
                       const Touch *t)
{
  const char *what = t->A1 ? "node" : "run";
  static unsigned char seen[WIDTH / 2 + 1][WIDTH / 2 + 1], first_of[WIDTH / 2 + 1];
  memset(seen, 0, sizeof seen);
  memset(first_of, 0xff, sizeof first_of);
  for (int k = 0; k < WORDS; k++)
    for (uint32_t m = w->keys[k]; m; m &= m - 1) {
      const int i = tile_lowest(m);
      const uint32_t r = run_at(w->base_b[k], w->starts_b[k], i);
      const uint32_t u = run_at(w->base_a[k], w->starts_a[k], i);
      EXPECT(r < (uint32_t)nb && u < (uint32_t)na, "key at %d: %ss %u %u", 32 * k + i,
             what, r, u);
      if (r >= (uint32_t)nb || u >= (uint32_t)na)
        continue;
      EXPECT(touches(t, ra[u], rb[r]), "key at %d: %ss %u, %u do not touch", 32 * k + i,
             what, u, r);
      if (!t->A1)
        EXPECT(!seen[r][u], "pair %u, %u keyed twice", u, r);
      seen[r][u] = 1;
      if (w->first[k] >> i & 1u) {
        EXPECT(first_of[r] == 0xff, "%s %u has two first keys", what, r);
        first_of[r] = (unsigned char)u;
      }
    }
  for (int r = 0; r < nb; r++) {
    int leftmost = -1;
    for (int u = 0; u < na; u++) {
      if (!touches(t, ra[u], rb[r]))
        continue;
      EXPECT(seen[r][u], "c%d %ss: pair (%d..%d, %d..%d) has no key", t->conn8 ? 8 : 4,
             what, ra[u].a, ra[u].b, rb[r].a, rb[r].b);
      if (leftmost < 0)
        leftmost = u;
    }
    EXPECT(leftmost < 0 ? first_of[r] == 0xff : first_of[r] == leftmost,
           "c%d: %s %d..%d: first key names %d, first top neighbour %d", t->conn8 ? 8 : 4,
           what, rb[r].a, rb[r].b, first_of[r] == 0xff ? -1 : first_of[r], leftmost);
  }
}

static void check_pair(const uint32_t *A, const uint32_t *B, int conn8)
{
  Run ra[WIDTH / 2 + 1], rb[WIDTH / 2 + 1];
  const int na = runs_of(A, ra), nb = runs_of(B, rb);
  Words w;
  kernel_words(A, B, A, B, conn8, &w);
  /* Runs' starts and ends against the walk. */
  for (int k = 0; k < WORDS; k++) {
    uint32_t s = 0, e = 0;
    for (int i = 0; i < 32; i++) {
      const int x = 32 * k + i;
      s |= (uint32_t)(px(B, x) && !px(B, x - 1)) << i;
      e |= (uint32_t)(px(B, x) && !px(B, x + 1)) << i;
    }
    EXPECT(w.starts_b[k] == s, "starts of word %d", k);
    EXPECT(run_ends(B[k], k + 1 < WORDS ? B[k + 1] : 0) == e, "ends of word %d", k);
  }
  const Touch t = {conn8, NULL, NULL};
  check_keys(&w, ra, na, rb, nb, &t);
}

/* Row-pair nodes (issue 23; bench/rowpair_proto.cu), 8-connected: a node
 * is a run of the OR of a pair of rows (A0 | A1 above, B0 | B1); the keys
 * of A1 and B0, mapped through the nodes' starts, and each node's first
 * key by the carry over its own key-less pixels. */
static void check_pair_nodes(const uint32_t *A0, const uint32_t *A1,
                             const uint32_t *B0, const uint32_t *B1)
{
  uint32_t PA[WORDS], PB[WORDS];
  for (int k = 0; k < WORDS; k++) {
    PA[k] = A0[k] | A1[k];
    PB[k] = B0[k] | B1[k];
  }
  Run ra[WIDTH / 2 + 1], rb[WIDTH / 2 + 1];
  const int na = runs_of(PA, ra), nb = runs_of(PB, rb);
  Words w;
  kernel_words(A1, B0, PA, PB, 1, &w);
  const Touch t = {1, A1, B0};
  check_keys(&w, ra, na, rb, nb, &t);
}

/* Isolated runs of B between A (above) and C (below), word by word as
 * tile labeling finds them, against the runs that lie in one word and
 * touch no run of A or C. */
static void check_isolated(const uint32_t *A, const uint32_t *B, const uint32_t *C,
                           int conn8)
{
  uint32_t want_s[WORDS] = {0}, want_e[WORDS] = {0};
  Run ra[WIDTH / 2 + 1], rb[WIDTH / 2 + 1], rc[WIDTH / 2 + 1];
  const int na = runs_of(A, ra), nb = runs_of(B, rb), nc = runs_of(C, rc);
  for (int r = 0; r < nb; r++) {
    int alone = rb[r].a / 32 == rb[r].b / 32;
    for (int u = 0; u < na && alone; u++)
      alone = !touch(ra[u], rb[r], conn8);
    for (int u = 0; u < nc && alone; u++)
      alone = !touch(rc[u], rb[r], conn8);
    if (alone) {
      want_s[rb[r].a / 32] |= 1u << (rb[r].a % 32);
      want_e[rb[r].b / 32] |= 1u << (rb[r].b % 32);
    }
  }
  for (int k = 0; k < WORDS; k++) {
    const uint32_t l = k ? 1 : 0, r = k + 1 < WORDS;
    const uint32_t starts = run_starts(B[k], l ? B[k - 1] : 0);
    const uint32_t ends = run_ends(B[k], r ? B[k + 1] : 0);
    const uint32_t touch_px =
        touching(B[k], A[k], l ? A[k - 1] : 0, r ? A[k + 1] : 0, conn8) |
        touching(B[k], C[k], l ? C[k - 1] : 0, r ? C[k + 1] : 0, conn8);
    const uint32_t got_s = untouched_starts(B[k], starts, ends, touch_px);
    const uint32_t got_e = untouched_ends(B[k], starts, ends, touch_px);
    EXPECT(got_s == want_s[k], "c%d word %d: isolated starts %08x, want %08x",
           conn8 ? 8 : 4, k, got_s, want_s[k]);
    EXPECT(got_e == want_e[k], "c%d word %d: isolated ends %08x, want %08x",
           conn8 ? 8 : 4, k, got_e, want_e[k]);
  }
  for (int r = 0; r < nb; r++)
    if (want_s[rb[r].a / 32] >> (rb[r].a % 32) & 1u)
      EXPECT(run_length(B[rb[r].a / 32], rb[r].a % 32) == (uint32_t)(rb[r].b - rb[r].a + 1),
             "run %d..%d: length %u", rb[r].a, rb[r].b,
             run_length(B[rb[r].a / 32], rb[r].a % 32));
}

int main(void)
{
  uint32_t A[WORDS], B[WORDS], C[WORDS], D[WORDS];
  static const int d[] = {0, 5, 30, 50, 60, 90, 100};
  static const int g[] = {1, 2, 8, 40};
  for (int iter = 0; iter < 20000; iter++) {
    random_row(A, d[next() % 7], g[next() % 4]);
    random_row(B, d[next() % 7], g[next() % 4]);
    check_pair(A, B, 0);
    check_pair(A, B, 1);
    random_row(C, d[next() % 7], g[next() % 4]);
    check_isolated(A, B, C, 0);
    check_isolated(A, B, C, 1);
    random_row(D, d[next() % 7], g[next() % 4]);
    check_pair_nodes(A, B, C, D);
  }
  /* Runs that cross every word boundary, full rows, checkerboards. */
  for (int s = 0; s < 4; s++) {
    for (int k = 0; k < WORDS; k++) {
      A[k] = s & 1 ? 0xffffffffu : 0x55555555u;
      B[k] = s & 2 ? 0xffffffffu : 0xaaaaaaaau;
    }
    check_pair(A, B, 0);
    check_pair(A, B, 1);
    check_isolated(A, B, A, 0);
    check_isolated(A, B, A, 1);
  }
  /* Isolated runs filling a word, and at its edges. */
  memset(A, 0, sizeof A);
  memset(C, 0, sizeof C);
  for (int k = 0; k < WORDS; k++)
    B[k] = k % 3 == 0 ? 0xffffffffu : k % 3 == 1 ? 0x80000001u : 0x7ffffffeu;
  check_isolated(A, B, C, 0);
  check_isolated(A, B, C, 1);
  printf("%ld checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
