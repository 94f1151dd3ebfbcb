// SPDX-License-Identifier: LGPL-2.1-or-later
// The forest of tile labeling (kernels/cuda/tile_labeling.cuh) after its
// steps 1 to 7 (binarise, number the runs, link first top neighbours,
// merge the extras, flatten, find and rank the roots), read out of shared
// memory, against OpenCV's labeling of each tile alone (tests/common/
// oracle.h):
//  - the numbered runs are the tile's maximal horizontal segments, in
//    raster order (row, first and last column), but for the isolated ones:
//    inside one 32-pixel word, touching no run of the rows above and below
//    and no seam (a tile border with a neighbour), which tile labeling
//    finishes from their word;
//  - every run points straight at its root, and two runs share a root iff
//    OpenCV puts them in one component of the tile;
//  - the root is the component's smallest run (its first pixel);
//  - a root is marked paired iff its component has other runs (features
//    finish a piece of one run by its lane; other runs may be unmarked).
// And step 5 (pointer jumping) right after step 3: every run points at
// the root of its tree of first top neighbours (each run's parent the
// leftmost run of the row above that it touches), computed from the runs.
// The same at 8-connectivity over row-pair nodes, the library's 8-conn
// tile stage: the nodes are the runs of the OR of rows 2p and 2p + 1, two
// nodes of pair rows p - 1 and p touch where a pixel of row 2p - 1 of the
// one touches a pixel of row 2p of the other; isolated nodes the same way.
// Exit 77 without a usable CUDA device.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/tile_labeling.cuh"
#include "cuda/tiled_frame.h"
#include "gpuccl.h"
#include "oracle.h"
#include "tile_check.cuh"

typedef tile::LibraryShape S;

static int failures, checks;

// What the test reads of one tile's shared memory: the run count, each
// run's record (row << 8 | first column, PAIRED 0x8000; last column << 16)
// and its parent.
struct TileForest {
  uint32_t *n_runs, *run, *parent;
};

// Steps 1 to 7, or 1 to 3 and 5 (FLAT).
template <bool CONN8, bool PAIRS, bool FLAT>
__global__ void __launch_bounds__(S::THREADS)
    forest_kernel(tile::Frame f, TileForest out)
{
  typedef tile::TileLabeling<S, GPUCCL_PIXEL_U8, CONN8, tile::LIBRARY_FCAP,
                             PAIRS>
      Agent;
  extern __shared__ uint4 smem_raw[];
  Agent agent(*reinterpret_cast<typename Agent::Shared *>(smem_raw), f);
  const uint32_t t = blockIdx.y * gridDim.x + blockIdx.x;
  bool any;
  if (FLAT) {
    const uint32_t B = agent.binarise(any);
    if (any) {
      agent.link(PAIRS ? agent.number_pairs() : agent.number_runs(B));
      agent.flatten();
    }
  } else {
    any = agent.label_runs();
  }
  const uint32_t n = any ? agent.n_runs : 0;
  for (uint32_t r = threadIdx.x; r < n; r += S::THREADS) {
    out.run[t * S::MAX_RUNS + r] =
        agent.s.run_ya[r] | (uint32_t)agent.s.run_b[r] << 16;
    out.parent[t * S::MAX_RUNS + r] = agent.s.P[r];
  }
  if (threadIdx.x == 0)
    out.n_runs[t] = n;
}

struct Run {
  uint32_t y, a, b;
};

// A tile's pixels: the crop of the image at (ox, oy), cw x ch.
struct Crop {
  const std::vector<uint8_t> &img;
  int w, ox, oy, cw, ch;
  bool on(int y, int x) const
  {
    return y >= 0 && y < ch && x >= 0 && x < cw &&
           img[(size_t)(oy + y) * w + ox + x] > 127;
  }
};

// The tile's nodes in raster order: its runs, or (pairs) the runs of the
// OR of each pair of rows, as {node row, first column, last column}.
static std::vector<Run> nodes_of(const Crop &c, bool pairs)
{
  const int rows = pairs ? 2 : 1;
  auto on = [&](int p, int x) {
    return c.on(rows * p, x) || (pairs && c.on(rows * p + 1, x));
  };
  std::vector<Run> nodes;
  for (int p = 0; p * rows < c.ch; p++)
    for (int x = 0; x < c.cw; x++)
      if (on(p, x) && !on(p, x - 1)) {
        int b = x;
        while (on(p, b + 1))
          b++;
        nodes.push_back(Run{(uint32_t)p, (uint32_t)x, (uint32_t)b});
        x = b;
      }
  return nodes;
}

// Whether runs u and q of adjacent rows touch at connectivity conn.
static bool columns_touch(const Run &u, const Run &q, int conn)
{
  const int d = conn == 8;
  return (int)u.a <= (int)q.b + d && (int)q.a <= (int)u.b + d;
}

