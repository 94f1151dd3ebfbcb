/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tile labeling: HA4's labeling and features (Alg. 3 and 6 of Hennequin et
 * al. 2018) for a whole 2D tile in shared memory, with the runs linked as
 * Afforest and ECL-CC link vertices (Sutton et al. 2018, Jaiganesh and
 * Burtscher 2018): each to its first neighbour by a plain store, union-find
 * only for the links left over.
 *
 * One thread per 32-pixel word of the tile. The forest is over the tile's
 * runs (maximal horizontal segments), numbered in raster order of their
 * first pixel, so the smallest run of a piece holds its first pixel:
 *   1. binarise (threshold fused);
 *   2. run starts, the touching pairs of runs with the row above as word bit
 *      operations (tile_words.cuh), one block scan numbering runs and extras;
 *   3. link: every run's parent is its first top neighbour, a plain store to
 *      a smaller number; the other pairs (extras) go to a list;
 *   4. flatten the forest by pointer jumping;
 *   5. merge the extras (Alg. 2, atomicMin);
 *   6. every run points at its root; roots, pieces of several runs and
 *      pieces that touch a seam (a border with a neighbour tile: open) are
 *      flagged;
 *   7. rank the roots: pieces of several runs get feature slots, open pieces
 *      their global slots;
 *   8. features: a piece of one run is finished by its lane; the others sum
 *      area, columns, rows and box in shared memory with 32-bit atomics, in
 *      windows of FCAP pieces. Closed pieces are whole components: first
 *      pixel into the start bitmap and, when they pass the area filter, into
 *      the pass bitmap and the staged records; open pieces go to global
 *      memory with their partial features;
 *   9. seam pixels get their open slots; bitmaps and counts per cell go out.
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

/* The words of a thread's row pair after step 2. */
struct RowWords {
  uint32_t A, A_left;  /* the row above, and its word to the left */
  uint32_t starts;     /* run starts of the thread's word */
  uint32_t first_keys; /* first top neighbours */
  uint32_t extras;     /* the other touching pairs */
  uint32_t run0;       /* number of the word's first run start */
  uint32_t extra0;     /* and of its first extra */
};

