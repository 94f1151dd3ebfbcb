/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The forest labelers (BUF, BKE, OUF, HYBRID3, Stava-Benes; forest_kernels.h)
 * on the tiled tail (tiled_kernels.h), binary mode.
 *
 * Once a forest labeler has labeled (and, on a block forest, adapter 1 has
 * given every root the address of its component's first pixel in raster
 * order, first[root]; a pixel forest's root is that address), three
 * kernels replace tile labeling and seam merging:
 *
 *   forest tiles     per tile, exactly what tile labeling writes
 *                    (TileOutputs), but with the pixels of a tile grouped
 *                    by component (the forest's), not by connectivity
 *                    inside the tile; each open piece that holds its
 *                    component's first pixel publishes its slot at
 *                    root_slot[forest root]
 *   open root links  every open piece's parent = its component's root
 *                    slot (instead of seam merging)
 *   ... open merging and blob records (tiled_kernels.h), unchanged ...
 *   label image      each pixel: the id of its component's first pixel
 *                    (components_before), only when asked for
 * (all three in forest_tiles.cu)
 *
 * so the frame's features, ids and blob table come from one tail for every
 * labeler. */
#ifndef GPUCCL_FOREST_TILES_H
#define GPUCCL_FOREST_TILES_H

#include <cuda_runtime.h>

#include "tile_common.cuh"

namespace tile {

/* A labeled forest as the tail's adapter reads it: pixel (x, y) is node
 * (y >> shift) * fpitch + (x >> shift) (shift 1: 2x2 blocks); the address
 * y * pitch + x of the component's first pixel is first[root] in a block
 * forest, root itself in a pixel forest (forest_kernels.h); bits is the
 * bitmask image the forest labeled (`words` words per row). root_slot has
 * a word per node, written before it is read in every frame. */
struct ForestView {
  const uint32_t *parent;
  const uint32_t *first;
  const uint32_t *bits;
  uint32_t *root_slot;
  int shift, fpitch;
  int pitch, words;
};

/* The tail of a frame a forest labeler labeled, after its kernels on the
 * same stream: forest tiles, open root links, open merging, blob records,
 * and the label image when labels is not NULL. f as for enqueue_frame
 * (tiled_frame.h), blobs its table. */
cudaError_t enqueue_forest_tail(const Frame &f, const ForestView &g,
                                GpucclBlob *blobs, uint32_t *labels,
                                cudaStream_t stream);

/* The steps, for the tests. */
cudaError_t launch_forest_tiles(const Frame &f, const ForestView &g,
                                cudaStream_t stream);
cudaError_t launch_open_root_links(const Frame &f, const ForestView &g,
                                   cudaStream_t stream);
cudaError_t launch_forest_label_image(const Frame &f, const ForestView &g,
                                      uint32_t *labels, cudaStream_t stream);

} /* namespace tile */

#endif /* GPUCCL_FOREST_TILES_H */
