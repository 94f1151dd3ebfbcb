// SPDX-License-Identifier: LGPL-2.1-or-later
// The forest labelers on the tiled tail (kernels/cuda/forest_tiles.h), step
// by step against OpenCV's labeling of the whole image (tests/common/
// oracle.h), for every forest algorithm and each connectivity it supports:
//  - the labeled forest: each pixel's root is its component's smallest node
//    (on a pixel forest its first pixel);
//  - forest tiles: a tile's pieces are its pixels grouped by component, one
//    piece per component present (area, sums, box and first pixel of its
//    pixels in the tile); a piece is open iff one of its pixels lies on a
//    seam (a tile border with a neighbour tile), closed pieces are staged
//    with their first pixels in the start bitmap;
//  - open merging: every open piece's parent is its component's open piece
//    in the tile of the forest root, whose parent is itself and which holds
//    the whole component;
//  - blob records, label image: the table (with and without an area
//    filter) and the label image are the whole image's;
// without a label image to follow and with one (closed components then
// publish their keys at their roots).
// Exit 77 without a usable CUDA device.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "cuda/forest_kernels.h"
#include "cuda/tiled_frame.h"
#include "cuda/tiled_kernels.h"
#include "gpuccl.h"
#include "oracle.h"
#include "tile_check.cuh"

typedef tile::LibraryShape S;

static int failures, checks;

// first pixel (y * width + x), area, sum_x, sum_y, x0, y0, x1, y1
static void add_pixel(Piece &p, uint64_t key, uint32_t x, uint32_t y)
{
  if (std::get<1>(p) == 0)
    p = Piece{key, 0, 0, 0, x, y, x, y};
  std::get<0>(p) = std::min<uint64_t>(std::get<0>(p), key);
  std::get<1>(p) += 1;
  std::get<2>(p) += x;
  std::get<3>(p) += y;
  std::get<4>(p) = std::min(std::get<4>(p), x);
  std::get<5>(p) = std::min(std::get<5>(p), y);
  std::get<6>(p) = std::max(std::get<6>(p), x);
  std::get<7>(p) = std::max(std::get<7>(p), y);
}

// OpenCV's labeling of the whole image, labels in raster order.
struct Oracle {
  std::vector<uint32_t> labels;
  std::vector<OracleStats> stats;
  long n = 0;
  Oracle(const std::vector<uint8_t> &img, int w, int h, int conn)
      : labels((size_t)w * h)
  {
    stats.resize((size_t)w * h / 2 + 2);
    n = oracle_opencv(img.data(), w, h, w, conn, labels.data(), stats.data(),
                      stats.size());
    if (n < 0) {
      fprintf(stderr, "OpenCV failed\n");
      exit(1);
    }
    oracle_stats_from_labels(labels.data(), w, h, (uint32_t)n, stats.data());
  }
};

struct Run {
  int w, h, conn;
  GpucclAlgorithm alg;
  const char *name;
  const Oracle &whole;
  tile::Buffers b{};
  tile::Frame f{};
  tile::ForestView g{};
};

// Each component's smallest forest node.
static std::vector<uint32_t> smallest_nodes(const Run &r)
{
  const tile::ForestView &g = r.g;
  std::vector<uint32_t> least((size_t)r.whole.n, UINT32_MAX);
  for (int y = 0; y < r.h; y++)
    for (int x = 0; x < r.w; x++)
      if (const uint32_t l = r.whole.labels[(size_t)y * r.w + x])
        least[l - 1] = std::min(
            least[l - 1],
            (uint32_t)((y >> g.shift) * g.fpitch + (x >> g.shift)));
  return least;
}

