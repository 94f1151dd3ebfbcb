/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Launchers of the tiled HA4 pipeline, one kernel per step, in the order
 * the frame sequence (tiled_frame.cu) queues them:
 *
 *   tile labeling    Alg. 3 + Alg. 6 per tile, on chip   tile_labeling.cu
 *   seam merging     Alg. 4, open pieces only            seam_merging.cu
 *   open merging     Alg. 6 for open pieces: partial     open_pieces.cu
 *                    features into their root
 *   open roots       beyond the paper: first pixels of   open_pieces.cu
 *                    open components into the bitmaps
 *   component ids    beyond the paper: one scan of the   component_ids.cu
 *                    counts per cell (raster order)
 *   blob records     the blob table, in id order         blob_records.cu
 *   label image      Alg. 5, only when asked for         tile_labeling.cu
 *
 * Each returns the launch's error. */
#ifndef GPUCCL_TILED_KERNELS_H
#define GPUCCL_TILED_KERNELS_H

#include <cuda_runtime.h>

#include "tile_common.cuh"

namespace tile {

/* Programmatic dependent launch (Hopper and later): each kernel of the
 * sequence is launched while the one before it still runs, and waits for
 * it at its start (wait_for_previous), so the launch latency between the
 * short kernels of the tail is hidden. Elsewhere, plain launches. */
bool dependent_launch_supported();

template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block,
                             size_t smem, cudaStream_t stream, Args... args)
{
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attr;
  config.numAttrs = dependent_launch_supported() ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

#ifdef __CUDACC__
/* Wait for the kernel before (and see its writes). */
__device__ __forceinline__ void wait_for_previous()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
#endif

cudaError_t launch_tile_labeling(const Frame &f, cudaStream_t stream);
cudaError_t launch_seam_merging(const Frame &f, cudaStream_t stream);
cudaError_t launch_open_merging(const Frame &f, cudaStream_t stream);
cudaError_t launch_open_roots(const Frame &f, cudaStream_t stream);
/* CUB's temporary storage for the scan: query with temp == NULL. */
cudaError_t launch_component_ids(const Frame &f, void *temp,
                                 size_t &temp_bytes, cudaStream_t stream);
cudaError_t launch_blob_records(const Frame &f, GpucclBlob *blobs,
                                cudaStream_t stream);
cudaError_t launch_label_image(const Frame &f, uint32_t *labels,
                               cudaStream_t stream);

} /* namespace tile */

#endif /* GPUCCL_TILED_KERNELS_H */
