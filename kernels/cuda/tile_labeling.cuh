/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tile labeling: HA4's strip labeling (Alg. 3) and features (Alg. 6) of
 * Hennequin et al. 2018, for a whole 2D tile in shared memory (beyond the
 * paper: the paper labels strips one warp-row at a time and merges every
 * tile in global memory).
 *
 * One thread per 32-pixel word of the tile. The union-find forest is over
 * the tile's runs (maximal horizontal segments), numbered in raster order
 * of their first pixel by a block scan of the run starts, so the smallest
 * root of a piece is its first run and its first pixel. Then:
 *   1. binarise (threshold fused), run starts, run numbers;
 *   2. merge each run with every run of the row above it touches
 *      (columns a..b, widened by one for 8-connectivity);
 *   3. point every run at its root, flag roots and the pieces that touch a
 *      seam (a tile border with a neighbour tile): those are open;
 *   4. sum area, columns, rows and the box of every piece in shared memory
 *      (in windows of FCAP pieces, so a checkerboard's thousands of pieces
 *      spill into more passes, not out of the tile);
 *   5. closed pieces are whole components: their first pixel goes into the
 *      start bitmap and, when they pass the area filter, into the pass
 *      bitmap and the staged records; open pieces go to global memory with
 *      their partial features, and the seam pixels get their slots.
 * Nothing image-sized is cleared: every tile writes its own words. */
#ifndef GPUCCL_TILE_LABELING_CUH
#define GPUCCL_TILE_LABELING_CUH

#include <cub/block/block_scan.cuh>

#include "tile_samples.cuh"

