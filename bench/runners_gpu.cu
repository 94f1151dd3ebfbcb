/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU runners of gpuccl-bench (see bench.h): libgpuccl's CUDA backend and
 * NVIDIA NPP side by side, on the same images in the same run.
 *
 *  cuda-ha4[-64]-dev   image already on the device; wall = gpuccl_process
 *                      (kernels + blob table download + sync), device =
 *                      kernel time from CUDA events (first kernel to last)
 *  cuda-ha4-draw-dev   cuda-ha4-dev, and boxes and crosses drawn into an NV12
 *                      frame on the device by the same call
 *                      (gpuccl_process_draw); wall = the call
 *  cuda-ha4-draw2-dev  the same as two calls, gpuccl_process then
 *                      gpuccl_draw (a second launch and wait)
 *  cuda-ha4-host       end to end: pageable host image -> blob table on host
 *  cuda-ha4-pinned     end to end from gpuccl_host_alloc(COPY) memory
 *  copies-pinned       the copies alone that cuda-ha4-pinned makes: the
 *                      image up from pinned memory, the blob table (32
 *                      bytes a blob, and the header) down, with
 *                      cudaMemcpyAsync and one sync; the yardstick of the
 *                      end-to-end goal
 *  npp-label+compress  nppiLabelMarkersUF_8u32u_C1R_Ctx then
 *                      nppiCompressMarkerLabelsUF_32u_C1IR_Ctx (labels only,
 *                      no features), device time from CUDA events
 *  npp-label           nppiLabelMarkersUF_8u32u_C1R_Ctx alone
 *
 * NPP is loaded with dlopen (libnppif.so.13 / libnppc.so.13): the
 * development machine has none, and then the NPP runners are skipped.
 * NPP's counts are reported but not compared with ours (own_count): the
 * compress step numbers every region of one value, the background's too;
 * label alone leaves sparse label values (not 1..N), so its count is the
 * number of distinct labels over the foreground, taken once per image
 * outside the timed run (sort, then count the first of each run of equal
 * keys). */
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

extern "C" {
#include "bench.h"
#include "gpuccl.h"
#include "cuda/cuda_internal.h"
}

/* ---- libgpuccl's CUDA backend ---- */

namespace {

enum Input { ON_DEVICE, HOST_PAGEABLE, HOST_PINNED };

struct GpuRunner {
  GpucclContext *ctx;
  GpucclParams params;
  GpucclImage image;
  Input input;
  void *buffer; /* device or pinned copy of the image */
  size_t buffer_size;
};

void *gpu_open(const BenchSetup *setup, Input input, GpucclAlgorithm alg,
               char *why, size_t why_size)
{
  GpucclError err = {};
  GpuRunner *r = new GpuRunner();
  r->ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &err);
  if (!r->ctx) {
    snprintf(why, why_size, "%s", err.message);
    delete r;
    return nullptr;
  }
  gpuccl_cuda_time_kernels(r->ctx, true); /* the device time reported */
  gpuccl_params_init(&r->params);
  r->params.connectivity = setup->connectivity;
  r->params.algorithm = alg;
  r->input = input;
  r->buffer_size = (size_t)setup->width * setup->height;
  cudaError_t e = cudaSuccess;
  if (input == ON_DEVICE)
    e = cudaMalloc(&r->buffer, r->buffer_size);
  else if (input == HOST_PINNED)
    r->buffer = gpuccl_host_alloc(r->ctx, r->buffer_size, GPUCCL_MEMORY_COPY,
                                  &err);
  if (e != cudaSuccess || (input != HOST_PAGEABLE && !r->buffer)) {
    snprintf(why, why_size, "input buffer: %s",
             e != cudaSuccess ? cudaGetErrorString(e) : err.message);
    gpuccl_context_free(r->ctx);
    delete r;
    return nullptr;
  }
  return r;
}

