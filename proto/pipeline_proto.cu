// Prototype of the whole tiled pipeline (issue 16): correctness against a
// CPU labeling (raster-order ids, features, label image) on random images
// of many sizes, and kernel times per step on the 2048^2 grid.
//   pipeline_proto check           correctness sweep
//   pipeline_proto time [WxH] [reps]   per-step and whole-frame times (graph)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "random_image.h"

#include "../kernels/cuda/tiled_frame.h"
#include "../kernels/cuda/tiled_kernels.h"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static cudaError_t dalloc(void **p, size_t n) { return cudaMalloc(p, n ? n : 1); }
static void dfree(void *p) { cudaFree(p); }

// A spiral of width 1 with gaps of 1: one long thin component.
static std::vector<uint8_t> make_spiral(int W, int H)
{
  std::vector<uint8_t> img((size_t)W * H, 0);
  int x0 = 0, y0 = 0, x1 = W - 1, y1 = H - 1;
  while (x0 <= x1 && y0 <= y1) {
    for (int x = x0; x <= x1; x++) img[(size_t)y0 * W + x] = 255;
    for (int y = y0; y <= y1; y++) img[(size_t)y * W + x1] = 255;
    if (y1 > y0) for (int x = x0; x <= x1; x++) img[(size_t)y1 * W + x] = 255;
    if (x0 + 2 <= x1) for (int y = y0 + 2; y <= y1; y++) img[(size_t)y * W + x0] = 255;
    if (x0 + 2 <= x1 && y0 + 2 <= y1) img[(size_t)(y0 + 2) * W + x0 + 1] = 255;
    x0 += 2; y0 += 2; x1 -= 2; y1 -= 2;
  }
  return img;
}

struct RefBlob {
  uint32_t id, area, x0, y0, x1, y1;
  unsigned long long sx, sy;
};

// CPU reference: union-find over pixels, ids in raster order of first pixel.
static void cpu_label(const std::vector<uint8_t> &img, int W, int H, bool c8, int thr,
                      std::vector<uint32_t> &labels, std::vector<RefBlob> &blobs)
{
  std::vector<int> P((size_t)W * H);
  std::iota(P.begin(), P.end(), 0);
  auto find = [&](int x) { while (P[x] != x) x = P[x] = P[P[x]]; return x; };
  auto unite = [&](int a, int b) { a = find(a); b = find(b); if (a != b) { if (a < b) std::swap(a, b); P[a] = b; } };
  auto fg = [&](int x, int y) { return x >= 0 && y >= 0 && x < W && y < H && img[(size_t)y * W + x] > thr; };
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      if (!fg(x, y)) continue;
      int i = y * W + x;
      if (fg(x - 1, y)) unite(i, i - 1);
      if (fg(x, y - 1)) unite(i, i - W);
      if (c8 && fg(x - 1, y - 1)) unite(i, i - W - 1);
      if (c8 && fg(x + 1, y - 1)) unite(i, i - W + 1);
    }
  labels.assign((size_t)W * H, 0);
  std::vector<uint32_t> idof((size_t)W * H, 0);
  blobs.clear();
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      if (!fg(x, y)) continue;
      int r = find(y * W + x);
      if (!idof[r]) {
        idof[r] = (uint32_t)blobs.size() + 1;
        blobs.push_back({idof[r], 0, (uint32_t)x, (uint32_t)y, (uint32_t)x, (uint32_t)y, 0, 0});
      }
      RefBlob &b = blobs[idof[r] - 1];
      b.area++;
      b.sx += x;
      b.sy += y;
      b.x0 = std::min(b.x0, (uint32_t)x);
      b.x1 = std::max(b.x1, (uint32_t)x);
      b.y1 = std::max(b.y1, (uint32_t)y);
      labels[(size_t)y * W + x] = idof[r];
    }
}

struct Gpu {
  tile::Buffers b{};
  uint8_t *d_img = nullptr;
  uint32_t *d_labels = nullptr;
  int W = 0, H = 0;
  void ensure(int w, int h)
  {
    if (w == W && h == H) return;
    if (W) { tile::buffers_free(b, dfree); cudaFree(d_img); cudaFree(d_labels); }
    CK(tile::buffers_alloc(b, w, h, dalloc));
    CK(cudaMalloc(&d_img, (size_t)w * h));
    CK(cudaMalloc(&d_labels, (size_t)w * h * 4));
    W = w; H = h;
  }
  tile::Frame frame(bool c8, uint32_t min_area, uint32_t max_area)
  {
    tile::Frame f = b.frame;
    f.image = tile::Image{};
    f.image.data = d_img;
    f.image.stride = W;
    f.image.width = W;
    f.image.height = H;
    f.image.format = GPUCCL_PIXEL_U8;
    f.image.threshold = 127;
    f.filter = tile::Filter{min_area, max_area};
    f.conn8 = c8;
    return f;
  }
};

