/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-batch-bench: N cameras on one GPU, three ways, in one run:
 *  - one call:  one context per camera, gpuccl_process for each frame in
 *               turn from one thread;
 *  - threads:   one context and one thread per camera, all at once (what N
 *               element instances of one process do without a batch);
 *  - batch:     one gpuccl_process_batch over the N frames.
 * Frames are in device memory (as on GstCudaMemory), one per camera, of a
 * scene: empty, `discs` (64 discs of radius 12 to 30, as the element bench)
 * or `noise` (density 30 %, granularity 4). Per frame: wall time on the
 * host and, for one call and batch, GPU time between the library's events
 * (a batch's, shared by its frames); for threads the aggregate frames per
 * second. Medians over --reps rounds.
 *   gpuccl-batch-bench [--size WxH] [--batches 1,4,8,16]
 *                      [--scenes empty,discs,noise] [--reps N]
 * Exits 77 without a usable CUDA device. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "bench_cli.h"
#include "corpus.h"
#include "cuda/cuda_internal.h"

namespace {

struct Options {
  int width = 1920, height = 1080, reps = 200;
  std::vector<int> batches = {1, 4, 8, 16};
  std::vector<std::string> scenes = {"empty", "discs", "noise"};
};

double now_us()
{
  using namespace std::chrono;
  return duration<double, std::micro>(
             steady_clock::now().time_since_epoch())
      .count();
}

/* The scene's frame for camera k (each camera its own). */
void make_scene(const std::string &scene, int w, int h, unsigned k,
                std::vector<uint8_t> &px)
{
  px.assign((size_t)w * h, 0);
  if (scene == "noise") {
    corpus_random(px.data(), w, h, (size_t)w, 0.3, 4, 17u + k);
    return;
  }
  if (scene != "discs")
    return;
  unsigned s = 2166136261u ^ k;
  for (int d = 0; d < 64; d++) {
    s = s * 1664525u + 1013904223u;
    const int cx = (int)(s % (unsigned)w);
    s = s * 1664525u + 1013904223u;
    const int cy = (int)(s % (unsigned)h);
    const int r = 12 + (int)(s >> 27);
    for (int y = std::max(0, cy - r); y <= std::min(h - 1, cy + r); y++)
      for (int x = std::max(0, cx - r); x <= std::min(w - 1, cx + r); x++)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r)
          px[(size_t)y * w + x] = 255;
  }
}

struct Cameras {
  std::vector<GpucclContext *> ctx;
  std::vector<GpucclImage> images;
  std::vector<void *> device;
  GpucclParams params;
  std::vector<const GpucclParams *> param_ptrs;
};

bool cameras_open(Cameras &c, const Options &o, const std::string &scene,
                  int n)
{
  gpuccl_params_init(&c.params);
  std::vector<uint8_t> px;
  for (int k = 0; k < n; k++) {
    GpucclError e = {};
    GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &e);
    void *d = nullptr;
    if (!ctx || cudaMalloc(&d, (size_t)o.width * o.height) != cudaSuccess) {
      fprintf(stderr, "camera %d: %s\n", k, ctx ? "cudaMalloc" : e.message);
      return false;
    }
    gpuccl_cuda_time_kernels(ctx, true); /* the device time reported */
    make_scene(scene, o.width, o.height, (unsigned)k, px);
    cudaMemcpy(d, px.data(), px.size(), cudaMemcpyHostToDevice);
    c.ctx.push_back(ctx);
    c.device.push_back(d);
    c.images.push_back(GpucclImage{d, o.width, o.height, (size_t)o.width,
                                   GPUCCL_PIXEL_U8, 0, 0, 0});
    c.param_ptrs.push_back(&c.params);
  }
  return true;
}

void cameras_close(Cameras &c)
{
  for (GpucclContext *ctx : c.ctx)
    gpuccl_context_free(ctx);
  for (void *d : c.device)
    cudaFree(d);
}

struct Figures {
  double wall_us, gpu_us; /* per frame */
  size_t blobs;           /* camera 0's */
};

