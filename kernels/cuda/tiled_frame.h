/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tiled HA4 frame: its device buffers (sized once per image size,
 * never cleared per frame) and its launch sequence, for the CUDA backend,
 * its tests and the benchmarks. */
#ifndef GPUCCL_TILED_FRAME_H
#define GPUCCL_TILED_FRAME_H

#include <cuda_runtime.h>

#include "tile_common.cuh"

namespace tile {

typedef cudaError_t (*DeviceAlloc)(void **p, size_t bytes);
typedef void (*DeviceFree)(void *p);

struct Buffers {
  int width, height;
  Frame frame;       /* views of the buffers below, image unset */
  GpucclBlob *blobs; /* the table: every component can pass */
  size_t bytes; /* device memory held */
};

/* Buffers for a width x height image (b zeroed or freed first). */
cudaError_t buffers_alloc(Buffers &b, int width, int height,
                          DeviceAlloc alloc);
void buffers_free(Buffers &b, DeviceFree release);

/* The counters a frame finds at zero and leaves at zero (seam arrivals,
 * the bands' look-back, the host flag's tickets), zeroed on `stream`:
 * after allocation, and after a frame that failed between its kernels. */
cudaError_t reset_counters(const Buffers &b, cudaStream_t stream);

/* Most components (and blobs) a frame can have: a 4-connected
 * checkerboard's. */
size_t max_components(int width, int height);

/* The kernels of one frame, in order, on one stream: tile labeling, seam
 * merging, open merging, blob records, and the label image when labels is
 * not NULL.
 * f.image, f.filter and f.conn8 set by the caller. */
cudaError_t enqueue_frame(const Buffers &b, const Frame &f, uint32_t *labels,
                          cudaStream_t stream);

} /* namespace tile */

#endif /* GPUCCL_TILED_FRAME_H */