// The labeled forest, before the tail: every pixel's root is its
// component's smallest node (every link points at a smaller node), which
// the tail takes for the component's topmost tile row.
static void check_roots(const Run &r, const std::vector<uint32_t> &least)
{
  const tile::ForestView &g = r.g;
  const int rows = (r.h + (1 << g.shift) - 1) >> g.shift;
  const auto parent = down(g.parent, (size_t)rows * g.fpitch);
  for (int y = 0; y < r.h; y++)
    for (int x = 0; x < r.w; x++) {
      const uint32_t l = r.whole.labels[(size_t)y * r.w + x];
      if (!l)
        continue;
      uint32_t n = (uint32_t)((y >> g.shift) * g.fpitch + (x >> g.shift));
      for (int hops = 0; parent[n] != n && hops < r.w * r.h; hops++)
        n = parent[n];
      EXPECT(n == least[l - 1],
             "%s %dx%d c%d: pixel (%d, %d) has root %u, its component's smallest node is %u",
             r.name, r.w, r.h, r.conn, x, y, n, least[l - 1]);
    }
}

static void check_forest_tiles(const Run &r)
{
  const tile::Frame &f = r.f;
  const HostTiles got = down_tiles<S>(f);
  for (int ty = 0; ty < f.tiles_y; ty++)
    for (int tx = 0; tx < f.tiles_x; tx++) {
      const size_t t = (size_t)ty * f.tiles_x + tx;
      const int ox = tx * S::W, oy = ty * S::H;
      const int cw = std::min(S::W, r.w - ox), ch = std::min(S::H, r.h - oy);
      std::map<uint32_t, Piece> pieces;
      std::map<uint32_t, bool> open;
      for (int y = oy; y < oy + ch; y++)
        for (int x = ox; x < ox + cw; x++) {
          const uint32_t l = r.whole.labels[(size_t)y * r.w + x];
          if (!l)
            continue;
          add_pixel(pieces[l], (uint64_t)y * r.w + x, x, y);
          const bool seam = (y == oy && ty > 0) ||
                            (y == oy + S::H - 1 && ty + 1 < f.tiles_y) ||
                            (x == ox && tx > 0) ||
                            (x == ox + S::W - 1 && tx + 1 < f.tiles_x);
          open[l] = open[l] || seam;
        }
      std::vector<Piece> want_closed, want_open, got_closed, got_open;
      for (auto &kv : pieces)
        (open[kv.first] ? want_open : want_closed).push_back(kv.second);
      for (uint32_t k = 0; k < got.n_closed[t]; k++)
        got_closed.push_back(
            closed_piece<S>(got.rec[t * S::CLOSED_CAP + k], ox, oy, r.w));
      for (uint32_t k = 0; k < got.n_open[t]; k++)
        got_open.push_back(got.open.piece(t * S::OPEN_CAP + k, r.w));
      for (auto *v : {&want_closed, &want_open, &got_closed, &got_open})
        std::sort(v->begin(), v->end());
      EXPECT(got_closed == want_closed && got_open == want_open,
             "%s %dx%d c%d tile %d,%d: closed %zu/%zu open %zu/%zu, or their features differ",
             r.name, r.w, r.h, r.conn, tx, ty, got_closed.size(), want_closed.size(),
             got_open.size(), want_open.size());
      size_t marked = 0;
      for (int y = 0; y < S::H; y++)
        for (int k = 0; k < S::WORDS; k++)
          marked += __builtin_popcount(
              got.start[(size_t)(oy + y) * f.out.start_words + tx * S::WORDS + k]);
      EXPECT(marked == want_closed.size(), "%s tile %d,%d: %zu start bits, %zu closed",
             r.name, tx, ty, marked, want_closed.size());
    }
}

static void check_open_roots(const Run &r, const std::vector<uint32_t> &least)
{
  const tile::ForestView &g = r.g;
  const size_t cap = (size_t)r.f.tiles_x * r.f.tiles_y * S::OPEN_CAP;
  auto parent = down(r.f.out.open.parent, cap), key = down(r.f.out.open.key, cap);
  for (uint32_t p : open_slots<S>(r.f)) {
    const uint32_t q = parent[p];
    const uint32_t l = r.whole.labels[key[p]];
    const uint32_t root = least[l - 1];
    const uint32_t tx = (root % g.fpitch << g.shift) / S::W;
    const uint32_t ty = (root / g.fpitch << g.shift) / S::H;
    EXPECT(q < cap && parent[q] == q && r.whole.labels[key[q]] == l &&
               q / S::OPEN_CAP == ty * r.f.tiles_x + tx,
           "%s %dx%d c%d: open piece %u (component %u) has root %u, not its piece in tile %u,%u",
           r.name, r.w, r.h, r.conn, p, l, q, tx, ty);
  }
}