bool one_call(Cameras &c, int reps, Figures *f)
{
  std::vector<double> wall, gpu;
  const int n = (int)c.ctx.size();
  for (int r = -5; r < reps; r++) {
    double t0 = now_us(), ms = 0;
    for (int k = 0; k < n; k++) {
      GpucclResult res;
      GpucclError e = {};
      if (gpuccl_process(c.ctx[k], &c.images[k], &c.params, &res, &e)) {
        fprintf(stderr, "process: %s\n", e.message);
        return false;
      }
      ms += gpuccl_cuda_kernel_ms(c.ctx[k]);
      if (k == 0)
        f->blobs = res.n_blobs;
    }
    if (r >= 0) {
      wall.push_back((now_us() - t0) / n);
      gpu.push_back(ms * 1000.0 / n);
    }
  }
  f->wall_us = bench_cli::median(wall);
  f->gpu_us = bench_cli::median(gpu);
  return true;
}

bool batch(Cameras &c, int reps, Figures *f)
{
  std::vector<double> wall, gpu;
  const size_t n = c.ctx.size();
  std::vector<GpucclResult> res(n);
  for (int r = -5; r < reps; r++) {
    GpucclError e = {};
    const double t0 = now_us();
    if (gpuccl_process_batch(c.ctx.data(), c.images.data(),
                             c.param_ptrs.data(), n, res.data(), &e)) {
      fprintf(stderr, "batch: %s\n", e.message);
      return false;
    }
    if (r >= 0) {
      wall.push_back((now_us() - t0) / n);
      gpu.push_back(gpuccl_cuda_kernel_ms(c.ctx[0]) * 1000.0 / n);
    }
  }
  f->blobs = res[0].n_blobs;
  f->wall_us = bench_cli::median(wall);
  f->gpu_us = bench_cli::median(gpu);
  return true;
}

/* Aggregate frames per second of n threads, one camera each. */
double threads_fps(Cameras &c, int reps)
{
  const int n = (int)c.ctx.size();
  std::vector<std::thread> pool;
  std::vector<int> ok(n, 1);
  const double t0 = now_us();
  for (int k = 0; k < n; k++)
    pool.emplace_back([&, k] {
      for (int r = 0; r < reps; r++) {
        GpucclResult res;
        if (gpuccl_process(c.ctx[k], &c.images[k], &c.params, &res,
                           nullptr)) {
          ok[k] = 0;
          return;
        }
      }
    });
  for (std::thread &t : pool)
    t.join();
  const double us = now_us() - t0;
  for (int k = 0; k < n; k++)
    if (!ok[k])
      return -1.0;
  return (double)n * reps / (us * 1e-6);
}

int parse_options(int argc, char **argv, Options &o)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!strcmp(a, "--size") && v && bench_cli::size(v, o.width, o.height))
      i++;
    else if (!strcmp(a, "--batches") && v)
      o.batches = bench_cli::ints(argv[++i]);
    else if (!strcmp(a, "--scenes") && v)
      o.scenes = bench_cli::words(argv[++i]);
    else if (!strcmp(a, "--reps") && v && atoi(v) > 0)
      o.reps = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: %s [--size WxH] [--batches 1,4,8,16] "
              "[--scenes empty,discs,noise] [--reps N]\n",
              argv[0]);
      return 2;
    }
  }
  for (int n : o.batches)
    if (n < 1 || n > 256) {
      fprintf(stderr, "batch size %d is outside 1..256\n", n);
      return 2;
    }
  return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
  Options o;
  if (int rc = parse_options(argc, argv, o))
    return rc;
  GpucclError e = {};
  if (!gpuccl_cuda_available(0, &e)) {
    printf("no usable CUDA device: %s\n", e.message);
    return 77;
  }
  printf("# %dx%d GRAY8 frames in device memory, %d rounds, medians; "
         "per frame: wall / GPU time in us\n",
         o.width, o.height, o.reps);
  printf("%-6s %3s %6s | %9s %8s | %9s %8s | %11s %11s\n", "scene", "n",
         "blobs", "one wall", "one gpu", "batch wall", "batch gpu",
         "threads fps", "batch fps");
  for (const std::string &scene : o.scenes)
    for (int n : o.batches) {
      Cameras c;
      Figures one = {}, bat = {};
      if (!cameras_open(c, o, scene, n) || !one_call(c, o.reps, &one) ||
          !batch(c, o.reps, &bat)) {
        cameras_close(c);
        return 1;
      }
      const double fps = threads_fps(c, o.reps);
      printf("%-6s %3d %6zu | %9.1f %8.1f | %9.1f %8.1f | %11.0f %11.0f\n",
             scene.c_str(), n, one.blobs, one.wall_us, one.gpu_us,
             bat.wall_us, bat.gpu_us, fps, 1e6 / bat.wall_us);
      fflush(stdout);
      cameras_close(c);
    }
  return 0;
}
