/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Component ids (beyond the paper: HA4 numbers its labels by root address).
 * Ids follow raster order of each component's first pixel: the start
 * bitmap marks every first pixel (tile labeling for closed components,
 * open roots for the others), so the ids before a cell (one image row of a
 * tile column) are the start bits of the cells before it, and likewise the
 * pass bitmap gives each passing blob's place in the table. One scan over
 * the cells, both counts at once. */
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "tiled_kernels.h"

namespace tile {

struct CellCounts {
  TileOutputs out;
  int tiles_x;
  __device__ unsigned long long operator()(long long cell) const
  {
    return cell_counts<LibraryShape>(out, tiles_x, (size_t)cell);
  }
};

cudaError_t launch_component_ids(const Frame &f, void *temp,
                                 size_t &temp_bytes, cudaStream_t stream)
{
  const CellCounts counts = {f.out, f.tiles_x};
  thrust::transform_iterator<CellCounts, thrust::counting_iterator<long long>>
      in(thrust::counting_iterator<long long>(0), counts);
  return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, f.cell_before,
                                       (long long)frame_cells(f), stream);
}

} /* namespace tile */
