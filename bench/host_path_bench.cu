/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: where the time of one gpuccl_process call on
 * CUDA goes, frame by frame (issue 24, "the host path of a frame"). The
 * image is in device memory, as GstCudaMemory hands it to the element.
 *
 * The library is linked statically and the CUDA runtime calls it makes
 * are wrapped at link time (host_path_wraps.cu), so the library is timed
 * as it is built, with no hook of its own: while a frame is timed each
 * wrapped call is counted and timed, and the graph launch and the frame's
 * wait are stamped (the library's wait for a graphed frame: its flag
 * polled, frame_done.cu, or the stream synced). Per frame, medians over
 * --frames frames:
 *  - host before the launch: from the call to the graph launch (argument
 *    checks, planning, the graph key, context scopes, pointer queries,
 *    the timing event, which only the stamped and gated runs record:
 *    gpuccl_cuda_time_kernels);
 *  - the launch call itself;
 *  - host from the launch's return to the sync;
 *  - the sync's wait, split into launch -> GPU start, the kernels, the
 *    download of the header and table (inside the graph) and the wake-up
 *    of the host after the GPU is done;
 *  - host after the sync (the result) until the call returns.
 * The GPU's side: a run with the stream held by a gate kernel until the
 * launch has returned gives the graph's own time (the kernels between the
 * library's events, the download after them) without the host's launch
 * in it. The GPU clock (%globaltimer) is tied to the host's by round
 * trips through mapped memory before each stretch of frames
 * (host_path_clock.cu): the wake-up
 * is the wait's return minus the end of the graph (an event after it) on
 * the host's clock, launch -> GPU start what remains of the sync's span.
 * Both within about 1 us (the clock's tie; %globaltimer ticks per us on
 * some GPUs). Each scene runs back to back (the next call as soon as one
 * returns) and single (an idle --gap-us before each frame, as a camera's
 * frame finds the GPU); a plain run without stamps gives the true wall
 * time.
 *   gpuccl-host-path-bench [--size WxH] [--scenes empty,squares]
 *                          [--frames N] [--gap-us N] [--context primary|cuda]
 *                          [--buffers N]
 * --context cuda: the context of gpuccl_context_new_cuda on the device's
 * primary CUcontext, as the element labels CUDA memory (the context pushed
 * and popped around each call); primary: gpuccl_context_new.
 * --buffers N: the scene in N device images, one after the other, as a
 * pool of GstCudaMemory buffers hands them (default 1: the same image
 * every frame).
 * Exits 77 without a usable CUDA device. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda.h>

#include "bench_cli.h"
#include "cuda/cuda_internal.h"
#include "host_path_clock.h"
#include "host_path_probe.h"

