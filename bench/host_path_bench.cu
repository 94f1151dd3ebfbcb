/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: where the time of one gpuccl_process call on
 * CUDA goes, frame by frame (issue 24, "the host path of a frame"). The
 * image is in device memory, as GstCudaMemory hands it to the element.
 *
 * The library is linked statically and the CUDA runtime calls it makes
 * are wrapped at link time (ld --wrap, bench/meson.build), so the library
 * is timed as it is built, with no hook of its own: while a frame is timed
 * each wrapped call is counted and timed, and the graph launch and the
 * stream sync are stamped. Per frame, medians over --frames frames:
 *  - host before the launch: from the call to the graph launch (argument
 *    checks, planning, the graph key, context scopes, pointer queries,
 *    the timing event);
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
 * trips through mapped memory before each stretch of frames: the wake-up
 * is the sync's return minus the end of the graph (an event after it) on
 * the host's clock, launch -> GPU start what remains of the sync's span.
 * Both within about 1 us (the clock's tie; %globaltimer ticks per us on
 * some GPUs). Each scene runs back to back (the next call as soon as one
 * returns) and single (an idle --gap-us before each frame, as a camera's
 * frame finds the GPU); a plain run without stamps gives the true wall
 * time.
 *   gpuccl-host-path-bench [--size WxH] [--scenes empty,squares]
 *                          [--frames N] [--gap-us N] [--context primary|cuda]
 * --context cuda: the context of gpuccl_context_new_cuda on the device's
 * primary CUcontext, as the element labels CUDA memory (the context pushed
 * and popped around each call); primary: gpuccl_context_new.
 * Exits 77 without a usable CUDA device. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda/cuda_internal.h"

/* The runtime's own entry points behind the wrappers below (ld --wrap). */
extern "C" cudaError_t __real_cudaEventRecord(cudaEvent_t, cudaStream_t);

namespace {

int64_t now_ns()
{
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

__device__ unsigned long long gpu_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* The runtime calls a frame may make, counted and timed while armed. */
enum Api {
  API_SET_DEVICE,
  API_POINTER_ATTRIBUTES,
  API_GET_LAST_ERROR,
  API_EVENT_RECORD,
  API_STREAM_WAIT_EVENT,
  API_MEMCPY_ASYNC,
  API_BEGIN_CAPTURE, /* a graph captured again: not steady state */
  API_GRAPH_LAUNCH,
  API_STREAM_SYNC,
  N_API
};
const char *const api_names[N_API] = {
    "cudaSetDevice",         "cudaPointerGetAttributes",
    "cudaGetLastError",      "cudaEventRecord",
    "cudaStreamWaitEvent",   "cudaMemcpyAsync",
    "cudaStreamBeginCapture", "cudaGraphLaunch",
    "cudaStreamSynchronize"};

/* What the wrappers record during one timed call. */
struct Probe {
  bool armed;
  bool gated;           /* hold the stream until the launch returned */
  bool gate_queued;     /* this frame's gate is in the stream */
  uint64_t calls[N_API];
  int64_t ns[N_API];
  int64_t launch_in, launch_out, after_marks; /* first launch of the frame */
  int64_t sync_in, sync_out;                  /* first sync after it */
  cudaEvent_t before, after; /* around the graph (before: gated only) */
  volatile unsigned *gate;   /* mapped: 0 holds the gate kernel */
};
Probe g;

__global__ void gate_kernel(const volatile unsigned *open)
{
  while (*open == 0) {
  }
}

template <typename F> cudaError_t timed(Api api, F call)
{
  if (!g.armed)
    return call();
  const int64_t t = now_ns();
  const cudaError_t err = call();
  g.calls[api]++;
  g.ns[api] += now_ns() - t;
  return err;
}

/* Whether the stream is being captured into a graph (a frame captures
 * only when its graph changed): nothing of ours may go into it. */
bool capturing(cudaStream_t stream)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(stream, &status) != cudaSuccess ||
         status != cudaStreamCaptureStatusNone;
}

/* Gated: the gate goes into the stream before the frame's first event
 * (the library's start event), so that the library's timing and ours
 * start when the gate opens, after the launch. */
void queue_gate(cudaStream_t stream)
{
  if (!g.armed || !g.gated || g.gate_queued || capturing(stream))
    return;
  *g.gate = 0;
  gate_kernel<<<1, 1, 0, stream>>>(g.gate);
  __real_cudaEventRecord(g.before, stream);
  g.gate_queued = true;
}

} // namespace

