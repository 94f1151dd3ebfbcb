/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_context_wait_cuda_stream: a context's work ordered after the work
 * a caller queued on another stream of the same CUDA context (a producer
 * that wrote the image there and did not wait), without blocking the
 * host: one event recorded on that stream, waited for on the context's.
 * The event is the context's, made at first use, so a frame costs a record
 * and a wait, no creation.
 *
 * GPUCCL_CUDA_STREAM_WAIT=0 makes the call do nothing, to show what it
 * prevents: tests/element/test_cuda_stream_order.c fails with it (the
 * element reads a frame before its producer's kernels wrote it). */
#include "cuda_context.h"

#include <cstdlib>
#include <cstring>

GpucclStatus gpuccl_cuda_wait_stream(GpucclContext *ctx, void *cuda_stream,
                                     GpucclError *error)
{
  static const bool disabled = [] {
    const char *v = getenv("GPUCCL_CUDA_STREAM_WAIT");
    return v && strcmp(v, "0") == 0;
  }();
  if (disabled)
    return GPUCCL_OK;
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  cudaStream_t upstream = static_cast<cudaStream_t>(cuda_stream);
  /* Work on the context's own stream is in order already (a context made
   * on the caller's stream). */
  if (upstream == c->stream)
    return GPUCCL_OK;
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  if (!c->ev_upstream)
    CK(cudaEventCreateWithFlags(&c->ev_upstream, cudaEventDisableTiming),
       "creating an event");
  CK(cudaEventRecord(c->ev_upstream, upstream),
     "recording an event on the image's stream");
  CK(cudaStreamWaitEvent(c->stream, c->ev_upstream, 0),
     "waiting for the image's stream");
  return GPUCCL_OK;
}
