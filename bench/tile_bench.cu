/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-tile-bench: where the GPU time of a tiled frame goes, on
 * YACCLAB-style random images (cells of g x g pixels, each set with
 * probability d, as gpuccl-bench makes them), image on the device:
 *  - each kernel of the frame's sequence (tiled_kernels.h) timed alone,
 *    with CUDA events between the launches (median of the repetitions);
 *  - the whole sequence as one CUDA graph, launched back to back, as the
 *    library runs it;
 *  - the tile labeling kernel's phases and blob records' phases:
 *    clock64() at the end of each phase in every block,
 *    mean cycles over the blocks.
 *   gpuccl-tile-bench [--size WxH] [--conn 4|8] [--cells d:g,d:g,...]
 *                     [--min-area N] [--reps N] [--csv FILE]
 * --min-area: blobs of at least N pixels (the element's min-area), so
 * blob records looks back over the bands instead of summing tiles.
 * Exits 77 without a usable CUDA device. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/blob_records.cuh"
#include "cuda/tile_pieces.cuh"
#include "cuda/tiled_frame.h"
#include "cuda/tiled_kernels.h"
#include "corpus.h"
#include "tile_check.cuh" // CK, dalloc, dfree

namespace {

/* start, then the end of each phase; "features" begins with the seam
 * pixels, the open parents and the arrival at the seams (finish_tile),
 * "seams" is what waits for the arrival and the merging. */
constexpr int PHASES = 10;
const char *const phase_names[PHASES] = {
    "start", "binarise", "number",      "link",    "extras",
    "flatten", "roots",  "features",    "outputs", "seams"};

__device__ unsigned long long *g_marks;

/* The phase marks of the tile labeling kernel (tile_labeling.cuh). */
struct PhaseMarks {
  static __device__ __forceinline__ void at(int k)
  {
    if (threadIdx.x == 0)
      g_marks[(blockIdx.y * gridDim.x + blockIdx.x) * PHASES + k] = clock64();
  }
};

template <bool CONN8>
__global__ void __launch_bounds__(tile::LibraryShape::THREADS)
    marked_kernel(tile::Frame f)
{
  typedef tile::TilePieces<tile::LibraryShape, GPUCCL_PIXEL_U8, CONN8,
                             tile::LIBRARY_FCAP, CONN8, PhaseMarks>
      Agent;
  extern __shared__ uint4 smem_raw[];
  PhaseMarks::at(0);
  Agent agent(*reinterpret_cast<typename Agent::Shared *>(smem_raw), f);
  if (agent.label_runs()) {
    agent.finish_tile();
  } else { /* no foreground: the phases after binarise take no time */
    for (int k = 2; k <= 8; k++)
      PhaseMarks::at(k);
    agent.write_empty(nullptr);
  }
  __syncthreads();
  PhaseMarks::at(9);
}

/* The blob records kernel's phases (blob_records.cuh), marked after a
 * barrier: the block's slowest thread ends each. */
constexpr int RECORD_PHASES = 6;
const char *const record_phase_names[RECORD_PHASES] = {
    "start", "rec_take", "rec_open_roots", "rec_scan", "rec_look_back",
    "rec_write"};

__device__ unsigned long long *g_record_marks;

struct RecordMarks {
  static __device__ __forceinline__ void at(int k)
  {
    __syncthreads();
    if (threadIdx.x == 0)
      g_record_marks[blockIdx.x * RECORD_PHASES + k] = clock64();
  }
};

__global__ void __launch_bounds__(tile::records::THREADS)
    marked_records_kernel(tile::Frame f, GpucclBlob *blobs)
{
  RecordMarks::at(0);
  tile::records::blob_records<RecordMarks>(f, blobs);
}

struct Options {
  int width = 2048, height = 2048, conn = 4, reps = 20;
  uint32_t min_area = 0;
  std::vector<std::pair<int, int>> cells; /* density %, granularity */
  const char *csv = nullptr;
};

bool parse(int argc, char **argv, Options &o)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v)
      return false;
    if (!strcmp(a, "--size")) {
      if (sscanf(v, "%dx%d", &o.width, &o.height) != 2 || o.width < 1 ||
          o.height < 1)
        return false;
    } else if (!strcmp(a, "--conn")) {
      o.conn = atoi(v);
      if (o.conn != 4 && o.conn != 8)
        return false;
    } else if (!strcmp(a, "--reps")) {
      o.reps = std::max(1, atoi(v));
    } else if (!strcmp(a, "--min-area")) {
      o.min_area = (uint32_t)strtoul(v, nullptr, 10);
    } else if (!strcmp(a, "--csv")) {
      o.csv = v;
    } else if (!strcmp(a, "--cells")) {
      std::string s(v);
      for (size_t p = 0; p < s.size();) {
        int d, g;
        if (sscanf(s.c_str() + p, "%d:%d", &d, &g) != 2)
          return false;
        o.cells.push_back({d, g});
        const size_t c = s.find(',', p);
        p = c == std::string::npos ? s.size() : c + 1;
      }
    } else {
      return false;
    }
    i++;
  }
  if (o.cells.empty())
    o.cells = {{0, 1},  {10, 16}, {30, 1}, {40, 1},
               {50, 1}, {60, 1},  {90, 16}};
  return true;
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

