// Prototype timing of tile labeling alone (issue 16, step 1): several tile
// shapes on the density x granularity grid, kernel time by CUDA events, and
// a CPU check of each tile's closed/open pieces (flood fill per tile).
//   tile_proto [--size WxH] [--conn 4|8] [--reps N] [--cells d:g,d:g] [--shape NAME] [--no-check]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "random_image.h"

#define TILE_PROFILE 1
#include "../kernels/cuda/tile_labeling.cuh"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Buffers {
  tile::TileOutputs o;
};

template <class S>
static void alloc_outputs(tile::TileOutputs &o, int W, int H)
{
  int tx = (W + S::W - 1) / S::W, ty = (H + S::H - 1) / S::H;
  size_t nt = (size_t)tx * ty;
  size_t no = nt * S::OPEN_CAP;
  CK(cudaMalloc(&o.open.parent, no * 4));
  CK(cudaMalloc(&o.open.key, no * 4));
  CK(cudaMalloc(&o.open.area, no * 4));
  CK(cudaMalloc(&o.open.sum_x, no * 8));
  CK(cudaMalloc(&o.open.sum_y, no * 8));
  CK(cudaMalloc(&o.open.x0, no * 4));
  CK(cudaMalloc(&o.open.x1, no * 4));
  CK(cudaMalloc(&o.open.y1, no * 4));
  CK(cudaMalloc(&o.closed.rec, nt * S::CLOSED_CAP * 16));
  o.seams.row_len = tx * S::W;
  o.seams.col_len = ty * S::H;
  CK(cudaMalloc(&o.seams.top, (size_t)ty * o.seams.row_len * 4));
  CK(cudaMalloc(&o.seams.bottom, (size_t)ty * o.seams.row_len * 4));
  CK(cudaMalloc(&o.seams.left, (size_t)tx * o.seams.col_len * 4));
  CK(cudaMalloc(&o.seams.right, (size_t)tx * o.seams.col_len * 4));
  o.start_words = tx * S::WORDS;
  CK(cudaMalloc(&o.start, (size_t)ty * S::H * o.start_words * 4));
  CK(cudaMalloc(&o.pass, (size_t)ty * S::H * o.start_words * 4));
  CK(cudaMalloc(&o.n_open, nt * 4));
  CK(cudaMalloc(&o.n_closed, nt * 4));
}

static void free_outputs(tile::TileOutputs &o)
{
  void *ps[] = {o.open.parent, o.open.key, o.open.area, o.open.sum_x, o.open.sum_y,
                o.open.x0, o.open.x1, o.open.y1, o.closed.rec, o.seams.top,
                o.seams.bottom, o.seams.left, o.seams.right, o.start, o.pass,
                o.n_open, o.n_closed};
  for (void *p : ps)
    cudaFree(p);
}

// CPU: per tile flood fill; closed count/area/sums, open count.
struct TileRef {
  uint32_t n_open = 0, n_closed = 0;
  unsigned long long area = 0, sx = 0, sy = 0, bbox = 0;
};

template <class S>
static std::vector<TileRef> cpu_tiles(const std::vector<uint8_t> &img, int W, int H, bool c8)
{
  int ntx = (W + S::W - 1) / S::W, nty = (H + S::H - 1) / S::H;
  std::vector<TileRef> ref((size_t)ntx * nty);
  std::vector<int> lab(S::PIXELS), stack;
  for (int ty = 0; ty < nty; ty++)
    for (int tx = 0; tx < ntx; tx++) {
      TileRef &R = ref[(size_t)ty * ntx + tx];
      std::fill(lab.begin(), lab.end(), 0);
      auto fgp = [&](int x, int y) {
        int gx = tx * S::W + x, gy = ty * S::H + y;
        return x >= 0 && y >= 0 && x < S::W && y < S::H && gx < W && gy < H &&
               img[(size_t)gy * W + gx] > 127;
      };
      int n = 0;
      for (int y = 0; y < S::H; y++)
        for (int x = 0; x < S::W; x++) {
          if (!fgp(x, y) || lab[y * S::W + x])
            continue;
          n++;
          bool open = false;
          unsigned long long area = 0, sx = 0, sy = 0;
          int x0 = x, x1 = x, y1 = y;
          stack.assign(1, y * S::W + x);
          lab[y * S::W + x] = n;
          while (!stack.empty()) {
            int p = stack.back();
            stack.pop_back();
            int px = p % S::W, py = p / S::W;
            area++;
            sx += tx * S::W + px;
            sy += ty * S::H + py;
            x0 = std::min(x0, px);
            x1 = std::max(x1, px);
            y1 = std::max(y1, py);
            if ((py == 0 && ty > 0) || (py == S::H - 1 && ty + 1 < nty) ||
                (px == 0 && tx > 0) || (px == S::W - 1 && tx + 1 < ntx))
              open = true;
            for (int dy = -1; dy <= 1; dy++)
              for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy)
                  continue;
                if (!c8 && dx && dy)
                  continue;
                int qx = px + dx, qy = py + dy;
                if (fgp(qx, qy) && !lab[qy * S::W + qx]) {
                  lab[qy * S::W + qx] = n;
                  stack.push_back(qy * S::W + qx);
                }
              }
          }
          if (open)
            R.n_open++;
          else {
            R.n_closed++;
            R.area += area;
            R.sx += sx;
            R.sy += sy;
            R.bbox += x0 + 3 * x1 + 7 * y1;
          }
        }
    }
  return ref;
}

