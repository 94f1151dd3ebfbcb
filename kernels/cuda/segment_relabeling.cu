/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 relabeling (Alg. 5 of Hennequin et al. 2018) for the segment tail,
 * run only when the label image is asked for: the thread at each segment
 * piece's start finds the dense id, __shfl_sync hands it to the other
 * threads of the piece, and each writes its pixels' labels (1..N, 0 for
 * background) into a compact image of row stride `width`. */
#include "ha4_kernels.h"

__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    ha4_relabeling(Ha4Frame f, const uint32_t *offset,
                   const uint32_t *rootmask, uint32_t *labels)
{
  const size_t w = (size_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (w >= (size_t)f.words * f.height) /* warp-uniform */
    return;
  const int b = threadIdx.x;
  const uint32_t mask = f.bits[w];
  const bool set = ha4_bit(mask, b);
  const int start =
      set ? ha4_piece_start_bit(ha4_piece_starts(mask, f.cuts, w), b) : b;
  uint32_t label = 0;
  if (set && start == b) {
    const uint32_t root = f.L[(uint32_t)(w * 32 + b)];
    label = ha4_component_id(offset, rootmask, root) + 1;
  }
  label = __shfl_sync(HA4_FULL, label, start);
  const uint32_t y = (uint32_t)(w / f.words);
  const int x = (int)(w % f.words) * 32 + b;
  if (x < f.width)
    labels[(size_t)y * f.width + x] = set ? label : 0u;
}

cudaError_t ha4_launch_relabeling(const Ha4Frame &f, const uint32_t *offset,
                                  const uint32_t *rootmask, uint32_t *labels,
                                  cudaStream_t stream)
{
  const size_t n = (size_t)f.height * f.words;
  dim3 block(HA4_BLOCK_W, 8);
  const unsigned grid = (unsigned)((n + 7) / 8);
  ha4_relabeling<<<grid, block, 0, stream>>>(f, offset, rootmask, labels);
  return cudaGetLastError();
}
