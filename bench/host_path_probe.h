/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: what the link-time wrappers of the CUDA runtime
 * (host_path_wraps.cu) record of one timed gpuccl_process call, for the
 * bench (host_path_bench.cu) to read. */
#ifndef GPUCCL_HOST_PATH_PROBE_H
#define GPUCCL_HOST_PATH_PROBE_H

#include <cstdint>
#include <ctime>

#include <cuda_runtime.h>

/* The host's clock, ns. */
inline int64_t now_ns()
{
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
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
  API_END_CAPTURE,
  API_GRAPH_UPDATE,      /* the captured graph into the instantiated one */
  API_GRAPH_INSTANTIATE, /* or a new instantiation */
  API_GRAPH_LAUNCH,
  API_STREAM_SYNC,
  API_FRAME_WAIT, /* the library's wait for a graphed frame: flag or sync */
  N_API
};
extern const char *const api_names[N_API];

/* What the wrappers record during one timed call. */
struct Probe {
  bool armed;
  bool gated;           /* hold the stream until the launch returned */
  bool gate_queued;     /* this frame's gate is in the stream */
  uint64_t calls[N_API];
  int64_t ns[N_API];
  int64_t launch_in, launch_out, after_marks; /* first launch of the frame */
  int64_t sync_in, sync_out; /* first wait after it: frame wait or sync */
  cudaEvent_t before, after; /* around the graph (before: gated only) */
  volatile unsigned *gate;   /* mapped: 0 holds the gate kernel */
};
extern Probe probe;

/* Clears what the last call recorded (keeping the events and the gate)
 * and arms the wrappers for the next; gated: hold the stream. */
void probe_arm(bool gated);

#endif /* GPUCCL_HOST_PATH_PROBE_H */