static void check_open_merging(const Run &r)
{
  const HostOpenPieces o =
      down_open(r.f.out.open, (size_t)r.f.tiles_x * r.f.tiles_y * S::OPEN_CAP);
  for (uint32_t p : open_slots<S>(r.f)) {
    if (o.parent[p] != p)
      continue;
    const OracleStats &s = r.whole.stats[r.whole.labels[o.key[p]] - 1];
    EXPECT(o.area[p] == s.area && o.sum_x[p] == s.sum_x && o.sum_y[p] == s.sum_y &&
               o.x0[p] == s.x0 && o.key[p] / r.w == s.y0 && o.x1[p] == s.x1 &&
               o.y1[p] == s.y1,
           "%s %dx%d c%d: root %u holds area %u of a component of area %llu", r.name, r.w,
           r.h, r.conn, p, o.area[p], (unsigned long long)s.area);
  }
}

static void check_table_and_labels(const Run &r, const uint32_t *d_labels,
                                   uint32_t min_area, uint32_t max_area)
{
  const Oracle &whole = r.whole;
  auto header = down(r.f.header, 3);
  std::vector<long> want;
  for (long i = 0; i < whole.n; i++) {
    const uint64_t a = whole.stats[i].area;
    if (a >= min_area && (max_area == 0 || a <= max_area))
      want.push_back(i);
  }
  EXPECT(header[0] == (uint32_t)whole.n && header[1] == want.size(),
         "%s %dx%d c%d: header %u components %u blobs, want %ld %zu", r.name, r.w, r.h,
         r.conn, header[0], header[1], whole.n, want.size());
  auto blobs = down(r.b.blobs, std::min<size_t>(header[1], want.size()));
  for (size_t k = 0; k < blobs.size(); k++) {
    const GpucclBlob &q = blobs[k];
    const OracleStats &s = whole.stats[want[k]];
    EXPECT(q.id == want[k] + 1 && q.area == s.area && q.sum_x == s.sum_x &&
               q.sum_y == s.sum_y && q.x0 == s.x0 && q.y0 == s.y0 && q.x1 == s.x1 &&
               q.y1 == s.y1,
           "%s %dx%d c%d: blob %zu (id %u, area %u) is not component %ld", r.name, r.w, r.h,
           r.conn, k, q.id, q.area, want[k] + 1);
  }
  if (!d_labels)
    return;
  auto labels = down(d_labels, (size_t)r.w * r.h);
  EXPECT(labels == whole.labels, "%s %dx%d c%d: label image differs", r.name, r.w, r.h,
         r.conn);
}

