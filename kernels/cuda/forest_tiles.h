/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The forest labelers (BUF, BKE, OUF, HYBRID3, Stava-Benes; forest_kernels.h)
 * on the tiled tail (tiled_kernels.h), binary mode.
 *
 * Once a forest labeler has labeled, these kernels replace tile labeling,
 * seam merging and open merging's root search:
 *
 *   forest tiles     per tile, exactly what tile labeling writes
 *                    (TileOutputs), but with the pixels of a tile grouped
 *                    by component (the forest's), not by connectivity
 *                    inside the tile; the piece in whose tile its
 *                    component's forest root lies publishes its slot at
 *                    root_slot[forest root]
 *   open merging     open_merging.cuh, each open piece's root the slot at
 *                    its component's forest root
 *   ... blob records (tiled_kernels.h), unchanged ...
 *   label image      each pixel: the id of its component's first pixel
 *                    (components_before), only when asked for
 * (all three in forest_tiles.cu)
 *
 * so the frame's features, ids and blob table come from one tail for every
 * labeler. A forest root is its component's smallest node, so it lies in
 * the topmost tile row the component reaches: the row of its first pixel,
 * where blob records expects an open component's root; open merging gives
 * that root the first pixel, the smallest of its pieces' keys. */
#ifndef GPUCCL_FOREST_TILES_H
#define GPUCCL_FOREST_TILES_H

#include <cuda_runtime.h>

#include "tile_common.cuh"

namespace tile {

/* A labeled forest as the tail's adapter reads it: pixel (x, y) is node
 * (y >> shift) * fpitch + (x >> shift) (shift 1: 2x2 blocks), and every
 * link points at a smaller node of the component (forest_kernels.h); bits
 * is the bitmask image the forest labeled (`words` words per row).
 * root_slot has a word per node, written before it is read in every
 * frame: at a component's root, its root piece's open slot, or for a
 * closed component when a label image follows, CLOSED_KEY | its first
 * pixel's key (y * width + x). */
struct ForestView {
  const uint32_t *parent;
  const uint32_t *bits;
  uint32_t *root_slot;
  int shift, fpitch, words;
};

constexpr uint32_t CLOSED_KEY = 0x80000000u;
static_assert((unsigned long long)GPUCCL_MAX_SIDE * GPUCCL_MAX_SIDE <=
                  CLOSED_KEY,
              "a pixel's key beside the closed flag");

/* The tail of a frame a forest labeler labeled, after its kernels on the
 * same stream: forest tiles, open merging, blob records, and the label
 * image when labels is not NULL. f as for enqueue_frame
 * (tiled_frame.h), blobs its table. */
cudaError_t enqueue_forest_tail(const Frame &f, const ForestView &g,
                                GpucclBlob *blobs, uint32_t *labels,
                                cudaStream_t stream);

/* The steps, for the tests; forest tiles with `labels` when the label
 * image follows (closed components publish their keys for it). */
cudaError_t launch_forest_tiles(const Frame &f, const ForestView &g,
                                bool labels, cudaStream_t stream);
cudaError_t launch_forest_open_merging(const Frame &f, const ForestView &g,
                                      cudaStream_t stream);
cudaError_t launch_forest_label_image(const Frame &f, const ForestView &g,
                                      uint32_t *labels, cudaStream_t stream);

} /* namespace tile */

#endif /* GPUCCL_FOREST_TILES_H */
