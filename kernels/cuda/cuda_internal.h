/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private hooks of the CUDA backend for its tests and benchmarks: not part
 * of the public API and not exported by libgpuccl; they link the library's
 * static archive (gpuccl_internal_dep). */
#ifndef GPUCCL_CUDA_INTERNAL_H
#define GPUCCL_CUDA_INTERNAL_H

#include <stdint.h>

#include "../gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many cudaMalloc / cudaFree / cudaHostAlloc / cudaFreeHost calls the
 * backend has made in this process (all contexts). Steady-state frames must
 * not move it. */
uint64_t gpuccl_cuda_alloc_calls(void);

/* Of those, the allocations not yet freed (device and pinned, contexts,
 * overlays and volumes): 0 once everything the process made is freed, a
 * failed call included. */
int64_t gpuccl_cuda_live_allocations(void);

/* How many times a frame's pixels were copied from the host to the device
 * (image uploads for labeling, frame uploads for overlays) in this process
 * (all contexts). A frame read in place (device memory, a mapped block of
 * gpuccl_host_alloc from any context) or drawn on the host moves none. */
uint64_t gpuccl_cuda_frame_uploads(void);

/* Device time of the last process call's kernels, from its first kernel to
 * its last (CUDA events; uploads and downloads excluded), in milliseconds.
 * -1 when the context is not a CUDA one, nothing ran, or the frame ran in
 * a graph without gpuccl_cuda_time_kernels. */
float gpuccl_cuda_kernel_ms(GpucclContext *ctx);

/* Whether ctx's graphed frames (gpuccl_process, gpuccl_process_batch)
 * record the CUDA events gpuccl_cuda_kernel_ms reads: off by default, so
 * that a frame makes no event call. Frames outside a graph always do. */
void gpuccl_cuda_time_kernels(GpucclContext *ctx, bool on);

/* Rounds of HYBRID3's convergence loop in the last HYBRID3 frame of ctx
 * (the final round, which moved nothing, included); 0 before any, -1
 * when ctx is not a CUDA context. */
int gpuccl_cuda_hybrid3_rounds(GpucclContext *ctx);

/* How many of those rounds the host waited for (the loop outside a CUDA
 * graph: GPUCCL_CUDA_GRAPH=0), in this process (all contexts). Frames in a
 * graph, alone or in a batch, move none. */
uint64_t gpuccl_cuda_host_loop_rounds(void);

/* How many frame or batch graphs were captured in this process (all
 * contexts). A frame (or batch) whose kernels, parameters, buffers and
 * image addresses match one of the last 16 runs none
 * (graph_instances.h). */
uint64_t gpuccl_cuda_graph_captures(void);

/* How many graphed frames the host saw done by blob records' flag
 * (frame_done.cu) rather than by waiting for their stream, in this
 * process (all contexts). Frames with a label image, or with more blobs
 * than blob records copies to the host, wait for the stream. */
uint64_t gpuccl_cuda_flagged_frames(void);

/* How many of those frames had their flag raised by the device, however
 * the host's wait ended: by the flag, or by the stream (a frame longer
 * than the wait's spin, as on a slow GPU or under compute-sanitizer).
 * Unlike the count above, it does not depend on timing. */
uint64_t gpuccl_cuda_raised_frames(void);

/* Whether new contexts run their frames as CUDA graphs: yes, unless
 * GPUCCL_CUDA_GRAPH=0 (kernel by kernel, to measure the graph's gain or to
 * rule it out). */
bool gpuccl_cuda_graphs_on(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_CUDA_INTERNAL_H */