int gpu_prepare(void *state, const uint8_t *data, int width, int height,
                size_t stride)
{
  GpuRunner *r = static_cast<GpuRunner *>(state);
  const void *src = data;
  if (r->input != HOST_PAGEABLE) {
    if ((size_t)width * height > r->buffer_size)
      return -1;
    /* A copy from pageable memory may return before the DMA lands, and
     * the library's streams do not wait for the legacy one: wait here. */
    cudaError_t e = cudaMemcpy2D(r->buffer, width, data, stride, width, height,
                                 cudaMemcpyDefault);
    if (e == cudaSuccess)
      e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
      return -1;
    src = r->buffer;
    stride = width;
  }
  r->image = GpucclImage{src, width, height, stride, GPUCCL_PIXEL_U8, 0, 0, 0};
  return 0;
}

long gpu_run(void *state)
{
  GpuRunner *r = static_cast<GpuRunner *>(state);
  GpucclResult res;
  GpucclError err = {};
  if (gpuccl_process(r->ctx, &r->image, &r->params, &res, &err) != GPUCCL_OK) {
    fprintf(stderr, "cuda runner: %s\n", err.message);
    return -1;
  }
  return (long)res.n_components;
}

double gpu_device_ms(void *state)
{
  return gpuccl_cuda_kernel_ms(static_cast<GpuRunner *>(state)->ctx);
}

void gpu_close(void *state)
{
  GpuRunner *r = static_cast<GpuRunner *>(state);
  if (!r)
    return;
  if (r->input == ON_DEVICE)
    cudaFree(r->buffer);
  else if (r->input == HOST_PINNED)
    gpuccl_host_free(r->ctx, r->buffer);
  gpuccl_context_free(r->ctx);
  delete r;
}

/* The overlay runners: the image labeled is the device image of
 * cuda-ha4-dev, the frame drawn into is another buffer, so every run labels
 * the same picture. */
struct DrawRunner {
  GpuRunner *labeling;
  GpucclFrame frame;
  void *planes;
  bool fused; /* gpuccl_process_draw, else gpuccl_process + gpuccl_draw */
};

void *draw_open(const BenchSetup *s, bool fused, char *why, size_t n)
{
  GpuRunner *g = static_cast<GpuRunner *>(
      gpu_open(s, ON_DEVICE, GPUCCL_ALGORITHM_HA4, why, n));
  if (!g)
    return nullptr;
  DrawRunner *r = new DrawRunner();
  r->labeling = g;
  r->fused = fused;
  const size_t luma = (size_t)s->width * s->height;
  const size_t chroma = 2 * (size_t)((s->width + 1) / 2) * ((s->height + 1) / 2);
  cudaError_t e = cudaMalloc(&r->planes, luma + chroma);
  if (e == cudaSuccess)
    e = cudaMemset(r->planes, 16, luma + chroma);
  if (e != cudaSuccess) {
    snprintf(why, n, "overlay frame: %s", cudaGetErrorString(e));
    gpu_close(g);
    delete r;
    return nullptr;
  }
  return r;
}

int draw_prepare(void *state, const uint8_t *data, int width, int height,
                 size_t stride)
{
  DrawRunner *r = static_cast<DrawRunner *>(state);
  GpucclFrame &f = r->frame;
  f = GpucclFrame{};
  f.format = GPUCCL_FRAME_NV12;
  f.width = width;
  f.height = height;
  f.data[0] = r->planes;
  f.stride[0] = width;
  f.data[1] = static_cast<uint8_t *>(r->planes) + (size_t)width * height;
  f.stride[1] = 2 * (size_t)((width + 1) / 2);
  return gpu_prepare(r->labeling, data, width, height, stride);
}

long draw_run(void *state)
{
  DrawRunner *r = static_cast<DrawRunner *>(state);
  GpuRunner *g = r->labeling;
  const GpucclDrawParams dp = {GPUCCL_DRAW_BOXES | GPUCCL_DRAW_CENTROIDS, 0,
                               255, 0, 2};
  GpucclResult res;
  GpucclError err = {};
  GpucclStatus st =
      r->fused ? gpuccl_process_draw(g->ctx, &g->image, &g->params, &r->frame,
                                     &dp, &res, &err)
               : gpuccl_process(g->ctx, &g->image, &g->params, &res, &err);
  if (st == GPUCCL_OK && !r->fused)
    st = gpuccl_draw(g->ctx, &r->frame, &dp, &err);
  if (st != GPUCCL_OK) {
    fprintf(stderr, "draw runner: %s\n", err.message);
    return -1;
  }
  return (long)res.n_components;
}