// Whether node u of the node row above q's touches q.
static bool nodes_touch(const Crop &c, const Run &u, const Run &q, int conn, bool pairs)
{
  if (u.y + 1 != q.y)
    return false;
  if (!pairs)
    return columns_touch(u, q, conn);
  const int above = 2 * (int)q.y - 1; // pixel row; q's top row is above + 1
  for (int x = (int)u.a; x <= (int)u.b; x++)
    for (int d = -1; d <= 1; d++)
      if (c.on(above, x) && x + d >= (int)q.a && x + d <= (int)q.b &&
          c.on(above + 1, x + d))
        return true;
  return false;
}

// Whether node q of a tile (all its nodes: `nodes`) is isolated.
static bool isolated(const Crop &c, const std::vector<Run> &nodes, const Run &q, int conn,
                     bool pairs, bool seam_top, bool seam_bottom, bool seam_left,
                     bool seam_right)
{
  const uint32_t last_row = S::H / (pairs ? 2 : 1) - 1;
  if (q.a / 32 != q.b / 32 || (q.y == 0 && seam_top) || (q.y == last_row && seam_bottom) ||
      (q.a == 0 && seam_left) || (q.b == (uint32_t)S::W - 1 && seam_right))
    return false;
  for (const Run &u : nodes)
    if (nodes_touch(c, u, q, conn, pairs) || nodes_touch(c, q, u, conn, pairs))
      return false;
  return true;
}

// Each node's root in the trees of first top neighbours of `nodes`.
static std::vector<uint32_t> first_top_roots(const Crop &c, const std::vector<Run> &runs,
                                             int conn, bool pairs)
{
  std::vector<uint32_t> root(runs.size());
  for (uint32_t r = 0; r < runs.size(); r++) {
    root[r] = r;
    for (uint32_t u = 0; u < r; u++)
      if (nodes_touch(c, runs[u], runs[r], conn, pairs)) {
        root[r] = root[u]; // the leftmost: runs are in raster order
        break;
      }
  }
  return root;
}

// One tile's runs as the GPU numbered them, against the crop's, and its
// forest after steps 3 and 5 (flat) or 7.
static void check_tile(const std::vector<uint8_t> &img, int w, int h, int conn,
                       bool pairs, bool flat, int tx, int ty, const uint32_t *run,
                       const uint32_t *parent, uint32_t n)
{
  const int ox = tx * S::W, oy = ty * S::H;
  const int cw = std::min(S::W, w - ox), ch = std::min(S::H, h - oy);
  const Crop c{img, w, ox, oy, cw, ch};
  const std::vector<Run> all = nodes_of(c, pairs);
  std::vector<Run> want;
  const int tiles_x = (w + S::W - 1) / S::W, tiles_y = (h + S::H - 1) / S::H;
  for (const Run &q : all)
    if (!isolated(c, all, q, conn, pairs, ty > 0, ty + 1 < tiles_y, tx > 0,
                  tx + 1 < tiles_x))
      want.push_back(q);
  const char *kind = pairs ? "8-conn row pairs" : conn == 8 ? "8-conn" : "4-conn";
  EXPECT(n == want.size(), "%dx%d %s tile %d,%d: %u runs, want %zu", w, h, kind, tx, ty,
         n, want.size());
  if (n != want.size())
    return;
  if (flat) {
    const std::vector<uint32_t> root = first_top_roots(c, want, conn, pairs);
    for (uint32_t r = 0; r < n; r++)
      EXPECT(parent[r] == root[r],
             "%dx%d %s tile %d,%d run %u after flatten: parent %u, want %u", w, h, kind, tx,
             ty, r, parent[r], root[r]);
    return;
  }
  // OpenCV's components of the tile alone.
  std::vector<uint8_t> crop((size_t)cw * ch);
  for (int y = 0; y < ch; y++)
    for (int x = 0; x < cw; x++)
      crop[(size_t)y * cw + x] = img[(size_t)(oy + y) * w + ox + x] > 127 ? 255 : 0;
  std::vector<uint32_t> labels(crop.size());
  std::vector<OracleStats> stats(crop.size() / 2 + 2);
  if (oracle_opencv(crop.data(), cw, ch, cw, conn, labels.data(), stats.data(),
                    stats.size()) < 0) {
    fprintf(stderr, "OpenCV failed\n");
    exit(1);
  }
  // A node's component: its first column's pixel (the top row's, if set).
  auto label_of = [&](const Run &q) {
    const int y = pairs ? 2 * (int)q.y + !c.on(2 * (int)q.y, (int)q.a) : (int)q.y;
    return labels[(size_t)y * cw + q.a];
  };
  std::vector<uint32_t> smallest(crop.size() / 2 + 2, UINT32_MAX);
  for (uint32_t r = 0; r < n; r++) {
    const uint32_t l = label_of(want[r]);
    smallest[l] = std::min(smallest[l], r);
  }
  std::vector<uint32_t> runs_of(smallest.size(), 0);
  for (uint32_t r = 0; r < n; r++)
    runs_of[label_of(want[r])]++;
  for (uint32_t r = 0; r < n; r++) {
    const Run &q = want[r];
    const uint32_t got_y = run[r] >> 8 & 0x7f, got_a = run[r] & 0xff, got_b = run[r] >> 16;
    EXPECT(got_y == q.y && got_a == q.a && got_b == q.b,
           "%dx%d %s tile %d,%d run %u: row %u columns %u-%u, want %u %u-%u", w, h, kind,
           tx, ty, r, got_y, got_a, got_b, q.y, q.a, q.b);
    const uint32_t l = label_of(q);
    EXPECT(parent[r] == smallest[l],
           "%dx%d %s tile %d,%d run %u: parent %u, want the component's first run %u", w,
           h, kind, tx, ty, r, parent[r], smallest[l]);
    if (smallest[l] == r)
      EXPECT(((run[r] & 0x8000) != 0) == (runs_of[l] > 1),
             "%dx%d %s tile %d,%d root %u: paired %d, its component has %u runs", w, h,
             kind, tx, ty, r, (run[r] & 0x8000) != 0, runs_of[l]);
  }
}

