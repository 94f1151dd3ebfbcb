/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Otsu's threshold on the device: a 256-bin histogram of the samples that
 * are thresholded (U16: sample >> 8; by motion, their differences from the
 * model), then the threshold from
 * kernels/otsu.h — the very function the CPU backend calls — so both
 * backends pick the same value. The threshold stays on the device for strip
 * labeling; the histogram is cleared after use, ready for the next frame. */
#include "../otsu.h"
#include "ha4_kernels.h"
#include "motion_layout.cuh"

template <GpucclPixelFormat FMT>
__global__ void __launch_bounds__(256) otsu_histogram(Ha4Frame f, uint32_t *hist)
{
  __shared__ uint32_t s_hist[256];
  s_hist[threadIdx.x] = 0;
  __syncthreads();
  const size_t n = (size_t)f.width * f.height;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const int y = (int)(i / f.width), x = (int)(i % f.width);
    unsigned v = ha4_sample<FMT>(f, x, y);
    if (f.motion.model) { /* the difference from the model, not learned */
      const bool wide = FMT == GPUCCL_PIXEL_U16;
      v = gpuccl_motion_frame_diff(
          v, cuda_model_at(f.motion, f.width, x, y, wide), &f.motion,
          gpuccl_motion_shift(wide));
    }
    if (FMT == GPUCCL_PIXEL_U16)
      v >>= 8;
    atomicAdd(s_hist + v, 1u);
  }
  __syncthreads();
  if (s_hist[threadIdx.x])
    atomicAdd(hist + threadIdx.x, s_hist[threadIdx.x]);
}

__global__ void otsu_threshold(uint32_t *hist, int *d_threshold, bool wide)
{
  __shared__ uint32_t s_hist[256];
  s_hist[threadIdx.x] = hist[threadIdx.x];
  hist[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int t = gpuccl_otsu_threshold(s_hist);
    *d_threshold = wide ? (t << 8) | 0xff : t;
  }
}

cudaError_t ha4_launch_otsu(const Ha4Frame &f, uint32_t *hist,
                            int *d_threshold, int sm_count,
                            cudaStream_t stream)
{
  const size_t n = (size_t)f.width * f.height;
  size_t blocks = (n + 255) / 256;
  if (blocks > (size_t)sm_count * 4)
    blocks = (size_t)sm_count * 4;
  switch (f.format) {
  case GPUCCL_PIXEL_U16:
    otsu_histogram<GPUCCL_PIXEL_U16><<<(unsigned)blocks, 256, 0, stream>>>(f, hist);
    break;
  case GPUCCL_PIXEL_PACKED4:
    otsu_histogram<GPUCCL_PIXEL_PACKED4><<<(unsigned)blocks, 256, 0, stream>>>(f, hist);
    break;
  default:
    otsu_histogram<GPUCCL_PIXEL_U8><<<(unsigned)blocks, 256, 0, stream>>>(f, hist);
    break;
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return err;
  otsu_threshold<<<1, 256, 0, stream>>>(hist, d_threshold,
                                        f.format == GPUCCL_PIXEL_U16);
  return cudaGetLastError();
}