namespace {

struct Options {
  int width = 1920, height = 1080, frames = 300, gap_us = 2000;
  std::vector<std::string> scenes = {"empty", "squares"};
  bool cuda_context = false;
  int buffers = 1;
};

/* empty, or squares: 64 squares of 24 px on an 8 x 8 grid (64 blobs). */
std::vector<uint8_t> make_scene(const std::string &scene, int w, int h)
{
  std::vector<uint8_t> px((size_t)w * h, 0);
  if (scene != "squares")
    return px;
  for (int k = 0; k < 64; k++) {
    const int x0 = (k % 8) * w / 8 + 4, y0 = (k / 8) * h / 8 + 4;
    for (int y = y0; y < std::min(h, y0 + 24); y++)
      for (int x = x0; x < std::min(w, x0 + 24); x++)
        px[(size_t)y * w + x] = 255;
  }
  return px;
}

struct Bench {
  Options o;
  GpuClock clock;
};

/* Per frame, us. */
struct Series {
  std::vector<double> wall, before, launch, gap, wait, after, to_gpu, wake,
      kernels, graph;
};

/* The wrapped calls of a stamped run: how many of each, their time. */
struct Tally {
  uint64_t calls[N_API];
  int64_t ns[N_API];
};

struct Run {
  GpucclContext *ctx;
  GpucclImage image;
  GpucclParams params;
  size_t blobs;
  std::vector<void *> buffers; /* the scene's copies, taken in turn */
  size_t next;
};

bool call(Run &r)
{
  r.image.data = r.buffers[r.next++ % r.buffers.size()];
  GpucclResult res;
  GpucclError e = {};
  if (gpuccl_process(r.ctx, &r.image, &r.params, &res, &e) != GPUCCL_OK) {
    fprintf(stderr, "process: %s\n", e.message);
    return false;
  }
  r.blobs = res.n_blobs;
  return true;
}

enum Mode { PLAIN, STAMPED, GATED };

/* What the probe recorded of a timed frame, called at t0 and back at t5,
 * into the series (and the tally); false when it holds no breakdown. */
bool record_frame(const Bench &b, const Run &r, Mode mode, int64_t t0,
                  int64_t t5, double graph_us, Series &s, Tally &tally)
{
  s.wall.push_back((t5 - t0) / 1e3);
  if (mode == PLAIN)
    return true;
  if (!probe.launch_in || !probe.sync_in) {
    fprintf(stderr, "the frame made no graph launch and wait "
                    "(GPUCCL_CUDA_GRAPH=0?): no breakdown\n");
    return false;
  }
  /* The library may return before the graph's end (its frame's flag,
   * frame_done.cu): the event after the graph is waited for here, after t5. */
  cudaEventSynchronize(probe.after);
  if (mode == GATED) {
    float graph = 0;
    cudaEventElapsedTime(&graph, probe.before, probe.after);
    s.graph.push_back(graph * 1e3);
    s.kernels.push_back(gpuccl_cuda_kernel_ms(r.ctx) * 1e3);
    return true;
  }
  for (int a = 0; a < N_API; a++) {
    tally.calls[a] += probe.calls[a];
    tally.ns[a] += probe.ns[a];
  }
  const int64_t end = gpu_clock_host_time(b.clock, probe.after);
  s.before.push_back((probe.launch_in - t0) / 1e3);
  s.launch.push_back((probe.launch_out - probe.launch_in) / 1e3);
  s.gap.push_back((probe.sync_in - probe.after_marks) / 1e3);
  s.wait.push_back((probe.sync_out - probe.sync_in) / 1e3);
  s.after.push_back((t5 - probe.sync_out) / 1e3);
  s.wake.push_back((probe.sync_out - end) / 1e3);
  s.to_gpu.push_back((end - probe.launch_in) / 1e3 - graph_us);
  s.kernels.push_back(gpuccl_cuda_kernel_ms(r.ctx) * 1e3);
  return true;
}

/* `frames` timed calls (a few untimed first), each after an idle gap when
 * gap_us > 0. graph_us: the gated run's graph time, to split the sync. */
bool run_frames(Bench &b, Run &r, Mode mode, int gap_us, double graph_us,
                Series &s, Tally &tally)
{
  /* The stamped and gated runs read the device time; the plain run times
   * the frame as an application runs it, without events. */
  gpuccl_cuda_time_kernels(r.ctx, mode != PLAIN);
  for (int f = -3; f < b.o.frames; f++) {
    if (mode == STAMPED && (gap_us > 0 || f % 32 == 0 || f == -3) &&
        !gpu_clock_tie(b.clock)) {
      fprintf(stderr, "no answer from the clock probe\n");
      return false;
    }
    if (gap_us > 0) {
      const timespec gap = {0, gap_us * 1000L};
      nanosleep(&gap, nullptr);
    }
    if (mode != PLAIN)
      probe_arm(mode == GATED);
    const int64_t t0 = now_ns();
    const bool ok = call(r);
    const int64_t t5 = now_ns();
    probe.armed = false;
    if (probe.gate_queued)
      *probe.gate = 1; /* a call that failed before its launch: let it go */
    if (!ok)
      return false;
    if (f >= 0 && !record_frame(b, r, mode, t0, t5, graph_us, s, tally))
      return false;
  }
  return true;
}

/* The device's primary CUcontext, as a GstCudaContext's would be given. */
void *primary_context()
{
  typedef CUresult (*GetCurrent)(CUcontext *);
  void *fn = nullptr;
  CUcontext c = nullptr;
  cudaFree(nullptr); /* the primary context, current */
#if CUDART_VERSION >= 12050
  cudaDriverEntryPointQueryResult found;
  cudaError_t err = cudaGetDriverEntryPointByVersion(
      "cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found);
#elif CUDART_VERSION >= 12000
  cudaDriverEntryPointQueryResult found;
  cudaError_t err = cudaGetDriverEntryPoint("cuCtxGetCurrent", &fn,
                                            cudaEnableDefault, &found);
#else /* CUDA 11 (JetPack 5) */
  cudaError_t err = cudaGetDriverEntryPoint("cuCtxGetCurrent", &fn,
                                            cudaEnableDefault);
#endif
  if (err != cudaSuccess || !fn || ((GetCurrent)fn)(&c) != CUDA_SUCCESS)
    return nullptr;
  return c;
}

void close_run(Run &r)
{
  gpuccl_context_free(r.ctx);
  for (void *p : r.buffers)
    cudaFree(p);
  r.buffers.clear();
}

/* The scene's context and image in device memory, or false after saying
 * why (nothing left to free). */
bool open_run(const Options &o, const std::string &scene, Run &r)
{
  GpucclError e = {};
  if (o.cuda_context) {
    void *cu = primary_context();
    r.ctx = cu ? gpuccl_context_new_cuda(cu, nullptr, &e) : nullptr;
  } else {
    r.ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &e);
  }
  const std::vector<uint8_t> px = make_scene(scene, o.width, o.height);
  bool ok = r.ctx != nullptr;
  for (int k = 0; ok && k < o.buffers; k++) {
    void *dev = nullptr;
    ok = cudaMalloc(&dev, px.size()) == cudaSuccess;
    if (ok)
      r.buffers.push_back(dev);
    ok = ok && cudaMemcpy(dev, px.data(), px.size(),
                          cudaMemcpyHostToDevice) == cudaSuccess;
  }
  if (!ok) {
    fprintf(stderr, "%s: %s\n", scene.c_str(),
            r.ctx ? "device image" : e.message);
    close_run(r);
    return false;
  }
  r.image = GpucclImage{r.buffers[0], o.width, o.height, (size_t)o.width,
                        GPUCCL_PIXEL_U8, 0, 0, 0};
  gpuccl_params_init(&r.params);
  return true;
}


/* One row: the scene, its timing and the medians of its three runs. */
void print_row(const std::string &scene, const char *timing, size_t blobs,
               const Series &plain, const Series &gated,
               const Series &stamped)
{
  using bench_cli::median;
  const double graph_us = median(gated.graph);
  const double kernels_us = median(gated.kernels);
  printf("%-8s %-13s %5zu | %7.1f %7.1f | %7.1f %7.1f %7.1f %7.1f %7.1f "
         "| %7.1f %7.1f %7.1f %7.1f | %7.1f\n",
         scene.c_str(), timing, blobs, median(plain.wall),
         median(stamped.wall), median(stamped.before),
         median(stamped.launch), median(stamped.gap), median(stamped.wait),
         median(stamped.after), median(stamped.to_gpu), kernels_us,
         graph_us - kernels_us, median(stamped.wake),
         median(stamped.kernels));
}

/* Its second line: the wrapped calls per frame, the library's
 * allocations and uploads per call (counted from these values) and the
 * clock's tie. */
void print_calls(const Bench &b, const Tally &tally, uint64_t allocs,
                 uint64_t uploads)
{
  /* The stamped run's calls, its untimed first three included. */
  const double calls_made = b.o.frames + 3;
  printf("  per frame:");
  for (int a = 0; a < N_API; a++)
    if (tally.calls[a])
      printf(" %s %.2f x %.2f us;", api_names[a],
             (double)tally.calls[a] / b.o.frames,
             tally.ns[a] / 1e3 / tally.calls[a]);
  printf(" allocations %.2f, uploads %.2f; clock tie: round trip %.1f "
         "us\n",
         (gpuccl_cuda_alloc_calls() - allocs) / calls_made,
         (gpuccl_frame_uploads() - uploads) / calls_made, b.clock.rtt / 1e3);
  fflush(stdout);
}

/* The scene's runs with this idle gap before each frame (0: back to
 * back): plain, gated, then stamped, and their rows. */
bool bench_timing(Bench &b, Run &r, const std::string &scene, int gap_us)
{
  Series plain, gated, stamped;
  Tally tally = {};
  if (!run_frames(b, r, PLAIN, gap_us, 0, plain, tally) ||
      !run_frames(b, r, GATED, gap_us, 0, gated, tally))
    return false;
  const double graph_us = bench_cli::median(gated.graph);
  const uint64_t allocs = gpuccl_cuda_alloc_calls();
  const uint64_t uploads = gpuccl_frame_uploads();
  if (!run_frames(b, r, STAMPED, gap_us, graph_us, stamped, tally))
    return false;
  char timing[32];
  if (gap_us)
    snprintf(timing, sizeof timing, "single/%dus", gap_us);
  else
    snprintf(timing, sizeof timing, "back-to-back");
  print_row(scene, timing, r.blobs, plain, gated, stamped);
  print_calls(b, tally, allocs, uploads);
  return true;
}

bool bench_scene(Bench &b, const std::string &scene)
{
  Run r = {};
  if (!open_run(b.o, scene, r))
    return false;
  const bool ok = bench_timing(b, r, scene, 0) &&
                  bench_timing(b, r, scene, b.o.gap_us);
  close_run(r);
  return ok;
}

int usage(const char *argv0)
{
  fprintf(stderr,
          "usage: %s [--size WxH] [--scenes empty,squares] [--frames N] "
          "[--gap-us N] [--context primary|cuda] [--buffers N]\n",
          argv0);
  return 2;
}

int parse_options(int argc, char **argv, Options &o)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!strcmp(a, "--size") && v && bench_cli::size(v, o.width, o.height))
      i++;
    else if (!strcmp(a, "--frames") && v && atoi(v) > 0)
      o.frames = atoi(argv[++i]);
    else if (!strcmp(a, "--gap-us") && v && atoi(v) > 0 &&
             atoi(v) < 1000000)
      o.gap_us = atoi(argv[++i]);
    else if (!strcmp(a, "--scenes") && v)
      o.scenes = bench_cli::words(argv[++i]);
    else if (!strcmp(a, "--context") && v &&
             (!strcmp(v, "primary") || !strcmp(v, "cuda")))
      o.cuda_context = !strcmp(argv[++i], "cuda");
    else if (!strcmp(a, "--buffers") && v && atoi(v) > 0 && atoi(v) <= 64)
      o.buffers = atoi(argv[++i]);
    else
      return usage(argv[0]);
  }
  for (const std::string &s : o.scenes)
    if (s != "empty" && s != "squares") {
      fprintf(stderr, "scene %s: empty or squares\n", s.c_str());
      return 2;
    }
  return 0;
}

