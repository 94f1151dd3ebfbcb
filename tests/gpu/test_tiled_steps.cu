// SPDX-License-Identifier: LGPL-2.1-or-later
// Each step of the tiled HA4 pipeline (kernels/cuda/tiled_kernels.h) against
// OpenCV (tests/common/oracle.h), with the device state read back between
// the steps:
//  - tile labeling: a tile's closed pieces are the components of the tile
//    alone that touch no seam, its open pieces those that do (features,
//    first pixels), and the start bitmap marks the closed ones;
//  - seam merging (tile labeling's last step): two open pieces share a
//    root iff the whole image's labeling puts them in one component;
//  - open merging: each root holds its whole component's features; with
//    every component a blob, the tiles' closed pieces and open roots count
//    each band's components;
//  - blob records: the start bitmap marks every component's first pixel,
//    each cell's offset counts those before it, and the table is the
//    whole image's, with and without an area filter; so are the header
//    and the first blobs it also writes to host memory, and no more;
//  - label image: the labels of the whole image.
// Exit 77 without a usable CUDA device.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

#include "cuda/tiled_frame.h"
#include "cuda/tiled_kernels.h"
#include "gpuccl.h"
#include "oracle.h"
#include "tile_check.cuh"

typedef tile::LibraryShape S;

static int failures, checks;

// OpenCV's labeling of a plane (0/255), labels in raster order, features.
struct Oracle {
  std::vector<uint32_t> labels;
  std::vector<OracleStats> stats;
  std::vector<uint64_t> first;
  long n = 0;
  Oracle(const uint8_t *data, int w, int h, size_t stride, int conn)
      : labels((size_t)w * h)
  {
    stats.resize((size_t)w * h / 2 + 2);
    n = oracle_opencv(data, w, h, stride, conn, labels.data(), stats.data(),
                      stats.size());
    if (n < 0) {
      fprintf(stderr, "OpenCV failed\n");
      exit(1);
    }
    oracle_stats_from_labels(labels.data(), w, h, (uint32_t)n, stats.data());
    first.assign((size_t)n, 0);
    std::vector<bool> seen((size_t)n, false);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const uint32_t l = labels[(size_t)y * w + x];
        if (l && !seen[l - 1]) {
          seen[l - 1] = true;
          first[l - 1] = (uint64_t)y * w + x;
        }
      }
  }
  // Component i of a crop of width w at (ox, oy) of an image iw wide.
  Piece piece(long i, int w, int ox, int oy, int iw) const
  {
    const OracleStats &s = stats[i];
    const uint64_t fx = first[i] % w + ox, fy = first[i] / w + oy;
    return Piece{fy * iw + fx, s.area, s.sum_x + s.area * (uint64_t)ox,
                 s.sum_y + s.area * (uint64_t)oy, s.x0 + ox, s.y0 + oy,
                 s.x1 + ox, s.y1 + oy};
  }
};

struct Run {
  int w, h, conn;
  const std::vector<uint8_t> &img;
  tile::Buffers b{};
  tile::Frame f{};
  uint8_t *d_img = nullptr;
  uint32_t *d_labels = nullptr;
  // Blob records' host copy (pinned), COPY_GUARD entries past its n.
  static constexpr uint32_t COPY_GUARD = 8;
  uint32_t *header_h = nullptr;
  GpucclBlob *blobs_h = nullptr;
  uint32_t *done_h = nullptr; // the flag the host polls (Frame::Done)
};

static const uint8_t UNTOUCHED = 0xa5;

