/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend: allocation, errors, the buffers a context grows, open
 * and close, and the backend's entry points (cuda_context.h). */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "cuda_context.h"
#include "cuda_internal.h"
#include "host_memory.h"

static std::atomic<uint64_t> g_alloc_calls(0);
/* Allocations made and not yet freed: 0 again once every context, volume
 * and host block is freed, whatever failed on the way. */
static std::atomic<int64_t> g_live(0);

extern "C" uint64_t gpuccl_cuda_alloc_calls(void)
{
  return g_alloc_calls.load();
}

extern "C" int64_t gpuccl_cuda_live_allocations(void)
{
  return g_live.load();
}

/* The count of a finished allocation call. */
static cudaError_t counted(cudaError_t err)
{
  g_alloc_calls++;
  if (err == cudaSuccess)
    g_live++;
  return err;
}

static void count_free(void)
{
  g_alloc_calls++;
  g_live--;
}

cudaError_t dev_alloc(void **p, size_t bytes)
{
  *p = nullptr;
  if (gpuccl_fault_hit(GPUCCL_FAULT_ALLOC))
    return cudaErrorMemoryAllocation;
  return counted(cudaMalloc(p, bytes ? bytes : 1));
}

void dev_free(void *p)
{
  if (p) {
    count_free();
    cudaFree(p);
  }
}

cudaError_t pinned_alloc(void **p, size_t bytes, unsigned flags)
{
  *p = nullptr;
  if (gpuccl_fault_hit(GPUCCL_FAULT_ALLOC))
    return cudaErrorMemoryAllocation;
  return counted(cudaHostAlloc(p, bytes ? bytes : 1, flags));
}

void pinned_free(void *p)
{
  if (p) {
    count_free();
    cudaFreeHost(p);
  }
}

static GpucclStatus status_of(cudaError_t err)
{
  switch (err) {
  case cudaErrorMemoryAllocation:
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorInvalidDevice:
  case cudaErrorDevicesUnavailable:
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorStubLibrary:
    return GPUCCL_ERROR_NO_DEVICE;
  default:
    return GPUCCL_ERROR_DEVICE;
  }
}

GpucclStatus cuda_fail(CudaCtx *c, GpucclError *error, cudaError_t err,
                       const char *what)
{
  if (c)
    c->dirty = true;
  cudaGetLastError(); /* clear it unless sticky */
  return gpuccl_set_error(error, status_of(err), "CUDA: %s failed: %s (%s)",
                          what, cudaGetErrorName(err), cudaGetErrorString(err));
}

extern "C" bool gpuccl_cuda_probe(int device_id, GpucclError *error)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    cudaGetLastError();
    gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                     "no usable CUDA driver or device: %s",
                     cudaGetErrorString(err));
    return false;
  }
  if (device_id >= n) {
    gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                     "CUDA device %d does not exist (%d found)", device_id, n);
    return false;
  }
  return true;
}

static void free_selection(CudaCtx *c)
{
  dev_free(c->keys);
  dev_free(c->keys_sorted);
  dev_free(c->flags);
  dev_free(c->selected);
  dev_free(c->n_selected);
  dev_free(c->sel_temp);
  c->keys = c->keys_sorted = nullptr;
  c->flags = nullptr;
  c->selected = nullptr;
  c->n_selected = nullptr;
  c->sel_temp = nullptr;
  c->sel_temp_bytes = 0;
  c->selection_ready = false;
}

/* The buffers' next generation (CudaCtx::buffers): no kept graph matches
 * any more, and the frame's are freed. */
static void renew_buffers(CudaCtx *c)
{
  static std::atomic<uint64_t> generations(0);
  c->buffers = generations.fetch_add(1, std::memory_order_relaxed) + 1;
  c->frame_graphs.clear();
}

/* The per-component buffers (ensure_components); the forest workspace's
 * feat.value is not ours and stays. */
static void free_components(CudaCtx *c)
{
  void *bufs[] = {c->feat.area,      c->feat.first_y, c->feat.max_x,
                  c->feat.inv_min_x, c->feat.max_y,   c->feat.sum_x,
                  c->feat.sum_y,     c->tile_count,   c->tile_offset,
                  c->out,            c->tile_temp};
  for (void *p : bufs)
    dev_free(p);
  uint32_t *value = c->feat.value;
  c->feat = Ha4Features{};
  c->feat.value = value;
  c->tile_count = c->tile_offset = nullptr;
  c->out = nullptr;
  c->tile_temp = nullptr;
  c->tile_temp_bytes = 0;
  c->n_max = 0;
  renew_buffers(c);   /* the graphs hold the freed buffers */
  free_selection(c);  /* sized for the old capacity */
}

