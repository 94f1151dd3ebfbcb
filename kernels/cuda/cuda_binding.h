/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which CUDA context a gpuccl context's work runs in (gpuccl.h,
 * gpuccl_context_new_cuda): the device's primary context, selected with
 * cudaSetDevice as the runtime does, or a caller's CUcontext of the driver
 * API, made current around each library call and the caller's restored
 * after. The driver functions are reached through the runtime's entry
 * points, so the library still does not link libcuda (it loads where no
 * driver is, and reports NO_DEVICE). */
#ifndef GPUCCL_CUDA_BINDING_H
#define GPUCCL_CUDA_BINDING_H

#include <cuda_runtime.h>

/* The device of a CUcontext. */
cudaError_t gpuccl_cuda_context_device(void *cu_context, int *device);

/* cu_context current on this thread (pushed), or without one the primary
 * context of `device`. */
cudaError_t gpuccl_cuda_enter(void *cu_context, int device);
/* Pops what gpuccl_cuda_enter pushed (nothing for the primary context). */
void gpuccl_cuda_leave(void *cu_context);

/* One library call's scope: entered on construction (err says whether),
 * left on destruction. */
class GpucclCudaScope {
public:
  GpucclCudaScope(void *cu_context, int device)
      : cu_context_(cu_context), err(gpuccl_cuda_enter(cu_context, device))
  {
  }
  ~GpucclCudaScope()
  {
    if (err == cudaSuccess)
      gpuccl_cuda_leave(cu_context_);
  }
  GpucclCudaScope(const GpucclCudaScope &) = delete;
  GpucclCudaScope &operator=(const GpucclCudaScope &) = delete;

private:
  void *cu_context_;

public:
  const cudaError_t err;
};

#endif /* GPUCCL_CUDA_BINDING_H */
