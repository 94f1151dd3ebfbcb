// SPDX-License-Identifier: LGPL-2.1-or-later
// Prototype for issue 23 (item 5): 8-connected tile labeling over row-pair
// nodes beside today's run nodes, steps 1 to 6 only (binarise, number,
// link first top neighbours, flatten, merge the extras, find the roots),
// on the library's 256 x 32 tiles.
//
// A node is a run of the OR of rows 2i and 2i + 1: every column of it has
// a pixel in one of the two rows, so at 8-connectivity the node is
// connected by itself. Nodes of neighbouring pair rows touch where row
// 2i + 1 of the upper touches row 2i + 2 of the lower, so the key bits of
// those two rows (tile_words.cuh) name the touching pairs: a key at column
// x belongs to the runs holding x or ending at x - 1, and so do the nodes
// holding them. The first key of each node is its first top neighbour, by
// the same carry over the node's key-less pixels.
//
// Both kernels count each tile's components, checked against a labeling of
// the tile alone on the CPU; then both are timed over the same frames.
// Decides whether row pairs are worth a tile stage of their own: go when
// they take at most 60 % of the run kernel's time at 8-conn 30-70 %, g 1.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "cuda/tile_labeling.cuh"
#include "tile_check.cuh" // CK, random_image

namespace {

typedef tile::LibraryShape S;
constexpr int PAIRS = S::H / 2;                 // pair rows of a tile
constexpr int PAIR_THREADS = PAIRS * S::WORDS;  // a node word each
constexpr int MAX_NODES = PAIRS * S::W / 2;     // a node needs a gap
constexpr int MAX_EXTRAS = (PAIRS - 1) * S::W;  // a key per run, at most
constexpr uint32_t FULL = 0xffffffffu;

struct PairShared {
  typedef cub::BlockScan<uint32_t, S::THREADS, cub::BLOCK_SCAN_WARP_SCANS>
      Scan;
  uint32_t fg[S::H][S::WORDS];
  uint16_t base[PAIRS][S::WORDS]; // number of the word's first node start
  uint32_t P[MAX_NODES];
  uint32_t extra[MAX_EXTRAS]; // node << 16 | its node above
  uint32_t roots;
  Scan::TempStorage scan;
};

__device__ uint32_t fg_at(const PairShared &s, int y, int k)
{
  return y >= 0 && y < S::H && k >= 0 && k < S::WORDS ? s.fg[y][k] : 0u;
}
// Word k of pair row p: the OR of its two rows.
__device__ uint32_t node_word(const PairShared &s, int p, int k)
{
  return fg_at(s, 2 * p, k) | fg_at(s, 2 * p + 1, k);
}

// Today's tile stage (steps 1 to 6 of it in run_kernel below).
typedef tile::TileLabeling<S, GPUCCL_PIXEL_U8, true, tile::LIBRARY_FCAP>
    RunAgent;

// Steps 4 to 6 over n nodes (or runs) of forest P; each tile's roots
// added into *roots (shared).
__device__ void flatten_merge_count(uint32_t *P, uint32_t n,
                                    const uint32_t *extra, uint32_t n_extras,
                                    uint32_t *roots)
{
  typedef tile::SharedForest M;
  for (;;) {
    bool changed = false;
    for (uint32_t r = threadIdx.x; r < n; r += S::THREADS) {
      const uint32_t p = M::load(P + r), g = M::load(P + p);
      if (g != p) {
        atomicMin(P + r, g);
        changed = true;
      }
    }
    if (!__syncthreads_or(changed))
      break;
  }
  for (uint32_t i = threadIdx.x; i < n_extras; i += S::THREADS)
    tile::merge_roots<M>(P, extra[i] >> 16, extra[i] & 0xffffu);
  __syncthreads();
  uint32_t mine = 0;
  for (uint32_t r = threadIdx.x; r < n; r += S::THREADS)
    mine += tile::find_root<M>(P, r) == r;
  for (int d = 16; d; d >>= 1)
    mine += __shfl_xor_sync(FULL, mine, d);
  if ((threadIdx.x & 31) == 0 && mine)
    atomicAdd(roots, mine);
}

__global__ void __launch_bounds__(S::THREADS)
    pair_kernel(tile::Frame f, uint32_t *count)
{
  __shared__ PairShared s;
  const int t = threadIdx.x, lane = t & 31;
  const uint32_t tile_id = blockIdx.y * gridDim.x + blockIdx.x;
  // 1. binarise, a thread per word
  const uint32_t B = tile::load_word<GPUCCL_PIXEL_U8>(
      f.image, (unsigned)tile::threshold_of(f.image),
      blockIdx.x * S::W + 32 * (t % S::WORDS), blockIdx.y * S::H + t / S::WORDS);
  s.fg[t / S::WORDS][t % S::WORDS] = B;
  if (t == 0)
    s.roots = 0;
  if (!__syncthreads_or(B != 0u)) {
    if (t == 0)
      count[tile_id] = 0;
    return;
  }
  // 2. nodes and keys, a thread per word of a pair row (warps 0 to 3)
  const int p = t / S::WORDS, k = t % S::WORDS;
  const bool holds = t < PAIR_THREADS;
  uint32_t N = 0, N_left = 0, keys = 0;
  if (holds) {
    N = node_word(s, p, k);
    N_left = node_word(s, p, k - 1);
    if (p > 0)
      keys = pair_keys(fg_at(s, 2 * p - 1, k), fg_at(s, 2 * p - 1, k - 1),
                       fg_at(s, 2 * p, k), fg_at(s, 2 * p, k - 1), true);
  }
  const uint32_t starts = run_starts(N, N_left);
  const FirstKeySum sum = first_key_sum(N, N_left, keys);
  const uint32_t carries =
      word_carries(__ballot_sync(FULL, sum.generate),
                   __ballot_sync(FULL, sum.propagate),
                   RunAgent::last_word_lanes());
  const uint32_t first = first_keys(sum, keys, carries >> lane & 1u);
  const uint32_t extras = keys & ~first;
  uint32_t before, total;
  PairShared::Scan(s.scan).ExclusiveSum(
      (uint32_t)__popc(starts) | (uint32_t)__popc(extras) << 16, before,
      total);
  const uint32_t node0 = before & 0xffffu, extra0 = before >> 16;
  if (holds)
    s.base[p][k] = (uint16_t)node0;
  uint32_t r = node0;
  for (uint32_t m = starts; m; m &= m - 1, r++)
    s.P[r] = r;
  __syncthreads();
  // 3. first top neighbours by plain stores, the other keys listed
  if (first | extras) {
    const uint32_t above0 = s.base[p - 1][k];
    const uint32_t starts_above =
        run_starts(node_word(s, p - 1, k), node_word(s, p - 1, k - 1));
    for (uint32_t m = first; m; m &= m - 1) {
      const int i = tile_lowest(m);
      s.P[run_at(node0, starts, i)] = run_at(above0, starts_above, i);
    }
    uint32_t j = extra0;
    for (uint32_t m = extras; m; m &= m - 1, j++) {
      const int i = tile_lowest(m);
      s.extra[j] = run_at(node0, starts, i) << 16 |
                   run_at(above0, starts_above, i);
    }
  }
  __syncthreads();
  flatten_merge_count(s.P, total & 0xffffu, s.extra, total >> 16, &s.roots);
  __syncthreads();
  if (t == 0)
    count[tile_id] = s.roots;
}

// Today's tile stage, steps 1 to 6, counting the same way: roots of the
// numbered runs and the isolated runs (each a component).

__global__ void __launch_bounds__(S::THREADS)
    run_kernel(tile::Frame f, uint32_t *count)
{
  extern __shared__ uint4 smem_raw[];
  __shared__ uint32_t roots;
  RunAgent a(*reinterpret_cast<RunAgent::Shared *>(smem_raw), f);
  const uint32_t tile_id = blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0)
    roots = 0;
  if (!a.label_runs()) {
    if (threadIdx.x == 0)
      count[tile_id] = 0;
    return;
  }
  uint32_t mine = __popc(a.iso_starts);
  for (uint32_t r = threadIdx.x; r < a.n_runs; r += S::THREADS)
    mine += a.s.P[r] == r;
  for (int d = 16; d; d >>= 1)
    mine += __shfl_xor_sync(FULL, mine, d);
  if ((threadIdx.x & 31) == 0 && mine)
    atomicAdd(&roots, mine);
  __syncthreads();
  if (threadIdx.x == 0)
    count[tile_id] = roots;
}