static void free_size(CudaCtx *c)
{
  free_components(c);
  void *bufs[] = {c->L, c->rootmask, c->count, c->offset, c->temp};
  for (void *p : bufs)
    dev_free(p);
  c->L = c->rootmask = c->count = c->offset = nullptr;
  c->feat.value = nullptr;
  c->temp = nullptr;
  c->temp_bytes = 0;
  c->width = c->height = 0;
}

/* The per-component buffers (features, blob table, blob scan) for n
 * components, grown only: segments frames ask for a start before the
 * frame, then for the count their id scan found (enqueue_segments). */
GpucclStatus ensure_components(CudaCtx *c, size_t n, GpucclError *error)
{
  if (n <= c->n_max)
    return GPUCCL_OK;
  free_components(c);

  const int n_tiles = (int)((n + 255) / 256);
  const size_t u32 = sizeof(uint32_t), u64 = sizeof(unsigned long long);
  CK(dev_alloc((void **)&c->feat.area, n * u32), "allocation");
  CK(dev_alloc((void **)&c->feat.first_y, n * u32), "allocation");
  CK(dev_alloc((void **)&c->feat.max_x, n * u32), "allocation");
  CK(dev_alloc((void **)&c->feat.inv_min_x, n * u32), "allocation");
  CK(dev_alloc((void **)&c->feat.max_y, n * u32), "allocation");
  CK(dev_alloc((void **)&c->feat.sum_x, n * u64), "allocation");
  CK(dev_alloc((void **)&c->feat.sum_y, n * u64), "allocation");
  CK(dev_alloc((void **)&c->tile_count, (n_tiles + 1) * u32), "allocation");
  CK(dev_alloc((void **)&c->tile_offset, (n_tiles + 1) * u32), "allocation");
  CK(dev_alloc((void **)&c->out, n * sizeof(GpucclBlob)), "allocation");
  size_t bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, c->tile_count,
                                   c->tile_offset, n_tiles + 1),
     "scan size query");
  CK(dev_alloc(&c->tile_temp, bytes), "allocation");
  c->tile_temp_bytes = bytes;
  /* The scan's last entry stays 0, the accumulators start at 0, and the
   * table is defined even where a frame does not write. */
  CK(cudaMemsetAsync(c->tile_count, 0, (n_tiles + 1) * u32, c->stream),
     "memset");
  CK(cudaMemsetAsync(c->out, 0, n * sizeof(GpucclBlob), c->stream), "memset");
  c->dirty = true;
  c->n_max = n;
  c->n_tiles = n_tiles;
  return GPUCCL_OK;
}

/* The segment tail's buffers for a width x height image; nothing happens
 * when they exist. */
static GpucclStatus ensure_size(CudaCtx *c, int width, int height,
                                GpucclError *error)
{
  if (c->width == width && c->height == height)
    return GPUCCL_OK;
  free_size(c);
  const int pitch = ha4_pitch(width);
  const size_t n_words = (size_t)height * (pitch / 32);
  const size_t u32 = sizeof(uint32_t);

  CK(dev_alloc((void **)&c->L, (size_t)height * pitch * u32), "allocation");
  CK(dev_alloc((void **)&c->rootmask, n_words * u32), "allocation");
  CK(dev_alloc((void **)&c->count, (n_words + 1) * u32), "allocation");
  CK(dev_alloc((void **)&c->offset, (n_words + 1) * u32), "allocation");
  size_t bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, c->count, c->offset,
                                   (int)(n_words + 1)),
     "scan size query");
  CK(dev_alloc(&c->temp, bytes), "allocation");
  c->temp_bytes = bytes;
  /* Once per size: the scan's last entry stays 0. */
  CK(cudaMemsetAsync(c->count, 0, (n_words + 1) * u32, c->stream), "memset");

  c->width = width;
  c->height = height;
  c->n_words = n_words;
  return GPUCCL_OK;
}

GpucclStatus ensure_segments(CudaCtx *c, int width, int height,
                             GpucclError *error)
{
  GpucclStatus st = ensure_size(c, width, height, error);
  if (st == GPUCCL_OK)
    st = ensure_components(c, SEGMENTS_FIRST_COMPONENTS, error);
  return st;
}