double draw_device_ms(void *state)
{
  return gpu_device_ms(static_cast<DrawRunner *>(state)->labeling);
}

void draw_close(void *state)
{
  DrawRunner *r = static_cast<DrawRunner *>(state);
  if (!r)
    return;
  cudaFree(r->planes);
  gpu_close(r->labeling);
  delete r;
}

void *open_draw_fused(const BenchSetup *s, char *why, size_t n)
{
  return draw_open(s, true, why, n);
}
void *open_draw_apart(const BenchSetup *s, char *why, size_t n)
{
  return draw_open(s, false, why, n);
}

void *open_dev(const BenchSetup *s, char *why, size_t n)
{
  return gpu_open(s, ON_DEVICE, GPUCCL_ALGORITHM_HA4, why, n);
}
void *open_dev64(const BenchSetup *s, char *why, size_t n)
{
  return gpu_open(s, ON_DEVICE, GPUCCL_ALGORITHM_HA4_64, why, n);
}
void *open_host(const BenchSetup *s, char *why, size_t n)
{
  return gpu_open(s, HOST_PAGEABLE, GPUCCL_ALGORITHM_DEFAULT, why, n);
}
void *open_pinned(const BenchSetup *s, char *why, size_t n)
{
  return gpu_open(s, HOST_PINNED, GPUCCL_ALGORITHM_DEFAULT, why, n);
}

/* ---- the copies alone ---- */

struct CopyRunner {
  GpuRunner *gpu; /* counts the blobs of the prepared image, untimed */
  void *pinned_up, *pinned_down, *dev_up, *dev_down;
  size_t up_bytes, down_bytes, capacity;
  cudaStream_t stream;
  long components;
};

void copies_close(void *state)
{
  CopyRunner *r = static_cast<CopyRunner *>(state);
  if (!r)
    return;
  cudaFreeHost(r->pinned_up);
  cudaFreeHost(r->pinned_down);
  cudaFree(r->dev_up);
  cudaFree(r->dev_down);
  if (r->stream)
    cudaStreamDestroy(r->stream);
  gpu_close(r->gpu);
  delete r;
}

void *copies_open(const BenchSetup *s, char *why, size_t n)
{
  CopyRunner *r = new CopyRunner();
  r->gpu = static_cast<GpuRunner *>(
      gpu_open(s, ON_DEVICE, GPUCCL_ALGORITHM_DEFAULT, why, n));
  if (!r->gpu) {
    delete r;
    return nullptr;
  }
  r->capacity = (size_t)s->width * s->height;
  /* The table of the most blobs an image can have, and its header. */
  const size_t down = (r->capacity + 1) / 2 * sizeof(GpucclBlob) + 16;
  if (cudaMallocHost(&r->pinned_up, r->capacity) != cudaSuccess ||
      cudaMallocHost(&r->pinned_down, down) != cudaSuccess ||
      cudaMalloc(&r->dev_up, r->capacity) != cudaSuccess ||
      cudaMalloc(&r->dev_down, down) != cudaSuccess ||
      cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking) !=
          cudaSuccess) {
    snprintf(why, n, "copy buffers: %s", cudaGetErrorString(cudaGetLastError()));
    copies_close(r);
    return nullptr;
  }
  cudaMemset(r->dev_down, 0, down);
  return r;
}

int copies_prepare(void *state, const uint8_t *data, int width, int height,
                   size_t stride)
{
  CopyRunner *r = static_cast<CopyRunner *>(state);
  if (gpu_prepare(r->gpu, data, width, height, stride) != 0)
    return -1;
  GpucclResult res;
  if (gpuccl_process(r->gpu->ctx, &r->gpu->image, &r->gpu->params, &res,
                     nullptr) != GPUCCL_OK)
    return -1;
  for (int y = 0; y < height; y++)
    memcpy(static_cast<uint8_t *>(r->pinned_up) + (size_t)y * width,
           data + (size_t)y * stride, width);
  r->up_bytes = (size_t)width * height;
  r->down_bytes = res.n_blobs * sizeof(GpucclBlob) + 3 * sizeof(uint32_t);
  r->components = (long)res.n_components;
  return 0;
}