static void run_image(const std::vector<uint8_t> &img, int w, int h, int conn,
                      GpucclAlgorithm alg, const char *name)
{
  const Oracle whole(img, w, h, conn);
  Run r{w, h, conn, alg, name, whole};
  GpucclParams params;
  gpuccl_params_init(&params);
  params.algorithm = alg;
  params.connectivity = conn;
  void *ws = nullptr;
  uint8_t *d_img = nullptr;
  uint32_t *d_labels = nullptr;
  CK(cudaMalloc(&ws, gpuccl_forest_workspace_bytes(&params, w, h)));
  CK(cudaMalloc(&d_img, img.size()));
  CK(cudaMalloc(&d_labels, img.size() * 4));
  CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
  CK(tile::buffers_alloc(r.b, w, h, dalloc));
  Ha4Frame hf;
  memset(&hf, 0, sizeof hf);
  hf.image = d_img;
  hf.stride = w;
  hf.width = w;
  hf.height = h;
  hf.pitch = (w + 63) & ~63;
  hf.words = hf.pitch / 32;
  hf.bits = gpuccl_forest_images(&params, ws, w, h).bits;
  hf.threshold = 127;
  hf.conn8 = conn == 8;
  hf.format = GPUCCL_PIXEL_U8;
  r.g = gpuccl_forest_view(alg, ws, hf);
  /* HYBRID3 loops on the host here (stream 0 does not capture). */
  Hybrid3Rounds *report = nullptr;
  CK(cudaMallocHost(&report, sizeof *report));
  const ForestLoopEnv loop{report, 0};
  const std::vector<uint32_t> least = smallest_nodes(r);
  for (int pass = 0; pass < 3; pass++) {
    const bool filtered = pass == 2, labels = pass != 0;
    const uint32_t min_area = filtered ? 3 : 0, max_area = filtered ? 60 : 0;
    CK(gpuccl_forest_launch_labeling(hf, alg, ws, loop, 0));
    r.f = r.b.frame;
    r.f.image.data = d_img;
    r.f.image.stride = w;
    r.f.image.width = w;
    r.f.image.height = h;
    r.f.image.format = GPUCCL_PIXEL_U8;
    r.f.image.threshold = 127;
    r.f.filter = tile::Filter{min_area, max_area};
    r.f.conn8 = conn == 8;
    if (pass == 0)
      check_roots(r, least);
    CK(tile::launch_forest_tiles(r.f, r.g, labels, 0));
    if (!filtered)
      check_forest_tiles(r);
    CK(tile::launch_forest_open_merging(r.f, r.g, 0));
    check_open_roots(r, least);
    check_open_merging(r);
    CK(tile::launch_blob_records(r.f, r.b.blobs, 0));
    if (labels)
      CK(tile::launch_forest_label_image(r.f, r.g, d_labels, 0));
    check_table_and_labels(r, labels ? d_labels : nullptr, min_area,
                           max_area);
    CK(cudaDeviceSynchronize());
  }
  tile::buffers_free(r.b, dfree);
  cudaFreeHost(report);
  cudaFree(ws);
  cudaFree(d_img);
  cudaFree(d_labels);
}

// --quick: sides up to 300 (for compute-sanitizer).
int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (!gpuccl_cuda_available(0, nullptr)) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  const struct {
    GpucclAlgorithm alg;
    const char *name;
    bool conn4;
  } algs[] = {{GPUCCL_ALGORITHM_BUF, "BUF", false},
              {GPUCCL_ALGORITHM_BUF_IC, "BUF_IC", false},
              {GPUCCL_ALGORITHM_BKE, "BKE", false},
              {GPUCCL_ALGORITHM_BKE_IC, "BKE_IC", false},
              {GPUCCL_ALGORITHM_OUF, "OUF", true},
              {GPUCCL_ALGORITHM_HYBRID3, "HYBRID3", true},
              {GPUCCL_ALGORITHM_STAVA_BENES, "STAVA_BENES", true}};
  const int sizes[][2] = {{1, 1}, {40, 9}, {256, 32}, {300, 70}, {513, 47}, {600, 500}};
  uint32_t seed = 7;
  for (auto &a : algs)
    for (auto &sz : sizes)
      for (int conn : {4, 8}) {
        if ((conn == 4 && !a.conn4) || (quick && (sz[0] > 300 || sz[1] > 300)))
          continue;
        for (double d : {0.2, 0.45, 0.6, 0.8})
          for (int g : {1, 3, 17})
            run_image(random_image(sz[0], sz[1], d, g, seed++), sz[0], sz[1], conn, a.alg,
                      a.name);
        run_image(serpentine(sz[0], sz[1]), sz[0], sz[1], conn, a.alg, a.name);
        std::vector<uint8_t> board((size_t)sz[0] * sz[1]);
        for (int y = 0; y < sz[1]; y++)
          for (int x = 0; x < sz[0]; x++)
            board[(size_t)y * sz[0] + x] = (x + y) % 2 ? 255 : 0;
        run_image(board, sz[0], sz[1], conn, a.alg, a.name);
      }
  printf("forest tiles: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