GpucclStatus reset_frame_state(CudaCtx *c, GpucclError *error)
{
  const size_t n = c->n_max;
  void *u32s[] = {c->feat.area, c->feat.max_x, c->feat.inv_min_x,
                  c->feat.max_y, c->feat.first_y};
  for (void *p : u32s)
    LAUNCH(cudaMemsetAsync(p, 0, n * sizeof(uint32_t), c->stream), "memset");
  LAUNCH(cudaMemsetAsync(c->feat.sum_x, 0, n * 8, c->stream), "memset");
  LAUNCH(cudaMemsetAsync(c->feat.sum_y, 0, n * 8, c->stream), "memset");
  if (c->tiled.width)
    LAUNCH(tile::reset_counters(c->tiled, c->stream), "memset");
  c->dirty = false;
  return GPUCCL_OK;
}

GpucclStatus ensure_input(CudaCtx *c, size_t bytes, GpucclError *error)
{
  if (bytes <= c->input_bytes)
    return GPUCCL_OK;
  dev_free(c->input);
  c->input = nullptr;
  c->input_bytes = 0;
  CK(dev_alloc((void **)&c->input, bytes), "allocation");
  c->input_bytes = bytes;
  return GPUCCL_OK;
}

/* The forest algorithms' workspace (forest_kernels.h), grown only. */
GpucclStatus ensure_forest(CudaCtx *c, const GpucclParams *params,
                           int width, int height, GpucclError *error)
{
  GpucclStatus st = gpuccl_forest_check(params, error);
  const size_t bytes = gpuccl_forest_workspace_bytes(params, width, height);
  if (st != GPUCCL_OK || bytes <= c->forest_ws_bytes)
    return st;
  dev_free(c->forest_ws);
  c->forest_ws = nullptr;
  c->forest_ws_bytes = 0;
  CK(dev_alloc(&c->forest_ws, bytes), "allocation");
  c->forest_ws_bytes = bytes;
  return GPUCCL_OK;
}

GpucclStatus ensure_labels(CudaCtx *c, size_t n, GpucclError *error)
{
  if (n <= c->labels_n)
    return GPUCCL_OK;
  dev_free(c->labels_d);
  pinned_free(c->labels_h);
  c->labels_d = c->labels_h = nullptr;
  c->labels_n = 0;
  CK(dev_alloc((void **)&c->labels_d, n * sizeof(uint32_t)), "allocation");
  CK(pinned_alloc((void **)&c->labels_h, n * sizeof(uint32_t),
                  cudaHostAllocDefault),
     "pinned allocation");
  c->labels_n = n;
  return GPUCCL_OK;
}

/* The capacity a buffer grown on demand takes for n entries: doubled from
 * its current one (1024 at first), so a growing scene reallocates rarely. */
static size_t grown_capacity(size_t cap, size_t n)
{
  cap = cap ? cap : 1024;
  while (cap < n)
    cap *= 2;
  return cap;
}

/* A pinned host buffer of at least n elements, contents not kept. */
GpucclStatus ensure_pinned(CudaCtx *c, void **buf, size_t *cap_out,
                           size_t n, size_t elem, GpucclError *error)
{
  if (n <= *cap_out)
    return GPUCCL_OK;
  const size_t cap = grown_capacity(*cap_out, n);
  pinned_free(*buf);
  *buf = nullptr;
  *cap_out = 0;
  CK(pinned_alloc(buf, cap * elem, cudaHostAllocDefault), "pinned allocation");
  *cap_out = cap;
  return GPUCCL_OK;
}

GpucclStatus ensure_blobs_h(CudaCtx *c, size_t n, GpucclError *error)
{
  return ensure_pinned(c, (void **)&c->blobs_h, &c->blobs_cap, n,
                       sizeof(GpucclBlob), error);
}

static void free_queries(CudaCtx *c)
{
  pinned_free(c->query_h);
  pinned_free(c->nearest_h);
  c->query_h = c->query_dev = nullptr;
  c->nearest_h = c->nearest_dev = nullptr;
  c->queries_cap = 0;
}

GpucclStatus ensure_queries(CudaCtx *c, size_t n, GpucclError *error)
{
  if (n <= c->queries_cap)
    return GPUCCL_OK;
  const size_t cap = grown_capacity(c->queries_cap, n);
  free_queries(c);
  CK(pinned_alloc((void **)&c->query_h, 2 * cap * sizeof(float),
                  cudaHostAllocMapped),
     "pinned allocation");
  CK(pinned_alloc((void **)&c->nearest_h, cap * sizeof(GpucclNearest),
                  cudaHostAllocMapped),
     "pinned allocation");
  CK(cudaHostGetDevicePointer((void **)&c->query_dev, c->query_h, 0),
     "mapping host memory");
  CK(cudaHostGetDevicePointer((void **)&c->nearest_dev, c->nearest_h, 0),
     "mapping host memory");
  c->queries_cap = cap;
  return GPUCCL_OK;
}

