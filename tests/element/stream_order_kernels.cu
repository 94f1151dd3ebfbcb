/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The producer's kernels (stream_order_kernels.h). A wall-clock spin
 * (%globaltimer) rather than a count of iterations, so the delay does not
 * depend on the GPU's clock: long enough that a reader which does not
 * wait for the stream reads the frame before the write. */
#include "stream_order_kernels.h"

#include <cuda_runtime.h>

namespace {

__device__ unsigned long long now_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin(unsigned long long ns)
{
  const unsigned long long end = now_ns() + ns;
  while (now_ns() < end) {
  }
}

__global__ void fill(uint8_t *plane, size_t pitch, int width, int height,
                     int x0, int y0, int x1, int y1)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    plane[(size_t)y * pitch + x] =
        x >= x0 && x <= x1 && y >= y0 && y <= y1 ? 255 : 0;
}

} // namespace

/* NULL, or the CUDA error's name. */
static const char *launched()
{
  const cudaError_t err = cudaGetLastError();
  return err == cudaSuccess ? nullptr : cudaGetErrorName(err);
}

extern "C" const char *producer_spin(void *stream, unsigned ms)
{
  spin<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(ms * 1000000ull);
  return launched();
}

extern "C" const char *producer_fill(void *stream, void *plane, size_t pitch,
                             int width, int height, int x0, int y0, int x1,
                             int y1)
{
  const dim3 block(32, 8);
  const dim3 grid((width + 31) / 32, (height + 7) / 8);
  fill<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<uint8_t *>(plane), pitch, width, height, x0, y0, x1, y1);
  return launched();
}

extern "C" const char *producer_sync(void *stream)
{
  const cudaError_t err = cudaStreamSynchronize(
      static_cast<cudaStream_t>(stream));
  return err == cudaSuccess ? nullptr : cudaGetErrorName(err);
}
