/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation into HA4's bitmask image, for the algorithms that do not
 * fuse it into their labeling (BUF, BKE): one warp per 32-pixel word reads
 * the raw samples (threshold, invert, format and Otsu as HA4's strip
 * labeling does, through ha4_foreground) and writes one word with
 * __ballot_sync. Every later kernel reads bits, not the image.
 *
 * In segments mode the bit is "value non-zero", and a second word marks
 * the cuts (ha4_common.cuh): set pixels whose left neighbour is set with
 * another value, where HA4's tail must start a new piece. */
#include "forest_values.cuh"

template <GpucclPixelFormat FMT>
__global__ void __launch_bounds__(HA4_BLOCK_W * 8) forest_bitmask(Ha4Frame f)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y;
  if (word >= f.words) /* warp-uniform */
    return;
  const bool fg = ha4_foreground<FMT>(f, ha4_threshold(f),
                                      word * 32 + (int)threadIdx.x, y);
  const uint32_t mask = __ballot_sync(HA4_FULL, fg);
  if (threadIdx.x == 0)
    f.bits[(size_t)y * f.words + word] = mask;
}

__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_bitmask_segments(Ha4Frame f)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y;
  if (word >= f.words) /* warp-uniform */
    return;
  const int x = word * 32 + (int)threadIdx.x;
  const uint32_t v = forest_value(f, x, y);
  const uint32_t left = forest_value(f, x - 1, y);
  const uint32_t set = __ballot_sync(HA4_FULL, v != 0);
  const uint32_t cut = __ballot_sync(HA4_FULL, v && left && left != v);
  if (threadIdx.x == 0) {
    f.bits[(size_t)y * f.words + word] = set;
    f.cuts[(size_t)y * f.words + word] = cut;
  }
}

cudaError_t forest_launch_bitmask(const Ha4Frame &f, cudaStream_t stream)
{
  dim3 block(HA4_BLOCK_W, 8);
  dim3 grid((f.words + 7) / 8, f.height);
  if (f.cuts) {
    forest_bitmask_segments<<<grid, block, 0, stream>>>(f);
    return cudaGetLastError();
  }
  switch (f.format) {
  case GPUCCL_PIXEL_U16:
    forest_bitmask<GPUCCL_PIXEL_U16><<<grid, block, 0, stream>>>(f);
    break;
  case GPUCCL_PIXEL_PACKED4:
    forest_bitmask<GPUCCL_PIXEL_PACKED4><<<grid, block, 0, stream>>>(f);
    break;
  default:
    forest_bitmask<GPUCCL_PIXEL_U8><<<grid, block, 0, stream>>>(f);
  }
  return cudaGetLastError();
}
