/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The front's calls for working beside other code: host blocks without a
 * context (a buffer pool's, gpuccl_host_alloc_on) and stream ordering
 * after a caller's CUDA stream (gpuccl_context_wait_cuda_stream). Argument
 * checks here, the work in the backends. */
#include "backend.h"

void *gpuccl_host_alloc_on(GpucclBackend backend, int device_id, size_t size,
                           GpucclMemory memory, GpucclError *error)
{
  gpuccl_clear_error(error);
  if (size == 0 || device_id < 0) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "zero size or negative device id %d", device_id);
    return NULL;
  }
  if ((unsigned)memory > GPUCCL_MEMORY_MAPPED ||
      (backend != GPUCCL_BACKEND_AUTO && backend != GPUCCL_BACKEND_CPU &&
       backend != GPUCCL_BACKEND_CUDA)) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "unknown memory kind %d or backend %d", (int)memory,
                     (int)backend);
    return NULL;
  }
#ifdef GPUCCL_HAVE_CUDA
  if (backend == GPUCCL_BACKEND_CUDA ||
      (backend == GPUCCL_BACKEND_AUTO && gpuccl_cuda_probe(device_id, NULL)))
    return gpuccl_cuda_host_alloc_on(device_id, size, memory, error);
#else
  if (backend == GPUCCL_BACKEND_CUDA) {
    gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                     "gpuccl was built without CUDA support");
    return NULL;
  }
#endif
  /* The CPU backend's blocks need no context. */
  return gpuccl_cpu_ops.host_alloc(NULL, size, memory, error);
}

void gpuccl_host_release(void *ptr)
{
  if (!ptr)
    return;
#ifdef GPUCCL_HAVE_CUDA
  if (gpuccl_cuda_host_release(ptr))
    return;
#endif
  gpuccl_cpu_ops.host_free(NULL, ptr);
}

GpucclStatus gpuccl_context_wait_cuda_stream(GpucclContext *ctx,
                                             void *cuda_stream,
                                             GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!ctx)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no context");
  if (ctx->ops->kind != GPUCCL_BACKEND_CUDA)
    return gpuccl_set_error(error, GPUCCL_ERROR_UNSUPPORTED,
                            "stream ordering needs a CUDA context, not %s",
                            gpuccl_backend_name(ctx->ops->kind));
#ifdef GPUCCL_HAVE_CUDA
  return gpuccl_cuda_wait_stream(ctx, cuda_stream, error);
#else
  (void)cuda_stream;
  return GPUCCL_OK; /* unreachable: no CUDA context without CUDA */
#endif
}