struct Opts {
  int W = 2048, H = 2048, reps = 20;
  bool check = true, profile = true;
  std::string shape;
  std::vector<std::pair<int, int>> cells;
  std::vector<int> conns = {4, 8};
};

template <class S, bool C8, int FCAP, bool DD = false, bool AGG = true>
static void run_shape(const char *name, const Opts &op,
                      const std::vector<std::vector<uint8_t>> &imgs,
                      const uint8_t *d_img)
{
  if (!op.shape.empty() && op.shape != name)
    return;
  tile::TileOutputs o;
  alloc_outputs<S>(o, op.W, op.H);
  tile::Image im{};
  im.stride = op.W;
  im.width = op.W;
  im.height = op.H;
  im.format = GPUCCL_PIXEL_U8;
  im.threshold = 127;
  dim3 grid((op.W + S::W - 1) / S::W, (op.H + S::H - 1) / S::H);
  int nt = grid.x * grid.y;
  tile::Frame fr{};
  fr.filter = tile::Filter{0, 0};
  fr.conn8 = C8;
  fr.tiles_x = grid.x;
  fr.tiles_y = grid.y;
  fr.out = o;
  CK(cudaMalloc(&fr.cell_count, (size_t)op.H * grid.x * 8));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto kernel = tile::labeling_kernel<S, GPUCCL_PIXEL_U8, C8, FCAP, false, DD, AGG>;
  const size_t smem = sizeof(tile::TileShared<S, FCAP>);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, S::THREADS, smem));
  for (size_t c = 0; c < op.cells.size(); c++) {
    im.data = d_img + c * (size_t)op.W * op.H;
    fr.image = im;
    std::vector<float> ms;
    for (int r = 0; r < op.reps + 3; r++) {
      CK(cudaEventRecord(e0));
      kernel<<<grid, S::THREADS, smem>>>(fr, nullptr);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float t;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 3)
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<uint32_t> n_open(nt), n_closed(nt);
    CK(cudaMemcpy(n_open.data(), o.n_open, nt * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(n_closed.data(), o.n_closed, nt * 4, cudaMemcpyDeviceToHost));
    unsigned long long so = 0, sc = 0;
    for (int i = 0; i < nt; i++) {
      so += n_open[i];
      sc += n_closed[i];
    }
    const char *verdict = "-";
    if (op.check) {
      auto ref = cpu_tiles<S>(imgs[c], op.W, op.H, C8);
      std::vector<uint4> rec((size_t)nt * S::CLOSED_CAP);
      CK(cudaMemcpy(rec.data(), o.closed.rec, rec.size() * 16, cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int i = 0; i < nt && ok; i++) {
        int tx = i % grid.x, ty = i / grid.x;
        unsigned long long area = 0, sx = 0, sy = 0, bb = 0;
        for (uint32_t k = 0; k < n_closed[i]; k++) {
          uint4 q = rec[(size_t)i * S::CLOSED_CAP + k];
          unsigned a = q.x >> 16;
          area += a;
          sx += q.y + (unsigned long long)a * tx * S::W;
          sy += q.z + (unsigned long long)a * ty * S::H;
          bb += (q.w & 255) + 3 * ((q.w >> 8) & 255) + 7 * (q.w >> 16);
        }
        if (ref[i].n_open != n_open[i] || ref[i].n_closed != n_closed[i] ||
            ref[i].area != area || ref[i].sx != sx || ref[i].sy != sy || ref[i].bbox != bb) {
          fprintf(stderr, "%s tile %d: open %u/%u closed %u/%u area %llu/%llu sx %llu/%llu sy %llu/%llu bb %llu/%llu\n",
                  name, i, n_open[i], ref[i].n_open, n_closed[i], ref[i].n_closed, area,
                  ref[i].area, sx, ref[i].sx, sy, ref[i].sy, bb, ref[i].bbox);
          ok = false;
        }
      }
      verdict = ok ? "ok" : "MISMATCH";
    }
    char prof[256] = "";
    if (op.profile) {
      unsigned long long *d_prof;
      CK(cudaMalloc(&d_prof, (size_t)nt * 8 * 8));
      CK(cudaMemcpyToSymbol(tile::g_tile_profile, &d_prof, sizeof d_prof));
      kernel<<<grid, S::THREADS, smem>>>(fr, nullptr);
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> h((size_t)nt * 8);
      CK(cudaMemcpy(h.data(), d_prof, h.size() * 8, cudaMemcpyDeviceToHost));
      unsigned long long *null_ptr = nullptr;
      CK(cudaMemcpyToSymbol(tile::g_tile_profile, &null_ptr, sizeof null_ptr));
      cudaFree(d_prof);
      double mean[6] = {0};
      unsigned long long mx = 0;
      for (int i = 0; i < nt; i++) {
        for (int k = 0; k < 6; k++)
          mean[k] += (double)(h[i * 8 + k] - (k ? h[i * 8 + k - 1] : 0)) / nt;
        mx = std::max(mx, h[i * 8 + 5]);
      }
      snprintf(prof, sizeof prof, ",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%llu", mean[0], mean[1],
               mean[2], mean[3], mean[4], mean[5], mx);
    }
    printf("%s,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%llu,%llu,%s%s\n", name, op.W, op.H, C8 ? 8 : 4,
           op.cells[c].first, op.cells[c].second, occ, ms[ms.size() / 2], ms[0], sc, so,
           verdict, prof);
    fflush(stdout);
  }
  free_outputs(o);
  cudaFree(fr.cell_count);
}

int main(int argc, char **argv)
{
  Opts op;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc)
      sscanf(argv[++i], "%dx%d", &op.W, &op.H);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      op.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-profile"))
      op.profile = false;
    else if (!strcmp(argv[i], "--no-check"))
      op.check = false;
    else if (!strcmp(argv[i], "--shape") && i + 1 < argc)
      op.shape = argv[++i];
    else if (!strcmp(argv[i], "--conn") && i + 1 < argc)
      op.conns = {atoi(argv[++i])};
    else if (!strcmp(argv[i], "--cells") && i + 1 < argc) {
      for (char *p = strtok(argv[++i], ","); p; p = strtok(nullptr, ",")) {
        int d, g;
        if (sscanf(p, "%d:%d", &d, &g) == 2)
          op.cells.push_back({d, g});
      }
    }
  }
  if (op.cells.empty())
    for (int d : {10, 30, 40, 50, 60, 70, 90})
      for (int g : {1, 4, 16})
        op.cells.push_back({d, g});
  std::vector<std::vector<uint8_t>> imgs;
  uint8_t *d_img;
  CK(cudaMalloc(&d_img, op.cells.size() * (size_t)op.W * op.H));
  for (size_t c = 0; c < op.cells.size(); c++) {
    imgs.push_back(make_image(op.W, op.H, op.cells[c].first / 100.0, op.cells[c].second,
                              12345 + (uint32_t)c));
    CK(cudaMemcpy(d_img + c * (size_t)op.W * op.H, imgs.back().data(), imgs.back().size(),
                  cudaMemcpyHostToDevice));
  }
  printf("shape,W,H,conn,density,gran,blocks_per_sm,ms_median,ms_min,closed_staged,open,check,c_runs,c_merge,c_flags,c_ranks,c_features,c_out,c_max\n");
  for (int conn : op.conns) {
    if (conn == 4) {
      run_shape<tile::Shape<8, 32>, false, 1024>("256x32", op, imgs, d_img);
      run_shape<tile::Shape<8, 32>, false, 1024, true>("256x32dd", op, imgs, d_img);
      run_shape<tile::Shape<8, 16, 256>, false, 512>("256x16t256", op, imgs, d_img);
      run_shape<tile::Shape<8, 16, 256>, false, 512, true>("256x16t256dd", op, imgs, d_img);
      run_shape<tile::Shape<8, 8, 128>, false, 256>("256x8t128", op, imgs, d_img);
      run_shape<tile::Shape<4, 32, 256>, false, 512>("128x32t256", op, imgs, d_img);
    } else {
      run_shape<tile::Shape<8, 32>, true, 1024>("256x32", op, imgs, d_img);
      run_shape<tile::Shape<8, 32>, true, 1024, true>("256x32dd", op, imgs, d_img);
      run_shape<tile::Shape<8, 16, 256>, true, 512>("256x16t256", op, imgs, d_img);
      run_shape<tile::Shape<8, 16, 256>, true, 512, true>("256x16t256dd", op, imgs, d_img);
      run_shape<tile::Shape<8, 8, 128>, true, 256>("256x8t128", op, imgs, d_img);
      run_shape<tile::Shape<4, 32, 256>, true, 512>("128x32t256", op, imgs, d_img);
    }
  }
  return 0;
}
