/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Component ids (beyond the paper: HA4 numbers its labels by root address).
 * Ids follow raster order of each component's first pixel: the start
 * bitmap marks every first pixel, so the ids before a cell (one image row
 * of a tile column) are the components of the cells before it, and the
 * pass bitmap likewise gives each passing blob's place in the table. Tile
 * labeling and open roots counted both per cell (cell_count); one
 * device-wide scan (CUB's single pass) gives cell_before. */
#include <cub/device/device_scan.cuh>

#include "tiled_kernels.h"

namespace tile {

cudaError_t launch_component_ids(const Frame &f, void *temp,
                                 size_t &temp_bytes, cudaStream_t stream)
{
  return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, f.cell_count,
                                       f.cell_before, (int)frame_cells(f),
                                       stream);
}

} /* namespace tile */
