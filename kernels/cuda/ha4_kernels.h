/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Launchers of the kernels on HA4's segment forest (Hennequin et al.
 * 2018): the segment tail of segments mode (root flags, Alg. 6 features,
 * Alg. 5 relabeling, the blob table), and the steps every frame may use
 * (Otsu, max_blobs, nearest blobs). Each returns the launch's error; the
 * backend (cuda_frame.cu, cuda_table.cu) orders them on its stream. */
#ifndef GPUCCL_HA4_KERNELS_H
#define GPUCCL_HA4_KERNELS_H

#include <cuda_runtime.h>

#include "ha4_common.cuh"

/* Otsu: 256-bin histogram of the thresholded samples, then the threshold
 * itself (kernels/otsu.h, the same function as the CPU backend), written to
 * *d_threshold; the histogram is cleared for the next frame. */
cudaError_t ha4_launch_otsu(const Ha4Frame &f, uint32_t *hist,
                            int *d_threshold, int sm_count,
                            cudaStream_t stream);

/* Root flags: per 32-bit word, which segment starts are roots (bitmask) and
 * how many (count, the input of the id scan); compresses L at every start
 * so later kernels reach the root in one load. */
cudaError_t ha4_launch_root_flags(const Ha4Frame &f, uint32_t *rootmask,
                                  uint32_t *count, cudaStream_t stream);

/* Alg. 6: area, sums and bounding box per dense component id. */
cudaError_t ha4_launch_features(const Ha4Frame &f, const uint32_t *offset,
                                const uint32_t *rootmask,
                                const Ha4Features &feat, cudaStream_t stream);

/* Alg. 5: the label image, labels 1..N, row stride = width. */
cudaError_t ha4_launch_relabeling(const Ha4Frame &f, const uint32_t *offset,
                                  const uint32_t *rootmask, uint32_t *labels,
                                  cudaStream_t stream);

/* Blob table, step 1: per tile of 256 ids, how many pass the area filter.
 * n_components points at the total of the id scan. */
cudaError_t ha4_launch_blob_count(const uint32_t *n_components,
                                  const Ha4Features &feat, uint64_t min_area,
                                  uint64_t max_area, uint32_t *tile_count,
                                  int n_tiles, int sm_count,
                                  cudaStream_t stream);

/* Blob table, step 2: write the passing blobs in increasing id at their
 * scanned offsets, clear the accumulators, and fill header = {components,
 * blobs, threshold}. */
cudaError_t ha4_launch_blob_scatter(const Ha4Frame &f,
                                    const uint32_t *n_components,
                                    const Ha4Features &feat, uint64_t min_area,
                                    uint64_t max_area,
                                    const uint32_t *tile_offset, int n_tiles,
                                    GpucclBlob *out, uint32_t *header,
                                    int sm_count, cudaStream_t stream);

/* max_blobs: rank keys of n blobs (larger area first, then smaller id, as
 * kernels/blob_select.c), and the flags of the blobs at least as strong as
 * *weakest. */
cudaError_t ha4_launch_blob_rank_keys(const GpucclBlob *blobs, size_t n,
                                      uint64_t *keys, cudaStream_t stream);
cudaError_t ha4_launch_blob_keep_flags(const GpucclBlob *blobs, size_t n,
                                       const uint64_t *weakest,
                                       uint8_t *flags, cudaStream_t stream);

/* Tracking help: each query point's nearest blob among the *n_blobs of
 * the table (gpuccl.h, GpucclNearest); nothing is written when queries x
 * blobs exceed GPUCCL_NEAREST_MAX_PAIRS. */
cudaError_t ha4_launch_nearest_blobs(const GpucclBlob *blobs,
                                     const uint32_t *n_blobs,
                                     const float *query_x,
                                     const float *query_y, uint32_t n_queries,
                                     GpucclNearest *out, cudaStream_t stream);

#endif /* GPUCCL_HA4_KERNELS_H */
