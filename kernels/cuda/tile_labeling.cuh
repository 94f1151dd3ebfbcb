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
#include "tiled_kernels.h" /* wait_for_previous */

namespace tile {

/* Prototype instrumentation: clock64() at the end of each phase, per
 * tile, when built with TILE_PROFILE and g_tile_profile is set. */
#ifdef TILE_PROFILE
__device__ unsigned long long *g_tile_profile;
#define PROFILE_MARK(k)                                                        \
  do {                                                                         \
    if (g_tile_profile && threadIdx.x == 0)                                    \
      g_tile_profile[(blockIdx.y * gridDim.x + blockIdx.x) * 8 + (k)] =        \
          clock64() - prof_t0;                                                 \
  } while (0)
#define PROFILE_START const long long prof_t0 = clock64()
#define PROFILE_SYNC __syncthreads()
#else
#define PROFILE_MARK(k) ((void)0)
#define PROFILE_START ((void)0)
#define PROFILE_SYNC ((void)0)
#endif

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

/* Shared memory of one tile (dynamic: more than the 48 KB of a static
 * array). */
template <class S, int FCAP> struct TileShared {
  static constexpr int RW = S::MAX_RUNS / 32; /* words of a bitmap of runs */
  typedef cub::BlockScan<uint32_t, S::THREADS> Scan;
  uint32_t fg[S::H][S::WORDS];   /* foreground */
  uint32_t rs[S::H][S::WORDS];   /* run starts */
  uint32_t base[S::H][S::WORDS]; /* number of the word's first run */
  uint32_t start[S::H][S::WORDS], pass[S::H][S::WORDS]; /* tile's bitmaps */
  uint32_t P[S::MAX_RUNS];       /* forest over runs */
  uint16_t run_ya[S::MAX_RUNS];  /* row << 8 | first column */
  uint8_t run_b[S::MAX_RUNS];    /* last column */
  uint32_t root[RW], open[RW], root_before[RW], open_before[RW];
  union {
    struct { /* features of FCAP pieces at a time */
      unsigned long long sums[FCAP];
      uint32_t box[FCAP];
      uint32_t first[FCAP]; /* root run << 16 | first pixel */
    };
    uint32_t id[S::MAX_RUNS]; /* label image: each root's component id */
  };
  uint32_t n_roots, n_open, n_closed;
  typename Scan::TempStorage scan;
};

/* LABELS: the label image pass (Alg. 5), after the component ids: the
 * tile is labeled again (phases 1 to 3) and every pixel gets its
 * component's id; nothing else is written. */
template <class S, GpucclPixelFormat FMT, bool CONN8, int FCAP,
          bool LABELS = false, bool DEDUPE = false, bool AGG = true>
__global__ void __launch_bounds__(S::THREADS)
    labeling_kernel(Frame f, uint32_t *labels)
{
  const Image &im = f.image;
  const Filter &filter = f.filter;
  const TileOutputs &out = f.out;
  constexpr int WORDS = S::WORDS, TW = S::W, TH = S::H, NT = S::THREADS;
  typedef TileShared<S, FCAP> Shared;
  constexpr int RW = Shared::RW;
  typedef PackedSums<S> Sums;
  extern __shared__ uint4 smem_raw[];
  Shared &s = *reinterpret_cast<Shared *>(smem_raw);
  PROFILE_START;
  wait_for_previous();

  const int t = threadIdx.x;
  const bool reader = t < WORDS * TH; /* this thread reads a word */
  const int wy = t / WORDS, ww = t % WORDS;
  const int tx = blockIdx.x, ty = blockIdx.y;
  const int tiles_x = gridDim.x, tiles_y = gridDim.y;
  const uint32_t tile_id = (uint32_t)ty * tiles_x + tx;
  const int gx0 = tx * TW, gy0 = ty * TH;
  const bool seam_top = ty > 0, seam_bottom = ty + 1 < tiles_y;
  const bool seam_left = tx > 0, seam_right = tx + 1 < tiles_x;

  /* 1. Binarise; run starts and ends; number the runs: the k-th start and
   * the k-th end of the tile in raster order belong to run k. */
  uint32_t fg = 0;
  if (reader) {
    fg = load_word<FMT>(im, (unsigned)threshold_of(im), gx0 + 32 * ww,
                        gy0 + wy);
    s.fg[wy][ww] = fg;
    s.start[wy][ww] = 0;
    s.pass[wy][ww] = 0;
  }
  for (int i = t; i < RW; i += NT) {
    s.root[i] = 0;
    s.open[i] = 0;
  }
  if (t == 0)
    s.n_closed = 0;
  __syncthreads();
  uint32_t rs = 0, re = 0;
  if (reader) {
    const uint32_t left = ww ? s.fg[wy][ww - 1] >> 31 : 0u;
    const uint32_t right = ww + 1 < WORDS ? s.fg[wy][ww + 1] & 1u : 0u;
    rs = fg & ~(fg << 1 | left);
    re = fg & ~(fg >> 1 | right << 31);
  }
  uint32_t before, total;
  typename Shared::Scan(s.scan).ExclusiveSum(
      (uint32_t)__popc(rs) | (uint32_t)__popc(re) << 16, before, total);
  const uint32_t n_runs = total & 0xffffu;
  if (reader) {
    s.rs[wy][ww] = rs;
    s.base[wy][ww] = before & 0xffffu;
    uint32_t r = before & 0xffffu;
    for (uint32_t m = rs; m; m &= m - 1, r++) {
      s.run_ya[r] = (uint16_t)(wy << 8 | (32 * ww + __ffs(m) - 1));
      s.P[r] = r;
    }
    r = before >> 16;
    for (uint32_t m = re; m; m &= m - 1, r++)
      s.run_b[r] = (uint8_t)(32 * ww + __ffs(m) - 1);
  }
  __syncthreads();
  PROFILE_MARK(0);

  /* The number of the run holding the set pixel (yy, x). */
  auto run_of = [&](int yy, int x) -> uint32_t {
    const int k = x >> 5;
    return s.base[yy][k] + __popc(s.rs[yy][k] & bits_through(x & 31)) - 1;
  };
  /* Bits of word k of a row inside columns [lo, hi]. */
  auto in_range = [](int k, int lo, int hi) -> uint32_t {
    return (0xffffffffu << max(lo - 32 * k, 0)) &
           bits_through(min(hi - 32 * k, 31));
  };

  /* 2. Merge each run with the runs of the row above that touch columns
   * [a - d, b + d]: the runs from the one holding the first set pixel
   * there to the one holding the last, consecutive numbers. */
  /* The runs [u0, u1] of the row above that run r touches (u0 > u1:
   * none). */
  auto touched = [&](uint32_t r, uint32_t &u0, uint32_t &u1) {
    u0 = 1;
    u1 = 0;
    const int y = s.run_ya[r] >> 8;
    if (y == 0)
      return;
    const int a = s.run_ya[r] & 0xff, b = s.run_b[r];
    const int lo = max(a - (int)CONN8, 0), hi = min(b + (int)CONN8, TW - 1);
    int first = -1, last = -1;
    for (int k = lo >> 5; k <= hi >> 5; k++) {
      const uint32_t m = s.fg[y - 1][k] & in_range(k, lo, hi);
      if (m) {
        first = 32 * k + __ffs(m) - 1;
        break;
      }
    }
    if (first < 0)
      return;
    for (int k = hi >> 5;; k--) {
      const uint32_t m = s.fg[y - 1][k] & in_range(k, lo, hi);
      if (m) {
        last = 32 * k + 31 - __clz(m);
        break;
      }
    }
    u0 = run_of(y - 1, first);
    u1 = run_of(y - 1, last);
  };
  if (!DEDUPE) {
    for (uint32_t r = t; r < n_runs; r += NT) {
      uint32_t u0, u1;
      touched(r, u0, u1);
      for (uint32_t u = u0; u <= u1; u++)
        merge_roots<SharedForest>(s.P, r, u);
    }
  } else {
    /* Lanes of a warp hold neighbouring runs, which on dense images
     * mostly join the same two trees: the lanes that found the same pair
     * of roots leave the merge to one of them. */
    const int lane = t & 31;
    for (uint32_t r0 = t - lane; r0 < n_runs; r0 += NT) {
      const uint32_t r = r0 + lane;
      uint32_t u = 1, u1 = 0;
      if (r < n_runs)
        touched(r, u, u1);
      for (;;) {
        const bool has = u <= u1;
        if (!__any_sync(0xffffffffu, has))
          break;
        uint32_t ra = 0, rb = 0;
        if (has) {
          ra = find_root<SharedForest>(s.P, r);
          rb = find_root<SharedForest>(s.P, u);
        }
        const unsigned long long key =
            has && ra != rb ? (unsigned long long)min(ra, rb) << 32 | max(ra, rb)
                            : ~0ull;
        const unsigned same = __match_any_sync(0xffffffffu, key);
        if (key != ~0ull && lane == __ffs(same) - 1)
          merge_roots<SharedForest>(s.P, ra, rb);
        u++;
      }
    }
  }
  __syncthreads();
  PROFILE_MARK(1);

  /* 3. Every run points at its root (the smallest number of its tree, so
   * atomicMin wins over a concurrent halving); roots and the pieces that
   * touch a seam are flagged. */
  for (uint32_t r = t; r < n_runs; r += NT) {
    const uint32_t root = find_root<SharedForest>(s.P, r);
    atomicMin(s.P + r, root);
    if (root == r)
      atomicOr(s.root + (r >> 5), 1u << (r & 31));
    const int y = s.run_ya[r] >> 8, a = s.run_ya[r] & 0xff, b = s.run_b[r];
    if ((y == 0 && seam_top) || (y == TH - 1 && seam_bottom) ||
        (a == 0 && seam_left) || (b == TW - 1 && seam_right))
      atomicOr(s.open + (root >> 5), 1u << (root & 31));
  }
  __syncthreads();
  PROFILE_MARK(2);
  /* Ranks of roots and of open roots: one warp scans both bitmaps. */
  if (t < 32) {
    constexpr int PER = (RW + 31) / 32;
    uint32_t nr = 0, no = 0;
    for (int i = 0; i < PER; i++) {
      const int j = t * PER + i;
      if (j < RW) {
        nr += __popc(s.root[j]);
        no += __popc(s.open[j]);
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
      s.n_roots = er;
      s.n_open = eo;
    }
    er -= nr;
    eo -= no;
    for (int i = 0; i < PER; i++) {
      const int j = t * PER + i;
      if (j < RW) {
        s.root_before[j] = er;
        s.open_before[j] = eo;
        er += __popc(s.root[j]);
        eo += __popc(s.open[j]);
      }
    }
  }
  __syncthreads();
  PROFILE_MARK(3);
  auto rank = [&](const uint32_t *bits, const uint32_t *before, uint32_t r) {
    return before[r >> 5] + __popc(bits[r >> 5] & ((1u << (r & 31)) - 1u));
  };

  if (LABELS) {
    /* Each root's id: a closed piece's from its own first pixel, an open
     * one's from the first pixel of the component it belongs to. */
    for (uint32_t r = t; r < n_runs; r += NT) {
      if (s.P[r] != r)
        continue;
      uint32_t x = gx0 + (s.run_ya[r] & 0xff), y = gy0 + (s.run_ya[r] >> 8);
      if (s.open[r >> 5] >> (r & 31) & 1) {
        const uint32_t slot =
            tile_id * S::OPEN_CAP + rank(s.open, s.open_before, r);
        const uint32_t key =
            out.open.key[find_root<GlobalForest>(out.open.parent, slot)];
        x = key % (uint32_t)im.width;
        y = key / (uint32_t)im.width;
      }
      s.id[r] = (uint32_t)components_before<S>(f, x, y) + 1;
    }
    __syncthreads();
    /* Every pixel of the tile inside the image, background too: the
     * label image is never cleared. Consecutive threads, consecutive
     * pixels. */
    for (int i = t; i < TW * TH; i += NT) {
      const int y = i / TW, x = i % TW;
      if (gy0 + y >= im.height || gx0 + x >= im.width)
        continue;
      const bool set = s.fg[y][x >> 5] >> (x & 31) & 1;
      labels[(size_t)(gy0 + y) * im.width + gx0 + x] =
          set ? s.id[s.P[run_of(y, x)]] : 0u;
    }
    return;
  }

  /* 4 and 5, in windows of FCAP pieces. */
  const uint32_t n_roots = s.n_roots;
  for (uint32_t lo = 0; lo < n_roots; lo += FCAP) {
    for (int i = t; i < FCAP; i += NT) {
      s.sums[i] = 0;
      s.box[i] = 0;
    }
    __syncthreads();
    /* Lanes whose runs belong to one piece add their sums first (warp
     * reductions), so a large piece takes one atomic per warp, not one
     * per run. */
    const int lane = t & 31;
    for (uint32_t r0 = t - lane; r0 < n_runs; r0 += NT) {
      const uint32_t r = r0 + lane;
      uint32_t slot = NONE, y = 0, a = 255, b = 0;
      if (r < n_runs) {
        const uint32_t root = s.P[r];
        slot = rank(s.root, s.root_before, root) - lo;
        if (slot >= (uint32_t)FCAP) {
          slot = NONE;
        } else {
          y = s.run_ya[r] >> 8;
          a = s.run_ya[r] & 0xff;
          b = s.run_b[r];
          if (root == r)
            s.first[slot] = r << 16 | (y * TW + a);
        }
      }
      uint32_t len = b + 1 - a, sx = len * (a + b) / 2, sy = len * y;
      uint32_t box = (255 - a) | b << 8 | y << 16;
      bool leader = slot != NONE;
#if __CUDA_ARCH__ >= 800
      if (AGG) {
        /* The lanes of lane 0's piece (on dense images, most of the warp:
         * the giant component) add up first; match_any for every group
         * costs more than it saves on sparse ones. */
        const uint32_t slot0 = __shfl_sync(0xffffffffu, slot, 0);
        const unsigned peers = __ballot_sync(0xffffffffu, slot == slot0);
        if (slot == slot0 && slot != NONE && __popc(peers) > 1) {
          len = __reduce_add_sync(peers, len);
          sx = __reduce_add_sync(peers, sx);
          sy = __reduce_add_sync(peers, sy);
          box = __reduce_max_sync(peers, 255 - a) |
                __reduce_max_sync(peers, b) << 8 |
                __reduce_max_sync(peers, y) << 16;
          leader = lane == __ffs(peers) - 1;
        }
      }
#endif
      if (leader) {
        atomicAdd(s.sums + slot, Sums::pack(len, sx, sy));
        grow_box(s.box + slot, box);
      }
    }
    __syncthreads();
    const uint32_t n = min((uint32_t)FCAP, n_roots - lo);
    for (uint32_t i = t; i < n; i += NT) {
      const uint32_t root = s.first[i] >> 16, px = s.first[i] & 0xffffu;
      const uint32_t fy = px / TW, fx = px % TW;
      const unsigned long long sums = s.sums[i];
      const uint32_t area = Sums::area(sums), sx = Sums::sum_x(sums),
                     sy = Sums::sum_y(sums), box = s.box[i];
      const uint32_t x0 = 255 - (box & 0xff), x1 = (box >> 8) & 0xff,
                     y1 = box >> 16;
      if (s.open[root >> 5] >> (root & 31) & 1) {
        const uint32_t g =
            tile_id * S::OPEN_CAP + rank(s.open, s.open_before, root);
        out.open.parent[g] = g;
        out.open.key[g] = (uint32_t)(gy0 + fy) * im.width + gx0 + fx;
        out.open.area[g] = area;
        out.open.sum_x[g] = sx + (unsigned long long)area * gx0;
        out.open.sum_y[g] = sy + (unsigned long long)area * gy0;
        out.open.x0[g] = gx0 + x0;
        out.open.x1[g] = gx0 + x1;
        out.open.y1[g] = gy0 + y1;
      } else {
        atomicOr(&s.start[fy][fx >> 5], 1u << (fx & 31));
        if (filter.passes(area)) {
          atomicOr(&s.pass[fy][fx >> 5], 1u << (fx & 31));
          const uint32_t k = atomicAdd(&s.n_closed, 1u);
          out.closed.rec[(size_t)tile_id * S::CLOSED_CAP + k] =
              make_uint4(px | area << 16, sx, sy, x0 | x1 << 8 | y1 << 16);
        }
      }
    }
    __syncthreads();
  }

  PROFILE_MARK(4);
  /* Seam pixels: the open slot of their piece, NONE for background. */
  auto seam_slot = [&](int yy, int x) -> uint32_t {
    if (!(s.fg[yy][x >> 5] >> (x & 31) & 1))
      return NONE;
    return tile_id * S::OPEN_CAP +
           rank(s.open, s.open_before, s.P[run_of(yy, x)]);
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
  if (reader) {
    const size_t word =
        (size_t)(gy0 + wy) * out.start_words + tx * WORDS + ww;
    out.start[word] = s.start[wy][ww];
    out.pass[word] = s.pass[wy][ww];
    /* The cell's closed components, packed as in Frame::cell_before;
     * open roots add theirs later, the scan turns counts into offsets. */
    if (ww == 0 && gy0 + wy < im.height) {
      uint32_t all = 0, passed = 0;
      for (int k = 0; k < WORDS; k++) {
        all += __popc(s.start[wy][k]);
        passed += __popc(s.pass[wy][k]);
      }
      f.cell_count[(size_t)(gy0 + wy) * tiles_x + tx] =
          all | (unsigned long long)passed << 32;
    }
  }
  if (t == 0) {
    out.n_open[tile_id] = s.n_open;
    out.n_closed[tile_id] = s.n_closed;
  }
  PROFILE_SYNC;
  PROFILE_MARK(5);
}

} /* namespace tile */

#endif /* GPUCCL_TILE_LABELING_CUH */
