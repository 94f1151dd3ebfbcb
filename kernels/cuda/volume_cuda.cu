/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA side of the volume API (gpuccl_volume.h): BUF or BKE 3D on
 * 2x2x2 blocks, then numbering in raster order of first voxel and the
 * features on the device (volume_kernels.h); the blob table is assembled
 * on the host from the per-component arrays (O(components) bytes down).
 * Buffers are kept per volume object and grown only, through the
 * backend's counted allocator (device_alloc.h). */
#include <cstdio>
#include <cstring>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "../backend.h"
#include "../volume_internal.h"
#include "device_alloc.h"
#include "forest_kernels.h"
#include "volume_kernels.h"

namespace {

struct VolCuda {
  cudaStream_t stream;
  cudaEvent_t ev0, ev1; /* around the kernels, for the benchmark */
  size_t n_cap, nb_cap; /* voxels and blocks the buffers hold */
  uint8_t *input;
  uint32_t *parent, *first, *flags, *ids, *labels;
  uint16_t *info;
  Vol3Features feat;
  void *temp;
  size_t temp_bytes;
};

GpucclStatus fail(GpucclError *error, cudaError_t err, const char *what)
{
  cudaGetLastError();
  GpucclStatus st = err == cudaErrorMemoryAllocation ? GPUCCL_ERROR_OUT_OF_MEMORY
                                                     : GPUCCL_ERROR_DEVICE;
  return gpuccl_set_error(error, st, "CUDA (volume): %s failed: %s", what,
                          cudaGetErrorString(err));
}

#define CK(expr, what)                                                        \
  do {                                                                        \
    cudaError_t e_ = (expr);                                                  \
    if (e_ != cudaSuccess)                                                    \
      return fail(error, e_, what);                                           \
  } while (0)

void free_buffers(VolCuda *c)
{
  void *p[] = {c->input, c->parent, c->first, c->flags, c->ids, c->labels,
               c->info, c->feat.voxels, c->feat.sum_x, c->feat.sum_y,
               c->feat.sum_z, c->feat.min_x, c->feat.min_y, c->feat.min_z,
               c->feat.max_x, c->feat.max_y, c->feat.max_z, c->temp};
  for (void *q : p)
    dev_free(q);
  const VolCuda keep = *c;
  *c = VolCuda{};
  c->stream = keep.stream;
  c->ev0 = keep.ev0;
  c->ev1 = keep.ev1;
}

/* n elements of *p's type. */
template <typename T> cudaError_t take(T **p, size_t n)
{
  return dev_alloc(reinterpret_cast<void **>(p), n * sizeof(T));
}

/* What a failed call allocated stays in c and is freed by the next growth
 * or by close (the capacities stay 0 until every buffer is there). */
GpucclStatus ensure(VolCuda *c, size_t n, size_t nb, GpucclError *error)
{
  if (n <= c->n_cap && nb <= c->nb_cap)
    return GPUCCL_OK;
  free_buffers(c);
  CK(take(&c->input, n), "allocation");
  CK(take(&c->flags, n + 1), "allocation");
  CK(take(&c->ids, n + 1), "allocation");
  CK(take(&c->labels, n), "allocation");
  CK(take(&c->parent, nb), "allocation");
  CK(take(&c->first, nb), "allocation");
  CK(take(&c->info, nb), "allocation");
  unsigned long long **w[] = {&c->feat.voxels, &c->feat.sum_x, &c->feat.sum_y,
                              &c->feat.sum_z};
  for (auto q : w)
    CK(take(q, nb), "allocation");
  uint32_t **m[] = {&c->feat.min_x, &c->feat.min_y, &c->feat.min_z,
                    &c->feat.max_x, &c->feat.max_y, &c->feat.max_z};
  for (auto q : m)
    CK(take(q, nb), "allocation");
  CK(cub::DeviceScan::ExclusiveSum(nullptr, c->temp_bytes, c->flags, c->ids,
                                   (int)(n + 1)),
     "scan size query");
  CK(dev_alloc(&c->temp, c->temp_bytes), "allocation");
  c->n_cap = n;
  c->nb_cap = nb;
  return GPUCCL_OK;
}

} // namespace

