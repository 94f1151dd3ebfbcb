/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend of gpuccl: HA4 (Hennequin et al. 2018) behind the C API.
 *
 * One context = one device, one non-blocking stream, and buffers allocated
 * once per image size (device arrays, pinned staging for the blob table and
 * labels); a frame of an already-seen size allocates nothing. A frame is:
 * upload (skipped for device or mapped memory), [Otsu], strip labeling,
 * border merging, root flags + CUB scan (dense ids in raster order),
 * features, [relabeling], blob count + CUB scan + blob scatter (area
 * filter, compaction), then one download of the table and one sync. The
 * HA4 kernels run as one CUDA graph, captured again only when the frame's
 * size, parameters or buffers change (GPUCCL_CUDA_GRAPH=0: kernel by
 * kernel).
 * max_blobs, when it cuts, sorts on the device after that sync.
 *
 * Every CUDA error becomes a GpucclStatus with a message; nothing aborts.
 * Allocations go through dev_alloc/pinned_alloc (counted, fault injection
 * GPUCCL_FAULT=alloc:N), launches and copies through LAUNCH
 * (GPUCCL_FAULT=launch:N). */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "../backend.h"
#include "../fault.h"
#include "cuda_binding.h"
#include "cuda_internal.h"
#include "draw_cuda.h"
#include "ha4_kernels.h"
#include "forest_kernels.h" /* BUF, BKE: own labeling, HA4 tail */
#include "host_memory.h"
#include "tiled_frame.h"     /* HA4: the tiled pipeline */

/* GPUCCL_ALGORITHM_DEFAULT: whichever HA4 variant was faster on the H100
 * (bench/README-gpu.md). Since strip labeling merges its tiles in shared
 * memory, the 32-pixel one (the paper's Alg. 3) wins the worst case over
 * the 1080p / 2048^2 / 4K grids with both connectivities (by 2-15 %; the
 * means are within 1 % at 2048^2 and 4K with 4-connectivity): the merges are
 * the cost, and a thread holding two pixels (Alg. 7) does its merges one
 * after the other with half as many warps in flight. */
static int default_pixels_per_thread(int connectivity)
{
  (void)connectivity;
  return 1;
}

static std::atomic<uint64_t> g_alloc_calls(0);

extern "C" uint64_t gpuccl_cuda_alloc_calls(void)
{
  return g_alloc_calls.load();
}

static cudaError_t dev_alloc(void **p, size_t bytes)
{
  *p = nullptr;
  if (gpuccl_fault_hit(GPUCCL_FAULT_ALLOC))
    return cudaErrorMemoryAllocation;
  g_alloc_calls++;
  return cudaMalloc(p, bytes ? bytes : 1);
}

static void dev_free(void *p)
{
  if (p) {
    g_alloc_calls++;
    cudaFree(p);
  }
}

static cudaError_t pinned_alloc(void **p, size_t bytes, unsigned flags)
{
  *p = nullptr;
  if (gpuccl_fault_hit(GPUCCL_FAULT_ALLOC))
    return cudaErrorMemoryAllocation;
  g_alloc_calls++;
  return cudaHostAlloc(p, bytes ? bytes : 1, flags);
}

static void pinned_free(void *p)
{
  if (p) {
    g_alloc_calls++;
    cudaFreeHost(p);
  }
}

/* What one captured frame depends on: the frame description (zero-filled,
 * so it compares bytewise), the parameters the kernels read and the
 * buffers they use. */
struct GraphKey {
  Ha4Frame f;
  int p;
  bool want_labels;
  uint64_t min_area, max_area;
  const void *labels_d, *L, *feat_area, *feat_value;
  bool tiled;    /* the tiled HA4 pipeline (tiled_frame.h) */
  tile::Frame tf; /* its frame, when tiled */
};

/* Component capacity a segments frame starts from (6.5 MB). */
#define SEGMENTS_FIRST_COMPONENTS 65536

struct CudaCtx {
  int device;
  /* The caller's CUcontext (gpuccl_context_new_cuda), current around each
   * call; NULL: the device's primary context. */
  void *cu_context;
  int sm_count;
  bool integrated;
  cudaStream_t stream;
  bool own_stream; /* else the caller's: not destroyed here */
  cudaEvent_t ev_start, ev_stop;
  /* The nearest-blob search runs here, beside the blob table's download
   * on `stream`, and joins it before the frame's sync (ev_searched). */
  cudaStream_t search_stream;
  cudaEvent_t ev_searched;
  bool timed; /* the events hold the last frame's kernels */

  /* Size-independent. */
  uint32_t *hist;     /* 256 bins, zero between frames */
  int *d_threshold;   /* Otsu's */
  uint32_t *header;   /* components, blobs, threshold */
  uint32_t *header_h; /* pinned */
  GpucclBlob *blobs_h; /* pinned, blobs_cap entries */
  size_t blobs_cap;
  uint32_t *values_h; /* segments mode: GpucclResult.values, pinned */
  size_t values_cap;
  size_t copy_hint; /* blobs fetched with the header; adapts to the scene */

