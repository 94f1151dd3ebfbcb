/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The 3D kernels of the volume API (gpuccl_volume.h): BUF and BKE on
 * 2x2x2 blocks (Allegretti et al. 2019, Sec. 5.3), 26-connectivity, then
 * numbering in raster order of each component's first voxel and the
 * per-component features. volume_cuda.cu orders them. */
#ifndef GPUCCL_VOLUME_KERNELS_H
#define GPUCCL_VOLUME_KERNELS_H

#include <cuda_runtime.h>
#include <cstdint>

/* One frame's device view. Voxel v = (z * height + y) * width + x;
 * block b = (bz * bh + by) * bw + bx. */
struct Vol3 {
  const uint8_t *data; /* packed volume on the device */
  int width, height, depth, threshold;
  int bw, bh, bd;
  uint32_t *parent, *first; /* per block */
  uint16_t *info;           /* BKE: the neighbours still to union */
};

struct Vol3Features {
  unsigned long long *voxels, *sum_x, *sum_y, *sum_z;
  uint32_t *min_x, *min_y, *min_z, *max_x, *max_y, *max_z;
};

/* BUF 3D: Initialization, Merge (Compression: buf_launch_compression). */
cudaError_t buf3d_launch_initialization(const Vol3 &v, cudaStream_t s);
cudaError_t buf3d_launch_merge(const Vol3 &v, cudaStream_t s);
/* BKE 3D: Initialization (link to the smallest connected neighbour block),
 * Reduction (union with the others). */
cudaError_t bke3d_launch_initialization(const Vol3 &v, cudaStream_t s);
cudaError_t bke3d_launch_reduction(const Vol3 &v, cudaStream_t s);
/* Numbering: candidates for each root's first voxel (atomicMin), a flag
 * per voxel that is its component's first (scanned into ids), then the
 * features and the optional label volume. */
cudaError_t volume_launch_first_voxel(const Vol3 &v, cudaStream_t s);
cudaError_t volume_launch_root_flags(const Vol3 &v, uint32_t *flags,
                                     cudaStream_t s);
cudaError_t volume_launch_features(const Vol3 &v, const uint32_t *ids,
                                   const Vol3Features &feat, cudaStream_t s);
cudaError_t volume_launch_labels(const Vol3 &v, const uint32_t *ids,
                                 uint32_t *labels, cudaStream_t s);

#endif /* GPUCCL_VOLUME_KERNELS_H */