extern "C" {
cudaError_t __real_cudaSetDevice(int);
cudaError_t __real_cudaPointerGetAttributes(cudaPointerAttributes *,
                                            const void *);
cudaError_t __real_cudaGetLastError(void);
cudaError_t __real_cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned);
cudaError_t __real_cudaMemcpyAsync(void *, const void *, size_t,
                                   cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaStreamBeginCapture(cudaStream_t,
                                          cudaStreamCaptureMode);
cudaError_t __real_cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t __real_cudaStreamSynchronize(cudaStream_t);

cudaError_t __wrap_cudaSetDevice(int device)
{
  return timed(API_SET_DEVICE, [&] { return __real_cudaSetDevice(device); });
}

cudaError_t __wrap_cudaPointerGetAttributes(cudaPointerAttributes *attr,
                                            const void *p)
{
  return timed(API_POINTER_ATTRIBUTES,
               [&] { return __real_cudaPointerGetAttributes(attr, p); });
}

cudaError_t __wrap_cudaGetLastError(void)
{
  return timed(API_GET_LAST_ERROR, [] { return __real_cudaGetLastError(); });
}

cudaError_t __wrap_cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
  queue_gate(stream);
  return timed(API_EVENT_RECORD,
               [&] { return __real_cudaEventRecord(event, stream); });
}

cudaError_t __wrap_cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                       unsigned flags)
{
  return timed(API_STREAM_WAIT_EVENT, [&] {
    return __real_cudaStreamWaitEvent(stream, event, flags);
  });
}

cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   cudaMemcpyKind kind, cudaStream_t stream)
{
  return timed(API_MEMCPY_ASYNC, [&] {
    return __real_cudaMemcpyAsync(dst, src, bytes, kind, stream);
  });
}

cudaError_t __wrap_cudaStreamBeginCapture(cudaStream_t stream,
                                          cudaStreamCaptureMode mode)
{
  return timed(API_BEGIN_CAPTURE,
               [&] { return __real_cudaStreamBeginCapture(stream, mode); });
}

/* The frame's graph: stamped around the call; an event after it marks
 * the graph's end on the GPU (recorded after the stamp, so outside the
 * launch's time); gated, the gate opens here. */
cudaError_t __wrap_cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
  if (!g.armed)
    return __real_cudaGraphLaunch(exec, stream);
  queue_gate(stream);
  const bool first = !g.launch_in;
  const int64_t t = now_ns();
  const cudaError_t err = __real_cudaGraphLaunch(exec, stream);
  const int64_t t_out = now_ns();
  g.calls[API_GRAPH_LAUNCH]++;
  g.ns[API_GRAPH_LAUNCH] += t_out - t;
  if (!first)
    return err;
  g.launch_in = t;
  g.launch_out = t_out;
  __real_cudaEventRecord(g.after, stream);
  if (g.gated)
    *g.gate = 1;
  g.after_marks = now_ns();
  return err;
}

cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream)
{
  if (!g.armed)
    return __real_cudaStreamSynchronize(stream);
  /* A sync before the launch would wait for the gate for ever. */
  if (g.gate_queued && !g.launch_in) {
    fprintf(stderr, "a sync before the graph launch: gate opened early\n");
    *g.gate = 1;
  }
  const int64_t t = now_ns();
  const cudaError_t err = __real_cudaStreamSynchronize(stream);
  const int64_t t_out = now_ns();
  g.calls[API_STREAM_SYNC]++;
  g.ns[API_STREAM_SYNC] += t_out - t;
  if (g.launch_in && !g.sync_in) {
    g.sync_in = t;
    g.sync_out = t_out;
  }
  return err;
}
} /* extern "C" */

