/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: the CUDA runtime calls the library makes per
 * frame, wrapped at link time (ld --wrap, bench/meson.build), so that the
 * library is timed as it is built, with no hook of its own. While armed
 * (host_path_probe.h) each wrapped call is counted and timed, the graph
 * launch and the stream sync are stamped, and a gated frame's stream is
 * held until its launch has returned. */
#include <cstdio>
#include <cstring>

#include "host_path_probe.h"

struct CudaCtx; /* cuda/cuda_context.h */

/* The runtime's own entry points behind the wrappers below (ld --wrap). */
extern "C" cudaError_t __real_cudaEventRecord(cudaEvent_t, cudaStream_t);

const char *const api_names[N_API] = {
    "cudaSetDevice",         "cudaPointerGetAttributes",
    "cudaGetLastError",      "cudaEventRecord",
    "cudaStreamWaitEvent",   "cudaMemcpyAsync",
    "cudaStreamBeginCapture", "cudaStreamEndCapture",
    "cudaGraphExecUpdate",   "cudaGraphInstantiate",
    "cudaGraphLaunch",       "cudaStreamSynchronize",
    "gpuccl_frame_done_wait"};

Probe probe;

void probe_arm(bool gated)
{
  const cudaEvent_t before = probe.before, after = probe.after;
  volatile unsigned *gate = probe.gate;
  memset(&probe, 0, sizeof probe);
  probe.before = before;
  probe.after = after;
  probe.gate = gate;
  probe.gated = gated;
  probe.armed = true;
}

namespace {

__global__ void gate_kernel(const volatile unsigned *open)
{
  while (*open == 0) {
  }
}

template <typename F> cudaError_t timed(Api api, F call)
{
  if (!probe.armed)
    return call();
  const int64_t t = now_ns();
  const cudaError_t err = call();
  probe.calls[api]++;
  probe.ns[api] += now_ns() - t;
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
  if (!probe.armed || !probe.gated || probe.gate_queued || capturing(stream))
    return;
  *probe.gate = 0;
  gate_kernel<<<1, 1, 0, stream>>>(probe.gate);
  __real_cudaEventRecord(probe.before, stream);
  probe.gate_queued = true;
}

/* A wait for the stream, or for the frame (its flag, else its stream):
 * the first after the launch is stamped as the frame's wait. */
template <typename F> cudaError_t stamped_wait(Api api, F call)
{
  if (!probe.armed)
    return call();
  /* A wait before the launch would wait for the gate for ever. */
  if (probe.gate_queued && !probe.launch_in) {
    fprintf(stderr, "a wait before the graph launch: gate opened early\n");
    *probe.gate = 1;
  }
  return timed(api, [&] {
    const int64_t t = now_ns();
    const cudaError_t err = call();
    if (probe.launch_in && !probe.sync_in) {
      probe.sync_in = t;
      probe.sync_out = now_ns();
    }
    return err;
  });
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
cudaError_t __real_cudaStreamEndCapture(cudaStream_t, cudaGraph_t *);
cudaError_t __real_cudaGraphExecUpdate(cudaGraphExec_t, cudaGraph_t,
                                       cudaGraphExecUpdateResultInfo *);
cudaError_t __real_cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t,
                                        unsigned long long);
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

cudaError_t __wrap_cudaStreamEndCapture(cudaStream_t stream,
                                        cudaGraph_t *graph)
{
  return timed(API_END_CAPTURE,
               [&] { return __real_cudaStreamEndCapture(stream, graph); });
}

cudaError_t __wrap_cudaGraphExecUpdate(cudaGraphExec_t exec,
                                       cudaGraph_t graph,
                                       cudaGraphExecUpdateResultInfo *info)
{
  return timed(API_GRAPH_UPDATE,
               [&] { return __real_cudaGraphExecUpdate(exec, graph, info); });
}

cudaError_t __wrap_cudaGraphInstantiate(cudaGraphExec_t *exec,
                                        cudaGraph_t graph,
                                        unsigned long long flags)
{
  return timed(API_GRAPH_INSTANTIATE, [&] {
    return __real_cudaGraphInstantiate(exec, graph, flags);
  });
}

/* The frame's graph: stamped around the call; an event after it marks
 * the graph's end on the GPU (recorded after the stamp, so outside the
 * launch's time); gated, the gate opens here. */
cudaError_t __wrap_cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
  if (!probe.armed)
    return __real_cudaGraphLaunch(exec, stream);
  queue_gate(stream);
  const bool first = !probe.launch_in;
  const int64_t t = now_ns();
  const cudaError_t err = __real_cudaGraphLaunch(exec, stream);
  const int64_t t_out = now_ns();
  probe.calls[API_GRAPH_LAUNCH]++;
  probe.ns[API_GRAPH_LAUNCH] += t_out - t;
  if (!first)
    return err;
  probe.launch_in = t;
  probe.launch_out = t_out;
  __real_cudaEventRecord(probe.after, stream);
  if (probe.gated)
    *probe.gate = 1;
  probe.after_marks = now_ns();
  return err;
}

cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream)
{
  return stamped_wait(API_STREAM_SYNC,
                      [&] { return __real_cudaStreamSynchronize(stream); });
}

cudaError_t __real_gpuccl_frame_done_wait(CudaCtx *const *, size_t,
                                          cudaStream_t);

cudaError_t __wrap_gpuccl_frame_done_wait(CudaCtx *const *cs, size_t n,
                                          cudaStream_t stream)
{
  return stamped_wait(API_FRAME_WAIT, [&] {
    return __real_gpuccl_frame_done_wait(cs, n, stream);
  });
}
} /* extern "C" */