static void check_tile_labeling(Run &r)
{
  const tile::Frame &f = r.f;
  const HostTiles got = down_tiles<S>(f);
  for (int ty = 0; ty < f.tiles_y; ty++)
    for (int tx = 0; tx < f.tiles_x; tx++) {
      const size_t t = (size_t)ty * f.tiles_x + tx;
      const int ox = tx * S::W, oy = ty * S::H;
      const int cw = std::min(S::W, r.w - ox), ch = std::min(S::H, r.h - oy);
      Oracle o(r.img.data() + (size_t)oy * r.w + ox, cw, ch, r.w, r.conn);
      std::vector<Piece> closed, open;
      std::vector<bool> is_open((size_t)o.n, false);
      for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
          const uint32_t l = o.labels[(size_t)y * cw + x];
          const bool seam = (y == 0 && ty > 0) || (y == S::H - 1 && ty + 1 < f.tiles_y) ||
                            (x == 0 && tx > 0) || (x == S::W - 1 && tx + 1 < f.tiles_x);
          if (l && seam)
            is_open[l - 1] = true;
        }
      for (long i = 0; i < o.n; i++)
        (is_open[i] ? open : closed).push_back(o.piece(i, cw, ox, oy, r.w));
      std::vector<Piece> got_closed, got_open;
      for (uint32_t k = 0; k < got.n_closed[t]; k++)
        got_closed.push_back(
            closed_piece<S>(got.rec[t * S::CLOSED_CAP + k], ox, oy, r.w));
      for (uint32_t k = 0; k < got.n_open[t]; k++)
        got_open.push_back(got.open.piece(t * S::OPEN_CAP + k, r.w));
      std::sort(closed.begin(), closed.end());
      std::sort(open.begin(), open.end());
      std::sort(got_closed.begin(), got_closed.end());
      std::sort(got_open.begin(), got_open.end());
      EXPECT(got_closed.size() == closed.size() && got_open.size() == open.size(),
             "%dx%d c%d tile %d,%d: closed %zu/%zu open %zu/%zu", r.w, r.h, r.conn, tx, ty,
             got_closed.size(), closed.size(), got_open.size(), open.size());
      if (got_closed.size() == closed.size())
        EXPECT(std::equal(closed.begin(), closed.end(), got_closed.begin()),
               "%dx%d c%d tile %d,%d: closed pieces differ", r.w, r.h, r.conn, tx, ty);
      if (got_open.size() == open.size())
        EXPECT(std::equal(open.begin(), open.end(), got_open.begin()),
               "%dx%d c%d tile %d,%d: open pieces differ", r.w, r.h, r.conn, tx, ty);
      // The start bitmap of the tile: the closed pieces' first pixels.
      size_t marked = 0;
      for (int y = 0; y < S::H; y++)
        for (int k = 0; k < S::WORDS; k++)
          marked += __builtin_popcount(
              got.start[(size_t)(oy + y) * f.out.start_words + tx * S::WORDS + k]);
      EXPECT(marked == closed.size(), "tile %d,%d: %zu start bits, %zu closed", tx, ty,
             marked, closed.size());
    }
}

// Tiles without a pixel above the threshold (127).
static uint32_t empty_tiles(const Run &r)
{
  uint32_t n = 0;
  for (int ty = 0; ty < r.f.tiles_y; ty++)
    for (int tx = 0; tx < r.f.tiles_x; tx++) {
      bool fg = false;
      for (int y = ty * S::H; y < std::min(r.h, (ty + 1) * S::H); y++)
        for (int x = tx * S::W; x < std::min(r.w, (tx + 1) * S::W); x++)
          fg = fg || r.img[(size_t)y * r.w + x] > 127;
      n += !fg;
    }
  return n;
}

// The frame's done flag and count of empty tiles after a step
// (Frame::Done), the flag lowered before each: the tile stage counts its
// empty tiles and, when that is every tile, writes the host's header and
// raises the flag; blob records raises it for any other frame, never
// again for that one, and sets the count back to 0.
static void check_done(Run &r, const Oracle &whole, bool after_records)
{
  const bool raised = after_records == (whole.n != 0);
  const uint32_t counted = down(r.f.done.empty_tiles, 1)[0];
  const uint32_t want = after_records ? 0 : empty_tiles(r);
  EXPECT(*r.done_h == (raised ? 1u : 0u) && counted == want,
         "%dx%d c%d after %s: flag %u, empty tiles %u (want %u)", r.w, r.h, r.conn,
         after_records ? "blob records" : "tile labeling", *r.done_h, counted, want);
  if (raised || (after_records && whole.n == 0))
    EXPECT(r.header_h[0] == (uint32_t)whole.n && r.header_h[2] == 127,
           "%dx%d c%d: flag raised over host header %u %u %u", r.w, r.h, r.conn,
           r.header_h[0], r.header_h[1], r.header_h[2]);
  *r.done_h = 0;
}

// The root of slot p, on the host.
static uint32_t host_root(const std::vector<uint32_t> &parent, uint32_t p)
{
  while (parent[p] != p)
    p = parent[p];
  return p;
}