extern "C" GpucclStatus gpuccl_volume_cuda_open(GpucclVolume *vol,
                                                GpucclError *error)
{
  CK(cudaSetDevice(vol->device), "selecting the device");
  VolCuda *c = new (std::nothrow) VolCuda();
  if (!c)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate the CUDA volume state");
  cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    delete c;
    return fail(error, e, "creating a stream");
  }
  e = cudaEventCreate(&c->ev0);
  if (e == cudaSuccess && (e = cudaEventCreate(&c->ev1)) != cudaSuccess)
    cudaEventDestroy(c->ev0);
  if (e != cudaSuccess) {
    cudaStreamDestroy(c->stream);
    delete c;
    return fail(error, e, "creating events");
  }
  vol->cuda = c;
  return GPUCCL_OK;
}

extern "C" void gpuccl_volume_cuda_close(GpucclVolume *vol)
{
  VolCuda *c = static_cast<VolCuda *>(vol->cuda);
  cudaStreamSynchronize(c->stream);
  free_buffers(c);
  cudaEventDestroy(c->ev0);
  cudaEventDestroy(c->ev1);
  cudaStreamDestroy(c->stream);
  cudaGetLastError();
  delete c;
  vol->cuda = nullptr;
}

extern "C" GpucclStatus gpuccl_volume_cuda_process(
    GpucclVolume *vol, const GpucclVolumeImage *img,
    const GpucclVolumeParams *params, uint32_t *n_components,
    GpucclError *error)
{
  VolCuda *c = static_cast<VolCuda *>(vol->cuda);
  CK(cudaSetDevice(vol->device), "selecting the device");
  const int w = img->width, h = img->height, d = img->depth;
  const size_t n = (size_t)w * h * d;
  Vol3 v = {};
  v.width = w;
  v.height = h;
  v.depth = d;
  v.threshold = params->threshold;
  v.bw = (w + 1) / 2;
  v.bh = (h + 1) / 2;
  v.bd = (d + 1) / 2;
  const size_t nb = (size_t)v.bw * v.bh * v.bd;
  GpucclStatus st = ensure(c, n, nb, error);
  if (st != GPUCCL_OK)
    return st;
  cudaStream_t s = c->stream;
  for (int z = 0; z < d; z++)
    CK(cudaMemcpy2DAsync(c->input + (size_t)z * w * h, w,
                         img->data + (size_t)z * img->slice_stride,
                         img->row_stride, w, h, cudaMemcpyHostToDevice, s),
       "volume upload");
  CK(cudaEventRecord(c->ev0, s), "event");
  v.data = c->input;
  v.parent = c->parent;
  v.first = c->first;
  v.info = c->info;
  const Vol3Features &f = c->feat;
  unsigned long long *zero64[] = {f.voxels, f.sum_x, f.sum_y, f.sum_z};
  for (auto p : zero64)
    CK(cudaMemsetAsync(p, 0, nb * 8, s), "memset");
  uint32_t *mins[] = {f.min_x, f.min_y, f.min_z};
  for (auto p : mins)
    CK(cudaMemsetAsync(p, 0xff, nb * 4, s), "memset");
  uint32_t *maxs[] = {f.max_x, f.max_y, f.max_z};
  for (auto p : maxs)
    CK(cudaMemsetAsync(p, 0, nb * 4, s), "memset");
  CK(cudaMemsetAsync(c->flags + n, 0, 4, s), "memset");

  /* Compression over the blocks as rows of bw * bh (forest_kernels.h). */
  Forest g = {};
  g.parent = c->parent;
  g.fpitch = g.fcols = v.bw * v.bh;
  g.frows = v.bd;
  if (params->algorithm == GPUCCL_VOLUME_BUF) {
    CK(buf3d_launch_initialization(v, s), "BUF 3D initialization");
    CK(buf3d_launch_merge(v, s), "BUF 3D merge");
    CK(buf_launch_compression(g, false, s), "BUF 3D compression");
  } else {
    CK(bke3d_launch_initialization(v, s), "BKE 3D initialization");
    CK(buf_launch_compression(g, false, s), "BKE 3D compression");
    CK(bke3d_launch_reduction(v, s), "BKE 3D reduction");
    CK(buf_launch_compression(g, false, s), "BKE 3D compression");
  }
  CK(volume_launch_first_voxel(v, s), "first voxel");
  CK(volume_launch_root_flags(v, c->flags, s), "root flags");
  size_t bytes = c->temp_bytes;
  CK(cub::DeviceScan::ExclusiveSum(c->temp, bytes, c->flags, c->ids,
                                   (int)(n + 1), s),
     "id scan");
  CK(volume_launch_features(v, c->ids, f, s), "features");
  if (params->want_labels)
    CK(volume_launch_labels(v, c->ids, c->labels, s), "labels");
  CK(cudaEventRecord(c->ev1, s), "event");
  uint32_t count = 0;
  CK(cudaMemcpyAsync(&count, c->ids + n, 4, cudaMemcpyDeviceToHost, s),
     "count download");
  CK(cudaStreamSynchronize(s), "volume labeling");

  st = gpuccl_volume_reserve_blobs(vol, count ? count : 1, error);
  if (st == GPUCCL_OK && params->want_labels)
    st = gpuccl_volume_reserve_labels(vol, n, error);
  if (st != GPUCCL_OK)
    return st;
  std::vector<unsigned long long> a64(4 * (size_t)count);
  std::vector<uint32_t> a32(6 * (size_t)count);
  if (count) {
    for (int i = 0; i < 4; i++)
      CK(cudaMemcpyAsync(a64.data() + i * (size_t)count, zero64[i], count * 8,
                         cudaMemcpyDeviceToHost, s),
         "feature download");
    uint32_t *u[] = {f.min_x, f.min_y, f.min_z, f.max_x, f.max_y, f.max_z};
    for (int i = 0; i < 6; i++)
      CK(cudaMemcpyAsync(a32.data() + i * (size_t)count, u[i], count * 4,
                         cudaMemcpyDeviceToHost, s),
         "feature download");
  }
  if (params->want_labels)
    CK(cudaMemcpyAsync(vol->labels, c->labels, n * 4, cudaMemcpyDeviceToHost,
                       s),
       "label download");
  CK(cudaStreamSynchronize(s), "volume download");
  for (uint32_t i = 0; i < count; i++) {
    GpucclVolumeBlob *b = &vol->blobs[i];
    b->id = i + 1;
    b->voxels = a64[i];
    b->sum_x = a64[count + i];
    b->sum_y = a64[2 * (size_t)count + i];
    b->sum_z = a64[3 * (size_t)count + i];
    b->x0 = a32[i];
    b->y0 = a32[count + i];
    b->z0 = a32[2 * (size_t)count + i];
    b->x1 = a32[3 * (size_t)count + i];
    b->y1 = a32[4 * (size_t)count + i];
    b->z1 = a32[5 * (size_t)count + i];
    b->cx = (double)b->sum_x / (double)b->voxels;
    b->cy = (double)b->sum_y / (double)b->voxels;
    b->cz = (double)b->sum_z / (double)b->voxels;
  }
  *n_components = count;
  return GPUCCL_OK;
}

extern "C" float gpuccl_volume_cuda_kernel_ms(GpucclVolume *vol)
{
  VolCuda *c = vol ? static_cast<VolCuda *>(vol->cuda) : nullptr;
  float ms = -1;
  if (!c || cudaEventElapsedTime(&ms, c->ev0, c->ev1) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return ms;
}