template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          class Marks = NoMarks>
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
  uint32_t n_runs = 0, n_extras = 0, n_multi = 0;

  __device__ TileLabeling(Shared &shared, const Frame &frame)
      : s(shared), f(frame), t(threadIdx.x), lane(threadIdx.x & 31),
        wy(threadIdx.x / WORDS), ww(threadIdx.x % WORDS),
        tile_id(blockIdx.y * gridDim.x + blockIdx.x), gx0(blockIdx.x * TW),
        gy0(blockIdx.y * TH), seam_top(blockIdx.y > 0),
        seam_bottom(blockIdx.y + 1 < gridDim.y), seam_left(blockIdx.x > 0),
        seam_right(blockIdx.x + 1 < gridDim.x)
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
  __device__ __forceinline__ bool touches_seam(int y, int a, int b) const
  {
    return (y == 0 && seam_top) || (y == TH - 1 && seam_bottom) ||
           (a == 0 && seam_left) || (b == TW - 1 && seam_right);
  }
  /* The run holding the set pixel (yy, x). */
  __device__ __forceinline__ uint32_t run_of(int yy, int x) const
  {
    const int k = x >> 5;
    const uint32_t starts = run_starts(s.fg[yy][k], k ? s.fg[yy][k - 1] : 0u);
    return run_at(s.base[yy][k], starts, x & 31);
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

  /* 2. Neighbour words of the row by shuffles (a warp holds whole rows),
   * the row above from shared memory. */
  __device__ RowWords number_runs(uint32_t B)
  {
    RowWords w;
    w.A = wy ? s.fg[wy - 1][ww] : 0u;
    uint32_t B_left = __shfl_up_sync(FULL, B, 1);
    w.A_left = __shfl_up_sync(FULL, w.A, 1);
    uint32_t B_right = __shfl_down_sync(FULL, B, 1);
    if (ww == 0)
      B_left = w.A_left = 0;
    if (ww == WORDS - 1)
      B_right = 0;
    w.starts = run_starts(B, B_left);
    const uint32_t keys = pair_keys(w.A, w.A_left, B, B_left, CONN8);
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
    s.base[wy][ww] = (uint16_t)w.run0;
    uint32_t r = w.run0;
    for (uint32_t m = w.starts; m; m &= m - 1, r++) {
      s.P[r] = r;
      s.run_ya[r] = (uint16_t)(wy << 8 | (32 * ww + tile_lowest(m)));
    }
    /* The k-th end closes the k-th run; a run entering from the left word
     * started before this word's first start. */
    r = w.run0 - (B & B_left >> 31 & 1u);
    for (uint32_t m = run_ends(B, B_right); m; m &= m - 1, r++)
      s.run_b[r] = (uint8_t)(32 * ww + tile_lowest(m));
    __syncthreads();
    return w;
  }

  /* 3. Both runs of a pair are marked PAIRED. */
  __device__ void link(const RowWords &w)
  {
    if (w.first_keys | w.extras) { /* rows below the first only */
      const uint32_t above0 = s.base[wy - 1][ww];
      const uint32_t starts_above = run_starts(w.A, w.A_left);
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

  /* 4. Each pass halves every path; links only ever point higher up, so
   * any value read meanwhile is an ancestor. */
  __device__ void flatten()
  {
    uint32_t *P = s.P;
    for (;;) {
      bool changed = false;
      for (uint32_t r = t; r < n_runs; r += NT) {
        const uint32_t p = SharedForest::load(P + r);
        const uint32_t g = SharedForest::load(P + p);
        if (g != p) {
          atomicMin(P + r, g); /* g < p: links point to smaller runs */
          changed = true;
        }
      }
      if (!__syncthreads_or(changed))
        break;
    }
  }

  /* 5. */
  __device__ void merge_extras()
  {
    for (uint32_t i = t; i < n_extras; i += NT) {
      const uint32_t e = s.extra[i];
      merge_roots<SharedForest>(s.P, e >> 16, e & 0xffffu);
    }
    __syncthreads();
  }

  /* 6. Whole warps go round together: the roots of pieces of several runs
   * among 32 runs are one ballot. */
  __device__ void find_roots()
  {
    uint32_t *P = s.P;
    for (uint32_t r0 = t - lane; r0 < n_runs; r0 += NT) {
      const uint32_t r = r0 + lane;
      bool is_root = false;
      if (r < n_runs) {
        /* Merging the extras hung roots under roots: halving on the way
         * shortens those chains for the lanes that follow. */
        const uint32_t root = find_root<SharedForest>(P, r);
        if (root != r)
          atomicMin(P + r, root);
        is_root = root == r;
        if (touches_seam(run_y(r), run_a(r), s.run_b[r]))
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

  /* Closed pieces that pass are staged, one atomic per warp. Called by
   * whole warps. */
  __device__ void stage(bool closed, uint32_t area, uint32_t px, uint4 rec)
  {
    const bool passes = closed && f.filter.passes(area);
    const uint32_t fy = px / TW, fx = px % TW;
    if (closed)
      atomicOr(&s.win.start[fy][fx >> 5], 1u << (fx & 31));
    if (passes)
      atomicOr(&s.win.pass[fy][fx >> 5], 1u << (fx & 31));
    const uint32_t m = __ballot_sync(FULL, passes);
    if (!m)
      return;
    const int first = __ffs(m) - 1;
    uint32_t k = 0;
    if (lane == first)
      k = atomicAdd(&s.n_closed, (uint32_t)__popc(m));
    k = __shfl_sync(FULL, k, first) + __popc(m & below(lane));
    if (passes)
      f.out.closed.rec[(size_t)tile_id * S::CLOSED_CAP + k] = rec;
  }

  /* A piece whose features are known: open ones go to their global slot
   * (image coordinates, 64-bit sums), closed ones are staged. Called by
   * whole warps; `valid` says whether this lane has a piece. */
  __device__ void finish(bool valid, uint32_t root, uint32_t area,
                         uint32_t sx, uint32_t sy, uint32_t x0, uint32_t x1,
                         uint32_t y1)
  {
    const bool open = valid && flag(s.open, root);
    const uint32_t fy = valid ? run_y(root) : 0u, fx = valid ? run_a(root) : 0u;
    const uint32_t px = fy * TW + fx;
    if (open) {
      const OpenPieces &o = f.out.open;
      const uint32_t g = open_slot(root);
      o.parent[g] = g;
      o.key[g] = (uint32_t)(gy0 + fy) * f.image.width + gx0 + fx;
      o.area[g] = area;
      o.sum_x[g] = sx + (unsigned long long)area * gx0;
      o.sum_y[g] = sy + (unsigned long long)area * gy0;
      o.x0[g] = gx0 + x0;
      o.x1[g] = gx0 + x1;
      o.y1[g] = gy0 + y1;
    }
    stage(valid && !open, area, px,
          make_uint4(px | area << 16, sx, sy, x0 | x1 << 8 | y1 << 16));
  }

  /* 8. */
  __device__ void features()
  {
    for (uint32_t lo = 0; lo == 0 || lo < n_multi; lo += FCAP) {
      const uint32_t n_win = lo < n_multi ? min((uint32_t)FCAP, n_multi - lo) : 0;
      for (uint32_t i = t; i < n_win; i += NT) {
        s.win.area_sy[i] = 0;
        s.win.sum_x[i] = 0;
        s.win.x0[i] = 0xffu;
        s.win.x1[i] = 0;
        s.win.y1[i] = 0;
      }
      __syncthreads();
      for (uint32_t r0 = t - lane; r0 < n_runs; r0 += NT)
        add_run(r0 + lane, lo, n_win);
      __syncthreads();
      for (uint32_t i0 = t - lane; i0 < n_win; i0 += NT)
        finish_slot(i0 + lane, n_win);
      __syncthreads();
    }
  }

  /* A run's share of its piece: a piece of one run is finished here (in the
   * first window), the others add into their slot when it is in this
   * window. The lanes of lane 0's piece (on dense images, the giant
   * component) add up first. */
  __device__ void add_run(uint32_t r, uint32_t lo, uint32_t n_win)
  {
    uint32_t root = 0, y = 0, a = 0, b = 0, slot = NONE;
    bool single = false;
    if (r < n_runs) {
      root = s.P[r];
      y = run_y(r);
      a = run_a(r);
      b = s.run_b[r];
      if (!paired(root)) {
        single = lo == 0;
      } else {
        const uint32_t k = multi_rank(root) - lo;
        if (k < n_win) {
          slot = k;
          if (root == r)
            s.win.root[k] = (uint16_t)r;
        }
      }
    }
    uint32_t len = b + 1 - a, sx = len * (a + b) / 2;
    if (__any_sync(FULL, single))
      finish(single, root, len, sx, len * y, a, b, y);
    uint32_t area_sy = len | (len * y) << AREA_BITS, x0 = a, x1 = b, y1 = y;
    bool leader = slot != NONE;
#if __CUDA_ARCH__ >= 800
    const uint32_t slot0 = __shfl_sync(FULL, slot, 0);
    const bool group = slot == slot0 && slot != NONE;
    const uint32_t peers = __ballot_sync(FULL, group);
    if (group && (peers & (peers - 1))) {
      area_sy = __reduce_add_sync(peers, area_sy);
      sx = __reduce_add_sync(peers, sx);
      x0 = __reduce_min_sync(peers, x0);
      x1 = __reduce_max_sync(peers, x1);
      y1 = __reduce_max_sync(peers, y1);
      leader = lane == __ffs(peers) - 1;
    }
#endif
    if (leader) {
      atomicAdd(s.win.area_sy + slot, area_sy);
      atomicAdd(s.win.sum_x + slot, sx);
      atomicMin(s.win.x0 + slot, x0);
      atomicMax(s.win.x1 + slot, x1);
      atomicMax(s.win.y1 + slot, y1);
    }
  }

  __device__ void finish_slot(uint32_t i, uint32_t n_win)
  {
    const bool valid = i < n_win;
    const uint32_t area_sy = valid ? s.win.area_sy[i] : 0u;
    finish(valid, valid ? s.win.root[i] : 0u,
           area_sy & ((1u << AREA_BITS) - 1u), valid ? s.win.sum_x[i] : 0u,
           area_sy >> AREA_BITS, valid ? s.win.x0[i] : 0u,
           valid ? s.win.x1[i] : 0u, valid ? s.win.y1[i] : 0u);
  }

  /* The open slot of a seam pixel's piece, NONE for background. */
  __device__ uint32_t seam_slot(int yy, int x) const
  {
    if (!(s.fg[yy][x >> 5] >> (x & 31) & 1u))
      return NONE;
    return open_slot(s.P[run_of(yy, x)]);
  }

  /* 9. Seam pixels only where the tile has open pieces: seam merging reads
   * no other tile's. */
  __device__ void write_outputs()
  {
    const uint32_t n_open = (s.before[RW - 1] >> 16) + __popc(s.open[RW - 1]);
    if (n_open)
      write_seams();
    write_cells(s.win.start[wy][ww], s.win.pass[wy][ww], n_open, s.n_closed);
  }

  __device__ void write_seams()
  {
    const Seams &sm = f.out.seams;
    const int tx = blockIdx.x, ty = blockIdx.y;
    for (int x = t; x < TW; x += NT) {
      if (seam_top)
        sm.top[(size_t)ty * sm.row_len + gx0 + x] = seam_slot(0, x);
      if (seam_bottom)
        sm.bottom[(size_t)ty * sm.row_len + gx0 + x] = seam_slot(TH - 1, x);
    }
    for (int yy = t; yy < TH; yy += NT) {
      if (seam_left)
        sm.left[(size_t)tx * sm.col_len + gy0 + yy] = seam_slot(yy, 0);
      if (seam_right)
        sm.right[(size_t)tx * sm.col_len + gy0 + yy] = seam_slot(yy, TW - 1);
    }
  }

  /* The thread's bitmap words; its cell's closed components, packed as in
   * Frame::cell_before (open roots add theirs later, the scan turns counts
   * into offsets); the tile's counts. */
  __device__ void write_cells(uint32_t start, uint32_t pass, uint32_t n_open,
                              uint32_t n_closed)
  {
    const TileOutputs &out = f.out;
    const int tx = blockIdx.x;
    const size_t word = (size_t)(gy0 + wy) * out.start_words + tx * WORDS + ww;
    out.start[word] = start;
    out.pass[word] = pass;
    uint32_t all = __popc(start), passed = __popc(pass);
    for (int d = 1; d < WORDS; d <<= 1) {
      all += __shfl_down_sync(FULL, all, d, WORDS);
      passed += __shfl_down_sync(FULL, passed, d, WORDS);
    }
    if (ww == 0 && gy0 + wy < f.image.height)
      f.cell_count[(size_t)(gy0 + wy) * gridDim.x + tx] =
          all | (unsigned long long)passed << 32;
    if (t == 0) {
      out.n_open[tile_id] = n_open;
      out.n_closed[tile_id] = n_closed;
    }
  }

  /* A tile without foreground (sparse scenes are mostly such tiles): its
   * counts and zero bitmaps, or its zero labels; no run to label. */
  __device__ void write_empty(uint32_t *labels)
  {
    if (!labels) {
      write_cells(0u, 0u, 0u, 0u);
      return;
    }
    const Image &im = f.image;
    for (int i = t; i < TW * TH; i += NT) {
      const int y = i / TW, x = i % TW;
      if (gy0 + y < im.height && gx0 + x < im.width)
        labels[(size_t)(gy0 + y) * im.width + gx0 + x] = 0u;
    }
  }

  /* The label image (Alg. 5), after the component ids: each root's id, a
   * closed piece's from its own first pixel, an open one's from the first
   * pixel of its component; then every pixel of the tile inside the image,
   * background too (the label image is never cleared), consecutive threads
   * on consecutive pixels. */
  __device__ void label_image(uint32_t *labels)
  {
    const Image &im = f.image;
    for (uint32_t r = t; r < n_runs; r += NT) {
      if (s.P[r] != r)
        continue;
      uint32_t x = gx0 + run_a(r), y = gy0 + run_y(r);
      if (flag(s.open, r)) {
        const uint32_t key = f.out.open.key[find_root<GlobalForest>(
            f.out.open.parent, open_slot(r))];
        x = key % (uint32_t)im.width;
        y = key / (uint32_t)im.width;
      }
      s.id[r] = (uint32_t)components_before<S>(f, x, y) + 1;
    }
    __syncthreads();
    for (int i = t; i < TW * TH; i += NT) {
      const int y = i / TW, x = i % TW;
      if (gy0 + y >= im.height || gx0 + x >= im.width)
        continue;
      const bool set = s.fg[y][x >> 5] >> (x & 31) & 1;
      labels[(size_t)(gy0 + y) * im.width + gx0 + x] =
          set ? s.id[s.P[run_of(y, x)]] : 0u;
    }
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
    const RowWords w = number_runs(B);
    Marks::at(2);
    link(w);
    Marks::at(3);
    flatten();
    Marks::at(4);
    merge_extras();
    Marks::at(5);
    find_roots();
    rank_roots();
    Marks::at(6);
    return true;
  }
};

/* LABELS: the label image pass, after the component ids: the tile is
 * labeled again (steps 1 to 7) and every pixel gets its component's id;
 * nothing else is written. */
template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          bool LABELS = false, class Marks = NoMarks>
__global__ void __launch_bounds__(S::THREADS)
    labeling_kernel(Frame f, uint32_t *labels)
{
  typedef TileLabeling<S, FMT, CONN8, FCAP, Marks> Agent;
  extern __shared__ uint4 smem_raw[];
  wait_for_previous();
  allow_next();
  Agent agent(*reinterpret_cast<typename Agent::Shared *>(smem_raw), f);
  if (!agent.label_runs()) {
    agent.write_empty(LABELS ? labels : nullptr);
    return;
  }
  if (LABELS) {
    agent.label_image(labels);
    return;
  }
  agent.features();
  agent.write_outputs();
}

} /* namespace tile */

#endif /* GPUCCL_TILE_LABELING_CUH */