static void run_image(const std::vector<uint8_t> &img, int w, int h, int conn, bool pairs,
                      bool flat)
{
  tile::Buffers b{};
  CK(tile::buffers_alloc(b, w, h, dalloc));
  uint8_t *d_img;
  CK(cudaMalloc(&d_img, img.size()));
  CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
  tile::Frame f = b.frame;
  f.image.data = d_img;
  f.image.stride = w;
  f.image.format = GPUCCL_PIXEL_U8;
  f.image.threshold = 127;
  f.conn8 = conn == 8;
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  TileForest out;
  CK(cudaMalloc(&out.n_runs, tiles * sizeof(uint32_t)));
  CK(cudaMalloc(&out.run, tiles * S::MAX_RUNS * sizeof(uint32_t)));
  CK(cudaMalloc(&out.parent, tiles * S::MAX_RUNS * sizeof(uint32_t)));
  const size_t smem = sizeof(tile::TileShared<S, tile::LIBRARY_FCAP>);
  const dim3 grid(f.tiles_x, f.tiles_y);
  auto kernel = pairs       ? (flat ? forest_kernel<true, true, true>
                                    : forest_kernel<true, true, false>)
                : conn == 8 ? (flat ? forest_kernel<true, false, true>
                                    : forest_kernel<true, false, false>)
                            : (flat ? forest_kernel<false, false, true>
                                    : forest_kernel<false, false, false>);
  kernel<<<grid, S::THREADS, smem>>>(f, out);
  CK(cudaGetLastError());
  auto n_runs = down(out.n_runs, tiles);
  auto run = down(out.run, tiles * S::MAX_RUNS);
  auto parent = down(out.parent, tiles * S::MAX_RUNS);
  for (int ty = 0; ty < f.tiles_y; ty++)
    for (int tx = 0; tx < f.tiles_x; tx++) {
      const size_t t = (size_t)ty * f.tiles_x + tx;
      check_tile(img, w, h, conn, pairs, flat, tx, ty, run.data() + t * S::MAX_RUNS,
                 parent.data() + t * S::MAX_RUNS, n_runs[t]);
    }
  cudaFree(out.n_runs);
  cudaFree(out.run);
  cudaFree(out.parent);
  cudaFree(d_img);
  tile::buffers_free(b, dfree);
}

int main()
{
  if (!gpuccl_cuda_available(0, nullptr)) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  const int sizes[][2] = {{1, 1}, {37, 5}, {256, 32}, {513, 70}, {1000, 333}};
  uint32_t seed = 7;
  for (auto &sz : sizes)
    for (int mode : {4, 8, 10}) { // 10: 8-conn over row pairs
      const int conn = mode == 4 ? 4 : 8;
      const bool pairs = mode == 10;
      for (double d : {0.0, 0.1, 0.3, 0.5, 0.6, 0.8, 1.0})
        for (int g : {1, 2, 9}) {
          const std::vector<uint8_t> img = random_image(sz[0], sz[1], d, g, seed++);
          run_image(img, sz[0], sz[1], conn, pairs, false);
          run_image(img, sz[0], sz[1], conn, pairs, true);
        }
      std::vector<uint8_t> board((size_t)sz[0] * sz[1]), spiral((size_t)sz[0] * sz[1], 0);
      for (int y = 0; y < sz[1]; y++)
        for (int x = 0; x < sz[0]; x++) {
          board[(size_t)y * sz[0] + x] = (x + y) % 2 ? 255 : 0;
          // Stairs: every run touches the next row's only diagonally.
          spiral[(size_t)y * sz[0] + x] = (x / 2 + y) % 4 == 0 ? 255 : 0;
        }
      for (bool flat : {false, true}) {
        run_image(board, sz[0], sz[1], conn, pairs, flat);
        run_image(spiral, sz[0], sz[1], conn, pairs, flat);
      }
    }
  printf("tile forest: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