long copies_run(void *state)
{
  CopyRunner *r = static_cast<CopyRunner *>(state);
  if (cudaMemcpyAsync(r->dev_up, r->pinned_up, r->up_bytes,
                      cudaMemcpyHostToDevice, r->stream) != cudaSuccess ||
      cudaMemcpyAsync(r->pinned_down, r->dev_down, r->down_bytes,
                      cudaMemcpyDeviceToHost, r->stream) != cudaSuccess ||
      cudaStreamSynchronize(r->stream) != cudaSuccess)
    return -1;
  return r->components;
}

/* ---- NPP through dlopen ---- */

struct NppSize { int width, height; };
/* NppStreamContext of NPP 12/13. */
struct NppCtx {
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};
enum { NPP_NORM_INF = 0, NPP_NORM_L1 = 1 }; /* 8- and 4-connectivity */

typedef int (*LabelBufferSizeFn)(NppSize, int *);
typedef int (*LabelFn)(uint8_t *, int, uint32_t *, int, NppSize, int,
                       uint8_t *, NppCtx);
typedef int (*CompressBufferSizeFn)(int, int *);
typedef int (*CompressFn)(uint32_t *, int, NppSize, int, int *, uint8_t *,
                          NppCtx);

struct NppRunner {
  bool compress;
  int norm;
  LabelFn label;
  CompressFn compress_fn;
  NppCtx ctx;
  uint8_t *src, *label_buf, *compress_buf;
  uint32_t *labels;
  size_t capacity;
  NppSize size;
  cudaEvent_t ev0, ev1;
  float last_ms;
  /* label alone: distinct-label count of the prepared image */
  uint32_t *keys, *keys_sorted;
  unsigned *d_count;
  void *sort_temp;
  size_t sort_temp_bytes;
  long count;
};

#define NPP_NO_LABEL 0xffffffffu

/* The label of each foreground pixel, a sentinel for the background. */
__global__ void npp_foreground_keys(const uint8_t *src, const uint32_t *labels,
                                    size_t n, uint32_t *keys)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    keys[i] = src[i] ? labels[i] : NPP_NO_LABEL;
}

/* Distinct labels of sorted keys: the first of each run, sentinel aside. */
__global__ void npp_count_firsts(const uint32_t *sorted, size_t n,
                                 unsigned *count)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const bool first = sorted[i] != NPP_NO_LABEL &&
                       (i == 0 || sorted[i - 1] != sorted[i]);
    const unsigned warp = __ballot_sync(__activemask(), first);
    if (first && (threadIdx.x & 31) == (unsigned)(__ffs(warp) - 1))
      atomicAdd(count, (unsigned)__popc(warp));
  }
}

