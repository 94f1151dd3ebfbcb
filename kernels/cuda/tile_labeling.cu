/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Launchers of tile labeling (tile_labeling.cuh) for the library's tile
 * shape: every pixel format and connectivity, the features pass and the
 * label image pass. */
#include "tile_pieces.cuh"
#include "tiled_kernels.h"

namespace tile {

template <bool LABELS, GpucclPixelFormat FMT, bool CONN8>
static cudaError_t launch(const Frame &f, uint32_t *labels,
                          cudaStream_t stream)
{
  typedef LibraryShape S;
  auto kernel = labeling_kernel<S, FMT, CONN8, LIBRARY_FCAP, LABELS>;
  constexpr size_t smem = sizeof(TileShared<S, LIBRARY_FCAP>);
  /* Within the default 48 KB of dynamic shared memory, so no attribute
   * to set (it would be per CUDA context: gpuccl_context_new_cuda). */
  static_assert(smem <= 48 * 1024, "tile shared memory over 48 KB");
  return launch_dependent(kernel, dim3(f.tiles_x, f.tiles_y), S::THREADS,
                          smem, stream, f, labels);
}

template <bool LABELS>
static cudaError_t dispatch(const Frame &f, uint32_t *labels,
                            cudaStream_t stream)
{
  switch (f.image.format) {
  case GPUCCL_PIXEL_U16:
    return f.conn8 ? launch<LABELS, GPUCCL_PIXEL_U16, true>(f, labels, stream)
                   : launch<LABELS, GPUCCL_PIXEL_U16, false>(f, labels, stream);
  case GPUCCL_PIXEL_PACKED4:
    return f.conn8
               ? launch<LABELS, GPUCCL_PIXEL_PACKED4, true>(f, labels, stream)
               : launch<LABELS, GPUCCL_PIXEL_PACKED4, false>(f, labels, stream);
  default:
    return f.conn8 ? launch<LABELS, GPUCCL_PIXEL_U8, true>(f, labels, stream)
                   : launch<LABELS, GPUCCL_PIXEL_U8, false>(f, labels, stream);
  }
}

cudaError_t launch_tile_labeling(const Frame &f, cudaStream_t stream)
{
  return dispatch<false>(f, nullptr, stream);
}

cudaError_t launch_label_image(const Frame &f, uint32_t *labels,
                               cudaStream_t stream)
{
  return dispatch<true>(f, labels, stream);
}

} /* namespace tile */