static int check_one(Gpu &g, const std::vector<uint8_t> &img, int W, int H, bool c8,
                     uint32_t min_area, uint32_t max_area, const char *what)
{
  g.ensure(W, H);
  CK(cudaMemcpy(g.d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
  tile::Frame f = g.frame(c8, min_area, max_area);
  CK(tile::enqueue_frame(g.b, f, g.d_labels, 0));
  CK(cudaDeviceSynchronize());
  uint32_t header[3];
  CK(cudaMemcpy(header, f.header, 12, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> lab((size_t)W * H);
  CK(cudaMemcpy(lab.data(), g.d_labels, lab.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<GpucclBlob> blobs(header[1]);
  if (header[1])
    CK(cudaMemcpy(blobs.data(), g.b.blobs, blobs.size() * sizeof(GpucclBlob), cudaMemcpyDeviceToHost));
  std::vector<uint32_t> rl;
  std::vector<RefBlob> rb;
  cpu_label(img, W, H, c8, 127, rl, rb);
  std::vector<RefBlob> pass;
  for (auto &b : rb)
    if (b.area >= min_area && (max_area == 0 || b.area <= max_area)) pass.push_back(b);
  int bad = 0;
  if (header[0] != rb.size() || header[1] != pass.size()) {
    fprintf(stderr, "%s %dx%d c%d: components %u/%zu blobs %u/%zu\n", what, W, H, c8 ? 8 : 4,
            header[0], rb.size(), header[1], pass.size());
    return 1;
  }
  for (size_t i = 0; i < pass.size() && bad < 5; i++) {
    const GpucclBlob &q = blobs[i];
    const RefBlob &r = pass[i];
    if (q.id != r.id || q.area != r.area || q.x0 != r.x0 || q.y0 != r.y0 || q.x1 != r.x1 ||
        q.y1 != r.y1 || q.sum_x != r.sx || q.sum_y != r.sy) {
      fprintf(stderr, "%s %dx%d c%d blob %zu: gpu id %u a %u box %u,%u-%u,%u s %llu,%llu; cpu id %u a %u box %u,%u-%u,%u s %llu,%llu\n",
              what, W, H, c8 ? 8 : 4, i, q.id, q.area, q.x0, q.y0, q.x1, q.y1,
              (unsigned long long)q.sum_x, (unsigned long long)q.sum_y, r.id, r.area, r.x0, r.y0, r.x1,
              r.y1, r.sx, r.sy);
      bad++;
    }
  }
  for (size_t i = 0; i < lab.size() && bad < 10; i++)
    if (lab[i] != rl[i]) {
      fprintf(stderr, "%s %dx%d c%d label at %zu,%zu: %u vs %u\n", what, W, H, c8 ? 8 : 4,
              i % W, i / W, lab[i], rl[i]);
      bad++;
    }
  return bad ? 1 : 0;
}

static int run_check(int max_side)
{
  Gpu g;
  int fails = 0, n = 0;
  const int sizes[][2] = {{1, 1}, {33, 17}, {256, 16}, {257, 17}, {600, 500}, {1000, 777},
                          {1920, 1080}, {2048, 2048}, {511, 1023}, {3840, 64}, {31, 2000}};
  uint32_t seed = 1;
  for (auto &s : sizes)
    for (int c8 = 0; c8 < 2; c8++) {
      if (s[0] > max_side || s[1] > max_side)
        continue;
      for (double d : {0.1, 0.3, 0.45, 0.6, 0.9})
        for (int gr : {1, 3, 16}) {
          auto img = make_image(s[0], s[1], d, gr, seed++);
          fails += check_one(g, img, s[0], s[1], c8, 0, 0, "grid");
          fails += check_one(g, img, s[0], s[1], c8, 3, 40, "grid-filter");
          n += 2;
        }
      auto sp = make_spiral(s[0], s[1]);
      fails += check_one(g, sp, s[0], s[1], c8, 0, 0, "spiral");
      std::vector<uint8_t> cb((size_t)s[0] * s[1]);
      for (int y = 0; y < s[1]; y++)
        for (int x = 0; x < s[0]; x++) cb[(size_t)y * s[0] + x] = ((x + y) & 1) ? 255 : 0;
      fails += check_one(g, cb, s[0], s[1], c8, 0, 0, "checkerboard");
      std::vector<uint8_t> full((size_t)s[0] * s[1], 255);
      fails += check_one(g, full, s[0], s[1], c8, 0, 0, "full");
      n += 3;
    }
  printf("check: %d cases, %d failed\n", n, fails);
  return fails ? 1 : 0;
}

static int run_time(int W, int H, int reps)
{
  Gpu g;
  g.ensure(W, H);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t ev[9];
  for (auto &e : ev) CK(cudaEventCreate(&e));
  printf("W,H,conn,density,gran,components,blobs,k1_tile,k2_seams,k3_open,k4_roots,k5_ids,k6_blobs,k7_labels,sum_steps,graph_frame\n");
  for (int c8 = 0; c8 < 2; c8++)
    for (int d : {10, 30, 40, 50, 60, 70, 90})
      for (int gr : {1, 4, 16}) {
        auto img = make_image(W, H, d / 100.0, gr, 777 + d * 31 + gr);
        CK(cudaMemcpy(g.d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
        tile::Frame f = g.frame(c8, 0, 0);
        std::vector<std::vector<float>> t(8);
        for (int r = 0; r < reps + 2; r++) {
          CK(cudaEventRecord(ev[0], st));
          CK(tile::launch_tile_labeling(f, st));
          CK(cudaEventRecord(ev[1], st));
          CK(tile::launch_seam_merging(f, st));
          CK(cudaEventRecord(ev[2], st));
          CK(tile::launch_open_merging(f, st));
          CK(cudaEventRecord(ev[3], st));
          CK(tile::launch_open_roots(f, st));
          CK(cudaEventRecord(ev[4], st));
          size_t bytes = g.b.scan_temp_bytes;
          CK(tile::launch_component_ids(f, g.b.scan_temp, bytes, st));
          CK(cudaEventRecord(ev[5], st));
          CK(tile::launch_blob_records(f, g.b.blobs, st));
          CK(cudaEventRecord(ev[6], st));
          CK(tile::launch_label_image(f, g.d_labels, st));
          CK(cudaEventRecord(ev[7], st));
          CK(cudaEventSynchronize(ev[7]));
          if (r < 2) continue;
          for (int k = 0; k < 7; k++) {
            float ms;
            CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
            t[k].push_back(ms * 1000);
          }
        }
        // whole frame without labels as one graph
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        CK(tile::enqueue_frame(g.b, f, nullptr, st));
        CK(cudaStreamEndCapture(st, &graph));
        CK(cudaGraphInstantiate(&exec, graph, 0));
        for (int r = 0; r < reps + 2; r++) {
          CK(cudaEventRecord(ev[0], st));
          CK(cudaGraphLaunch(exec, st));
          CK(cudaEventRecord(ev[8], st));
          CK(cudaEventSynchronize(ev[8]));
          float ms;
          CK(cudaEventElapsedTime(&ms, ev[0], ev[8]));
          if (r >= 2) t[7].push_back(ms * 1000);
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        uint32_t header[3];
        CK(cudaMemcpy(header, f.header, 12, cudaMemcpyDeviceToHost));
        double med[8], sum = 0;
        for (int k = 0; k < 8; k++) {
          std::sort(t[k].begin(), t[k].end());
          med[k] = t[k][t[k].size() / 2];
          if (k < 6) sum += med[k];
        }
        printf("%d,%d,%d,%d,%d,%u,%u,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", W, H,
               c8 ? 8 : 4, d, gr, header[0], header[1], med[0], med[1], med[2], med[3], med[4],
               med[5], med[6], sum, med[7]);
        fflush(stdout);
      }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "check"))
    return run_check(argc > 2 ? atoi(argv[2]) : 1 << 30);
  int W = 2048, H = 2048, reps = 11;
  if (argc > 2) sscanf(argv[2], "%dx%d", &W, &H);
  if (argc > 3) reps = atoi(argv[3]);
  return run_time(W, H, reps);
}