GpucclStatus ensure_selection(CudaCtx *c, GpucclError *error)
{
  if (c->selection_ready && c->sel_cap >= c->table_cap)
    return GPUCCL_OK;
  free_selection(c); /* too small, or what a failed attempt left */
  const size_t n = c->table_cap;
  CK(dev_alloc((void **)&c->keys, n * 8), "allocation");
  CK(dev_alloc((void **)&c->keys_sorted, n * 8), "allocation");
  CK(dev_alloc((void **)&c->flags, n), "allocation");
  CK(dev_alloc((void **)&c->selected, n * sizeof(GpucclBlob)), "allocation");
  /* Defined bytes everywhere, struct padding included (initcheck: the
   * select copies whole blobs and the download reads them). */
  CK(cudaMemsetAsync(c->selected, 0, n * sizeof(GpucclBlob), c->stream),
     "memset");
  CK(dev_alloc((void **)&c->n_selected, sizeof(uint32_t)), "allocation");
  size_t a = 0, b = 0;
  CK(cub::DeviceRadixSort::SortKeysDescending(nullptr, a, c->keys,
                                              c->keys_sorted, (int)n),
     "sort size query");
  CK(cub::DeviceSelect::Flagged(nullptr, b, c->table, c->flags, c->selected,
                                c->n_selected, (int)n),
     "select size query");
  c->sel_temp_bytes = a > b ? a : b;
  CK(dev_alloc(&c->sel_temp, c->sel_temp_bytes), "allocation");
  c->selection_ready = true;
  c->sel_cap = n;
  return GPUCCL_OK;
}

GpucclStatus ensure_tiled(CudaCtx *c, int width, int height,
                          GpucclError *error)
{
  if (c->tiled.width == width && c->tiled.height == height)
    return GPUCCL_OK;
  renew_buffers(c); /* the graphs hold the old buffers */
  tile::buffers_free(c->tiled, dev_free);
  const cudaError_t err = tile::buffers_alloc(c->tiled, width, height,
                                              dev_alloc);
  if (err != cudaSuccess) {
    tile::buffers_free(c->tiled, dev_free);
    return cuda_fail(c, error, err, "allocation");
  }
  /* Once per size: the table is downloaded a little past the blobs a
   * frame wrote (copy_hint), and those bytes must be defined (initcheck). */
  CK(cudaMemsetAsync(c->tiled.blobs, 0,
                     tile::max_components(width, height) * sizeof(GpucclBlob),
                     c->stream),
     "memset");
  return GPUCCL_OK;
}

static void close_ctx(CudaCtx *c)
{
  GpucclCudaScope scope(c->cu_context, c->device);
  if (c->stream)
    cudaStreamSynchronize(c->stream);
  free_size(c);
  tile::buffers_free(c->tiled, dev_free);
  dev_free(c->input);
  dev_free(c->forest_ws);
  gpuccl_cuda_draw_free(c->draw, dev_free);
  free_queries(c);
  dev_free(c->labels_d);
  pinned_free(c->labels_h);
  dev_free(c->intensity_d);
  dev_free(c->hist);
  dev_free(c->d_threshold);
  dev_free(c->header);
  pinned_free(c->header_h);
  pinned_free(c->done_h);
  pinned_free(c->blobs_h);
  pinned_free(c->values_h);
  pinned_free(c->h3_report);
  while (void *block = gpuccl_host_block_take(c))
    pinned_free(block);
  c->frame_graphs.clear();
  batch_graph_free(c);
  if (c->ev_batch)
    cudaEventDestroy(c->ev_batch);
  if (c->ev_start)
    cudaEventDestroy(c->ev_start);
  if (c->ev_stop)
    cudaEventDestroy(c->ev_stop);
  if (c->side_stream) {
    cudaStreamSynchronize(c->side_stream);
    cudaStreamDestroy(c->side_stream);
  }
  if (c->ev_side_done)
    cudaEventDestroy(c->ev_side_done);
  if (c->ev_upstream)
    cudaEventDestroy(c->ev_upstream);
  if (c->stream && c->own_stream)
    cudaStreamDestroy(c->stream);
  cudaGetLastError();
  delete c;
}