  /* The frame's blob table on the device, whichever pipeline made it, and
   * how many blobs it can hold. */
  GpucclBlob *table;
  size_t table_cap;

  /* HA4: the tiled pipeline's buffers (per image size) and frame. */
  tile::Buffers tiled;
  tile::Frame tf;
  bool use_tiled; /* this frame runs it */

  /* Per image size, the other algorithms. */
  int width, height, pitch, words;
  size_t n_words, n_max;
  int n_tiles;
  uint32_t *L, *bits, *rootmask, *count, *offset;
  Ha4Features feat;
  uint32_t *tile_count, *tile_offset;
  GpucclBlob *out;
  void *temp; /* the id scan's (per size) */
  size_t temp_bytes;
  void *tile_temp; /* the blob scan's (per component capacity) */
  size_t tile_temp_bytes;
  bool dirty; /* accumulators may hold a failed frame's sums */

  /* Grown on demand. */
  uint8_t *input;
  size_t input_bytes;
  uint32_t *labels_d, *labels_h;
  size_t labels_n;

  /* max_blobs selection, allocated at first use for the size. */
  uint64_t *keys, *keys_sorted;
  uint8_t *flags;
  GpucclBlob *selected;
  uint32_t *n_selected;
  void *sel_temp;
  bool selection_ready; /* every selection buffer above is allocated */
  size_t sel_cap;       /* for a table of this many blobs */
  size_t sel_temp_bytes;

  void *forest_ws; /* BUF/BKE forest, grown on demand (forest_kernels.h) */
  size_t forest_ws_bytes;

  GpucclCudaDraw *draw; /* overlay buffers, created at the first draw */

  /* Query points (x then y) and their nearest blobs, grown on demand, in
   * pinned mapped host memory: the search reads and writes them in place,
   * so a frame with queries queues no extra copy (each small copy costs
   * the stream a bus round trip). *_dev: the device's view. */
  float *query_h, *query_dev;
  GpucclNearest *nearest_h, *nearest_dev;
  size_t queries_cap;

  /* The HA4 frame as one CUDA graph: launching ~10 kernels one by one
   * costs the host a few µs each, and on light images the GPU waits for
   * them. Captured for one (frame, parameters, buffers) key, re-captured
   * (and updated in place) when the key changes. */
  bool use_graph;
  cudaGraphExec_t graph_exec;
  GraphKey graph_key;
  bool graph_valid;       /* graph_exec runs graph_key's frame */
  bool graph_valid_shape; /* graph_exec is an instance of graph_key's shape */
};

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

static GpucclStatus cuda_fail(CudaCtx *c, GpucclError *error, cudaError_t err,
                              const char *what)
{
  if (c)
    c->dirty = true;
  cudaGetLastError(); /* clear it unless sticky */
  return gpuccl_set_error(error, status_of(err), "CUDA: %s failed: %s (%s)",
                          what, cudaGetErrorName(err), cudaGetErrorString(err));
}

#define CK(expr, what)                                                        \
  do {                                                                        \
    cudaError_t err_ = (expr);                                                \
    if (err_ != cudaSuccess)                                                  \
      return cuda_fail(c, error, err_, what);                                 \
  } while (0)

/* Kernel launches and copies: a fault-injection point each. */
#define LAUNCH(expr, what)                                                    \
  do {                                                                        \
    if (gpuccl_fault_hit(GPUCCL_FAULT_LAUNCH)) {                              \
      c->dirty = true;                                                        \
      return gpuccl_set_error(error, GPUCCL_ERROR_DEVICE,                     \
                              "CUDA: %s failed: injected fault", what);       \
    }                                                                         \
    CK(expr, what);                                                           \
  } while (0)

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
  c->graph_valid = false; /* it holds the freed buffers */
  free_selection(c);      /* sized for the old capacity */
}

static void free_size(CudaCtx *c)
{
  free_components(c);
  void *bufs[] = {c->L, c->bits, c->rootmask, c->count, c->offset, c->temp};
  for (void *p : bufs)
    dev_free(p);
  c->L = c->bits = c->rootmask = c->count = c->offset = nullptr;
  c->feat.value = nullptr;
  c->temp = nullptr;
  c->temp_bytes = 0;
  c->width = c->height = 0;
}

/* The per-component buffers (features, blob table, blob scan) for n
 * components, grown only: binary frames ask for the worst case before the
 * frame (the graph needs it), segments frames for the count their id scan
 * found (cuda_process). */
static GpucclStatus ensure_components(CudaCtx *c, size_t n, GpucclError *error)
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