static void check_seam_merging(Run &r, const Oracle &whole)
{
  const size_t cap = (size_t)r.f.tiles_x * r.f.tiles_y * S::OPEN_CAP;
  auto parent = down(r.f.out.open.parent, cap), key = down(r.f.out.open.key, cap);
  const auto slots = open_slots<S>(r.f);
  // Pieces per root and per component must be the same partition.
  std::vector<std::pair<uint32_t, uint32_t>> root_comp;
  for (uint32_t p : slots)
    root_comp.push_back({host_root(parent, p), whole.labels[key[p]]});
  std::sort(root_comp.begin(), root_comp.end());
  for (size_t i = 1; i < root_comp.size(); i++)
    if (root_comp[i].first == root_comp[i - 1].first)
      EXPECT(root_comp[i].second == root_comp[i - 1].second,
             "%dx%d c%d: root %u joins components %u and %u", r.w, r.h, r.conn,
             root_comp[i].first, root_comp[i - 1].second, root_comp[i].second);
  std::sort(root_comp.begin(), root_comp.end(),
            [](auto a, auto b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
  for (size_t i = 1; i < root_comp.size(); i++)
    if (root_comp[i].second == root_comp[i - 1].second)
      EXPECT(root_comp[i].first == root_comp[i - 1].first,
             "%dx%d c%d: component %u split over roots %u and %u", r.w, r.h, r.conn,
             root_comp[i].second, root_comp[i - 1].first, root_comp[i].first);
}

// When the frame sums tiles (every component a blob, few tiles), each
// tile's closed pieces and open roots (what blob records adds up for the
// bands above): per band (row of tiles), the components whose first pixel
// lies in it.
static void check_tile_counts(Run &r, const Oracle &whole)
{
  const tile::Frame &f = r.f;
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  const auto closed = down(f.out.n_closed, tiles), roots = down(f.out.n_open_roots, tiles);
  std::vector<uint64_t> want((size_t)f.tiles_y, 0), got((size_t)f.tiles_y, 0);
  for (long i = 0; i < whole.n; i++)
    want[whole.first[i] / r.w / S::H]++;
  for (size_t t = 0; t < tiles; t++)
    got[t / f.tiles_x] += closed[t] + roots[t];
  for (int b = 0; b < f.tiles_y; b++)
    EXPECT(got[b] == want[b], "%dx%d c%d band %d: %llu components, want %llu", r.w, r.h,
           r.conn, b, (unsigned long long)got[b], (unsigned long long)want[b]);
}

static void check_open_merging(Run &r, const Oracle &whole)
{
  if (r.f.sums_tiles())
    check_tile_counts(r, whole);
  const HostOpenPieces o =
      down_open(r.f.out.open, (size_t)r.f.tiles_x * r.f.tiles_y * S::OPEN_CAP);
  for (uint32_t p : open_slots<S>(r.f)) {
    if (o.parent[p] != p)
      continue;
    const long c = (long)whole.labels[o.key[p]] - 1;
    const Piece want = whole.piece(c, r.w, 0, 0, r.w);
    EXPECT(o.piece(p, r.w) == want,
           "%dx%d c%d: root %u holds area %u of component %ld (area %llu)", r.w, r.h,
           r.conn, p, o.area[p], c + 1, (unsigned long long)std::get<1>(want));
  }
}

static void check_component_ids(Run &r, const Oracle &whole, uint32_t min_area,
                                uint32_t max_area)
{
  const tile::Frame &f = r.f;
  auto start = down(f.out.start, (size_t)f.tiles_y * S::H * f.out.start_words);
  std::vector<uint8_t> first((size_t)r.w * r.h, 0);
  for (long i = 0; i < whole.n; i++)
    first[whole.first[i]] = 1;
  long marked = 0, wrong = 0;
  for (int y = 0; y < r.h; y++)
    for (int x = 0; x < r.w; x++) {
      const bool bit = start[(size_t)y * f.out.start_words + x / 32] >> (x % 32) & 1;
      marked += bit;
      wrong += bit != (first[(size_t)y * r.w + x] != 0);
    }
  EXPECT(wrong == 0 && marked == whole.n, "%dx%d c%d: %ld start bits (%ld wrong), %ld components",
         r.w, r.h, r.conn, marked, wrong, whole.n);
  // Each cell's offsets: the components and passing blobs before it, where
  // the tile holds a first pixel (elsewhere no id is looked up, and blob
  // records may skip the tile).
  std::vector<uint8_t> holds((size_t)f.tiles_x * f.tiles_y, 0);
  for (long i = 0; i < whole.n; i++)
    holds[whole.first[i] / r.w / S::H * f.tiles_x + whole.first[i] % r.w / S::W] = 1;
  auto before = down(f.cell_before, (size_t)r.h * f.tiles_x);
  uint64_t all = 0, passed = 0;
  long next = 0; // components in raster order of first pixel
  for (int y = 0; y < r.h; y++)
    for (int tx = 0; tx < f.tiles_x; tx++) {
      const unsigned long long want = all | passed << 32;
      EXPECT(!holds[y / S::H * f.tiles_x + tx] || before[(size_t)y * f.tiles_x + tx] == want,
             "%dx%d c%d: cell %d,%d offset", r.w, r.h, r.conn, tx, y);
      for (; next < whole.n && whole.first[next] / r.w == (uint64_t)y &&
             whole.first[next] % r.w < (uint64_t)(tx + 1) * S::W;
           next++) {
        const uint64_t a = whole.stats[next].area;
        all++;
        passed += a >= min_area && (max_area == 0 || a <= max_area);
      }
    }
}

// Blobs [0, n) against the passing components want[0, n).
static void check_blobs(const Run &r, const Oracle &whole, const std::vector<long> &want,
                        const GpucclBlob *blobs, size_t n, const char *where)
{
  for (size_t k = 0; k < n; k++) {
    const GpucclBlob &q = blobs[k];
    const OracleStats &s = whole.stats[want[k]];
    EXPECT(q.id == want[k] + 1 && q.area == s.area && q.sum_x == s.sum_x &&
               q.sum_y == s.sum_y && q.x0 == s.x0 && q.y0 == s.y0 && q.x1 == s.x1 &&
               q.y1 == s.y1,
           "%dx%d c%d: %s blob %zu (id %u, area %u) is not component %ld (area %llu)", r.w,
           r.h, r.conn, where, k, q.id, q.area, want[k] + 1, (unsigned long long)s.area);
  }
}

static void check_table_and_labels(Run &r, const Oracle &whole, uint32_t min_area,
                                   uint32_t max_area)
{
  auto header = down(r.f.header, 3);
  std::vector<long> want;
  for (long i = 0; i < whole.n; i++) {
    const uint64_t a = whole.stats[i].area;
    if (a >= min_area && (max_area == 0 || a <= max_area))
      want.push_back(i);
  }
  EXPECT(header[0] == (uint32_t)whole.n && header[1] == want.size(),
         "%dx%d c%d: header %u components %u blobs, want %ld %zu", r.w, r.h, r.conn, header[0],
         header[1], whole.n, want.size());
  auto blobs = down(r.b.blobs, std::min<size_t>(header[1], want.size()));
  check_blobs(r, whole, want, blobs.data(), blobs.size(), "table");
  // The host copy: the header, the first copy.n blobs, nothing past them.
  EXPECT(std::equal(header.begin(), header.end(), r.header_h),
         "%dx%d c%d: host header %u %u %u, device's %u %u %u", r.w, r.h, r.conn, r.header_h[0],
         r.header_h[1], r.header_h[2], header[0], header[1], header[2]);
  const size_t copied = std::min<size_t>(r.f.copy.n, want.size());
  check_blobs(r, whole, want, r.blobs_h, copied, "host copy's");
  const uint8_t *rest = reinterpret_cast<const uint8_t *>(r.blobs_h + copied);
  const size_t rest_bytes = (r.f.copy.n + Run::COPY_GUARD - copied) * sizeof(GpucclBlob);
  EXPECT(std::all_of(rest, rest + rest_bytes, [](uint8_t v) { return v == UNTOUCHED; }),
         "%dx%d c%d: host copy of %u blobs written past blob %zu", r.w, r.h, r.conn,
         r.f.copy.n, copied);
  auto labels = down(r.d_labels, (size_t)r.w * r.h);
  EXPECT(labels == whole.labels, "%dx%d c%d: label image differs", r.w, r.h, r.conn);
}

static void run_image(const std::vector<uint8_t> &img, int w, int h, int conn)
{
  Run r{w, h, conn, img};
  CK(tile::buffers_alloc(r.b, w, h, dalloc));
  CK(cudaMalloc(&r.d_img, img.size()));
  CK(cudaMalloc(&r.d_labels, img.size() * 4));
  CK(cudaMemcpy(r.d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
  // A host copy shorter than most tables, and one of the library's size.
  const uint32_t copy_n[2] = {1024, 37};
  CK(cudaMallocHost(&r.header_h, 3 * sizeof(uint32_t)));
  CK(cudaMallocHost(&r.blobs_h, (copy_n[0] + Run::COPY_GUARD) * sizeof(GpucclBlob)));
  CK(cudaMallocHost(&r.done_h, sizeof(uint32_t)));
  const Oracle whole(img.data(), w, h, w, conn);
  for (int filtered = 0; filtered < 2; filtered++) {
    const uint32_t min_area = filtered ? 3 : 0, max_area = filtered ? 60 : 0;
    memset(r.header_h, UNTOUCHED, 3 * sizeof(uint32_t));
    memset(r.blobs_h, UNTOUCHED, (copy_n[filtered] + Run::COPY_GUARD) * sizeof(GpucclBlob));
    r.f = r.b.frame;
    r.f.copy = tile::Frame::HostCopy{r.header_h, r.blobs_h, copy_n[filtered]};
    *r.done_h = 0;
    r.f.done.flag = r.done_h;
    r.f.image.data = r.d_img;
    r.f.image.stride = w;
    r.f.image.width = w;
    r.f.image.height = h;
    r.f.image.format = GPUCCL_PIXEL_U8;
    r.f.image.threshold = 127;
    r.f.filter = tile::Filter{min_area, max_area};
    r.f.conn8 = conn == 8;
    CK(tile::launch_tile_labeling(r.f, 0));
    if (!filtered)
      check_tile_labeling(r);
    check_done(r, whole, false);
    check_seam_merging(r, whole);
    CK(tile::launch_open_merging(r.f, 0));
    check_open_merging(r, whole);
    CK(tile::launch_blob_records(r.f, r.b.blobs, 0));
    check_done(r, whole, true);
    check_component_ids(r, whole, min_area, max_area);
    CK(tile::launch_label_image(r.f, r.d_labels, 0));
    check_table_and_labels(r, whole, min_area, max_area);
  }
  tile::buffers_free(r.b, dfree);
  cudaFree(r.d_img);
  cudaFree(r.d_labels);
  cudaFreeHost(r.header_h);
  cudaFreeHost(r.blobs_h);
  cudaFreeHost(r.done_h);
}

// --quick: sides up to 300 (for compute-sanitizer).
int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (!gpuccl_cuda_available(0, nullptr)) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  /* 270 x 1100: 35 bands, past one warp of blob records' look-back;
   * 1290 x 40: 6 tiles a band, three rounds of its groups. */
  const int sizes[][2] = {{1, 1},     {40, 9},     {256, 16},  {300, 70},
                          {600, 500}, {513, 47},   {1000, 333}, {270, 1100},
                          {1290, 40}};
  uint32_t seed = 11;
  for (auto &sz : sizes)
    for (int conn : {4, 8}) {
      if (quick && (sz[0] > 300 || sz[1] > 300))
        continue;
      for (double d : {0.2, 0.45, 0.6, 0.8})
        for (int g : {1, 3, 17})
          run_image(random_image(sz[0], sz[1], d, g, seed++), sz[0], sz[1], conn);
      /* Sparse frames: blob records skips the tiles that hold nothing, the
       * last one (which writes the header) too. */
      run_image(std::vector<uint8_t>((size_t)sz[0] * sz[1], 0), sz[0], sz[1], conn);
      std::vector<uint8_t> corner = random_image(sz[0], sz[1], 0.45, 3, seed++);
      for (int y = 0; y < sz[1]; y++)
        for (int x = 0; x < sz[0]; x++)
          if (2 * x >= sz[0] || 2 * y >= sz[1])
            corner[(size_t)y * sz[0] + x] = 0;
      run_image(corner, sz[0], sz[1], conn);
      run_image(serpentine(sz[0], sz[1]), sz[0], sz[1], conn);
      std::vector<uint8_t> board((size_t)sz[0] * sz[1]);
      for (int y = 0; y < sz[1]; y++)
        for (int x = 0; x < sz[0]; x++)
          board[(size_t)y * sz[0] + x] = (x + y) % 2 ? 255 : 0;
      run_image(board, sz[0], sz[1], conn);
    }
  printf("tiled steps: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