const char *const step_names[] = {"tile", "open_merging", "blob_records"};
constexpr int STEPS = 3;

/* The frame's kernels up to blob records; events between them when `ev`
 * is given (ev[0] before tile labeling, ev[k] after step k). */
void launch_before_records(const tile::Frame &f, cudaStream_t st,
                           cudaEvent_t *ev = nullptr)
{
  if (ev)
    CK(cudaEventRecord(ev[0], st));
  CK(tile::launch_tile_labeling(f, st));
  if (ev)
    CK(cudaEventRecord(ev[1], st));
  CK(tile::launch_open_merging(f, st));
  if (ev)
    CK(cudaEventRecord(ev[2], st));
}

/* Each kernel alone, between events: microseconds per step. */
std::vector<double> time_steps(const tile::Buffers &b, const tile::Frame &f,
                               cudaStream_t st, int reps)
{
  cudaEvent_t ev[STEPS + 1];
  for (auto &e : ev)
    CK(cudaEventCreate(&e));
  std::vector<std::vector<double>> t(STEPS);
  for (int r = 0; r < reps + 2; r++) {
    launch_before_records(f, st, ev);
    CK(tile::launch_blob_records(f, b.blobs, st));
    CK(cudaEventRecord(ev[STEPS], st));
    CK(cudaEventSynchronize(ev[STEPS]));
    for (int k = 0; r >= 2 && k < STEPS; k++) {
      float ms;
      CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
      t[k].push_back(ms * 1000.0);
    }
  }
  for (auto &e : ev)
    CK(cudaEventDestroy(e));
  std::vector<double> out;
  for (auto &v : t)
    out.push_back(median(v));
  return out;
}

/* The library's sequence as one graph, launched back to back: the GPU time
 * per frame (events around `reps` launches). */
double time_graph(const tile::Buffers &b, const tile::Frame &f,
                  cudaStream_t st, int reps)
{
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  CK(tile::enqueue_frame(b, f, nullptr, st));
  CK(cudaStreamEndCapture(st, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 5; r++) {
    CK(cudaGraphLaunch(exec, st));
    CK(cudaEventRecord(e0, st));
    for (int k = 0; k < reps; k++)
      CK(cudaGraphLaunch(exec, st));
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.0 / reps);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  return median(t);
}

/* The mean cycles of each phase over the tiles, from the marks' device
 * copy (`phases` a tile: the start, then each phase's end), which it
 * frees. */
std::vector<double> mean_phases(unsigned long long *d_marks, size_t tiles,
                                int phases)
{
  std::vector<unsigned long long> m(tiles * phases);
  CK(cudaMemcpy(m.data(), d_marks, m.size() * sizeof m[0],
                cudaMemcpyDeviceToHost));
  CK(cudaFree(d_marks));
  std::vector<double> mean(phases, 0.0);
  for (size_t t = 0; t < tiles; t++)
    for (int k = 1; k < phases; k++)
      mean[k] += (double)(m[t * phases + k] - m[t * phases + k - 1]) / tiles;
  return mean;
}

/* Mean cycles per phase over the tiles; open merging after each run
 * clears what seam merging counted. */
std::vector<double> profile_phases(const tile::Frame &f, bool conn8,
                                   cudaStream_t st)
{
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  unsigned long long *d_marks;
  CK(cudaMalloc(&d_marks, tiles * PHASES * sizeof *d_marks));
  CK(cudaMemcpyToSymbol(g_marks, &d_marks, sizeof d_marks));
  const size_t smem =
      sizeof(tile::TileShared<tile::LibraryShape, tile::LIBRARY_FCAP>);
  const dim3 grid(f.tiles_x, f.tiles_y);
  for (int r = 0; r < 3; r++) {
    if (conn8)
      marked_kernel<true><<<grid, tile::LibraryShape::THREADS, smem, st>>>(f);
    else
      marked_kernel<false><<<grid, tile::LibraryShape::THREADS, smem, st>>>(f);
    CK(cudaGetLastError());
    CK(tile::launch_open_merging(f, st));
  }
  CK(cudaStreamSynchronize(st));
  return mean_phases(d_marks, tiles, PHASES);
}

/* Mean cycles per phase of blob records over the tiles, each run after
 * the frame's kernels before it (open merging is not idempotent). */
std::vector<double> profile_records(const tile::Buffers &b,
                                    const tile::Frame &f, cudaStream_t st)
{
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  unsigned long long *d_marks;
  CK(cudaMalloc(&d_marks, tiles * RECORD_PHASES * sizeof *d_marks));
  CK(cudaMemcpyToSymbol(g_record_marks, &d_marks, sizeof d_marks));
  for (int r = 0; r < 3; r++) {
    launch_before_records(f, st);
    marked_records_kernel<<<(unsigned)tiles, tile::records::THREADS,
                            tile::records::records_dynamic_smem(f), st>>>(
        f, b.blobs);
    CK(cudaGetLastError());
  }
  CK(cudaStreamSynchronize(st));
  return mean_phases(d_marks, tiles, RECORD_PHASES);
}

} // namespace

