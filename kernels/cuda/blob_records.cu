/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Blob records: component ids and the blob table in one kernel, one block
 * per tile.
 *
 * Ids follow raster order of each component's first pixel (beyond the
 * paper: HA4 numbers its labels by root address). The start bitmap marks
 * every first pixel, the pass bitmap those of blobs that pass the area
 * filter; a cell is one image row of one tile. Tile labeling counted its
 * closed components per cell. A band (a row of tiles) interleaves its
 * tiles' cells in raster order, so each tile scans the cells of its whole
 * band: the closed counts, plus the open components whose first pixel the
 * band holds (their roots lie in its tiles: a component's smallest slot is
 * in the topmost tile row it reaches). The bands above are counted either
 * by adding up their tiles' counts, when every component is a blob
 * (Frame::sums_tiles), or by a decoupled look-back (Merrill and Garland
 * 2016) that every tile runs and each band's first tile publishes; as in
 * CUB's single-pass scan, a block waits only for blocks of smaller index,
 * dispatched before it. Then each passing component of the tile goes to
 * its place in the table, with its id: the start and pass bits before its
 * first pixel. */
#include "blob_records.cuh"

namespace tile {

namespace {

__global__ void __launch_bounds__(records::THREADS)
    blob_records_kernel(Frame f, GpucclBlob *blobs)
{
  records::blob_records(f, blobs);
}

} /* namespace */

cudaError_t launch_blob_records(const Frame &f, GpucclBlob *blobs,
                                cudaStream_t stream)
{
  return launch_dependent(blob_records_kernel, f.tiles_x * f.tiles_y,
                          records::THREADS, records::records_dynamic_smem(f),
                          stream, f, blobs);
}

} /* namespace tile */