namespace tile {

constexpr int bit_width(unsigned long long v)
{
  return v ? 1 + bit_width(v >> 1) : 0;
}

/* Packing of one piece's sums into a 64-bit shared accumulator. */
template <class S> struct PackedSums {
  static constexpr int AREA_BITS = bit_width(S::PIXELS);
  static constexpr int SX_BITS =
      bit_width((unsigned long long)S::H * S::W * (S::W - 1) / 2);
  static constexpr int SY_BITS =
      bit_width((unsigned long long)S::W * S::H * (S::H - 1) / 2);
  static_assert(AREA_BITS + SX_BITS + SY_BITS <= 64, "sums overflow");
  static __device__ __forceinline__ unsigned long long
  pack(uint32_t area, uint32_t sx, uint32_t sy)
  {
    return area | (unsigned long long)sx << AREA_BITS |
           (unsigned long long)sy << (AREA_BITS + SX_BITS);
  }
  static __device__ __forceinline__ uint32_t area(unsigned long long v)
  {
    return (uint32_t)(v & ((1ull << AREA_BITS) - 1));
  }
  static __device__ __forceinline__ uint32_t sum_x(unsigned long long v)
  {
    return (uint32_t)((v >> AREA_BITS) & ((1ull << SX_BITS) - 1));
  }
  static __device__ __forceinline__ uint32_t sum_y(unsigned long long v)
  {
    return (uint32_t)(v >> (AREA_BITS + SX_BITS));
  }
};

/* Box of a piece as bytes {255 - x0, x1, y1, 0}: every field grows, so one
 * per-byte maximum updates all three. */
__device__ __forceinline__ void grow_box(uint32_t *box, uint32_t v)
{
  uint32_t old = *(volatile uint32_t *)box;
  for (;;) {
    const uint32_t want = __vmaxu4(old, v);
    if (want == old)
      return;
    const uint32_t seen = atomicCAS(box, old, want);
    if (seen == old)
      return;
    old = seen;
  }
}

template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP>
__global__ void __launch_bounds__(S::THREADS)
    labeling_kernel(Image im, Filter filter, TileOutputs out)
{
  constexpr int WORDS = S::WORDS, TW = S::W, TH = S::H, NT = S::THREADS;
  constexpr int RW = S::MAX_RUNS / 32; /* words of a bitmap over runs */
  typedef PackedSums<S> Sums;
  typedef cub::BlockScan<uint32_t, NT> Scan;

  __shared__ uint32_t s_fg[TH][WORDS];   /* foreground */
  __shared__ uint32_t s_rs[TH][WORDS];   /* run starts */
  __shared__ uint32_t s_base[TH][WORDS]; /* number of the word's 1st run */
  __shared__ uint32_t s_P[S::MAX_RUNS];  /* forest over runs */
  __shared__ uint32_t s_root[RW], s_open[RW];
  __shared__ uint32_t s_root_before[RW], s_open_before[RW];
  __shared__ unsigned long long s_sums[FCAP];
  __shared__ uint32_t s_box[FCAP];
  __shared__ uint32_t s_first[FCAP]; /* root run << 16 | first pixel */
  __shared__ uint32_t s_start[TH][WORDS], s_pass[TH][WORDS];
  __shared__ uint32_t s_n_roots, s_n_open, s_n_closed;
  __shared__ typename Scan::TempStorage s_scan;

  const int t = threadIdx.x, y = t / WORDS, w = t % WORDS;
  const int tx = blockIdx.x, ty = blockIdx.y;
  const int tiles_x = gridDim.x, tiles_y = gridDim.y;
  const uint32_t tile_id = (uint32_t)ty * tiles_x + tx;
  const int gx0 = tx * TW, gy0 = ty * TH;
  const bool seam_top = ty > 0, seam_bottom = ty + 1 < tiles_y;
  const bool seam_left = tx > 0, seam_right = tx + 1 < tiles_x;

  /* 1. Binarise, run starts, run numbers. */
  const uint32_t fg =
      load_word<FMT>(im, (unsigned)threshold_of(im), gx0 + 32 * w, gy0 + y);
  s_fg[y][w] = fg;
  s_start[y][w] = 0;
  s_pass[y][w] = 0;
  for (int i = t; i < RW; i += NT) {
    s_root[i] = 0;
    s_open[i] = 0;
  }
  if (t == 0)
    s_n_closed = 0;
  __syncthreads();
  const uint32_t rs = fg & ~(fg << 1 | (w ? s_fg[y][w - 1] >> 31 : 0u));
  uint32_t base;
  Scan(s_scan).ExclusiveSum((uint32_t)__popc(rs), base);
  s_rs[y][w] = rs;
  s_base[y][w] = base;
  for (int j = 0; j < __popc(rs); j++)
    s_P[base + j] = base + j;
  __syncthreads();

  /* The last column of the run starting at column 32 * w + b of row y. */
  auto run_end = [&](int yy, int ww, int b) -> int {
    uint32_t z = ~s_fg[yy][ww] & (0xffffffffu << b);
    for (int k = ww;;) {
      if (z)
        return 32 * k + __ffs(z) - 2;
      if (++k == WORDS)
        return TW - 1;
      z = ~s_fg[yy][k];
    }
  };
  /* The number of the run holding the set pixel (yy, x). */
  auto run_of = [&](int yy, int x) -> uint32_t {
    const int k = x >> 5;
    return s_base[yy][k] + __popc(s_rs[yy][k] & bits_through(x & 31)) - 1;
  };

  /* 2. Merge with the row above: every run there with a pixel in
   * [a - d, b + d]. The first one may start before the range; the others
   * start inside it. */
  if (y > 0) {
    uint32_t r = base;
    for (uint32_t m = rs; m; m &= m - 1, r++) {
      const int a = 32 * w + __ffs(m) - 1, b = run_end(y, w, a & 31);
      const int lo = max(a - (int)CONN8, 0), hi = min(b + (int)CONN8, TW - 1);
      bool first = true;
      for (int k = lo >> 5; k <= hi >> 5; k++) {
        const int kl = max(lo - 32 * k, 0), kh = min(hi - 32 * k, 31);
        const uint32_t in = s_fg[y - 1][k] & (0xffffffffu << kl) &
                            bits_through(kh);
        if (!in)
          continue;
        uint32_t starts = s_rs[y - 1][k] & in;
        if (first) {
          const int u = __ffs(in) - 1;
          merge_shared(s_P, r, run_of(y - 1, 32 * k + u));
          starts &= ~bits_through(u);
          first = false;
        }
        for (; starts; starts &= starts - 1)
          merge_shared(s_P, r, run_of(y - 1, 32 * k + __ffs(starts) - 1));
      }
    }
  }
  __syncthreads();

  /* 3. Every run points at its root (the smallest number in its tree, so
   * atomicMin wins over a concurrent halving); roots and open pieces are
   * flagged. */
  {
    uint32_t r = base;
    for (uint32_t m = rs; m; m &= m - 1, r++) {
      const int a = 32 * w + __ffs(m) - 1, b = run_end(y, w, a & 31);
      const uint32_t root = find_shared(s_P, r);
      atomicMin(s_P + r, root);
      if (root == r)
        atomicOr(s_root + (r >> 5), 1u << (r & 31));
      if ((y == 0 && seam_top) || (y == TH - 1 && seam_bottom) ||
          (a == 0 && seam_left) || (b == TW - 1 && seam_right))
        atomicOr(s_open + (root >> 5), 1u << (root & 31));
    }
  }
  __syncthreads();
  /* Ranks of roots and of open roots: one warp scans both bitmaps. */
  if (t < 32) {
    constexpr int PER = (RW + 31) / 32;
    uint32_t nr = 0, no = 0;
    for (int i = 0; i < PER; i++) {
      const int j = t * PER + i;
      if (j < RW) {
        nr += __popc(s_root[j]);
        no += __popc(s_open[j]);
      }
    }
    uint32_t er = nr, eo = no;
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t vr = __shfl_up_sync(0xffffffffu, er, d);
      const uint32_t vo = __shfl_up_sync(0xffffffffu, eo, d);
      if (t >= d) {
        er += vr;
        eo += vo;
      }
    }
    if (t == 31) {
      s_n_roots = er;
      s_n_open = eo;
    }
    er -= nr;
    eo -= no;
    for (int i = 0; i < PER; i++) {
      const int j = t * PER + i;
      if (j < RW) {
        s_root_before[j] = er;
        s_open_before[j] = eo;
        er += __popc(s_root[j]);
        eo += __popc(s_open[j]);
      }
    }
  }
  __syncthreads();
  auto rank = [&](const uint32_t *bits, const uint32_t *before, uint32_t r) {
    return before[r >> 5] + __popc(bits[r >> 5] & ((1u << (r & 31)) - 1u));
  };