static GpucclStatus open_ctx(CudaCtx *c, GpucclContext *ctx, int device_id,
                             GpucclError *error)
{
  c->device = device_id;
  renew_buffers(c); /* another context's graphs never match */
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, device_id), "reading device properties");
  snprintf(ctx->device_name, sizeof ctx->device_name, "%.127s", prop.name);
  c->sm_count = prop.multiProcessorCount;
  c->integrated = prop.integrated != 0;
  c->stream = static_cast<cudaStream_t>(ctx->cuda_stream);
  c->own_stream = !c->stream;
  if (c->own_stream)
    CK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
       "creating a stream");
  CK(cudaEventCreate(&c->ev_start), "creating an event");
  CK(cudaEventCreate(&c->ev_stop), "creating an event");
  CK(cudaStreamCreateWithFlags(&c->side_stream, cudaStreamNonBlocking),
     "creating a stream");
  CK(cudaEventCreateWithFlags(&c->ev_side_done, cudaEventDisableTiming),
     "creating an event");
  CK(dev_alloc((void **)&c->hist, 256 * sizeof(uint32_t)), "allocation");
  CK(dev_alloc((void **)&c->d_threshold, sizeof(int)), "allocation");
  CK(dev_alloc((void **)&c->header, 3 * sizeof(uint32_t)), "allocation");
  CK(pinned_alloc((void **)&c->header_h, 3 * sizeof(uint32_t),
                  cudaHostAllocDefault),
     "pinned allocation");
  CK(pinned_alloc((void **)&c->done_h, sizeof *c->done_h,
                  cudaHostAllocDefault),
     "pinned allocation");
  CK(pinned_alloc((void **)&c->h3_report, sizeof *c->h3_report,
                  cudaHostAllocDefault),
     "pinned allocation");
  memset(c->h3_report, 0, sizeof *c->h3_report);
  CK(cudaMemsetAsync(c->hist, 0, 256 * sizeof(uint32_t), c->stream),
     "memset");
  c->copy_hint = 64;
  c->use_graph = gpuccl_cuda_graphs_on();
  return ensure_blobs_h(c, RECORDS_COPY_BLOBS, error);
}

static GpucclStatus cuda_open(GpucclContext *ctx, int device_id,
                              GpucclError *error)
{
  if (!ctx->cuda_context && !gpuccl_cuda_probe(device_id, error))
    return GPUCCL_ERROR_NO_DEVICE;
  CudaCtx *c = new (std::nothrow) CudaCtx();
  if (!c)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate the CUDA context");
  c->cu_context = ctx->cuda_context;
  GpucclStatus st = GPUCCL_OK;
  if (c->cu_context) {
    cudaError_t err = gpuccl_cuda_context_device(c->cu_context, &device_id);
    if (err != cudaSuccess)
      st = cuda_fail(c, error, err, "reading the CUDA context's device");
  }
  if (st == GPUCCL_OK)
    st = open_ctx(c, ctx, device_id, error);
  if (st != GPUCCL_OK) {
    close_ctx(c);
    return st;
  }
  ctx->priv = c;
  return GPUCCL_OK;
}

static void cuda_close(GpucclContext *ctx)
{
  if (ctx->priv)
    close_ctx(static_cast<CudaCtx *>(ctx->priv));
  ctx->priv = nullptr;
}

/* A background model: device memory of the context, zeroed once so that
 * no read of it is undefined (the first frame copies the image anyway). */
static void *cuda_model_alloc(GpucclContext *ctx, size_t bytes,
                              GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  void *p = nullptr;
  cudaError_t err = scope.err;
  if (err == cudaSuccess)
    err = dev_alloc(&p, bytes);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(p, 0, bytes, c->stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(c->stream);
  if (err != cudaSuccess) {
    dev_free(p);
    cuda_fail(c, error, err, "background model allocation");
    return nullptr;
  }
  return p;
}

static void cuda_model_free(GpucclContext *ctx, void *model)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  /* The last frame's kernels may still read it (a failed call returns
   * before its sync). */
  cudaStreamSynchronize(c->stream);
  dev_free(model);
  cudaGetLastError();
}

extern "C" const GpucclBackendOps gpuccl_cuda_ops = {
    GPUCCL_BACKEND_CUDA, cuda_open,          cuda_close,
    cuda_process,        cuda_draw,          cuda_process_draw,
    cuda_process_batch,  cuda_host_alloc,    cuda_host_free,
    cuda_model_alloc,    cuda_model_free,    cuda_mask_copy,
};
