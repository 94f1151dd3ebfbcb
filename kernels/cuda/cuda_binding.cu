/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA context of a gpuccl context: see cuda_binding.h. */
#include "cuda_binding.h"

#include <cuda.h>
#include <mutex>

namespace {

typedef CUresult (*CtxPush)(CUcontext);
typedef CUresult (*CtxPop)(CUcontext *);
typedef CUresult (*CtxGetDevice)(CUdevice *);

struct Driver {
  CtxPush push;
  CtxPop pop;
  CtxGetDevice get_device;
  cudaError_t err;
};

cudaError_t entry_point(const char *name, void **fn)
{
#if CUDART_VERSION >= 12000
  cudaDriverEntryPointQueryResult found;
#if CUDART_VERSION >= 12050
  cudaError_t err = cudaGetDriverEntryPointByVersion(name, fn, 4000,
                                                     cudaEnableDefault, &found);
#else
  cudaError_t err = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault,
                                            &found);
#endif
  if (err == cudaSuccess && found != cudaDriverEntryPointSuccess)
    err = cudaErrorSymbolNotFound;
#else /* CUDA 11 (JetPack 5) */
  cudaError_t err = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault);
#endif
  if (err == cudaSuccess && !*fn)
    err = cudaErrorSymbolNotFound;
  return err;
}

const Driver &driver()
{
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    d.err = entry_point("cuCtxPushCurrent", (void **)&d.push);
    if (d.err == cudaSuccess)
      d.err = entry_point("cuCtxPopCurrent", (void **)&d.pop);
    if (d.err == cudaSuccess)
      d.err = entry_point("cuCtxGetDevice", (void **)&d.get_device);
    cudaGetLastError();
  });
  return d;
}

/* The runtime's code for a context the driver refused. */
cudaError_t context_error(CUresult r)
{
  return r == CUDA_SUCCESS ? cudaSuccess
         : r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_NO_DEVICE
             ? cudaErrorNoDevice
             : cudaErrorDeviceUninitialized; /* "invalid device context" */
}

} // namespace

cudaError_t gpuccl_cuda_enter(void *cu_context, int device)
{
  if (!cu_context)
    return cudaSetDevice(device);
  const Driver &d = driver();
  if (d.err != cudaSuccess)
    return d.err;
  return context_error(d.push(static_cast<CUcontext>(cu_context)));
}

void gpuccl_cuda_leave(void *cu_context)
{
  if (!cu_context)
    return;
  CUcontext popped;
  driver().pop(&popped);
}

cudaError_t gpuccl_cuda_context_device(void *cu_context, int *device)
{
  const Driver &d = driver();
  if (d.err != cudaSuccess)
    return d.err;
  cudaError_t err = gpuccl_cuda_enter(cu_context, 0);
  if (err != cudaSuccess)
    return err;
  CUdevice dev = 0;
  err = context_error(d.get_device(&dev));
  gpuccl_cuda_leave(cu_context);
  *device = (int)dev;
  return err;
}