/* Buffers for a width x height image; nothing happens when they exist. */
static GpucclStatus ensure_size(CudaCtx *c, int width, int height,
                                GpucclError *error)
{
  if (c->width == width && c->height == height)
    return GPUCCL_OK;
  free_size(c);
  const int pitch = (width + 63) & ~63;
  const size_t n_words = (size_t)height * (pitch / 32);
  const size_t u32 = sizeof(uint32_t);

  CK(dev_alloc((void **)&c->L, (size_t)height * pitch * u32), "allocation");
  CK(dev_alloc((void **)&c->bits, n_words * u32), "allocation");
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
  c->pitch = pitch;
  c->words = pitch / 32;
  c->n_words = n_words;
  return GPUCCL_OK;
}

static GpucclStatus clear_features(CudaCtx *c, GpucclError *error)
{
  const size_t n = c->n_max;
  void *u32s[] = {c->feat.area, c->feat.max_x, c->feat.inv_min_x,
                  c->feat.max_y, c->feat.first_y};
  for (void *p : u32s)
    LAUNCH(cudaMemsetAsync(p, 0, n * sizeof(uint32_t), c->stream), "memset");
  LAUNCH(cudaMemsetAsync(c->feat.sum_x, 0, n * 8, c->stream), "memset");
  LAUNCH(cudaMemsetAsync(c->feat.sum_y, 0, n * 8, c->stream), "memset");
  c->dirty = false;
  return GPUCCL_OK;
}

