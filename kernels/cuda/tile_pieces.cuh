/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tile labeling's steps 8 and 9 (steps 1 to 7: tile_labeling.cuh) and its
 * kernel: the features of the tile's pieces, what the tile hands the tail
 * (staged closed pieces, open pieces, seam pixels, bitmaps and counts per
 * cell), seam merging (step 10, seam_merging.cuh) and the label image
 * pass.
 *
 * Closed pieces are whole components: their first pixel goes into the
 * start bitmap and, when they pass the area filter, into the pass bitmap
 * and the staged records; open pieces go to global memory with their
 * partial features. An isolated run is finished from its word; a piece of
 * one numbered run by its lane; the others sum area, columns, rows and box
 * in shared memory with 32-bit atomics, in windows of FCAP pieces. */
#ifndef GPUCCL_TILE_PIECES_CUH
#define GPUCCL_TILE_PIECES_CUH

#include "seam_merging.cuh"
#include "tile_labeling.cuh"

namespace tile {

template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          bool PAIRS = false, class Marks = NoMarks>
struct TilePieces : TileLabeling<S, FMT, CONN8, FCAP, PAIRS, Marks> {
  typedef TileLabeling<S, FMT, CONN8, FCAP, PAIRS, Marks> Forest;
  using Forest::Forest;
  using Forest::AREA_BITS, Forest::FULL, Forest::NODE_MASK,
      Forest::NODE_ROWS, Forest::NODE_THREADS, Forest::HANDOVER, Forest::NR,
      Forest::NT, Forest::RW, Forest::TH, Forest::TW, Forest::WORDS;
  using Forest::f, Forest::s, Forest::t, Forest::lane, Forest::wy,
      Forest::ww, Forest::tile_id, Forest::gx0, Forest::gy0,
      Forest::seam_top, Forest::seam_bottom, Forest::seam_left,
      Forest::seam_right, Forest::n_runs, Forest::n_multi,
      Forest::iso_starts;
  using Forest::below, Forest::flag, Forest::isolated, Forest::multi_rank,
      Forest::node_starts, Forest::node_word, Forest::open_slot,
      Forest::paired, Forest::run_a, Forest::run_of, Forest::run_y,
      Forest::span_mask;

  /* Step 8 for the isolated nodes (number_runs, number_pairs): each
   * thread's own (iso_starts), from its word, into the start and pass
   * bitmaps (the words of its node row, which rank_roots cleared; before
   * the windows' atomics add theirs) and the staged records, one atomic
   * per warp. */
  __device__ void stage_isolated()
  {
    const int p = PAIRS ? t % NODE_THREADS / WORDS : wy;
    const uint32_t iso = PAIRS && t >= NODE_THREADS
                             ? s.P[HANDOVER + t - NODE_THREADS]
                             : iso_starts;
    if (!__any_sync(FULL, iso)) /* its words stay as rank_roots left them */
      return;
    const int top = NODE_ROWS * p;
    const uint32_t T = s.fg[top][ww], U = s.fg[top + NODE_ROWS - 1][ww];
    /* bitmap words of the node's top row (0) and a row pair's bottom row */
    uint32_t pass = 0, start0 = 0, pass0 = 0, start1 = 0, pass1 = 0;
    if (f.filter.passes_all()) { /* all pass: no area needed */
      first_pixels(T, U, iso, start0, start1);
      pass = iso;
      pass0 = start0;
      pass1 = start1;
    }
    for (uint32_t m = pass ? 0u : iso; m; m &= m - 1) {
      const int i = tile_lowest(m);
      const Share sh = share_in_word(T, U, ww, p, i, run_length(T | U, i));
      const bool bottom = PAIRS && sh.px >= (top + 1) * TW;
      const uint32_t bit = 1u << sh.px % 32;
      (bottom ? start1 : start0) |= bit;
      if (f.filter.passes(sh.area)) {
        pass |= 1u << i;
        (bottom ? pass1 : pass0) |= bit;
      }
    }
    if (!PAIRS && iso) { /* the word's own thread */
      s.win.start[top][ww] = start0;
      s.win.pass[top][ww] = pass0;
    }
    if (PAIRS && iso) { /* two threads a word */
      atomicOr(&s.win.start[top][ww], start0);
      atomicOr(&s.win.pass[top][ww], pass0);
      atomicOr(&s.win.start[top + 1][ww], start1);
      atomicOr(&s.win.pass[top + 1][ww], pass1);
    }
    const uint32_t n = __popc(pass);
    uint32_t k = n; /* inclusive sum over the warp */
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t v = __shfl_up_sync(FULL, k, d);
      if (lane >= d)
        k += v;
    }
    uint32_t k0 = 0;
    if (lane == 31 && k)
      k0 = atomicAdd(&s.n_closed, k);
    k = __shfl_sync(FULL, k0, 31) + k - n;
    uint4 *rec = f.out.closed.rec + (size_t)tile_id * S::CLOSED_CAP;
    for (uint32_t m = pass; m; m &= m - 1, k++) {
      const int i = tile_lowest(m);
      const uint32_t len = run_length(T | U, i), a = 32 * ww + i;
      const Share sh = share_in_word(T, U, ww, p, i, len);
      rec[k] = make_uint4(sh.px | sh.area << 16, sh.sx, sh.sy,
                          a | (a + len - 1) << 8 | sh.y1 << 16);
    }
  }

