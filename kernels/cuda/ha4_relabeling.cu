/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 relabeling (Alg. 5 of Hennequin et al. 2018), run only when the label
 * image is asked for: the thread at each segment piece's start finds the
 * dense id, __shfl_sync hands it to the other threads of the piece, and each
 * writes its pixels' labels (1..N, 0 for background) into a compact image
 * of row stride `width`. */
#include "ha4_kernels.h"

template <int P>
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    ha4_relabeling(Ha4Frame f, const uint32_t *offset,
                   const uint32_t *rootmask, uint32_t *labels)
{
  typedef typename Ha4Mask<P>::type Mask;
  const int words_per_row = f.words / P;
  const size_t w = (size_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (w >= (size_t)words_per_row * f.height) /* warp-uniform */
    return;
  const int tx = threadIdx.x;
  const Mask mask = ha4_load_mask<P>(f.bits, w);
  const int b = ha4_thread_bit(mask, tx);
  const bool set = ha4_bit(mask, b);
  const int start =
      set ? ha4_piece_start_bit(ha4_piece_starts<P>(mask, f.cuts, w), b) : b;
  uint32_t label = 0;
  if (set && start == b) {
    const uint32_t root = f.L[(uint32_t)(w * 32 * P + b)];
    label = ha4_component_id(offset, rootmask, root) + 1;
  }
  label = __shfl_sync(HA4_FULL, label, start / P);
  const uint32_t y = (uint32_t)(w / words_per_row);
  const int x0 = (int)(w % words_per_row) * 32 * P + tx * P;
  uint32_t *row = labels + (size_t)y * f.width;
#pragma unroll
  for (int j = 0; j < P; j++)
    if (x0 + j < f.width)
      row[x0 + j] = ha4_bit(mask, tx * P + j) ? label : 0u;
}

cudaError_t ha4_launch_relabeling(const Ha4Frame &f, int p,
                                  const uint32_t *offset,
                                  const uint32_t *rootmask, uint32_t *labels,
                                  cudaStream_t stream)
{
  const size_t n = (size_t)f.height * (f.words / p);
  dim3 block(HA4_BLOCK_W, 8);
  const unsigned grid = (unsigned)((n + 7) / 8);
  if (p == 2)
    ha4_relabeling<2><<<grid, block, 0, stream>>>(f, offset, rootmask, labels);
  else
    ha4_relabeling<1><<<grid, block, 0, stream>>>(f, offset, rootmask, labels);
  return cudaGetLastError();
}