static GpucclStatus ensure_input(CudaCtx *c, size_t bytes, GpucclError *error)
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
static GpucclStatus ensure_forest(CudaCtx *c, const GpucclParams *params,
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

static GpucclStatus ensure_labels(CudaCtx *c, size_t n, GpucclError *error)
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
static GpucclStatus ensure_pinned(CudaCtx *c, void **buf, size_t *cap_out,
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

static GpucclStatus ensure_blobs_h(CudaCtx *c, size_t n, GpucclError *error)
{
  return ensure_pinned(c, (void **)&c->blobs_h, &c->blobs_cap, n,
                       sizeof(GpucclBlob), error);
}

/* Segments mode: each blob's value, gathered by id from the components'
 * values (feat.value, which the frame leaves on the device). */
static GpucclStatus fetch_values(CudaCtx *c, uint32_t n_components,
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

static void free_queries(CudaCtx *c)
{
  pinned_free(c->query_h);
  pinned_free(c->nearest_h);
  c->query_h = c->query_dev = nullptr;
  c->nearest_h = c->nearest_dev = nullptr;
  c->queries_cap = 0;
}

static GpucclStatus ensure_queries(CudaCtx *c, size_t n, GpucclError *error)
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

/* Once the blob table is made (ev_stop): the query points' nearest
 * blobs, on the search stream, read from and written to host memory by
 * the search itself. join_nearest makes the frame's sync wait for it. */
static GpucclStatus enqueue_nearest(CudaCtx *c,
                                    const GpucclNearestRequest *request,
                                    GpucclError *error)
{
  const size_t n = request->n;
  GpucclStatus st = ensure_queries(c, n, error);
  if (st != GPUCCL_OK)
    return st;
  memcpy(c->query_h, request->x, n * sizeof(float));
  memcpy(c->query_h + n, request->y, n * sizeof(float));
  CK(cudaStreamWaitEvent(c->search_stream, c->ev_stop, 0), "stream wait");
  LAUNCH(ha4_launch_nearest_blobs(c->table, c->header + 1, c->query_dev,
                                  c->query_dev + n, (uint32_t)n,
                                  c->nearest_dev, c->search_stream),
         "nearest blobs");
  CK(cudaEventRecord(c->ev_searched, c->search_stream), "event record");
  return GPUCCL_OK;
}

static GpucclStatus join_nearest(CudaCtx *c, GpucclError *error)
{
  CK(cudaStreamWaitEvent(c->stream, c->ev_searched, 0), "stream wait");
  return GPUCCL_OK;
}

/* One download (header, the blobs likely there, labels), queued beside
 * the search. */
static GpucclStatus enqueue_downloads(CudaCtx *c, const GpucclParams *params,
                                      size_t fetched, size_t n_pixels,
                                      GpucclError *error)
{
  LAUNCH(cudaMemcpyAsync(c->header_h, c->header, 3 * sizeof(uint32_t),
                         cudaMemcpyDeviceToHost, c->stream),
         "header download");
  LAUNCH(cudaMemcpyAsync(c->blobs_h, c->table, fetched * sizeof(GpucclBlob),
                         cudaMemcpyDeviceToHost, c->stream),
         "blob table download");
  if (params->want_labels)
    LAUNCH(cudaMemcpyAsync(c->labels_h, c->labels_d,
                           n_pixels * sizeof(uint32_t),
                           cudaMemcpyDeviceToHost, c->stream),
           "label download");
  return GPUCCL_OK;
}

static GpucclStatus ensure_selection(CudaCtx *c, GpucclError *error)
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
  dev_free(c->hist);
  dev_free(c->d_threshold);
  dev_free(c->header);
  pinned_free(c->header_h);
  pinned_free(c->blobs_h);
  pinned_free(c->values_h);
  while (void *block = gpuccl_host_block_take(c))
    pinned_free(block);
  if (c->graph_exec)
    cudaGraphExecDestroy(c->graph_exec);
  if (c->ev_start)
    cudaEventDestroy(c->ev_start);
  if (c->ev_stop)
    cudaEventDestroy(c->ev_stop);
  if (c->search_stream) {
    cudaStreamSynchronize(c->search_stream);
    cudaStreamDestroy(c->search_stream);
  }
  if (c->ev_searched)
    cudaEventDestroy(c->ev_searched);
  if (c->stream && c->own_stream)
    cudaStreamDestroy(c->stream);
  cudaGetLastError();
  delete c;
}

static GpucclStatus open_ctx(CudaCtx *c, GpucclContext *ctx, int device_id,
                             GpucclError *error)
{
  c->device = device_id;
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
  CK(cudaStreamCreateWithFlags(&c->search_stream, cudaStreamNonBlocking),
     "creating a stream");
  CK(cudaEventCreateWithFlags(&c->ev_searched, cudaEventDisableTiming),
     "creating an event");
  CK(dev_alloc((void **)&c->hist, 256 * sizeof(uint32_t)), "allocation");
  CK(dev_alloc((void **)&c->d_threshold, sizeof(int)), "allocation");
  CK(dev_alloc((void **)&c->header, 3 * sizeof(uint32_t)), "allocation");
  CK(pinned_alloc((void **)&c->header_h, 3 * sizeof(uint32_t),
                  cudaHostAllocDefault),
     "pinned allocation");
  CK(cudaMemsetAsync(c->hist, 0, 256 * sizeof(uint32_t), c->stream),
     "memset");
  c->copy_hint = 64;
  /* GPUCCL_CUDA_GRAPH=0: launch kernel by kernel (to measure the graph's
   * gain, or to rule it out). */
  const char *g = getenv("GPUCCL_CUDA_GRAPH");
  c->use_graph = !(g && strcmp(g, "0") == 0);
  return ensure_blobs_h(c, 1024, error);
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

static size_t pixel_bytes(GpucclPixelFormat f)
{
  return f == GPUCCL_PIXEL_U16 ? 2 : f == GPUCCL_PIXEL_PACKED4 ? 4 : 1;
}

/* Where the kernels read the image: device memory and mapped blocks of
 * gpuccl_host_alloc (any context's, host_memory.h) in place, anything else
 * through one copy into the input buffer. */
static GpucclStatus place_input(CudaCtx *c, const GpucclImage *image,
                                Ha4Frame *f, GpucclError *error)
{
  const size_t row_bytes = (size_t)image->width * pixel_bytes(image->format);
  const uint8_t *mapped = nullptr;
  const bool pinned = gpuccl_host_block_find(image->data, &mapped);
  if (mapped) {
    f->image = mapped;
    f->stride = image->stride;
    return GPUCCL_OK;
  }
  if (!pinned) {
    cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, image->data);
    if (err != cudaSuccess)
      cudaGetLastError(); /* plain host memory on old runtimes */
    else if (attr.type == cudaMemoryTypeDevice ||
             attr.type == cudaMemoryTypeManaged) {
      f->image = static_cast<const uint8_t *>(attr.devicePointer);
      f->stride = image->stride;
      return GPUCCL_OK;
    }
  }
  GpucclStatus st = ensure_input(c, row_bytes * image->height, error);
  if (st != GPUCCL_OK)
    return st;
  LAUNCH(cudaMemcpy2DAsync(c->input, row_bytes, image->data, image->stride,
                           row_bytes, image->height, cudaMemcpyHostToDevice,
                           c->stream),
         "image upload");
  gpuccl_cuda_count_frame_upload();
  f->image = c->input;
  f->stride = row_bytes;
  return GPUCCL_OK;
}

/* max_blobs cut the table: keep the strongest max_blobs on the device (the
 * order of kernels/blob_select.c), still in increasing id. */
static GpucclStatus select_largest(CudaCtx *c, size_t n, uint32_t k,
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

/* A frame's kernels up to the component count (offset[n_words]). */
static GpucclStatus enqueue_labeling(CudaCtx *c, const Ha4Frame &f,
                                     const GpucclParams *params, int p,
                                     GpucclError *error)
{
  if (f.d_threshold)
    LAUNCH(ha4_launch_otsu(f, c->hist, c->d_threshold, c->sm_count, c->stream),
           "Otsu threshold");
  if (gpuccl_forest_algorithm(params->algorithm)) {
    LAUNCH(gpuccl_forest_launch_labeling(f, params->algorithm, c->forest_ws,
                                         c->stream),
           "labeling");
  } else {
    LAUNCH(ha4_launch_strip_labeling(f, p, c->stream), "strip labeling");
    LAUNCH(ha4_launch_border_merging(f, c->sm_count, c->stream),
           "border merging");
  }
  LAUNCH(ha4_launch_root_flags(f, c->rootmask, c->count, c->stream),
         "root flags");
  size_t bytes = c->temp_bytes;
  LAUNCH(cub::DeviceScan::ExclusiveSum(c->temp, bytes, c->count, c->offset,
                                       (int)(c->n_words + 1), c->stream),
         "id scan");
  return GPUCCL_OK;
}

/* The rest of the frame: features, labels, blob table. */
static GpucclStatus enqueue_analysis(CudaCtx *c, const Ha4Frame &f,
                                     const GpucclParams *params, int p,
                                     GpucclError *error)
{
  if (c->feat.value) /* segments mode: each component's value */
    LAUNCH(forest_launch_segment_values(f, c->offset, c->rootmask,
                                        c->feat.value, c->stream),
           "segment values");
  LAUNCH(ha4_launch_features(f, p, c->offset, c->rootmask, c->feat, c->stream),
         "features");
  if (params->want_labels)
    LAUNCH(ha4_launch_relabeling(f, p, c->offset, c->rootmask, c->labels_d,
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

/* The kernels of one frame, in order, on the context's stream. */
static GpucclStatus enqueue_kernels(CudaCtx *c, const Ha4Frame &f,
                                    const GpucclParams *params, int p,
                                    GpucclError *error)
{
  if (c->use_tiled) {
    if (f.d_threshold)
      LAUNCH(ha4_launch_otsu(f, c->hist, c->d_threshold, c->sm_count,
                             c->stream),
             "Otsu threshold");
    LAUNCH(tile::enqueue_frame(c->tiled, c->tf,
                               params->want_labels ? c->labels_d : nullptr,
                               c->stream),
           "tiled HA4");
    return GPUCCL_OK;
  }
  GpucclStatus st = enqueue_labeling(c, f, params, p, error);
  return st != GPUCCL_OK ? st : enqueue_analysis(c, f, params, p, error);
}

/* Segments mode can have a component per pixel (a 2 x 2 tiling of four
 * values), ~100 bytes each for features and table: 420 MB at 2048 x 2048
 * where a class map has a few hundred. So its frame stops after the id
 * scan, reads the count and sizes the component buffers for it. Not
 * graphed (Stava-Benes is a forest algorithm), so the sync costs no graph. */
static GpucclStatus enqueue_counted(CudaCtx *c, const Ha4Frame &f,
                                    const GpucclParams *params, int p,
                                    GpucclError *error)
{
  GpucclStatus st = enqueue_labeling(c, f, params, p, error);
  if (st != GPUCCL_OK)
    return st;
  LAUNCH(cudaMemcpyAsync(c->header_h, c->offset + c->n_words,
                         sizeof(uint32_t), cudaMemcpyDeviceToHost, c->stream),
         "component count download");
  CK(cudaStreamSynchronize(c->stream), "component count");
  st = ensure_components(c, c->header_h[0], error);
  if (st == GPUCCL_OK && c->dirty)
    st = clear_features(c, error);
  return st != GPUCCL_OK ? st : enqueue_analysis(c, f, params, p, error);
}

static GraphKey graph_key_of(const CudaCtx *c, const Ha4Frame &f,
                             const GpucclParams *params, int p)
{
  GraphKey k;
  memset(&k, 0, sizeof k);
  k.f = f;
  k.p = p;
  k.want_labels = params->want_labels;
  k.min_area = params->min_area;
  k.max_area = params->max_area;
  k.labels_d = c->labels_d;
  k.L = c->L;
  k.feat_area = c->feat.area;
  k.feat_value = c->feat.value;
  k.tiled = c->use_tiled;
  if (k.tiled)
    memcpy(&k.tf, &c->tf, sizeof k.tf);
  return k;
}

/* Same kernels in the same order, with the same launch shapes. */
static bool same_shape(const GraphKey &a, const GraphKey &b)
{
  return a.tiled == b.tiled && a.f.width == b.f.width &&
         a.f.height == b.f.height &&
         a.f.format == b.f.format && a.p == b.p &&
         (a.f.d_threshold != nullptr) == (b.f.d_threshold != nullptr) &&
         a.want_labels == b.want_labels &&
         (a.feat_value != nullptr) == (b.feat_value != nullptr);
}

/* Captures the frame's kernels into c->graph_exec: updated in place when
 * the topology is unchanged (new pointers or parameters), else
 * re-instantiated. A failure leaves no graph and the stream out of
 * capture. */
static GpucclStatus capture_graph(CudaCtx *c, const Ha4Frame &f,
                                  const GpucclParams *params, int p,
                                  const GraphKey &key, GpucclError *error)
{
  c->graph_valid = false;
  CK(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal),
     "graph capture");
  GpucclStatus st = enqueue_kernels(c, f, params, p, error);
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(c->stream, &graph);
  if (st != GPUCCL_OK || err != cudaSuccess) {
    if (graph)
      cudaGraphDestroy(graph);
    if (st != GPUCCL_OK)
      return st;
    return cuda_fail(c, error, err, "graph capture");
  }
  /* An update keeps the instantiated graph when only pointers and
   * parameters moved; a different kernel sequence (Otsu, relabeling,
   * variant, format, size) cannot be updated: instantiate afresh rather
   * than fail an update (compute-sanitizer reports failed API calls). */
  bool updated = false;
  if (c->graph_exec && c->graph_valid_shape && same_shape(key, c->graph_key)) {
    cudaGraphExecUpdateResultInfo info;
    updated = cudaGraphExecUpdate(c->graph_exec, graph, &info) == cudaSuccess;
    if (!updated)
      cudaGetLastError();
  }
  if (!updated) {
    if (c->graph_exec)
      cudaGraphExecDestroy(c->graph_exec);
    c->graph_exec = nullptr;
    c->graph_valid_shape = false;
    err = cudaGraphInstantiate(&c->graph_exec, graph, 0);
  }
  cudaGraphDestroy(graph);
  if (err != cudaSuccess) {
    c->graph_exec = nullptr;
    return cuda_fail(c, error, err, "graph instantiation");
  }
  c->graph_key = key;
  c->graph_valid = true;
  c->graph_valid_shape = true;
  return GPUCCL_OK;
}

/* One frame's kernels between the timing events: HA4 as a graph, the
 * forest algorithms (which read a convergence flag on the host between
 * passes) kernel by kernel. */
static GpucclStatus run_kernels(CudaCtx *c, const Ha4Frame &f,
                                const GpucclParams *params, int p,
                                GpucclError *error)
{
  /* Segments frames (cuts) size their component buffers mid-frame
   * (enqueue_counted), which a graph cannot. */
  const bool graph = c->use_graph && !f.cuts &&
                     !gpuccl_forest_algorithm(params->algorithm);
  if (graph) {
    const GraphKey key = graph_key_of(c, f, params, p);
    if (!c->graph_valid || memcmp(&key, &c->graph_key, sizeof key) != 0) {
      GpucclStatus st = capture_graph(c, f, params, p, key, error);
      if (st != GPUCCL_OK)
        return st;
    }
  }
  LAUNCH(cudaEventRecord(c->ev_start, c->stream), "event record");
  if (graph) {
    LAUNCH(cudaGraphLaunch(c->graph_exec, c->stream), "graph launch");
  } else {
    GpucclStatus st = f.cuts ? enqueue_counted(c, f, params, p, error)
                             : enqueue_kernels(c, f, params, p, error);
    if (st != GPUCCL_OK)
      return st;
  }
  LAUNCH(cudaEventRecord(c->ev_stop, c->stream), "event record");
  return GPUCCL_OK;
}

/* HA4 (the default algorithm too) in binary mode: the tiled pipeline. */
static bool tiled_algorithm(const GpucclParams *params)
{
  return params->mode == GPUCCL_MODE_BINARY &&
         (params->algorithm == GPUCCL_ALGORITHM_DEFAULT ||
          params->algorithm == GPUCCL_ALGORITHM_HA4);
}

static GpucclStatus ensure_tiled(CudaCtx *c, int width, int height,
                                 GpucclError *error)
{
  if (c->tiled.width == width && c->tiled.height == height)
    return GPUCCL_OK;
  c->graph_valid = false; /* it holds the old buffers */
  tile::buffers_free(c->tiled, dev_free);
  const cudaError_t err = tile::buffers_alloc(c->tiled, width, height,
                                              dev_alloc);
  if (err != cudaSuccess) {
    tile::buffers_free(c->tiled, dev_free);
    return cuda_fail(c, error, err, "allocation");
  }
  return GPUCCL_OK;
}

/* The tiled pipeline's frame: its buffers, the image and binarisation of
 * f, the area filter (areas fit 32 bits: a larger bound is no bound, a
 * larger minimum passes nothing), the context's header. Zero-filled
 * first: the graph key compares bytes. */
static void set_tiled_frame(CudaCtx *c, const Ha4Frame &f,
                            const GpucclParams *params)
{
  tile::Frame &tf = c->tf;
  memcpy(&tf, &c->tiled.frame, sizeof tf);
  tile::Image &im = tf.image;
  im.data = f.image;
  im.stride = f.stride;
  im.width = f.width;
  im.height = f.height;
  im.format = f.format;
  im.threshold = f.threshold;
  im.d_threshold = f.d_threshold;
  im.invert = f.invert;
  im.luma = f.luma;
  im.channel_offset = f.channel_offset;
  im.off_r = f.off_r;
  im.off_g = f.off_g;
  im.off_b = f.off_b;
  tf.filter.min_area = (uint32_t)(params->min_area < UINT32_MAX
                                      ? params->min_area
                                      : UINT32_MAX);
  tf.filter.max_area = (uint32_t)(params->max_area < UINT32_MAX
                                      ? params->max_area
                                      : 0);
  tf.conn8 = f.conn8;
  tf.header = c->header;
}

static GpucclStatus cuda_process(GpucclContext *ctx, const GpucclImage *image,
                                 const GpucclParams *params,
                                 GpucclResult *result, GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  c->timed = false;
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  /* Segments mode runs Stava and Benes with its own parameters. */
  const bool segments = params->mode == GPUCCL_MODE_SEGMENTS;
  GpucclParams seg_params;
  if (segments) {
    GpucclStatus st = gpuccl_forest_segments_params(params, &seg_params, error);
    if (st != GPUCCL_OK)
      return st;
    params = &seg_params;
  }
  const size_t n_pixels = (size_t)image->width * image->height;
  c->use_tiled = tiled_algorithm(params);
  GpucclStatus st = GPUCCL_OK;
  if (c->use_tiled) {
    st = ensure_tiled(c, image->width, image->height, error);
  } else {
    st = ensure_size(c, image->width, image->height, error);
    /* Binary: the most components an image can hold, a 4-connected
     * checkerboard, before the frame; segments: a start, then what the
     * frame counts (enqueue_counted). */
    if (st == GPUCCL_OK)
      st = ensure_components(c, segments ? SEGMENTS_FIRST_COMPONENTS
                                         : (n_pixels + 1) / 2,
                             error);
  }
  if (st == GPUCCL_OK && params->want_labels)
    st = ensure_labels(c, n_pixels, error);
  if (st == GPUCCL_OK && gpuccl_forest_algorithm(params->algorithm))
    st = ensure_forest(c, params, image->width, image->height, error);
  if (st == GPUCCL_OK && !c->use_tiled && c->dirty)
    st = clear_features(c, error);
  if (st != GPUCCL_OK)
    return st;

  Ha4Frame f;
  memset(&f, 0, sizeof f); /* padding too: the graph key compares bytes */
  st = place_input(c, image, &f, error);
  if (st != GPUCCL_OK)
    return st;
  f.width = image->width;
  f.height = image->height;
  f.pitch = c->pitch;
  f.words = c->words;
  f.L = c->L;
  f.bits = c->bits;
  const ForestSegments seg = gpuccl_forest_segments(
      params, c->forest_ws, image->width, image->height);
  f.cuts = seg.cuts;
  c->feat.value = seg.values;
  f.threshold = params->threshold;
  f.d_threshold =
      params->auto_threshold == GPUCCL_AUTO_THRESHOLD_OTSU ? c->d_threshold
                                                           : nullptr;
  f.invert = params->invert;
  f.conn8 = params->connectivity == 8;
  f.format = image->format;
  f.luma = params->channel == GPUCCL_CHANNEL_LUMA;
  f.off_r = image->offset_r;
  f.off_g = image->offset_g;
  f.off_b = image->offset_b;
  f.channel_offset = params->channel == GPUCCL_CHANNEL_RED     ? image->offset_r
                     : params->channel == GPUCCL_CHANNEL_GREEN ? image->offset_g
                                                               : image->offset_b;
  const int p = segments                                      ? 1 /* cuts */
                : params->algorithm == GPUCCL_ALGORITHM_HA4_64 ? 2
                : params->algorithm == GPUCCL_ALGORITHM_HA4  ? 1
                : default_pixels_per_thread(params->connectivity);

  if (c->use_tiled) {
    set_tiled_frame(c, f, params);
    c->table = c->tiled.blobs;
    c->table_cap = tile::max_components(image->width, image->height);
  } else {
    c->table = c->out;
    c->table_cap = c->n_max;
  }

  st = run_kernels(c, f, params, p, error);
  if (st != GPUCCL_OK)
    return st;
  GpucclNearestRequest *const request = params->nearest;
  const bool search = request && request->n != 0;
  if (search)
    st = enqueue_nearest(c, request, error);

  /* The downloads, the join (also after a failure: the search must not
   * outlive the frame), one sync. */
  size_t fetched = c->copy_hint < c->blobs_cap ? c->copy_hint : c->blobs_cap;
  if (fetched > c->table_cap)
    fetched = c->table_cap;
  if (st == GPUCCL_OK)
    st = enqueue_downloads(c, params, fetched, n_pixels, error);
  if (search) {
    GpucclStatus joined = join_nearest(c, st == GPUCCL_OK ? error : nullptr);
    st = st == GPUCCL_OK ? joined : st;
  }
  if (st != GPUCCL_OK)
    return st;
  CK(cudaStreamSynchronize(c->stream), "frame");
  c->timed = true;

  const uint32_t n_components = c->header_h[0];
  size_t n_blobs = c->header_h[1];
  c->copy_hint = 2 * n_blobs + 64;
  /* The nearest blobs index the whole table: not the selection. */
  const bool selecting = params->max_blobs && n_blobs > params->max_blobs;
  const bool searched = search && !selecting &&
                        (uint64_t)request->n * n_blobs <=
                            GPUCCL_NEAREST_MAX_PAIRS;
  if (selecting) {
    st = select_largest(c, n_blobs, params->max_blobs, error);
    if (st != GPUCCL_OK)
      return st;
    n_blobs = params->max_blobs;
  } else if (n_blobs > fetched) {
    st = ensure_blobs_h(c, n_blobs, error);
    if (st != GPUCCL_OK)
      return st;
    LAUNCH(cudaMemcpyAsync(c->blobs_h, c->table, n_blobs * sizeof(GpucclBlob),
                           cudaMemcpyDeviceToHost, c->stream),
           "blob table download");
    CK(cudaStreamSynchronize(c->stream), "blob table download");
  }
  if (c->feat.value) {
    st = fetch_values(c, n_components, n_blobs, error);
    if (st != GPUCCL_OK)
      return st;
  }

  result->width = image->width;
  result->height = image->height;
  result->n_components = n_components;
  result->n_blobs = n_blobs;
  result->blobs = c->blobs_h;
  result->threshold = (int)c->header_h[2];
  result->values = c->feat.value ? c->values_h : nullptr;
  result->labels = params->want_labels ? c->labels_h : nullptr;
  if (searched)
    request->answers = c->nearest_h;
  return GPUCCL_OK;
}

extern "C" float gpuccl_cuda_kernel_ms(GpucclContext *ctx)
{
  if (!ctx || ctx->ops != &gpuccl_cuda_ops || !ctx->priv)
    return -1.0f;
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  float ms = -1.0f;
  if (scope.err != cudaSuccess || !c->timed ||
      cudaEventElapsedTime(&ms, c->ev_start, c->ev_stop) != cudaSuccess) {
    cudaGetLastError();
    return -1.0f;
  }
  return ms;
}

static GpucclStatus cuda_draw(GpucclContext *ctx, const GpucclFrame *frame,
                              const GpucclDrawParams *params,
                              GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  const GpucclCudaDrawEnv env = {c->stream, c->labels_d, dev_alloc, dev_free};
  return gpuccl_cuda_draw(&c->draw, &env, &ctx->last, frame, params, error);
}

/* Pinned portable, so that a context of another CUDA context (an
 * allocator's beside a labeling one) may read it too; recorded
 * process-wide (host_memory.h). */
static void *cuda_host_alloc(GpucclContext *ctx, size_t size,
                             GpucclMemory memory, GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  if (memory == GPUCCL_MEMORY_AUTO)
    memory = c->integrated ? GPUCCL_MEMORY_MAPPED : GPUCCL_MEMORY_COPY;
  const bool mapped = memory == GPUCCL_MEMORY_MAPPED;
  uint8_t *ptr = nullptr, *dev = nullptr;
  GpucclCudaScope scope(c->cu_context, c->device);
  cudaError_t err = scope.err;
  if (err == cudaSuccess)
    err = pinned_alloc((void **)&ptr, size,
                       cudaHostAllocPortable |
                           (mapped ? cudaHostAllocMapped : 0u));
  if (err == cudaSuccess && mapped)
    err = cudaHostGetDevicePointer((void **)&dev, ptr, 0);
  if (err == cudaSuccess && !gpuccl_host_block_add(c, ptr, size, dev))
    err = cudaErrorMemoryAllocation;
  if (err != cudaSuccess) {
    pinned_free(ptr);
    cuda_fail(nullptr, error, err, "pinned host allocation");
    return nullptr;
  }
  return ptr;
}

static void cuda_host_free(GpucclContext *ctx, void *ptr)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  if (!gpuccl_host_block_remove(c, ptr))
    return;
  GpucclCudaScope scope(c->cu_context, c->device);
  /* A frame may still read it in place. */
  cudaStreamSynchronize(c->stream);
  pinned_free(ptr);
}

extern "C" const GpucclBackendOps gpuccl_cuda_ops = {
    GPUCCL_BACKEND_CUDA, cuda_open,       cuda_close,     cuda_process,
    cuda_draw,           cuda_host_alloc, cuda_host_free,
};
