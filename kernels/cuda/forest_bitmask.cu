/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation into HA4's bitmask image, for the algorithms that do not
 * fuse it into their labeling (the forest labelers): one thread per
 * 32-pixel word (a warp per 32 words of a row: no division) reads the raw
 * samples as tile labeling does (tile_samples.cuh: threshold, invert,
 * format and Otsu; 8-bit rows 16 bytes a load) and writes the word. Every
 * later kernel reads bits, not the image.
 *
 * In segments mode the bit is "value non-zero", and a second word marks
 * the cuts (ha4_common.cuh): set pixels whose left neighbour is set with
 * another value, where HA4's tail must start a new piece; one warp per
 * word. */
#include "forest_values.cuh"
#include "tile_samples.cuh"

constexpr int BITMASK_ROWS = 8; /* a block: 32 words of 8 rows */

template <GpucclPixelFormat FMT>
__global__ void __launch_bounds__(32 * BITMASK_ROWS)
    forest_bitmask(Ha4Frame f, tile::Image im)
{
  const int k = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * BITMASK_ROWS + threadIdx.y;
  if (k >= f.words || y >= f.height)
    return;
  f.bits[(size_t)y * f.words + k] = tile::threshold_word<FMT>(
      im, (unsigned)tile::threshold_of(im), 32 * k, y);
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
  if (f.cuts) {
    const dim3 grid((f.words + 7) / 8, f.height);
    forest_bitmask_segments<<<grid, dim3(HA4_BLOCK_W, 8), 0, stream>>>(f);
    return cudaGetLastError();
  }
  /* No background model and no mask: the forest labelers take neither
   * (cuda_frame.cu). */
  tile::Image im = {};
  set_tile_samples(im, f);
  const dim3 blocks((f.words + 31) / 32,
                    (f.height + BITMASK_ROWS - 1) / BITMASK_ROWS);
  const dim3 threads(32, BITMASK_ROWS);
  switch (f.format) {
  case GPUCCL_PIXEL_U16:
    forest_bitmask<GPUCCL_PIXEL_U16><<<blocks, threads, 0, stream>>>(
        f, im);
    break;
  case GPUCCL_PIXEL_PACKED4:
    forest_bitmask<GPUCCL_PIXEL_PACKED4>
        <<<blocks, threads, 0, stream>>>(f, im);
    break;
  default:
    forest_bitmask<GPUCCL_PIXEL_U8><<<blocks, threads, 0, stream>>>(
        f, im);
  }
  return cudaGetLastError();
}