namespace {

struct Options {
  int width = 1920, height = 1080, frames = 300, gap_us = 2000;
  std::vector<std::string> scenes = {"empty", "squares"};
  bool cuda_context = false;
};

double median(std::vector<double> v)
{
  if (v.empty())
    return -1.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

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

/* Round trips between the host and %globaltimer: the host bumps `go`, the
 * kernel answers with its clock; the answer lies halfway through the
 * host's round trip. At the end the kernel reads the clock once more and
 * the event after it ties CUDA events to that clock. */
constexpr int CLOCK_ROUNDS = 64;

__global__ void clock_probe(const volatile unsigned *go,
                            volatile unsigned long long *at)
{
  for (int i = 0; i < CLOCK_ROUNDS; i++) {
    while (*go <= (unsigned)i) {
    }
    at[i] = gpu_ns();
    __threadfence_system();
  }
  at[CLOCK_ROUNDS] = gpu_ns();
}

struct Clock {
  int64_t offset;    /* host ns = GPU ns + offset */
  int64_t rtt;       /* the best round trip, ns */
  uint64_t tie_gpu;  /* the GPU clock at `tie` */
  cudaEvent_t tie;
};

struct Bench {
  Options o;
  cudaStream_t stream;
  volatile unsigned *go;
  volatile unsigned long long *at;
  Clock clock;
};

bool calibrate(Bench &b)
{
  *b.go = 0;
  for (int i = 0; i <= CLOCK_ROUNDS; i++)
    b.at[i] = 0;
  clock_probe<<<1, 1, 0, b.stream>>>(b.go, b.at);
  cudaEventRecord(b.clock.tie, b.stream);
  int64_t best = INT64_MAX, offset = 0;
  for (int i = 0; i < CLOCK_ROUNDS; i++) {
    const int64_t sent = now_ns();
    *b.go = (unsigned)i + 1;
    while (b.at[i] == 0)
      if (now_ns() - sent > 100000000)
        return false; /* the kernel never ran */
    const int64_t back = now_ns();
    if (back - sent < best) {
      best = back - sent;
      offset = sent + (back - sent) / 2 - (int64_t)b.at[i];
    }
  }
  if (cudaStreamSynchronize(b.stream) != cudaSuccess)
    return false;
  b.clock.offset = offset;
  b.clock.rtt = best;
  b.clock.tie_gpu = b.at[CLOCK_ROUNDS];
  return true;
}

/* An event of this frame on the host's clock. */
int64_t host_time(const Bench &b, cudaEvent_t e)
{
  float ms = 0;
  cudaEventElapsedTime(&ms, b.clock.tie, e);
  return (int64_t)b.clock.tie_gpu + (int64_t)(ms * 1e6) + b.clock.offset;
}

/* Per frame, us. */
struct Series {
  std::vector<double> wall, before, launch, gap, wait, after, to_gpu, wake,
      kernels, graph;
};

struct Run {
  GpucclContext *ctx;
  GpucclImage image;
  GpucclParams params;
  size_t blobs;
};

bool call(Run &r)
{
  GpucclResult res;
  GpucclError e = {};
  if (gpuccl_process(r.ctx, &r.image, &r.params, &res, &e) != GPUCCL_OK) {
    fprintf(stderr, "process: %s\n", e.message);
    return false;
  }
  r.blobs = res.n_blobs;
  return true;
}

void arm(bool gated)
{
  const cudaEvent_t before = g.before, after = g.after;
  volatile unsigned *gate = g.gate;
  memset(&g, 0, sizeof g);
  g.before = before;
  g.after = after;
  g.gate = gate;
  g.gated = gated;
  g.armed = true;
}

enum Mode { PLAIN, STAMPED, GATED };

/* `frames` timed calls (a few untimed first), each after an idle gap when
 * gap_us > 0. graph_us: the gated run's graph time, to split the sync. */
bool run_frames(Bench &b, Run &r, Mode mode, int gap_us, double graph_us,
                Series &s, uint64_t tally_calls[N_API],
                int64_t tally_ns[N_API])
{
  for (int f = -3; f < b.o.frames; f++) {
    if (mode == STAMPED && (gap_us > 0 || f % 32 == 0 || f == -3) &&
        !calibrate(b)) {
      fprintf(stderr, "no answer from the clock probe\n");
      return false;
    }
    if (gap_us > 0) {
      const timespec gap = {0, gap_us * 1000L};
      nanosleep(&gap, nullptr);
    }
    if (mode != PLAIN)
      arm(mode == GATED);
    const int64_t t0 = now_ns();
    const bool ok = call(r);
    const int64_t t5 = now_ns();
    g.armed = false;
    if (g.gate_queued)
      *g.gate = 1; /* a call that failed before its launch: let it go */
    if (!ok)
      return false;
    if (f < 0)
      continue;
    s.wall.push_back((t5 - t0) / 1e3);
    if (mode == PLAIN)
      continue;
    if (!g.launch_in || !g.sync_in) {
      fprintf(stderr, "the frame made no graph launch and sync "
                      "(GPUCCL_CUDA_GRAPH=0?): no breakdown\n");
      return false;
    }
    if (mode == GATED) {
      float graph = 0;
      cudaEventElapsedTime(&graph, g.before, g.after);
      s.graph.push_back(graph * 1e3);
      s.kernels.push_back(gpuccl_cuda_kernel_ms(r.ctx) * 1e3);
      continue;
    }
    for (int a = 0; a < N_API; a++) {
      tally_calls[a] += g.calls[a];
      tally_ns[a] += g.ns[a];
    }
    const int64_t end = host_time(b, g.after);
    s.before.push_back((g.launch_in - t0) / 1e3);
    s.launch.push_back((g.launch_out - g.launch_in) / 1e3);
    s.gap.push_back((g.sync_in - g.after_marks) / 1e3);
    s.wait.push_back((g.sync_out - g.sync_in) / 1e3);
    s.after.push_back((t5 - g.sync_out) / 1e3);
    s.wake.push_back((g.sync_out - end) / 1e3);
    s.to_gpu.push_back((end - g.launch_in) / 1e3 - graph_us);
    s.kernels.push_back(gpuccl_cuda_kernel_ms(r.ctx) * 1e3);
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

bool bench_scene(Bench &b, const std::string &scene)
{
  const Options &o = b.o;
  Run r = {};
  GpucclError e = {};
  void *dev = nullptr;
  if (o.cuda_context) {
    void *cu = primary_context();
    r.ctx = cu ? gpuccl_context_new_cuda(cu, nullptr, &e) : nullptr;
  } else {
    r.ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &e);
  }
  const std::vector<uint8_t> px = make_scene(scene, o.width, o.height);
  if (!r.ctx || cudaMalloc(&dev, px.size()) != cudaSuccess ||
      cudaMemcpy(dev, px.data(), px.size(), cudaMemcpyHostToDevice) !=
          cudaSuccess) {
    fprintf(stderr, "%s: %s\n", scene.c_str(),
            r.ctx ? "device image" : e.message);
    gpuccl_context_free(r.ctx);
    cudaFree(dev);
    return false;
  }
  r.image = GpucclImage{dev, o.width, o.height, (size_t)o.width,
                        GPUCCL_PIXEL_U8, 0, 0, 0};
  gpuccl_params_init(&r.params);

  bool ok = true;
  const int gaps[2] = {0, o.gap_us};
  for (int timing = 0; timing < 2 && ok; timing++) {
    Series plain, gated, stamped;
    uint64_t calls[N_API] = {};
    int64_t ns[N_API] = {};
    ok = run_frames(b, r, PLAIN, gaps[timing], 0, plain, calls, ns) &&
         run_frames(b, r, GATED, gaps[timing], 0, gated, calls, ns);
    const double graph_us = median(gated.graph);
    const uint64_t allocs = gpuccl_cuda_alloc_calls();
    const uint64_t uploads = gpuccl_frame_uploads();
    ok = ok && run_frames(b, r, STAMPED, gaps[timing], graph_us, stamped,
                          calls, ns);
    if (!ok)
      break;
    /* The stamped run's calls, its untimed first three included. */
    const double calls_made = b.o.frames + 3;
    const double kernels_us = median(gated.kernels);
    char name[32];
    if (timing)
      snprintf(name, sizeof name, "single/%dus", gaps[timing]);
    else
      snprintf(name, sizeof name, "back-to-back");
    printf("%-8s %-13s %5zu | %7.1f %7.1f | %7.1f %7.1f %7.1f %7.1f %7.1f "
           "| %7.1f %7.1f %7.1f %7.1f | %7.1f\n",
           scene.c_str(), name, r.blobs, median(plain.wall),
           median(stamped.wall), median(stamped.before),
           median(stamped.launch), median(stamped.gap), median(stamped.wait),
           median(stamped.after), median(stamped.to_gpu), kernels_us,
           graph_us - kernels_us, median(stamped.wake),
           median(stamped.kernels));
    printf("  per frame:");
    for (int a = 0; a < N_API; a++)
      if (calls[a])
        printf(" %s %.2f x %.2f us;", api_names[a],
               (double)calls[a] / o.frames, ns[a] / 1e3 / calls[a]);
    printf(" allocations %.2f, uploads %.2f; clock tie: round trip %.1f "
           "us\n",
           (gpuccl_cuda_alloc_calls() - allocs) / calls_made,
           (gpuccl_frame_uploads() - uploads) / calls_made,
           b.clock.rtt / 1e3);
    fflush(stdout);
  }
  gpuccl_context_free(r.ctx);
  cudaFree(dev);
  return ok;
}

int parse_options(int argc, char **argv, Options &o)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!strcmp(a, "--size") && v &&
        sscanf(v, "%dx%d", &o.width, &o.height) == 2 && o.width > 0 &&
        o.height > 0) {
      i++;
    } else if (!strcmp(a, "--frames") && v && atoi(v) > 0) {
      o.frames = atoi(argv[++i]);
    } else if (!strcmp(a, "--gap-us") && v && atoi(v) > 0 &&
               atoi(v) < 1000000) {
      o.gap_us = atoi(argv[++i]);
    } else if (!strcmp(a, "--scenes") && v) {
      o.scenes.clear();
      std::string list = argv[++i];
      for (size_t p = 0; p <= list.size();) {
        size_t q = list.find(',', p);
        if (q == std::string::npos)
          q = list.size();
        if (q > p)
          o.scenes.push_back(list.substr(p, q - p));
        p = q + 1;
      }
    } else if (!strcmp(a, "--context") && v &&
               (!strcmp(v, "primary") || !strcmp(v, "cuda"))) {
      o.cuda_context = !strcmp(argv[++i], "cuda");
    } else {
      fprintf(stderr,
              "usage: %s [--size WxH] [--scenes empty,squares] [--frames N] "
              "[--gap-us N] [--context primary|cuda]\n",
              argv[0]);
      return 2;
    }
  }
  for (const std::string &s : o.scenes)
    if (s != "empty" && s != "squares") {
      fprintf(stderr, "scene %s: empty or squares\n", s.c_str());
      return 2;
    }
  return 0;
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
  unsigned *gate = nullptr, *go = nullptr;
  unsigned long long *at = nullptr;
  if (cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking) ||
      cudaHostAlloc(&gate, sizeof *gate, cudaHostAllocMapped) ||
      cudaHostAlloc(&go, sizeof *go, cudaHostAllocMapped) ||
      cudaHostAlloc(&at, (CLOCK_ROUNDS + 1) * sizeof *at,
                    cudaHostAllocMapped) ||
      cudaEventCreate(&b.clock.tie) || cudaEventCreate(&g.before) ||
      cudaEventCreate(&g.after)) {
    fprintf(stderr, "bench setup failed\n");
    return 1;
  }
  g.gate = gate;
  b.go = go;
  b.at = at;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("# gpuccl-host-path-bench: %s, %dx%d GRAY8 in device memory, %s "
         "context, %d frames, medians in us\n",
         prop.name, b.o.width, b.o.height,
         b.o.cuda_context ? "gpuccl_context_new_cuda (element)" : "primary",
         b.o.frames);
  printf("# plain: wall without stamps; wall: with them. host: before the "
         "launch, the launch call, launch->sync, the sync's wait, after it. "
         "sync span: launch->GPU start, kernels and download (GPU alone, "
         "gated run), host wake-up after the GPU's end. lib_gpu: the "
         "library's kernel time in the stamped run (its start event is "
         "recorded before the launch)\n");
  printf("%-8s %-13s %5s | %7s %7s | %7s %7s %7s %7s %7s | %7s %7s %7s %7s "
         "| %7s\n",
         "scene", "timing", "blobs", "plain", "wall", "before", "launch",
         "to_sync", "wait", "after", "to_gpu", "kernels", "dnload", "wakeup",
         "lib_gpu");
  for (const std::string &scene : b.o.scenes)
    if (!bench_scene(b, scene))
      return 1;
  return 0;
}