  /* The first pixels of the isolated nodes starting at `iso` in a word
   * whose node rows are T and U: in T (start0), or, for a row pair's node
   * without a pixel in T, at its start in U (start1). A run's is its
   * start. For row pairs, adding a start to the node's pixels outside T
   * carries up to its first pixel in T, or past its end; adding it to all
   * its pixels, past its end (the word's last bit: the carry out). */
  static __device__ __forceinline__ void
  first_pixels(uint32_t T, uint32_t U, uint32_t iso, uint32_t &start0,
               uint32_t &start1)
  {
    if (!PAIRS) {
      start0 = iso;
      return;
    }
    const uint32_t N = T | U, past = N + iso;
    const uint32_t ends = ((past & ~N) >> 1) | (past < N ? 1u << 31 : 0u);
    start0 = ((N & ~T) + iso) & T;
    start1 = untouched_starts(N, iso, ends, T);
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

  /* A piece whose features are known (px: its first pixel, y TW + x):
   * open ones go to their global slot (image coordinates, 64-bit sums),
   * closed ones are staged. Called by whole warps; `valid` says whether
   * this lane has a piece. */
  __device__ void finish(bool valid, uint32_t root, uint32_t px,
                         uint32_t area, uint32_t sx, uint32_t sy, uint32_t x0,
                         uint32_t x1, uint32_t y1)
  {
    const bool open = valid && flag(s.open, root);
    px = valid ? px : 0u;
    const uint32_t fy = px / TW, fx = px % TW;
    if (open) { /* its parent is written (open_parents) */
      const OpenPieces &o = f.out.open;
      const uint32_t g = open_slot(root);
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
      const uint32_t n_win =
          lo < n_multi ? min((uint32_t)FCAP, n_multi - lo) : 0;
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

  /* Node r's share of its piece's features. */
  struct Share {
    uint32_t area, sx, sy, y1;
    uint32_t px; /* the node's first pixel, y TW + x */
  };

  /* The sum of the bit numbers of w's set bits, bit slice by bit slice. */
  static __device__ __forceinline__ uint32_t column_sum(uint32_t w)
  {
    return __popc(w & 0xaaaaaaaau) + 2 * __popc(w & 0xccccccccu) +
           4 * __popc(w & 0xf0f0f0f0u) + 8 * __popc(w & 0xff00ff00u) +
           16 * __popc(w & 0xffff0000u);
  }

  /* Of node r. */
  __device__ Share share_of(uint32_t r) const
  {
    return share_at(run_y(r), run_a(r), s.run_b[r]);
  }
  /* Of the isolated node starting at bit i of word k of node row y. */
  __device__ Share word_share(uint32_t y, int k, int i) const
  {
    const uint32_t T = s.fg[NODE_ROWS * y][k];
    const uint32_t U = s.fg[NODE_ROWS * y + NODE_ROWS - 1][k];
    return share_in_word(T, U, k, y, i, run_length(T | U, i));
  }

  /* A row pair's node covers its columns a..b: each has a pixel in one of
   * the two rows, the columns of D (both rows) a second one. So a node's
   * sums are a run's plus D's, and D is empty in most nodes of noise.
   * PairSums adds up a node's words (T, U: its top and bottom rows there,
   * within its columns). */
  struct PairSums {
    uint32_t n_both = 0, sx_both = 0, n_bottom = 0, first = FULL;
    __device__ __forceinline__ void add(uint32_t T, uint32_t U, int k)
    {
      if (T && first == FULL)
        first = 32 * k + tile_lowest(T);
      n_bottom += __popc(U);
      if (const uint32_t D = T & U) {
        n_both += __popc(D);
        sx_both += 32 * k * __popc(D) + column_sum(D);
      }
    }
    /* The share of the node of pair row y in columns a..b. */
    __device__ __forceinline__ Share share(uint32_t y, uint32_t a,
                                           uint32_t b) const
    {
      const uint32_t len = b + 1 - a, top = 2 * y, area = len + n_both;
      return {area, len * (a + b) / 2 + sx_both, area * top + n_bottom,
              n_bottom ? top + 1 : top,
              first != FULL ? top * TW + first : (top + 1) * TW + a};
    }
  };

  /* Of the node of node row y in bits i to i + len - 1 of word k, whose
   * top and bottom rows there are T and U (for runs, both the row). */
  static __device__ __forceinline__ Share share_in_word(uint32_t T,
                                                        uint32_t U, int k,
                                                        uint32_t y, int i,
                                                        uint32_t len)
  {
    const uint32_t a = 32 * k + i, b = a + len - 1;
    if (!PAIRS)
      return {len, len * (a + b) / 2, len * y, y, y * TW + a};
    const uint32_t m = FULL >> (32 - len) << i;
    PairSums sums;
    sums.add(T & m, U & m, k);
    return sums.share(y, a, b);
  }
  /* Of the node of node row y in columns a..b. */
  __device__ Share share_at(uint32_t y, uint32_t a, uint32_t b) const
  {
    const int k0 = a >> 5, k1 = b >> 5;
    if (!PAIRS || k0 == k1)
      return share_in_word(s.fg[NODE_ROWS * y][k0],
                           s.fg[NODE_ROWS * y + NODE_ROWS - 1][k0], k0, y,
                           a & 31, b + 1 - a);
    PairSums sums; /* a row pair's node over several words */
    for (int k = k0; k <= k1; k++) {
      const uint32_t m = span_mask(k, a, b);
      sums.add(s.fg[2 * y][k] & m, s.fg[2 * y + 1][k] & m, k);
    }
    return sums.share(y, a, b);
  }

  /* Row pairs: the first pixel px of a node of root's piece, kept above
   * the root's number in P where it is in the top row of the root's pair
   * row, the least of those winning (first_px). */
  __device__ void keep_first_pixel(uint32_t root, uint32_t px)
  {
    if (px < (2 * run_y(root) + 1) * TW)
      atomicMax(s.P + root, (NODE_MASK - px) << 16 | root);
  }

  /* The first pixel of the piece whose root is given: a run root's own;
   * for row pairs, the first pixel of the top row of its top pair row
   * that keep_first_pixel kept, or if that row has none, the root's first
   * column in the bottom row. */
  __device__ uint32_t first_px(uint32_t root) const
  {
    if (PAIRS) {
      const uint32_t kept = s.P[root] >> 16;
      return kept ? NODE_MASK - kept : (2 * run_y(root) + 1) * TW + run_a(root);
    }
    return run_y(root) * TW + run_a(root);
  }

  /* A node's share of its piece: a piece of one node is finished here (in
   * the first window), the others add into their slot when it is in this
   * window. The lanes of lane 0's piece (on dense images, the giant
   * component) add up first. */
  __device__ void add_run(uint32_t r, uint32_t lo, uint32_t n_win)
  {
    uint32_t root = 0, a = 0, b = 0, slot = NONE;
    Share sh = {};
    bool single = false;
    if (r < n_runs) {
      root = s.P[r] & NODE_MASK;
      const uint32_t y = run_y(r);
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
      if (!PAIRS || single || slot != NONE) /* a run's share is cheap */
        sh = share_at(y, a, b);
      if (PAIRS && slot != NONE)
        keep_first_pixel(root, sh.px);
    }
    if (__any_sync(FULL, single))
      finish(single, root, sh.px, sh.area, sh.sx, sh.sy, a, b, sh.y1);
    uint32_t area_sy = sh.area | sh.sy << AREA_BITS, sx = sh.sx, x0 = a,
             x1 = b, y1 = sh.y1;
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
    const uint32_t root = valid ? s.win.root[i] : 0u;
    finish(valid, root, valid ? first_px(root) : 0u,
           area_sy & ((1u << AREA_BITS) - 1u), valid ? s.win.sum_x[i] : 0u,
           area_sy >> AREA_BITS, valid ? s.win.x0[i] : 0u,
           valid ? s.win.x1[i] : 0u, valid ? s.win.y1[i] : 0u);
  }

  /* The open slot of a seam pixel's piece, NONE for background. Its node
   * touches the seam, so it is numbered: on a row seam, whose node row has
   * no isolated node, or in the first column, by the starts before it; in
   * the last column, as the node row's last node. */
  __device__ uint32_t seam_slot(int yy, int x) const
  {
    const int k = x >> 5, p = yy / NODE_ROWS;
    if (!(s.fg[yy][k] >> (x & 31) & 1u))
      return NONE;
    uint32_t r;
    if (x == TW - 1)
      r = (p + 1 < NR ? s.base[p + 1][0] : n_runs) - 1u;
    else
      r = run_at(s.base[p][k], node_starts(p, k), x & 31);
    return open_slot(s.P[r] & NODE_MASK);
  }

  /* The tile's open pieces. */
  __device__ uint32_t count_open() const
  {
    return (s.before[RW - 1] >> 16) + __popc(s.open[RW - 1]);
  }

  /* 9. The bitmaps and counts. */
  __device__ void write_counts(uint32_t n_open)
  {
    write_cells(s.win.start[wy][ww], s.win.pass[wy][ww], n_open, s.n_closed);
  }

  /* Each of the n_open open pieces is a root, before any union (seam
   * merging); the slots are the tile's first n_open. */
  __device__ void open_parents(uint32_t n_open)
  {
    uint32_t *parent = f.out.open.parent + tile_id * S::OPEN_CAP;
    for (uint32_t i = t; i < n_open; i += NT)
      parent[i] = tile_id * S::OPEN_CAP + i;
  }

  /* 9. Seam pixels only where the tile has open pieces: seam merging reads
   * no other tile's. */
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
      out.n_open_roots[tile_id] = 0; /* open merging counts them */
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

  /* Steps 8 to 10 after label_runs(). A tile with open pieces arrives at
   * its seams before its features: its outputs that seam merging reads
   * are out by then, and the features hide the counters' round trips
   * (and its fence waits for fewer writes). */
  __device__ void finish_tile()
  {
    const uint32_t n_open = count_open();
    uint32_t arrived = 0;
    if (n_open) {
      write_seams();
      open_parents(n_open);
      arrived = arrive_at_seams<S, CONN8>(f, s.fg);
    }
    stage_isolated();
    features();
    Marks::at(7);
    write_counts(n_open);
    Marks::at(8);
    if (n_open)
      merge_seams<S, CONN8>(f, arrived, s);
  }

  /* The label image (Alg. 5), after the component ids: each root's id, a
   * closed piece's from its own first pixel, an open one's from the first
   * pixel of its component; then every pixel of the tile inside the image,
   * background too (the label image is never cleared), consecutive threads
   * on consecutive pixels. */
  __device__ void label_image(uint32_t *labels)
  {
    const Image &im = f.image;
    if (PAIRS) { /* the roots' first pixels, as the features keep them */
      for (uint32_t r = t; r < n_runs; r += NT) {
        const uint32_t root = s.P[r] & NODE_MASK;
        if (run_y(r) == run_y(root))
          keep_first_pixel(root, share_of(r).px);
      }
      __syncthreads();
    }
    for (uint32_t r = t; r < n_runs; r += NT) {
      if ((s.P[r] & NODE_MASK) != r)
        continue;
      const uint32_t px = first_px(r);
      uint32_t x = gx0 + px % TW, y = gy0 + px / TW;
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
      labels[(size_t)(gy0 + y) * im.width + gx0 + x] = pixel_id(y, x);
    }
  }

  /* The id of pixel (y, x) of the tile, 0 for background: an isolated
   * node's from its first pixel, any other's from its root. */
  __device__ uint32_t pixel_id(int y, int x) const
  {
    const int k = x >> 5, p = y / NODE_ROWS;
    if (!(s.fg[y][k] >> (x & 31) & 1u))
      return 0u;
    const uint32_t starts = node_starts(p, k);
    const uint32_t iso = isolated(p, k);
    const uint32_t started = starts & bits_through(x & 31);
    if (started) { /* the node starts in this word, at its highest start */
      const int a = 31 - __clz(started);
      if (iso >> a & 1u) {
        const uint32_t px = word_share(p, k, a).px;
        return (uint32_t)components_before<S>(f, gx0 + px % TW,
                                              gy0 + px / TW) +
               1;
      }
    }
    /* run_of's numbering, from the starts and isolated nodes found here */
    const uint32_t r = run_at(s.base[p][k], starts & ~iso, x & 31);
    return s.id[s.P[r] & NODE_MASK];
  }
};

/* A tile without foreground counts itself in (Frame::Done) when the host
 * waits for the flag: the last of a frame without foreground writes the
 * host's header (no component, no blob) and raises the flag. Every tile
 * has finished then, so no write of this frame to host memory is still to
 * come. Tiles with foreground take no part: a frame holding one is
 * finished by blob records. */
__device__ __forceinline__ void count_empty_tile(const Frame &f)
{
  if (threadIdx.x != 0 || !f.done.flag ||
      atomicAdd(f.done.empty_tiles, 1u) + 1u !=
          (uint32_t)(f.tiles_x * f.tiles_y))
    return;
  write_frame_header(f, {0u, 0u, (uint32_t)threshold_of(f.image)}, true);
  raise_done_flag(f);
}

/* Blocks of tile labeling an SM holds on Hopper: as many as its 228 KB of
 * shared memory fit (TileShared, 47.3 KiB, and 1 KiB the SM reserves a
 * block). ptxas would give a model's step more than the 64 registers a
 * thread this leaves, and cost a block. Earlier GPUs fit 3 blocks or fewer,
 * which leave registers to spare: no bound there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUCCL_TILE_BLOCKS_PER_SM 4
#else
#define GPUCCL_TILE_BLOCKS_PER_SM 1
#endif

/* LABELS: the label image pass, after the component ids: the tile is
 * labeled again (steps 1 to 7) and every pixel gets its component's id;
 * nothing else is written. At 8-connectivity the nodes are row pairs. */
template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          bool LABELS = false, class Marks = NoMarks>
__global__ void __launch_bounds__(S::THREADS, GPUCCL_TILE_BLOCKS_PER_SM)
    labeling_kernel(Frame f, uint32_t *labels)
{
  typedef TilePieces<S, FMT, CONN8, FCAP, CONN8, Marks> Agent;
  extern __shared__ uint4 smem_raw[];
  wait_for_previous();
  allow_next();
  Agent agent(*reinterpret_cast<typename Agent::Shared *>(smem_raw), f);
  if (!agent.label_runs()) {
    agent.write_empty(LABELS ? labels : nullptr);
    if (!LABELS)
      count_empty_tile(f);
    return;
  }
  if (LABELS) {
    agent.label_image(labels);
    return;
  }
  agent.finish_tile();
}

} /* namespace tile */

#endif /* GPUCCL_TILE_PIECES_CUH */
