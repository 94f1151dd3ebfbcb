/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tile labeling: HA4's labeling and features (Alg. 3 and 6 of Hennequin et
 * al. 2018) for a whole 2D tile in shared memory, with the runs linked as
 * Afforest and ECL-CC link vertices (Sutton et al. 2018, Jaiganesh and
 * Burtscher 2018): each to its first neighbour by a plain store, union-find
 * only for the links left over.
 *
 * One thread per 32-pixel word of the tile. The forest is over the tile's
 * nodes, numbered in raster order of their first column, so the smallest
 * node of a piece is in its top node row:
 *   - runs (maximal horizontal segments): the smallest run of a piece holds
 *     its first pixel;
 *   - at 8-connectivity, row pairs (PAIRS): the runs of the OR of rows 2p
 *     and 2p + 1. Each column of such a node has a pixel in one of its two
 *     rows, so the node is 8-connected by itself, and two nodes of pair
 *     rows p - 1 and p touch where runs of rows 2p - 1 and 2p touch: the
 *     keys of those two rows name the touching pairs of nodes (a key at
 *     column x belongs to the node holding x or ending at x - 1). Noise of
 *     50 % has 0.4 times as many nodes as runs, so fewer links, finds and
 *     merges; a node's features take more work than a run's (its two
 *     rows' words), which sparse noise and coarse blobs pay for. A piece's
 *     first pixel is the first pixel of row 2p of its top pair row, which
 *     another node of that pair row than the smallest may hold (first_px).
 *     Half the block holds the pair rows' words in step 2.
 * Steps ("runs" below: the nodes):
 *   1. binarise (threshold fused);
 *   2. run starts, the touching pairs of runs with the row above as word bit
 *      operations (tile_words.cuh), one block scan numbering runs and extras;
 *      isolated runs (inside one word, touching no other run and no seam:
 *      most runs of sparse noise) are not numbered: each is a closed piece,
 *      finished from its word in step 8;
 *   3. link: every run's parent is its first top neighbour, a plain store to
 *      a smaller number; the other pairs (extras) go to a list;
 *   4. merge the extras (Alg. 2, atomicMin) on that forest;
 *   5. flatten the forest by pointer jumping: every run points at its root;
 *   6. roots, pieces of several runs and
 *      pieces that touch a seam (a border with a neighbour tile: open) are
 *      flagged;
 *   7. rank the roots: pieces of several runs get feature slots, open pieces
 *      their global slots;
 *   8. features of the pieces, and
 *   9. the tile's outputs (tile_pieces.cuh, with the kernel);
 *  10. seam merging with the tiles around it (seam_merging.cuh).
 * A tile with open pieces writes its seam pixels and arrives at its seams
 * before step 8, and merges after step 9 (finish_tile).
 * Nothing image-sized is cleared: every tile writes its own words. */
#ifndef GPUCCL_TILE_LABELING_CUH
#define GPUCCL_TILE_LABELING_CUH

#include <cub/block/block_scan.cuh>

#include "tile_samples.cuh"
#include "tile_words.cuh"
#include "tiled_kernels.h"

namespace tile {

constexpr int bit_width(unsigned long long v)
{
  return v ? 1 + bit_width(v >> 1) : 0;
}

/* Marks at the end of phases 1 to 6 (label_runs) for a profile
 * (bench/tile_bench.cu); none in the library. */
struct NoMarks {
  static __device__ __forceinline__ void at(int) {}
};

/* Shared memory of one tile. */
template <class S, int FCAP> struct TileShared {
  static constexpr int RW = S::MAX_RUNS / 32; /* words of a bitmap of runs */
  typedef cub::BlockScan<uint32_t, S::THREADS, cub::BLOCK_SCAN_WARP_SCANS>
      Scan;
  uint32_t fg[S::H][S::WORDS];   /* foreground */
  uint16_t base[S::H][S::WORDS]; /* number of the word's first run start */
  /* Numbered runs' starts of the last row of each warp, for the next
   * warp's first row (step 3; the other rows shuffle them). */
  uint32_t edge[S::THREADS / 32][S::WORDS];
  uint32_t P[S::MAX_RUNS];       /* forest over runs */
  uint16_t run_ya[S::MAX_RUNS];  /* PAIRED | row << 8 | first column */
  uint8_t run_b[S::MAX_RUNS];    /* last column */
  uint32_t multi[RW], open[RW]; /* roots of pieces of several runs, open */
  uint32_t before[RW]; /* roots of several runs before | open ones << 16 */
  uint32_t n_closed;
  union {
    uint32_t extra[S::MAX_RUNS]; /* run << 16 | its run above */
    struct { /* features of FCAP pieces at a time, then the bitmaps */
      uint32_t area_sy[FCAP], sum_x[FCAP], x0[FCAP], x1[FCAP], y1[FCAP];
      uint16_t root[FCAP];
      uint32_t start[S::H][S::WORDS], pass[S::H][S::WORDS];
    } win;
    uint32_t id[S::MAX_RUNS]; /* label image: each root's component id */
  };
  typename Scan::TempStorage scan;
};

/* The words of a thread's node word after step 2. */
struct RowWords {
  uint32_t starts;     /* starts of the word's numbered nodes */
  uint32_t first_keys; /* first top neighbours */
  uint32_t extras;     /* the other touching pairs */
  uint32_t run0;       /* number of the word's first run start */
  uint32_t extra0;     /* and of its first extra */
};

template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          bool PAIRS = false, class Marks = NoMarks>
struct TileLabeling {
  typedef TileShared<S, FCAP> Shared;
  typedef typename Shared::Scan Scan;
  static constexpr int WORDS = S::WORDS, TW = S::W, TH = S::H;
  static constexpr int NT = S::THREADS, RW = Shared::RW;
  static constexpr uint32_t FULL = 0xffffffffu;
  static_assert(NT == WORDS * TH && 32 % WORDS == 0,
                "one word per thread, whole rows per warp");
  static_assert((TH - 1) * (TW / 2 - 1) <= S::MAX_RUNS, "extras list");
  static_assert(S::MAX_RUNS <= 65536, "run numbers are 16-bit");
  static_assert(TH <= 128, "a run's row and its PAIRED flag share a byte");
  static_assert(!PAIRS || (CONN8 && TH % 2 == 0),
                "row pairs are 8-connected, of whole pairs of rows");
  /* Pixel rows of a node row, node rows of the tile, threads holding a
   * node word (in the first warps). */
  static constexpr int NODE_ROWS = PAIRS ? 2 : 1;
  static constexpr int NR = TH / NODE_ROWS;
  static constexpr int NODE_THREADS = NR * WORDS;
  /* Node numbers are 16-bit: above them in P, the roots of row pairs'
   * pieces keep their first pixel (first_px). */
  static constexpr uint32_t NODE_MASK = 0xffffu;
  /* Row pairs number at most half of MAX_RUNS nodes: the other half of P
   * hands the high halves of the isolated starts over (number_pairs). */
  static constexpr int HANDOVER = S::MAX_RUNS / 2;
  static_assert(!PAIRS || NR * TW / 2 + NODE_THREADS <= S::MAX_RUNS,
                "row pairs' nodes and the handover fit in P");
  /* In a run's record: the run touches another run of the tile, so its
   * piece has several runs (mark_paired). */
  static constexpr uint16_t PAIRED = 0x8000;
  /* Area and sum of rows share a word, sum of columns has its own. */
  static constexpr int AREA_BITS = bit_width(S::PIXELS);
  static_assert(AREA_BITS +
                        bit_width((unsigned long long)TW * TH * (TH - 1) / 2) <=
                    32,
                "area and row sum overflow a word");

  /* Lanes that read the last word of a row. */
  static constexpr uint32_t last_word_lanes()
  {
    uint32_t m = 0;
    for (int l = WORDS - 1; l < 32; l += WORDS)
      m |= 1u << l;
    return m;
  }

  Shared &s;
  const Frame &f;
  const int t, lane, wy, ww; /* thread, lane, the row and word it reads */
  const uint32_t tile_id;
  const int gx0, gy0;
  const bool seam_top, seam_bottom, seam_left, seam_right;
  /* Whether isolated runs are finished apart (number_runs); not when the
   * pieces are another labeling's (forest_tiles.cu). */
  const bool isolate;
  uint32_t n_runs = 0, n_extras = 0, n_multi = 0;
  /* The isolated nodes this thread stages (stage_isolated): its word's;
   * for row pairs, the low half of a word's starts, the high half staged
   * by thread t + NODE_THREADS (handed over in HANDOVER). */
  uint32_t iso_starts = 0;

  __device__ TileLabeling(Shared &shared, const Frame &frame,
                          bool isolate_runs = true)
      : s(shared), f(frame), t(threadIdx.x), lane(threadIdx.x & 31),
        wy(threadIdx.x / WORDS), ww(threadIdx.x % WORDS),
        tile_id(blockIdx.y * gridDim.x + blockIdx.x), gx0(blockIdx.x * TW),
        gy0(blockIdx.y * TH), seam_top(blockIdx.y > 0),
        seam_bottom(blockIdx.y + 1 < gridDim.y), seam_left(blockIdx.x > 0),
        seam_right(blockIdx.x + 1 < gridDim.x), isolate(isolate_runs)
  {
  }

  __device__ __forceinline__ uint32_t run_y(uint32_t r) const
  {
    return s.run_ya[r] >> 8 & 0x7fu;
  }
  __device__ __forceinline__ uint32_t run_a(uint32_t r) const
  {
    return s.run_ya[r] & 0xffu;
  }
  __device__ __forceinline__ bool paired(uint32_t r) const
  {
    return s.run_ya[r] & PAIRED;
  }
  /* Several threads may mark one run: an atomic on its record's word. */
  __device__ __forceinline__ void mark_paired(uint32_t r)
  {
    uint32_t *word = reinterpret_cast<uint32_t *>(s.run_ya) + (r >> 1);
    atomicOr(word, (uint32_t)PAIRED << 16 * (r & 1));
  }

  /* Bits of a word below bit i. */
  static __device__ __forceinline__ uint32_t below(uint32_t i)
  {
    return (1u << (i & 31)) - 1u;
  }
  __device__ __forceinline__ bool flag(const uint32_t *bits, uint32_t r) const
  {
    return bits[r >> 5] >> (r & 31) & 1u;
  }
  __device__ __forceinline__ uint32_t multi_rank(uint32_t root) const
  {
    const uint32_t w = root >> 5;
    return (s.before[w] & 0xffffu) + __popc(s.multi[w] & below(root));
  }
  __device__ __forceinline__ uint32_t open_slot(uint32_t root) const
  {
    const uint32_t w = root >> 5;
    return tile_id * S::OPEN_CAP + (s.before[w] >> 16) +
           __popc(s.open[w] & below(root));
  }
  /* The bits of word k inside columns a..b. */
  static __device__ __forceinline__ uint32_t span_mask(int k, uint32_t a,
                                                       uint32_t b)
  {
    const int lo = max((int)a - 32 * k, 0), hi = min((int)b - 32 * k, 31);
    return (FULL << lo) & (FULL >> (31 - hi));
  }
  /* Whether row yy has a pixel in columns a..b. */
  __device__ bool span_any(int yy, uint32_t a, uint32_t b) const
  {
    for (int k = a >> 5; k <= (int)(b >> 5); k++)
      if (s.fg[yy][k] & span_mask(k, a, b))
        return true;
    return false;
  }
  /* Whether node r has a pixel on a seam: a row pair's top or bottom row
   * may have none in the node's columns. */
  __device__ bool touches_seam(uint32_t r) const
  {
    const uint32_t y = run_y(r), a = run_a(r), b = s.run_b[r];
    if ((a == 0 && seam_left) || (b == TW - 1 && seam_right))
      return true;
    if (y == 0 && seam_top)
      return !PAIRS || span_any(0, a, b);
    if (y == NR - 1 && seam_bottom)
      return !PAIRS || span_any(TH - 1, a, b);
    return false;
  }
  /* The pixels of a node word that touch the node rows above and below:
   * T and U its top and bottom rows (for runs, both the row), A the row
   * above T and C the row below U, with their neighbour words. */
  static __device__ __forceinline__ uint32_t
  touching_rows(uint32_t T, uint32_t U, const uint32_t (&A)[3],
                const uint32_t (&C)[3])
  {
    return touching(T, A[1], A[0], A[2], CONN8) |
           touching(U, C[1], C[0], C[2], CONN8);
  }
  /* Isolated nodes: inside one word, touching no node of the node rows
   * above and below and no seam, so each is a closed piece of one node.
   * Sparse noise is mostly such nodes: they are not numbered, and
   * stage_isolated() finishes them from the word. Their starts in word k
   * of node row p, and their ends; the word B, its starts and ends and its
   * pixels that touch (touching_rows) given. */
  __device__ uint32_t isolated(int p, int k, uint32_t B, uint32_t starts,
                               uint32_t ends, uint32_t touch,
                               uint32_t &iso_ends) const
  {
    iso_ends = 0u;
    if (!isolate || (p == 0 && seam_top) || (p == NR - 1 && seam_bottom))
      return 0u;
    if (!(starts & ~touch)) /* every node starts touching (dense words) */
      return 0u;
    uint32_t first = untouched_starts(B, starts, ends, touch);
    uint32_t last = untouched_ends(B, starts, ends, touch);
    if (k == 0 && seam_left && (first & 1u)) { /* on the left seam */
      first &= ~1u;
      last &= last - 1u;
    }
    if (k == WORDS - 1 && seam_right && (last >> 31)) {
      last &= ~(1u << 31);
      first &= ~(0x80000000u >> __clz(first));
    }
    iso_ends = last;
    return first;
  }

  /* Foreground word k of row yy from shared memory, 0 outside the tile. */
  __device__ __forceinline__ uint32_t word(int yy, int k) const
  {
    return yy >= 0 && yy < TH && k >= 0 && k < WORDS ? s.fg[yy][k] : 0u;
  }
  /* Word k of node row p: a row, or the OR of a row pair. */
  __device__ __forceinline__ uint32_t node_word(int p, int k) const
  {
    return PAIRS ? word(2 * p, k) | word(2 * p + 1, k) : word(p, k);
  }
  /* Starts of the nodes of word k of node row p (isolated runs too). */
  __device__ __forceinline__ uint32_t node_starts(int p, int k) const
  {
    return run_starts(node_word(p, k), node_word(p, k - 1));
  }

  /* The same from shared memory. */
  __device__ uint32_t isolated(int p, int k) const
  {
    const int top = NODE_ROWS * p, bottom = top + NODE_ROWS - 1;
    const uint32_t B = node_word(p, k);
    const uint32_t A[3] = {word(top - 1, k - 1), word(top - 1, k),
                           word(top - 1, k + 1)};
    const uint32_t C[3] = {word(bottom + 1, k - 1), word(bottom + 1, k),
                           word(bottom + 1, k + 1)};
    uint32_t iso_ends;
    return isolated(p, k, B, node_starts(p, k),
                    run_ends(B, node_word(p, k + 1)),
                    touching_rows(word(top, k), word(bottom, k), A, C),
                    iso_ends);
  }

  /* Starts of the numbered nodes of word k of node row yy. */
  __device__ __forceinline__ uint32_t numbered_starts(int yy, int k) const
  {
    const uint32_t starts = node_starts(yy, k);
    return isolate ? starts & ~isolated(yy, k) : starts;
  }
  /* The run holding the set pixel (yy, x) of a numbered run. */
  __device__ __forceinline__ uint32_t run_of(int yy, int x) const
  {
    const int k = x >> 5;
    return run_at(s.base[yy][k], numbered_starts(yy, k), x & 31);
  }

  /* 1. Whether the tile has any foreground comes back with the barrier. */
  __device__ uint32_t binarise(bool &any)
  {
    const uint32_t B =
        load_word<FMT>(f.image, (unsigned)threshold_of(f.image),
                       gx0 + 32 * ww, gy0 + wy);
    s.fg[wy][ww] = B;
    if (t < RW) {
      s.multi[t] = 0;
      s.open[t] = 0;
    }
    if (t == 0)
      s.n_closed = 0;
    any = __syncthreads_or(B != 0u);
    return B;
  }

  /* Word k - 1, k and k + 1 of the row of word x (0 outside the tile);
   * called by whole warps. */
  __device__ void row_around(uint32_t x, uint32_t (&around)[3]) const
  {
    around[0] = __shfl_up_sync(FULL, x, 1);
    around[1] = x;
    around[2] = __shfl_down_sync(FULL, x, 1);
    if (ww == 0)
      around[0] = 0u;
    if (ww == WORDS - 1)
      around[2] = 0u;
  }

  /* 2. Runs: neighbour words by shuffles (a warp holds whole rows), the
   * rows above and below the warp's from shared memory; isolated runs
   * apart. */
  __device__ RowWords number_runs(uint32_t B)
  {
    uint32_t A[3], Bs[3], C[3];
    row_around(wy ? s.fg[wy - 1][ww] : 0u, A);
    row_around(B, Bs);
    uint32_t below = __shfl_down_sync(FULL, B, WORDS);
    if (lane >= 32 - WORDS) /* the warp's last row */
      below = wy + 1 < TH ? s.fg[wy + 1][ww] : 0u;
    row_around(below, C);
    const uint32_t starts = run_starts(B, Bs[0]), ends = run_ends(B, Bs[2]);
    uint32_t iso_ends;
    iso_starts = isolated(wy, ww, B, starts, ends, touching_rows(B, B, A, C),
                          iso_ends);
    return number(B, Bs[0], starts & ~iso_starts, ends & ~iso_ends,
                  pair_keys(A[1], A[0], B, Bs[0], CONN8));
  }

  /* 2. Row pairs: the first NODE_THREADS threads hold a word of pair row
   * wy; its keys with the pair row above are those of rows 2 wy - 1 and
   * 2 wy. Isolated nodes apart. */
  __device__ RowWords number_pairs()
  {
    const bool holds = t < NODE_THREADS;
    uint32_t up[3], top[3], N[3], down[3];
    row_around(holds && wy > 0 ? s.fg[2 * wy - 1][ww] : 0u, up);
    row_around(holds ? s.fg[2 * wy][ww] : 0u, top);
    const uint32_t U = holds ? s.fg[2 * wy + 1][ww] : 0u;
    row_around(top[1] | U, N);
    row_around(holds && 2 * wy + 2 < TH ? s.fg[2 * wy + 2][ww] : 0u, down);
    const uint32_t starts = run_starts(N[1], N[0]), ends = run_ends(N[1], N[2]);
    uint32_t iso_ends;
    const uint32_t iso = isolated(wy, ww, N[1], starts, ends,
                                  touching_rows(top[1], U, up, down), iso_ends);
    /* the other half of the block stages the high half (stage_isolated) */
    if (holds)
      s.P[HANDOVER + t] = iso & 0xffff0000u;
    iso_starts = iso & 0xffffu;
    return number(N[1], N[0], starts & ~iso, ends & ~iso_ends,
                  pair_keys(up[1], up[0], top[1], top[0], true));
  }

  /* Numbering of node word B (its left word, the starts and ends of its
   * numbered nodes, its keys with the node row above): first keys and
   * extras, one block scan, the nodes' records. */
  __device__ RowWords number(uint32_t B, uint32_t B_left, uint32_t starts,
                             uint32_t ends, uint32_t keys)
  {
    RowWords w;
    w.starts = starts;
    if (lane / WORDS == 32 / WORDS - 1)
      s.edge[t / 32][ww] = w.starts;
    const FirstKeySum sum = first_key_sum(B, B_left, keys);
    const uint32_t carries =
        word_carries(__ballot_sync(FULL, sum.generate),
                     __ballot_sync(FULL, sum.propagate), last_word_lanes());
    w.first_keys = first_keys(sum, keys, carries >> lane & 1u);
    w.extras = keys & ~w.first_keys;

    uint32_t before, total;
    Scan(s.scan).ExclusiveSum(
        (uint32_t)__popc(w.starts) | (uint32_t)__popc(w.extras) << 16, before,
        total);
    n_runs = total & 0xffffu;
    n_extras = total >> 16;
    w.run0 = before & 0xffffu;
    w.extra0 = before >> 16;
    if (t < NODE_THREADS)
      s.base[wy][ww] = (uint16_t)w.run0;
    uint32_t r = w.run0;
    for (uint32_t m = w.starts; m; m &= m - 1, r++) {
      s.P[r] = r;
      s.run_ya[r] = (uint16_t)(wy << 8 | (32 * ww + tile_lowest(m)));
    }
    /* The k-th end closes the k-th node; a node entering from the left
     * word started before this word's first start. */
    r = w.run0 - (B & B_left >> 31 & 1u);
    for (uint32_t m = ends; m; m &= m - 1, r++)
      s.run_b[r] = (uint8_t)(32 * ww + tile_lowest(m));
    __syncthreads();
    return w;
  }

  /* 3. Both runs of a pair are marked PAIRED. */
  __device__ void link(const RowWords &w)
  {
    uint32_t starts_above = __shfl_up_sync(FULL, w.starts, WORDS);
    if (lane < WORDS && t >= 32)
      starts_above = s.edge[t / 32 - 1][ww];
    if (w.first_keys | w.extras) { /* rows below the first only */
      const uint32_t above0 = s.base[wy - 1][ww];
      for (uint32_t m = w.first_keys; m; m &= m - 1) {
        const int i = tile_lowest(m);
        const uint32_t r = run_at(w.run0, w.starts, i);
        const uint32_t u = run_at(above0, starts_above, i);
        s.P[r] = u;
        mark_paired(r);
        mark_paired(u);
      }
      uint32_t j = w.extra0;
      for (uint32_t m = w.extras; m; m &= m - 1, j++) {
        const int i = tile_lowest(m);
        s.extra[j] = run_at(w.run0, w.starts, i) << 16 |
                     run_at(above0, starts_above, i);
      }
    }
    __syncthreads();
  }

  /* 4. Union-find over the first top neighbours' forest, whose chains
   * halve on the way; what stays deep, flatten() shortens. */
  __device__ void merge_extras()
  {
    for (uint32_t i = t; i < n_extras; i += NT) {
      const uint32_t e = s.extra[i];
      merge_roots<SharedForest>(s.P, e >> 16, e & 0xffffu);
    }
    __syncthreads();
  }

  /* 5. Each pass links every run three levels up (a third of its path
   * where a halving pass leaves half: fewer passes and barriers for the
   * load they add); links only ever point higher up, so any value read
   * meanwhile is an ancestor. The pass after which every link points to a
   * root (a run linked to itself: roots stay roots) is the last: no pass
   * only to find nothing changed. */
  __device__ void flatten()
  {
    uint32_t *P = s.P;
    for (;;) {
      bool deeper = false;
      for (uint32_t r = t; r < n_runs; r += NT) {
        const uint32_t p = SharedForest::load(P + r);
        const uint32_t g = SharedForest::load(P + p);
        if (g != p) {
          const uint32_t up = SharedForest::load(P + g);
          atomicMin(P + r, up); /* up < p: links point to smaller runs */
          deeper |= up != g && SharedForest::load(P + up) != up;
        }
      }
      if (!__syncthreads_or(deeper))
        break;
    }
  }

  /* 6. Whole warps go round together: the roots of pieces of several runs
   * among 32 runs are one ballot. After flatten() every run's parent is
   * its root; the forest adapter's forests (forest_tiles.cu) may still
   * hang roots under roots. */
  __device__ void find_roots()
  {
    uint32_t *P = s.P;
    for (uint32_t r0 = t - lane; r0 < n_runs; r0 += NT) {
      const uint32_t r = r0 + lane;
      bool is_root = false;
      if (r < n_runs) {
        const uint32_t p = SharedForest::load(P + r);
        const uint32_t root = p == r ? r : find_root<SharedForest>(P, p);
        if (root != p)
          atomicMin(P + r, root);
        is_root = root == r;
        if (touches_seam(r))
          atomicOr(s.open + (root >> 5), 1u << (root & 31));
      }
      const uint32_t multi = __ballot_sync(FULL, is_root && paired(r));
      if (lane == 0)
        s.multi[r0 >> 5] = multi;
    }
    __syncthreads();
  }

  /* 7. */
  __device__ void rank_roots()
  {
    uint32_t mine = 0, before, total;
    if (t < RW)
      mine = __popc(s.multi[t]) | __popc(s.open[t]) << 16;
    Scan(s.scan).ExclusiveSum(mine, before, total);
    if (t < RW)
      s.before[t] = before;
    n_multi = total & 0xffffu;
    s.win.start[wy][ww] = 0; /* the extras are merged: the union is free */
    s.win.pass[wy][ww] = 0;
    __syncthreads();
  }

  /* Steps 1 to 7: the tile's forest, flat, with its flags and ranks;
   * false for a tile without foreground (nothing after step 1 ran). */
  __device__ bool label_runs()
  {
    bool any;
    const uint32_t B = binarise(any);
    Marks::at(1);
    if (!any)
      return false;
    const RowWords w = PAIRS ? number_pairs() : number_runs(B);
    Marks::at(2);
    link(w);
    Marks::at(3);
    merge_extras();
    Marks::at(4);
    flatten();
    Marks::at(5);
    find_roots();
    rank_roots();
    Marks::at(6);
    return true;
  }
};

} /* namespace tile */

#endif /* GPUCCL_TILE_LABELING_CUH */
