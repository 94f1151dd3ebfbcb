/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl volumes: connected-component labeling and analysis of a
 * width x height x depth 8-bit volume, 26-connectivity, on the GPU (BUF or
 * BKE 3D: 2x2x2 blocks, Allegretti et al. 2019) or on the CPU.
 *
 * Same contract as the 2D API: foreground = sample > threshold; labels
 * 1..N in raster order (x fastest, then y, then z) of each component's
 * first voxel, 0 background; every backend and algorithm gives identical
 * results. A GpucclVolume is separate from a GpucclContext (its own
 * buffers), not thread-safe: one per thread. */
#ifndef GPUCCL_VOLUME_H
#define GPUCCL_VOLUME_H

#include "gpuccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of voxels accepted (addresses are 32-bit). */
#define GPUCCL_VOLUME_MAX_VOXELS (((size_t)1 << 31) - 1)

typedef enum {
  GPUCCL_VOLUME_DEFAULT = 0, /* BKE 3D on CUDA, union-find on the CPU */
  GPUCCL_VOLUME_BUF,         /* block-based union-find, 2x2x2 blocks */
  GPUCCL_VOLUME_BKE,         /* block-based Komura equivalence */
} GpucclVolumeAlgorithm;

/* One plane of 8-bit samples per slice, read only. */
typedef struct {
  const uint8_t *data;
  int width, height, depth; /* >= 1 each */
  size_t row_stride;        /* bytes between rows, >= width, at most
                             * GPUCCL_MAX_STRIDE */
  size_t slice_stride;      /* bytes between slices, >= row_stride * height,
                             * at most GPUCCL_MAX_STRIDE * height */
} GpucclVolumeImage;

typedef struct {
  int threshold; /* 0..255 */
  GpucclVolumeAlgorithm algorithm;
  bool want_labels;
} GpucclVolumeParams;

typedef struct {
  uint32_t id;
  uint32_t x0, y0, z0, x1, y1, z1; /* inclusive bounding box */
  uint64_t voxels;
  uint64_t sum_x, sum_y, sum_z;
  double cx, cy, cz; /* sum / voxels */
} GpucclVolumeBlob;

/* Owned by the volume object; valid until its next process call or free. */
typedef struct {
  int width, height, depth;
  uint32_t n_components;
  const GpucclVolumeBlob *blobs; /* n_components, in increasing id */
  /* width * height * depth labels (x fastest), NULL unless asked for. */
  const uint32_t *labels;
} GpucclVolumeResult;

typedef struct GpucclVolume GpucclVolume;

/* Threshold 127, default algorithm, no labels. Sized like
 * gpuccl_params_init. */
GPUCCL_API void gpuccl_volume_params_init_sized(GpucclVolumeParams *params,
                                                size_t size);
#define gpuccl_volume_params_init(params)                                      \
  gpuccl_volume_params_init_sized((params), sizeof *(params))

/* backend: AUTO (CUDA when usable), CUDA or CPU. NULL on failure. */
GPUCCL_API GpucclVolume *gpuccl_volume_new(GpucclBackend backend, int device_id,
                                           GpucclError *error);
GPUCCL_API void gpuccl_volume_free(GpucclVolume *vol);
/* AUTO for a NULL volume. */
GPUCCL_API GpucclBackend gpuccl_volume_backend(const GpucclVolume *vol);

/* params of the caller's size, as gpuccl_process_sized. */
GPUCCL_API GpucclStatus gpuccl_volume_process_sized(
    GpucclVolume *vol, const GpucclVolumeImage *image,
    const GpucclVolumeParams *params, size_t params_size,
    GpucclVolumeResult *result, GpucclError *error);
#define gpuccl_volume_process(vol, image, params, result, error)               \
  gpuccl_volume_process_sized((vol), (image), (params),                        \
                              sizeof(GpucclVolumeParams), (result), (error))

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_VOLUME_H */