int main(int argc, char **argv)
{
  Options o;
  if (!parse(argc, argv, o)) {
    fprintf(stderr, "usage: gpuccl-tile-bench [--size WxH] [--conn 4|8] "
                    "[--cells d:g,...] [--min-area N] [--reps N] "
                    "[--csv FILE]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int W = o.width, H = o.height;
  tile::Buffers b{};
  CK(tile::buffers_alloc(b, W, H, dalloc));
  uint8_t *d_img;
  CK(cudaMalloc(&d_img, (size_t)W * H));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::vector<uint8_t> img((size_t)W * H);
  FILE *csv = o.csv ? fopen(o.csv, "w") : nullptr;
  if (o.csv && !csv) {
    perror(o.csv);
    return 1;
  }
  printf("%s, %dx%d, %d-connectivity, tile %dx%d; microseconds (median of "
         "%d), phases in %% of the tile kernel's and of blob records' cycles\n",
         prop.name, W, H, o.conn, tile::LibraryShape::W,
         tile::LibraryShape::H, o.reps);
  std::string head = "density,granularity,components,blobs";
  for (const char *s : step_names)
    head += std::string(",") + s + "_us";
  head += ",steps_us,graph_us";
  for (int k = 1; k < PHASES; k++)
    head += std::string(",") + phase_names[k] + "_pct";
  for (int k = 1; k < RECORD_PHASES; k++)
    head += std::string(",") + record_phase_names[k] + "_pct";
  printf("%s\n", head.c_str());
  if (csv)
    fprintf(csv, "%s\n", head.c_str());
  for (auto [d, g] : o.cells) {
    corpus_random(img.data(), W, H, W, d / 100.0, g,
                  7000u + 100u * (uint32_t)d + (uint32_t)g);
    CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
    tile::Frame f = b.frame;
    f.image.data = d_img;
    f.image.stride = W;
    f.image.format = GPUCCL_PIXEL_U8;
    f.image.threshold = 127;
    f.conn8 = o.conn == 8;
    f.filter = tile::Filter{o.min_area, 0};
    const std::vector<double> steps = time_steps(b, f, st, o.reps);
    const double graph = time_graph(b, f, st, o.reps);
    const std::vector<double> cycles = profile_phases(f, f.conn8, st);
    const std::vector<double> rec = profile_records(b, f, st);
    uint32_t header[3];
    CK(cudaMemcpy(header, f.header, sizeof header, cudaMemcpyDeviceToHost));
    double sum = 0, total = 0;
    for (double s : steps)
      sum += s;
    for (int k = 1; k < PHASES; k++)
      total += cycles[k];
    char line[512];
    int n = snprintf(line, sizeof line, "%d,%d,%u,%u", d, g, header[0],
                     header[1]);
    for (double s : steps)
      n += snprintf(line + n, sizeof line - n, ",%.1f", s);
    n += snprintf(line + n, sizeof line - n, ",%.1f,%.1f", sum, graph);
    for (int k = 1; k < PHASES; k++)
      n += snprintf(line + n, sizeof line - n, ",%.1f",
                    total > 0 ? 100.0 * cycles[k] / total : 0.0);
    double rec_total = 0;
    for (int k = 1; k < RECORD_PHASES; k++)
      rec_total += rec[k];
    for (int k = 1; k < RECORD_PHASES; k++)
      n += snprintf(line + n, sizeof line - n, ",%.1f",
                    rec_total > 0 ? 100.0 * rec[k] / rec_total : 0.0);
    printf("%s\n", line);
    if (csv)
      fprintf(csv, "%s\n", line);
  }
  if (csv)
    fclose(csv);
  tile::buffers_free(b, dfree);
  CK(cudaFree(d_img));
  return 0;
}
