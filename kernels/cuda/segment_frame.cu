/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A segments-mode frame (cuda_context.h): Stava and Benes labels the
 * label map, the segment tail numbers, measures and tables its components.
 * The frame is sized mid-way by its component count, so it runs kernel by
 * kernel, never as a graph. */
#include <cub/device/device_scan.cuh>

#include "cuda_context.h"
#include "cuda_internal.h"

/* Segments mode (Stava and Benes, forest_kernels.h): the labeling and the
 * segment tail up to the component count (offset[n_words]). */
static GpucclStatus enqueue_segment_labeling(CudaCtx *c, const Ha4Frame &f,
                                             const GpucclParams *params,
                                             GpucclError *error)
{
  LAUNCH(gpuccl_forest_launch_labeling(f, params->algorithm, c->forest_ws,
                                       forest_loop_env(c), c->stream),
         "labeling");
  LAUNCH(ha4_launch_root_flags(f, c->rootmask, c->count, c->stream),
         "root flags");
  size_t bytes = c->temp_bytes;
  LAUNCH(cub::DeviceScan::ExclusiveSum(c->temp, bytes, c->count, c->offset,
                                       (int)(c->n_words + 1), c->stream),
         "id scan");
  return GPUCCL_OK;
}

/* The rest of a segments frame: values, features, labels, blob table. */
static GpucclStatus enqueue_segment_analysis(CudaCtx *c, const Ha4Frame &f,
                                             const GpucclParams *params,
                                             GpucclError *error)
{
  LAUNCH(forest_launch_segment_values(f, c->offset, c->rootmask,
                                      c->feat.value, c->stream),
         "segment values");
  LAUNCH(ha4_launch_features(f, c->offset, c->rootmask, c->feat, c->stream),
         "features");
  if (params->want_labels)
    LAUNCH(ha4_launch_relabeling(f, c->offset, c->rootmask, c->labels_d,
                                 c->stream),
           "relabeling");
  const uint32_t *n_components = c->offset + c->n_words;
  LAUNCH(ha4_launch_blob_count(n_components, c->feat, params->min_area,
                               params->max_area, c->tile_count, c->n_tiles,
                               c->sm_count, c->stream),
         "blob count");
  size_t bytes = c->tile_temp_bytes;
  LAUNCH(cub::DeviceScan::ExclusiveSum(c->tile_temp, bytes, c->tile_count,
                                       c->tile_offset, c->n_tiles + 1,
                                       c->stream),
         "blob scan");
  LAUNCH(ha4_launch_blob_scatter(f, n_components, c->feat, params->min_area,
                                 params->max_area, c->tile_offset, c->n_tiles,
                                 c->out, c->header, c->sm_count, c->stream),
         "blob scatter");
  return GPUCCL_OK;
}

/* Segments mode can have a component per pixel (a 2 x 2 tiling of four
 * values), ~100 bytes each for features and table: 420 MB at 2048 x 2048
 * where a class map has a few hundred. So its frame stops after the id
 * scan, reads the count and sizes the component buffers for it; hence
 * never a graph. */
GpucclStatus enqueue_segments(CudaCtx *c, const Ha4Frame &f,
                                     const GpucclParams *params,
                                     GpucclError *error)
{
  GpucclStatus st = enqueue_segment_labeling(c, f, params, error);
  if (st != GPUCCL_OK)
    return st;
  LAUNCH(cudaMemcpyAsync(c->header_h, c->offset + c->n_words,
                         sizeof(uint32_t), cudaMemcpyDeviceToHost, c->stream),
         "component count download");
  CK(cudaStreamSynchronize(c->stream), "component count");
  st = ensure_components(c, c->header_h[0], error);
  if (st == GPUCCL_OK && c->dirty)
    st = reset_frame_state(c, error);
  return st != GPUCCL_OK ? st
                         : enqueue_segment_analysis(c, f, params, error);
}