/* The stream, the probe's gate and events and the clock. */
bool open_bench(Bench &b)
{
  cudaStream_t stream;
  unsigned *gate = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) ||
      cudaHostAlloc(&gate, sizeof *gate, cudaHostAllocMapped) ||
      !gpu_clock_open(b.clock, stream) || cudaEventCreate(&probe.before) ||
      cudaEventCreate(&probe.after))
    return false;
  probe.gate = gate;
  return true;
}

void print_header(const Options &o)
{
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("# gpuccl-host-path-bench: %s, %dx%d GRAY8 in device memory (%d "
         "buffer%s in turn), %s context, %d frames, medians in us\n",
         prop.name, o.width, o.height, o.buffers, o.buffers > 1 ? "s" : "",
         o.cuda_context ? "gpuccl_context_new_cuda (element)" : "primary",
         o.frames);
  printf("# plain: wall without stamps; wall: with them. host: before the "
         "launch, the launch call, launch->sync, the sync's wait, after it. "
         "sync span: launch->GPU start, kernels and download (GPU alone, "
         "gated run), host wake-up after the graph's end (negative: the "
         "frame's flag seen before it). lib_gpu: the "
         "library's kernel time in the stamped run (its start event is "
         "recorded before the launch)\n");
  printf("%-8s %-13s %5s | %7s %7s | %7s %7s %7s %7s %7s | %7s %7s %7s %7s "
         "| %7s\n",
         "scene", "timing", "blobs", "plain", "wall", "before", "launch",
         "to_sync", "wait", "after", "to_gpu", "kernels", "dnload", "wakeup",
         "lib_gpu");
}

} /* namespace */

int main(int argc, char **argv)
{
  Bench b;
  if (int rc = parse_options(argc, argv, b.o))
    return rc;
  GpucclError e = {};
  if (!gpuccl_cuda_available(0, &e)) {
    printf("no usable CUDA device: %s\n", e.message);
    return 77;
  }
  if (!open_bench(b)) {
    fprintf(stderr, "bench setup failed\n");
    return 1;
  }
  print_header(b.o);
  for (const std::string &scene : b.o.scenes)
    if (!bench_scene(b, scene))
      return 1;
  return 0;
}