  /* 4 and 5, in windows of FCAP pieces. */
  const uint32_t n_roots = s_n_roots;
  for (uint32_t lo = 0; lo < n_roots; lo += FCAP) {
    for (int i = t; i < FCAP; i += NT) {
      s_sums[i] = 0;
      s_box[i] = 0;
    }
    __syncthreads();
    uint32_t r = base;
    for (uint32_t m = rs; m; m &= m - 1, r++) {
      const uint32_t root = s_P[r];
      const uint32_t slot = rank(s_root, s_root_before, root) - lo;
      if (slot >= (uint32_t)FCAP)
        continue;
      const int a = 32 * w + __ffs(m) - 1, b = run_end(y, w, a & 31);
      const uint32_t len = b - a + 1;
      atomicAdd(s_sums + slot, Sums::pack(len, len * (a + b) / 2, len * y));
      grow_box(s_box + slot, (uint32_t)(255 - a) | (uint32_t)b << 8 |
                                 (uint32_t)y << 16);
      if (root == r)
        s_first[slot] = r << 16 | (uint32_t)(y * TW + a);
    }
    __syncthreads();
    const uint32_t n = min((uint32_t)FCAP, n_roots - lo);
    for (uint32_t i = t; i < n; i += NT) {
      const uint32_t root = s_first[i] >> 16, px = s_first[i] & 0xffffu;
      const uint32_t fy = px / TW, fx = px % TW;
      const unsigned long long sums = s_sums[i];
      const uint32_t area = Sums::area(sums), sx = Sums::sum_x(sums),
                     sy = Sums::sum_y(sums), box = s_box[i];
      const uint32_t x0 = 255 - (box & 0xff), x1 = (box >> 8) & 0xff,
                     y1 = box >> 16;
      if (s_open[root >> 5] >> (root & 31) & 1) {
        const uint32_t g =
            tile_id * S::OPEN_CAP + rank(s_open, s_open_before, root);
        out.open.parent[g] = g;
        out.open.key[g] = (uint32_t)(gy0 + fy) * im.width + gx0 + fx;
        out.open.area[g] = area;
        out.open.sum_x[g] = sx + (unsigned long long)area * gx0;
        out.open.sum_y[g] = sy + (unsigned long long)area * gy0;
        out.open.x0[g] = gx0 + x0;
        out.open.x1[g] = gx0 + x1;
        out.open.y1[g] = gy0 + y1;
      } else {
        atomicOr(&s_start[fy][fx >> 5], 1u << (fx & 31));
        if (filter.passes(area)) {
          atomicOr(&s_pass[fy][fx >> 5], 1u << (fx & 31));
          const uint32_t k = atomicAdd(&s_n_closed, 1u);
          out.closed.rec[(size_t)tile_id * S::CLOSED_CAP + k] =
              make_uint4(px | area << 16, sx, sy, x0 | x1 << 8 | y1 << 16);
        }
      }
    }
    __syncthreads();
  }

  /* Seam pixels: the open slot of their piece, NONE for background. */
  auto seam_slot = [&](int yy, int x) -> uint32_t {
    if (!(s_fg[yy][x >> 5] >> (x & 31) & 1))
      return NONE;
    return tile_id * S::OPEN_CAP +
           rank(s_open, s_open_before, s_P[run_of(yy, x)]);
  };
  const Seams &sm = out.seams;
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
  const size_t word = (size_t)(gy0 + y) * out.start_words + tx * WORDS + w;
  out.start[word] = s_start[y][w];
  out.pass[word] = s_pass[y][w];
  if (t == 0) {
    out.n_open[tile_id] = s_n_open;
    out.n_closed[tile_id] = s_n_closed;
  }
}

} /* namespace tile */

#endif /* GPUCCL_TILE_LABELING_CUH */