// Components of each tile alone, 8-connected, on the CPU.
std::vector<uint32_t> cpu_counts(const std::vector<uint8_t> &img, int w,
                                 int h)
{
  const int tx = (w + S::W - 1) / S::W, ty = (h + S::H - 1) / S::H;
  std::vector<uint32_t> out((size_t)tx * ty);
  std::vector<int> parent(S::W * S::H);
  auto find = [&](int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int by = 0; by < ty; by++)
    for (int bx = 0; bx < tx; bx++) {
      auto on = [&](int x, int y) {
        const int gx = bx * S::W + x, gy = by * S::H + y;
        return x >= 0 && x < S::W && y >= 0 && y < S::H && gx < w &&
               gy < h && img[(size_t)gy * w + gx] > 127;
      };
      std::iota(parent.begin(), parent.end(), 0);
      uint32_t n = 0;
      for (int y = 0; y < S::H; y++)
        for (int x = 0; x < S::W; x++) {
          if (!on(x, y))
            continue;
          n++;
          const int me = y * S::W + x;
          const int nb[4][2] = {{-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
          for (auto &d : nb)
            if (on(x + d[0], y + d[1])) {
              const int a = find(me), b = find((y + d[1]) * S::W + x + d[0]);
              if (a != b) {
                parent[std::max(a, b)] = std::min(a, b);
                n--;
              }
            }
        }
      out[(size_t)by * tx + bx] = n;
    }
  return out;
}

template <class Launch> float median_us(Launch launch, int reps)
{
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.0f);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int failures, checks;

} // namespace

// rowpair-proto [reps]: checks at 2048^2 and 1920x1080 over a grid of
// cells, then both kernels' median times at 2048^2.
int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 30;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  const size_t run_smem = sizeof(RunAgent::Shared);
  CK(cudaFuncSetAttribute(run_kernel,
                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)run_smem));
  const int sizes[2][2] = {{2048, 2048}, {1920, 1080}};
  const int dens[] = {5, 10, 30, 40, 50, 60, 70, 90};
  const int grans[] = {1, 2, 4, 16};
  printf("density,granularity,width,height,runs_us,pairs_us,pairs/runs\n");
  for (auto &sz : sizes)
    for (int d : dens)
      for (int g : grans) {
        const int w = sz[0], h = sz[1];
        const auto img = random_image(w, h, d / 100.0, g, 1000u * d + g);
        uint8_t *d_img;
        uint32_t *d_count;
        const int tx = (w + S::W - 1) / S::W, ty = (h + S::H - 1) / S::H;
        CK(cudaMalloc(&d_img, img.size()));
        CK(cudaMalloc(&d_count, sizeof(uint32_t) * tx * ty));
        CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
        tile::Frame f{};
        f.image.data = d_img;
        f.image.stride = (size_t)w;
        f.image.width = w;
        f.image.height = h;
        f.image.format = GPUCCL_PIXEL_U8;
        f.image.threshold = 127;
        f.tiles_x = tx;
        f.tiles_y = ty;
        const dim3 grid(tx, ty);
        auto run = [&] {
          run_kernel<<<grid, S::THREADS, run_smem>>>(f, d_count);
        };
        auto pair = [&] { pair_kernel<<<grid, S::THREADS>>>(f, d_count); };
        const auto want = cpu_counts(img, w, h);
        run();
        CK(cudaDeviceSynchronize());
        const auto got_run = down(d_count, want.size());
        pair();
        CK(cudaDeviceSynchronize());
        const auto got_pair = down(d_count, want.size());
        for (size_t i = 0; i < want.size(); i++) {
          EXPECT(got_run[i] == want[i], "runs %dx%d d%d g%d tile %zu: %u, want %u",
                 w, h, d, g, i, got_run[i], want[i]);
          EXPECT(got_pair[i] == want[i], "pairs %dx%d d%d g%d tile %zu: %u, want %u",
                 w, h, d, g, i, got_pair[i], want[i]);
        }
        if (w == 2048) {
          const float a = median_us(run, reps), b = median_us(pair, reps);
          printf("%d,%d,%d,%d,%.2f,%.2f,%.3f\n", d, g, w, h, a, b, b / a);
        }
        CK(cudaFree(d_img));
        CK(cudaFree(d_count));
      }
  printf("rowpair proto: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
