/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HYBRID3's convergence loop: rounds of S4DLS and label backtracking
 * until a round moves no label. One round's kernels serve both ways of
 * running it:
 *  - in a graph, the rounds are the body of a conditional WHILE node,
 *    whose condition the last kernel of each round sets on the device:
 *    the frame stays one graph launch, with no host round trip;
 *  - outside one (GPUCCL_CUDA_GRAPH=0, or a stream not capturing), the
 *    host runs a round, waits, and reads the report.
 * Either way a round ends in hybrid3_round_end, which counts it and
 * reports to the host; the loop stops at hybrid3_round_bound rounds, and
 * the host turns a report that still moved into an error. */
#include <atomic>

#include "block_mask.cuh"

/* Rounds the host waited for (the loop outside a graph), all contexts. */
static std::atomic<uint64_t> host_rounds{0};

extern "C" uint64_t gpuccl_cuda_host_loop_rounds(void)
{
  return host_rounds.load(std::memory_order_relaxed);
}

/* One thread: cudaGraphSetConditional must have no concurrent caller.
 * The round is counted, reported (the host reads the report after a
 * sync), its flag cleared for the next round, and in a graph the WHILE
 * node told whether to run another. */
__global__ void hybrid3_round_end(Hybrid3Rounds *state, Hybrid3Rounds *report,
                                  uint32_t bound,
                                  cudaGraphConditionalHandle loop,
                                  bool in_graph)
{
  Hybrid3Rounds r = *state;
  r.rounds++;
  *report = r;
  state->rounds = r.rounds;
  state->moved = 0;
  if (in_graph)
    cudaGraphSetConditional(loop, r.moved && r.rounds < bound);
}

static cudaError_t launch_round(const Ha4Frame &f, const Forest &g,
                                const ForestLoopEnv &env,
                                cudaGraphConditionalHandle loop,
                                bool in_graph, cudaStream_t stream)
{
  FOREST_TRY(hybrid3_launch_s4dls(f, g, stream));
  FOREST_TRY(hybrid3_launch_label_backtracking(f, g, stream));
  hybrid3_round_end<<<1, 1, 0, stream>>>(
      g.loop, env.report, hybrid3_round_bound(f.width, f.height), loop,
      in_graph);
  return cudaGetLastError();
}

/* The host's loop: a sync per round. */
static cudaError_t loop_on_host(const Ha4Frame &f, const Forest &g,
                                const ForestLoopEnv &env,
                                cudaStream_t stream)
{
  const uint32_t bound = hybrid3_round_bound(f.width, f.height);
  const volatile Hybrid3Rounds *report = env.report;
  for (;;) {
    FOREST_TRY(launch_round(f, g, env, 0, false, stream));
    FOREST_TRY(cudaStreamSynchronize(stream));
    host_rounds.fetch_add(1, std::memory_order_relaxed);
    if (!report->moved || report->rounds >= bound)
      return cudaSuccess;
  }
}

/* The loop as a WHILE node of the graph `stream` is capturing: the node
 * joins the capture after what was captured so far, and its body (one
 * round) is captured on env.body_stream. The handle's default, applied at
 * every launch, enters the loop: the first round always runs. */
static cudaError_t loop_in_graph(const Ha4Frame &f, const Forest &g,
                                 const ForestLoopEnv &env,
                                 cudaStream_t stream)
{
  cudaStreamCaptureStatus status;
  cudaGraph_t graph;
  const cudaGraphNode_t *deps;
  const cudaGraphEdgeData *edges;
  size_t n_deps;
  FOREST_TRY(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &deps,
                               &edges, &n_deps));
  cudaGraphConditionalHandle loop;
  FOREST_TRY(cudaGraphConditionalHandleCreate(&loop, graph, 1,
                                       cudaGraphCondAssignDefault));
  cudaGraphNodeParams node_params = {};
  node_params.type = cudaGraphNodeTypeConditional;
  node_params.conditional.handle = loop;
  node_params.conditional.type = cudaGraphCondTypeWhile;
  node_params.conditional.size = 1;
  cudaGraphNode_t node;
  FOREST_TRY(cudaGraphAddNode(&node, graph, deps, edges, n_deps, &node_params));
  FOREST_TRY(cudaStreamUpdateCaptureDependencies(
      stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  cudaGraph_t body = node_params.conditional.phGraph_out[0];
  FOREST_TRY(cudaStreamBeginCaptureToGraph(env.body_stream, body, nullptr,
                                           nullptr, 0,
                                           cudaStreamCaptureModeThreadLocal));
  const cudaError_t err = launch_round(f, g, env, loop, true, env.body_stream);
  const cudaError_t end = cudaStreamEndCapture(env.body_stream, &body);
  return err != cudaSuccess ? err : end;
}

cudaError_t hybrid3_launch_loop(const Ha4Frame &f, const Forest &g,
                                const ForestLoopEnv &env,
                                cudaStream_t stream)
{
  FOREST_TRY(cudaMemsetAsync(g.loop, 0, sizeof *g.loop, stream));
  cudaStreamCaptureStatus capture;
  FOREST_TRY(cudaStreamIsCapturing(stream, &capture));
  return capture == cudaStreamCaptureStatusActive
             ? loop_in_graph(f, g, env, stream)
             : loop_on_host(f, g, env, stream);
}