void *npp_open(const BenchSetup *setup, bool compress, char *why,
               size_t why_size)
{
  void *core = dlopen("libnppc.so.13", RTLD_NOW | RTLD_GLOBAL);
  void *filt = core ? dlopen("libnppif.so.13", RTLD_NOW) : nullptr;
  if (!filt) {
    snprintf(why, why_size, "NPP not found (libnppc.so.13, libnppif.so.13)");
    return nullptr;
  }
  LabelBufferSizeFn label_size = (LabelBufferSizeFn)dlsym(
      filt, "nppiLabelMarkersUFGetBufferSize_32u_C1R");
  CompressBufferSizeFn compress_size = (CompressBufferSizeFn)dlsym(
      filt, "nppiCompressMarkerLabelsGetBufferSize_32u_C1R");
  NppRunner *r = new NppRunner();
  r->label = (LabelFn)dlsym(filt, "nppiLabelMarkersUF_8u32u_C1R_Ctx");
  r->compress_fn = (CompressFn)dlsym(filt, "nppiCompressMarkerLabelsUF_32u_C1IR_Ctx");
  if (!label_size || !compress_size || !r->label || !r->compress_fn) {
    snprintf(why, why_size, "NPP symbols missing");
    delete r;
    return nullptr;
  }
  r->compress = compress;
  r->norm = setup->connectivity == 8 ? NPP_NORM_INF : NPP_NORM_L1;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  cudaStreamCreateWithFlags(&r->ctx.hStream, cudaStreamNonBlocking);
  r->ctx.nCudaDeviceId = 0;
  r->ctx.nMultiProcessorCount = prop.multiProcessorCount;
  r->ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  r->ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  r->ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  r->ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  r->ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  cudaStreamGetFlags(r->ctx.hStream, &r->ctx.nStreamFlags);
  NppSize full = {setup->width, setup->height};
  int lb = 0, cb = 0;
  label_size(full, &lb);
  compress_size(setup->width * setup->height, &cb);
  r->capacity = (size_t)setup->width * setup->height;
  if (cudaMalloc(&r->src, r->capacity) != cudaSuccess ||
      cudaMalloc(&r->labels, r->capacity * 4) != cudaSuccess ||
      cudaMalloc(&r->label_buf, lb ? lb : 1) != cudaSuccess ||
      cudaMalloc(&r->compress_buf, cb ? cb : 1) != cudaSuccess) {
    snprintf(why, why_size, "NPP buffers: out of device memory");
    return nullptr;
  }
  if (!compress) {
    size_t n = r->capacity;
    cub::DeviceRadixSort::SortKeys(nullptr, r->sort_temp_bytes,
                                   (uint32_t *)nullptr, (uint32_t *)nullptr,
                                   (int)n);
    if (cudaMalloc(&r->keys, n * 4) != cudaSuccess ||
        cudaMalloc(&r->keys_sorted, n * 4) != cudaSuccess ||
        cudaMalloc(&r->d_count, sizeof(unsigned)) != cudaSuccess ||
        cudaMalloc(&r->sort_temp, r->sort_temp_bytes) != cudaSuccess) {
      snprintf(why, why_size, "NPP count buffers: out of device memory");
      return nullptr;
    }
  }
  cudaEventCreate(&r->ev0);
  cudaEventCreate(&r->ev1);
  return r;
}

long npp_run(void *state);

/* Number of distinct labels NPP gave the foreground of the prepared image. */
long npp_distinct_labels(NppRunner *r)
{
  const size_t n = (size_t)r->size.width * r->size.height;
  if (npp_run(r) < 0)
    return -1;
  npp_foreground_keys<<<1024, 256, 0, r->ctx.hStream>>>(r->src, r->labels, n,
                                                        r->keys);
  size_t bytes = r->sort_temp_bytes;
  cub::DeviceRadixSort::SortKeys(r->sort_temp, bytes, r->keys, r->keys_sorted,
                                 (int)n, 0, 32, r->ctx.hStream);
  cudaMemsetAsync(r->d_count, 0, sizeof(unsigned), r->ctx.hStream);
  npp_count_firsts<<<1024, 256, 0, r->ctx.hStream>>>(r->keys_sorted, n,
                                                     r->d_count);
  unsigned count = 0;
  if (cudaMemcpyAsync(&count, r->d_count, sizeof count,
                      cudaMemcpyDeviceToHost, r->ctx.hStream) != cudaSuccess ||
      cudaStreamSynchronize(r->ctx.hStream) != cudaSuccess)
    return -1;
  return (long)count;
}

int npp_prepare(void *state, const uint8_t *data, int width, int height,
                size_t stride)
{
  NppRunner *r = static_cast<NppRunner *>(state);
  if ((size_t)width * height > r->capacity)
    return -1;
  r->size = NppSize{width, height};
  if (cudaMemcpy2D(r->src, width, data, stride, width, height,
                   cudaMemcpyHostToDevice) != cudaSuccess)
    return -1;
  r->count = 0;
  if (!r->compress) {
    r->count = npp_distinct_labels(r);
    if (r->count < 0)
      return -1;
  }
  return 0;
}

