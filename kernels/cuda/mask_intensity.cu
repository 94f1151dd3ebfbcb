/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend's masks and blob intensities (gpuccl.h). A mask is
 * copied once into device memory; tile labeling clears its zero pixels
 * (tile_samples.cuh). Intensities are a pass of their own after the
 * frame, over the label image tile labeling wrote on the device: the tile
 * kernel's path is the same with or without them. */
#include "cuda_context.h"
#include "cuda_internal.h"
#include "tile_samples.cuh"

GpucclStatus cuda_mask_copy(GpucclContext *ctx, void *dst,
                            const GpucclImage *picture, GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  /* cudaMemcpyDefault: the picture may be host or device memory. */
  LAUNCH(cudaMemcpy2DAsync(dst, picture->width, picture->data,
                           picture->stride, picture->width, picture->height,
                           cudaMemcpyDefault, c->stream),
         "mask upload");
  CK(cudaStreamSynchronize(c->stream), "mask upload");
  return GPUCCL_OK;
}

namespace {

constexpr int RUN = 32;     /* pixels of a row per thread */
constexpr int THREADS = 128;

__global__ void intensity_clear(GpucclBlobIntensity *acc, uint32_t n)
{
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] = GpucclBlobIntensity{0, UINT32_MAX, 0};
}

__device__ void intensity_flush(GpucclBlobIntensity *acc, uint32_t label,
                                unsigned long long sum, uint32_t lo,
                                uint32_t hi)
{
  if (!label)
    return;
  GpucclBlobIntensity *e = &acc[label - 1];
  atomicAdd(reinterpret_cast<unsigned long long *>(&e->sum), sum);
  atomicMin(&e->min, lo);
  atomicMax(&e->max, hi);
}

/* One thread per RUN pixels of a row: a stretch of one label sends one
 * set of atomics, so a large blob costs one per RUN pixels. */
template <GpucclPixelFormat FMT>
__global__ void intensity_accumulate(tile::Image im, const uint32_t *labels,
                                     GpucclBlobIntensity *acc)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * RUN;
  const int y = blockIdx.y;
  if (x0 >= im.width)
    return;
  const uint8_t *row = im.data + (size_t)y * im.stride;
  const uint32_t *lab = labels + (size_t)y * im.width;
  const int end = min(x0 + RUN, im.width);
  uint32_t cur = 0, lo = UINT32_MAX, hi = 0;
  unsigned long long sum = 0;
  for (int x = x0; x < end; x++) {
    const uint32_t l = lab[x];
    if (l != cur) {
      intensity_flush(acc, cur, sum, lo, hi);
      cur = l, sum = 0, lo = UINT32_MAX, hi = 0;
    }
    if (l) {
      const uint32_t v = tile::sample_at<FMT>(im, row, x);
      sum += v;
      lo = min(lo, v);
      hi = max(hi, v);
    }
  }
  intensity_flush(acc, cur, sum, lo, hi);
}

} /* namespace */

GpucclStatus cuda_measure_intensity(GpucclContext *ctx, CudaCtx *c,
                                    const GpucclResult *result,
                                    GpucclError *error)
{
  const tile::Image &im = c->tf.image;
  const uint32_t n = result->n_components;
  GpucclBlobIntensity *host = gpuccl_intensity_reserve(ctx, n ? n : 1, error);
  if (!host)
    return GPUCCL_ERROR_OUT_OF_MEMORY;
  if (n == 0)
    return GPUCCL_OK;
  if (n > c->intensity_cap) {
    dev_free(c->intensity_d);
    c->intensity_d = nullptr;
    c->intensity_cap = 0;
    CK(dev_alloc((void **)&c->intensity_d, n * sizeof(GpucclBlobIntensity)),
       "allocation");
    c->intensity_cap = n;
  }
  intensity_clear<<<(n + 255) / 256, 256, 0, c->stream>>>(c->intensity_d, n);
  LAUNCH(cudaGetLastError(), "intensity clear");
  const int runs = (im.width + RUN - 1) / RUN;
  const dim3 grid((runs + THREADS - 1) / THREADS, im.height);
  switch (im.format) {
  case GPUCCL_PIXEL_U8:
    intensity_accumulate<GPUCCL_PIXEL_U8>
        <<<grid, THREADS, 0, c->stream>>>(im, c->labels_d, c->intensity_d);
    break;
  case GPUCCL_PIXEL_U16:
    intensity_accumulate<GPUCCL_PIXEL_U16>
        <<<grid, THREADS, 0, c->stream>>>(im, c->labels_d, c->intensity_d);
    break;
  case GPUCCL_PIXEL_PACKED4:
    intensity_accumulate<GPUCCL_PIXEL_PACKED4>
        <<<grid, THREADS, 0, c->stream>>>(im, c->labels_d, c->intensity_d);
    break;
  }
  LAUNCH(cudaGetLastError(), "intensity");
  LAUNCH(cudaMemcpyAsync(host, c->intensity_d,
                         n * sizeof(GpucclBlobIntensity),
                         cudaMemcpyDeviceToHost, c->stream),
         "intensity download");
  CK(cudaStreamSynchronize(c->stream), "intensity");
  gpuccl_intensity_select(host, result->blobs, result->n_blobs);
  return GPUCCL_OK;
}
