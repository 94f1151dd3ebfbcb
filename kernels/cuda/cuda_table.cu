/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a frame of the CUDA backend does with its blob table once the
 * kernels made it (cuda_context.h): the downloads, the work beside them on
 * the side stream (the nearest-blob search, the overlay's boxes), the
 * max_blobs selection and segments mode's values. */
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "cuda_context.h"
#include "cuda_internal.h"

/* Segments mode: each blob's value, gathered by id from the components'
 * values (feat.value, which the frame leaves on the device). */
GpucclStatus fetch_values(CudaCtx *c, uint32_t n_components,
                                 size_t n_blobs, GpucclError *error)
{
  GpucclStatus st = ensure_pinned(c, (void **)&c->values_h, &c->values_cap,
                                  n_components ? n_components : 1,
                                  sizeof(uint32_t), error);
  if (st != GPUCCL_OK)
    return st;
  LAUNCH(cudaMemcpyAsync(c->values_h, c->feat.value,
                         n_components * sizeof(uint32_t),
                         cudaMemcpyDeviceToHost, c->stream),
         "value download");
  CK(cudaStreamSynchronize(c->stream), "value download");
  /* In place: ids increase, so entry id - 1 >= i is not yet overwritten. */
  for (size_t i = 0; i < n_blobs; i++)
    c->values_h[i] = c->values_h[c->blobs_h[i].id - 1];
  return GPUCCL_OK;
}

/* The side stream starts once the blob table is made (ev_stop). */
GpucclStatus side_start(CudaCtx *c, GpucclError *error)
{
  CK(cudaStreamWaitEvent(c->side_stream, c->ev_stop, 0), "stream wait");
  return GPUCCL_OK;
}

/* The frame's sync waits for the side stream too: also after a failure,
 * so that nothing there outlives the frame. */
GpucclStatus side_join(CudaCtx *c, GpucclError *error)
{
  CK(cudaEventRecord(c->ev_side_done, c->side_stream), "event record");
  CK(cudaStreamWaitEvent(c->stream, c->ev_side_done, 0), "stream wait");
  return GPUCCL_OK;
}

/* The query points' nearest blobs, on the side stream, read from and
 * written to host memory by the search itself. */
GpucclStatus enqueue_nearest(CudaCtx *c,
                                    const GpucclNearestRequest *request,
                                    GpucclError *error)
{
  const size_t n = request->n;
  GpucclStatus st = ensure_queries(c, n, error);
  if (st != GPUCCL_OK)
    return st;
  memcpy(c->query_h, request->x, n * sizeof(float));
  memcpy(c->query_h + n, request->y, n * sizeof(float));
  LAUNCH(ha4_launch_nearest_blobs(c->table, c->header + 1, c->query_dev,
                                  c->query_dev + n, (uint32_t)n,
                                  c->nearest_dev, c->side_stream),
         "nearest blobs");
  return GPUCCL_OK;
}

/* The downloads, queued beside the search: what the kernels did not write
 * to host memory themselves (the header of a segments frame, the blobs
 * likely there beyond those copied), the labels. */
GpucclStatus enqueue_downloads(CudaCtx *c, const GpucclParams *params,
                               size_t fetched, size_t n_pixels,
                               GpucclError *error)
{
  if (!c->copied)
    LAUNCH(cudaMemcpyAsync(c->header_h, c->header, 3 * sizeof(uint32_t),
                           cudaMemcpyDeviceToHost, c->stream),
           "header download");
  if (fetched > c->copied)
    LAUNCH(cudaMemcpyAsync(c->blobs_h + c->copied, c->table + c->copied,
                           (fetched - c->copied) * sizeof(GpucclBlob),
                           cudaMemcpyDeviceToHost, c->stream),
           "blob table download");
  if (params->want_labels)
    LAUNCH(cudaMemcpyAsync(c->labels_h, c->labels_d,
                           n_pixels * sizeof(uint32_t),
                           cudaMemcpyDeviceToHost, c->stream),
           "label download");
  return GPUCCL_OK;
}

/* max_blobs cut the table: keep the strongest max_blobs on the device (the
 * order of kernels/blob_select.c), still in increasing id. */
GpucclStatus select_largest(CudaCtx *c, size_t n, uint32_t k,
                                   GpucclError *error)
{
  GpucclStatus st = ensure_selection(c, error);
  if (st == GPUCCL_OK)
    st = ensure_blobs_h(c, k, error);
  if (st != GPUCCL_OK)
    return st;
  size_t bytes = c->sel_temp_bytes;
  LAUNCH(ha4_launch_blob_rank_keys(c->table, n, c->keys, c->stream),
         "max_blobs keys");
  LAUNCH(cub::DeviceRadixSort::SortKeysDescending(c->sel_temp, bytes, c->keys,
                                                  c->keys_sorted, (int)n, 0,
                                                  64, c->stream),
         "max_blobs sort");
  LAUNCH(ha4_launch_blob_keep_flags(c->table, n, c->keys_sorted + (k - 1),
                                    c->flags, c->stream),
         "max_blobs flags");
  bytes = c->sel_temp_bytes;
  LAUNCH(cub::DeviceSelect::Flagged(c->sel_temp, bytes, c->table, c->flags,
                                    c->selected, c->n_selected, (int)n,
                                    c->stream),
         "max_blobs select");
  LAUNCH(cudaMemcpyAsync(c->blobs_h, c->selected, k * sizeof(GpucclBlob),
                         cudaMemcpyDeviceToHost, c->stream),
         "blob table download");
  CK(cudaStreamSynchronize(c->stream), "max_blobs selection");
  return GPUCCL_OK;
}
