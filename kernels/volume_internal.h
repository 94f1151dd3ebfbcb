/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private pieces of the volume API (gpuccl_volume.h): the object, the CPU
 * labeling and the CUDA entry points (kernels/cuda/volume_cuda.cu). */
#ifndef GPUCCL_VOLUME_INTERNAL_H
#define GPUCCL_VOLUME_INTERNAL_H

#include "gpuccl_volume.h"

#ifdef __cplusplus
extern "C" {
#endif

struct GpucclVolume {
  GpucclBackend backend;
  int device;
  void *cuda; /* CUDA state, NULL on the CPU */
  /* Results of the last call (grown, never shrunk). */
  GpucclVolumeBlob *blobs;
  size_t blobs_cap;
  uint32_t *labels;
  size_t labels_cap;
};

/* Labels (1..N, raster order of first voxel) of a validated image into
 * `labels` (w * h * d); returns N, or -1 when out of memory. */
long gpuccl_volume_label_cpu(const GpucclVolumeImage *img, int threshold,
                             uint32_t *labels);

/* Grow vol->labels to n entries. */
GpucclStatus gpuccl_volume_reserve_labels(GpucclVolume *vol, size_t n,
                                          GpucclError *error);

/* Grow vol->blobs to n entries. */
GpucclStatus gpuccl_volume_reserve_blobs(GpucclVolume *vol, size_t n,
                                         GpucclError *error);

#ifdef GPUCCL_HAVE_CUDA
GpucclStatus gpuccl_volume_cuda_open(GpucclVolume *vol, GpucclError *error);
void gpuccl_volume_cuda_close(GpucclVolume *vol);
/* Fills vol->blobs (and vol->labels when asked) and *n_components. */
GpucclStatus gpuccl_volume_cuda_process(GpucclVolume *vol,
                                        const GpucclVolumeImage *img,
                                        const GpucclVolumeParams *params,
                                        uint32_t *n_components,
                                        GpucclError *error);
/* Milliseconds of the kernels of the last process call (CUDA events), -1
 * when there was none; for bench/volume_bench.c. */
float gpuccl_volume_cuda_kernel_ms(GpucclVolume *vol);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_VOLUME_INTERNAL_H */