long npp_run(void *state)
{
  NppRunner *r = static_cast<NppRunner *>(state);
  const int w = r->size.width, h = r->size.height;
  int n = 0;
  cudaEventRecord(r->ev0, r->ctx.hStream);
  int st = r->label(r->src, w, r->labels, w * 4, r->size, r->norm,
                    r->label_buf, r->ctx);
  if (st == 0 && r->compress)
    st = r->compress_fn(r->labels, w * 4, r->size, w * h, &n, r->compress_buf,
                        r->ctx);
  cudaEventRecord(r->ev1, r->ctx.hStream);
  if (cudaStreamSynchronize(r->ctx.hStream) != cudaSuccess || st < 0) {
    fprintf(stderr, "NPP failed: status %d\n", st);
    return -1;
  }
  cudaEventElapsedTime(&r->last_ms, r->ev0, r->ev1);
  return r->compress ? n : r->count;
}

double npp_device_ms(void *state)
{
  return static_cast<NppRunner *>(state)->last_ms;
}

void npp_close(void *state)
{
  NppRunner *r = static_cast<NppRunner *>(state);
  if (!r)
    return;
  cudaFree(r->src);
  cudaFree(r->labels);
  cudaFree(r->label_buf);
  cudaFree(r->compress_buf);
  cudaFree(r->keys);
  cudaFree(r->keys_sorted);
  cudaFree(r->d_count);
  cudaFree(r->sort_temp);
  cudaEventDestroy(r->ev0);
  cudaEventDestroy(r->ev1);
  cudaStreamDestroy(r->ctx.hStream);
  delete r;
}

void *open_npp_compress(const BenchSetup *s, char *why, size_t n)
{
  return npp_open(s, true, why, n);
}
void *open_npp_label(const BenchSetup *s, char *why, size_t n)
{
  return npp_open(s, false, why, n);
}

} // namespace

extern "C" const BenchRunner bench_gpu_runners[] = {
    {"cuda-ha4-dev", "gpu",
     "CUDA HA4 (the tiled pipeline), image on the device; device = kernel "
     "time",
     open_dev, gpu_prepare, gpu_run, gpu_device_ms, gpu_close, false},
    {"cuda-ha4-64-dev", "gpu",
     "CUDA HA4-64 (Alg. 7 strips, the earlier pipeline), image on the device",
     open_dev64, gpu_prepare, gpu_run, gpu_device_ms, gpu_close, false},
    {"cuda-ha4-draw-dev", "gpu",
     "cuda-ha4-dev with boxes and crosses drawn into a device NV12 frame by "
     "the same call (gpuccl_process_draw)",
     open_draw_fused, draw_prepare, draw_run, draw_device_ms, draw_close,
     false},
    {"cuda-ha4-draw2-dev", "gpu",
     "cuda-ha4-draw-dev as two calls: gpuccl_process, then gpuccl_draw",
     open_draw_apart, draw_prepare, draw_run, draw_device_ms, draw_close,
     false},
    {"cuda-ha4-host", "gpu",
     "CUDA default, end to end from a pageable host image", open_host,
     gpu_prepare, gpu_run, gpu_device_ms, gpu_close, false},
    {"cuda-ha4-pinned", "gpu",
     "CUDA default, end to end from gpuccl_host_alloc (pinned) memory",
     open_pinned, gpu_prepare, gpu_run, gpu_device_ms, gpu_close, false},
    {"copies-pinned", "gpu",
     "the copies alone of cuda-ha4-pinned: image up, blob table down",
     copies_open, copies_prepare, copies_run, nullptr, copies_close, false},
    /* NPP's counts are its own (bench.h own_count): compress numbers every
     * region of equal value, background included; label alone, counted as
     * distinct labels over the foreground, came out 0-5 % above the true
     * count on the H100 (some components carry two labels). */
    {"npp-label+compress", "gpu",
     "NPP LabelMarkersUF + CompressMarkerLabelsUF (labels only; count: "
     "every region, background too)",
     open_npp_compress, npp_prepare, npp_run, npp_device_ms, npp_close, true},
    {"npp-label", "gpu",
     "NPP LabelMarkersUF alone (sparse labels; count: distinct labels over "
     "the foreground)",
     open_npp_label, npp_prepare, npp_run, npp_device_ms, npp_close, true},
    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
     false},
};
