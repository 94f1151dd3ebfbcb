/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Launchers of the tiled HA4 pipeline, one kernel per step, in the order
 * the frame sequence (tiled_frame.cu) queues them:
 *
 *   tile labeling    Alg. 3 + Alg. 6 per tile, on chip,  tile_labeling.cu
 *                    then Alg. 4 on the open pieces of
 *                    each seam, by the tile that
 *                    finishes second (seam_merging.cuh)
 *   open merging     Alg. 6 for open pieces: partial     open_pieces.cu,
 *                    features into their root            open_merging.cuh
 *   blob records     beyond the paper: ids in raster     blob_records.cu
 *                    order (decoupled look-back over
 *                    bands of tiles), the blob table
 *   label image      Alg. 5, only when asked for         tile_labeling.cu
 *
 * Each returns the launch's error. */
#ifndef GPUCCL_TILED_KERNELS_H
#define GPUCCL_TILED_KERNELS_H

#include <cuda_runtime.h>

#include "fault.h"
#include "tile_common.cuh"

namespace tile {

/* Programmatic dependent launch (Hopper and later): each kernel of the
 * sequence is launched while the one before it still runs, and waits for
 * it at its start (wait_for_previous), once every block of that one has
 * allowed it (allow_next), so the launch latency between the short kernels
 * of the tail is hidden. Every kernel allows the next only after its own
 * wait: when a kernel starts, every kernel before the one it waits for has
 * finished, and what those wrote may be read before wait_for_previous().
 * Elsewhere, plain launches. */
bool dependent_launch_supported();

/* Each launch is a fault-injection point (GPUCCL_FAULT=launch:N, fault.h),
 * so that the tests reach a frame that fails between its kernels. */
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
  if (gpuccl_fault_hit(GPUCCL_FAULT_LAUNCH))
    return cudaErrorLaunchOutOfResources; /* injected */
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

/* Let the next kernel of the sequence start its blocks now: they wait for
 * this one in wait_for_previous(). Without it the next kernel launches only
 * once every block of this one has exited. */
__device__ __forceinline__ void allow_next()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
#endif

cudaError_t launch_tile_labeling(const Frame &f, cudaStream_t stream);
cudaError_t launch_open_merging(const Frame &f, cudaStream_t stream);
cudaError_t launch_blob_records(const Frame &f, GpucclBlob *blobs,
                                cudaStream_t stream);
cudaError_t launch_label_image(const Frame &f, uint32_t *labels,
                               cudaStream_t stream);

} /* namespace tile */

#endif /* GPUCCL_TILED_KERNELS_H */
