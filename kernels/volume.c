/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The volume API (gpuccl_volume.h): validation, dispatch, and the CPU
 * labeling (union-find over voxels, the 13 earlier 26-neighbours, then
 * numbering in raster order of each component's first voxel), which is
 * also the reference the CUDA path is tested against. */
#include "volume_internal.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "checked.h"

void gpuccl_volume_params_init_sized(GpucclVolumeParams *params,
                                     size_t size)
{
  const GpucclVolumeParams defaults = {.threshold = 127,
                                       .algorithm = GPUCCL_VOLUME_DEFAULT};
  gpuccl_init_sized(params, size, &defaults, sizeof defaults);
}

GpucclVolume *gpuccl_volume_new(GpucclBackend backend, int device_id,
                                GpucclError *error)
{
  gpuccl_clear_error(error);
  if ((unsigned)backend > GPUCCL_BACKEND_CPU || device_id < 0) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "unknown backend %d or negative device %d", (int)backend,
                     device_id);
    return NULL;
  }
  GpucclVolume *vol = calloc(1, sizeof *vol);
  if (!vol) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "cannot allocate a volume object");
    return NULL;
  }
  vol->device = device_id;
  vol->backend = GPUCCL_BACKEND_CPU;
#ifdef GPUCCL_HAVE_CUDA
  if (backend != GPUCCL_BACKEND_CPU &&
      (backend == GPUCCL_BACKEND_CUDA || gpuccl_cuda_available(device_id, NULL))) {
    if (gpuccl_volume_cuda_open(vol, error) == GPUCCL_OK)
      vol->backend = GPUCCL_BACKEND_CUDA;
    else if (backend == GPUCCL_BACKEND_CUDA) {
      free(vol);
      return NULL;
    }
  }
#else
  if (backend == GPUCCL_BACKEND_CUDA) {
    free(vol);
    gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                     "gpuccl was built without CUDA support");
    return NULL;
  }
#endif
  return vol;
}

void gpuccl_volume_free(GpucclVolume *vol)
{
  if (!vol)
    return;
#ifdef GPUCCL_HAVE_CUDA
  if (vol->cuda)
    gpuccl_volume_cuda_close(vol);
#endif
  free(vol->blobs);
  free(vol->labels);
  free(vol);
}

GpucclBackend gpuccl_volume_backend(const GpucclVolume *vol)
{
  return vol ? vol->backend : GPUCCL_BACKEND_AUTO;
}

GpucclStatus gpuccl_volume_reserve_blobs(GpucclVolume *vol, size_t n,
                                         GpucclError *error)
{
  if (n <= vol->blobs_cap)
    return GPUCCL_OK;
  GpucclVolumeBlob *b = realloc(vol->blobs, n * sizeof *b);
  if (!b)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate %zu volume blobs", n);
  vol->blobs = b;
  vol->blobs_cap = n;
  return GPUCCL_OK;
}

GpucclStatus gpuccl_volume_reserve_labels(GpucclVolume *vol, size_t n,
                                          GpucclError *error)
{
  if (n <= vol->labels_cap)
    return GPUCCL_OK;
  uint32_t *l = realloc(vol->labels, n * sizeof *l);
  if (!l)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate %zu labels", n);
  vol->labels = l;
  vol->labels_cap = n;
  return GPUCCL_OK;
}

static uint32_t uf_find(uint32_t *p, uint32_t a)
{
  while (p[a] != a) {
    p[a] = p[p[a]];
    a = p[a];
  }
  return a;
}

static void uf_union(uint32_t *p, uint32_t a, uint32_t b)
{
  a = uf_find(p, a);
  b = uf_find(p, b);
  if (a < b)
    p[b] = a;
  else if (b < a)
    p[a] = b;
}

long gpuccl_volume_label_cpu(const GpucclVolumeImage *img, int threshold,
                             uint32_t *labels)
{
  const int w = img->width, h = img->height, d = img->depth;
  const size_t n = (size_t)w * h * d;
  uint32_t *p = malloc(n * sizeof *p);
  if (!p)
    return -1;
#define FG(x, y, z)                                                           \
  (img->data[(size_t)(z) * img->slice_stride + (size_t)(y) * img->row_stride + \
             (x)] > threshold)
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const uint32_t v = (uint32_t)(((size_t)z * h + y) * w + x);
        p[v] = v;
        if (!FG(x, y, z))
          continue;
        /* The 13 neighbours before v in raster order. */
        for (int dz = -1; dz <= 0; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              if (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)))
                continue;
              const int nx = x + dx, ny = y + dy, nz = z + dz;
              if (nx < 0 || ny < 0 || nz < 0 || nx >= w || ny >= h)
                continue;
              if (FG(nx, ny, nz))
                uf_union(p, v, (uint32_t)(((size_t)nz * h + ny) * w + nx));
            }
      }
  /* Roots are the smallest voxel of their tree = first in raster order. */
  long count = 0;
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const size_t v = ((size_t)z * h + y) * w + x;
        if (!FG(x, y, z)) {
          labels[v] = 0;
          continue;
        }
        const uint32_t r = uf_find(p, (uint32_t)v);
        labels[v] = r == v ? (uint32_t)++count : labels[r];
      }
#undef FG
  free(p);
  return count;
}

/* Blob table from a label volume. */
static GpucclStatus blobs_from_labels(GpucclVolume *vol, int w, int h, int d,
                                      const uint32_t *labels, uint32_t count,
                                      GpucclError *error)
{
  GpucclStatus st = gpuccl_volume_reserve_blobs(vol, count ? count : 1, error);
  if (st != GPUCCL_OK)
    return st;
  for (uint32_t i = 0; i < count; i++)
    vol->blobs[i] = (GpucclVolumeBlob){.id = i + 1, .x0 = UINT32_MAX,
                                       .y0 = UINT32_MAX, .z0 = UINT32_MAX};
  size_t v = 0;
  for (uint32_t z = 0; z < (uint32_t)d; z++)
    for (uint32_t y = 0; y < (uint32_t)h; y++)
      for (uint32_t x = 0; x < (uint32_t)w; x++, v++) {
        if (!labels[v])
          continue;
        GpucclVolumeBlob *b = &vol->blobs[labels[v] - 1];
        b->voxels++;
        b->sum_x += x;
        b->sum_y += y;
        b->sum_z += z;
        if (x < b->x0) b->x0 = x;
        if (y < b->y0) b->y0 = y;
        if (z < b->z0) b->z0 = z;
        if (x > b->x1) b->x1 = x;
        if (y > b->y1) b->y1 = y;
        if (z > b->z1) b->z1 = z;
      }
  for (uint32_t i = 0; i < count; i++) {
    GpucclVolumeBlob *b = &vol->blobs[i];
    b->cx = (double)b->sum_x / (double)b->voxels;
    b->cy = (double)b->sum_y / (double)b->voxels;
    b->cz = (double)b->sum_z / (double)b->voxels;
  }
  return GPUCCL_OK;
}

static GpucclStatus check(const GpucclVolumeImage *img,
                          const GpucclVolumeParams *params, GpucclError *error)
{
  if (!img || !img->data || !params)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no volume, data or parameters");
  size_t voxels = 0, slice = 0, span = 0;
  if (img->width < 1 || img->height < 1 || img->depth < 1 ||
      !gpuccl_mul_size((size_t)img->width, (size_t)img->height, &slice) ||
      !gpuccl_mul_size(slice, (size_t)img->depth, &voxels) ||
      voxels > GPUCCL_VOLUME_MAX_VOXELS)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "volume size %dx%dx%d is empty or above %zu "
                            "voxels",
                            img->width, img->height, img->depth,
                            (size_t)GPUCCL_VOLUME_MAX_VOXELS);
  if (img->row_stride < (size_t)img->width)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "row stride %zu is below the width %d",
                            img->row_stride, img->width);
  /* Strides no real volume has (they fit the address space, not memory). */
  if (img->row_stride > GPUCCL_MAX_STRIDE ||
      img->slice_stride / (size_t)img->height > GPUCCL_MAX_STRIDE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "strides %zu/%zu are above the largest accepted, "
                            "%zu bytes a row",
                            img->row_stride, img->slice_stride,
                            (size_t)GPUCCL_MAX_STRIDE);
  /* Slices of height row strides (gpuccl_volume.h), spanning (height - 1)
   * strides and a row; the whole volume must fit the address space. */
  size_t slice_rows, slice_span;
  if (!gpuccl_mul_size(img->row_stride, (size_t)img->height, &slice_rows) ||
      img->slice_stride < slice_rows ||
      !gpuccl_plane_span(img->data, img->row_stride, (size_t)img->height,
                         (size_t)img->width, &slice_span) ||
      !gpuccl_plane_span(img->data, img->slice_stride, (size_t)img->depth,
                         slice_span, &span))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "strides %zu/%zu do not hold %d rows of %d "
                            "voxels a slice and %d slices in memory",
                            img->row_stride, img->slice_stride, img->height,
                            img->width, img->depth);
  if (params->threshold < 0 || params->threshold > 255)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "threshold %d is outside 0..255",
                            params->threshold);
  if ((unsigned)params->algorithm > GPUCCL_VOLUME_BKE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown volume algorithm %d",
                            (int)params->algorithm);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_volume_process_sized(GpucclVolume *vol,
                                         const GpucclVolumeImage *img,
                                         const GpucclVolumeParams *caller,
                                         size_t params_size,
                                         GpucclVolumeResult *result,
                                         GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!vol || !result)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no volume object or no result");
  memset(result, 0, sizeof *result);
  /* The caller's fields over the defaults (docs/abi.md). */
  GpucclVolumeParams own;
  const GpucclVolumeParams *params = caller ? &own : NULL;
  gpuccl_volume_params_init(&own);
  if (caller && !gpuccl_read_sized(&own, sizeof own, caller, params_size))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "volume parameters of %zu bytes set fields past "
                            "the %zu this library knows",
                            params_size, sizeof own);
  GpucclStatus st = check(img, params, error);
  if (st != GPUCCL_OK)
    return st;
  const size_t n = (size_t)img->width * img->height * img->depth;
  uint32_t count = 0;
#ifdef GPUCCL_HAVE_CUDA
  if (vol->backend == GPUCCL_BACKEND_CUDA) {
    st = gpuccl_volume_cuda_process(vol, img, params, &count, error);
    if (st != GPUCCL_OK)
      return st;
    goto done;
  }
#endif
  st = gpuccl_volume_reserve_labels(vol, n, error);
  if (st != GPUCCL_OK)
    return st;
  long c = gpuccl_volume_label_cpu(img, params->threshold, vol->labels);
  if (c < 0)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "cannot allocate the union-find array");
  count = (uint32_t)c;
  st = blobs_from_labels(vol, img->width, img->height, img->depth,
                         vol->labels, count, error);
  if (st != GPUCCL_OK)
    return st;
#ifdef GPUCCL_HAVE_CUDA
done:
#endif
  result->width = img->width;
  result->height = img->height;
  result->depth = img->depth;
  result->n_components = count;
  result->blobs = vol->blobs;
  result->labels = params->want_labels ? vol->labels : NULL;
  return GPUCCL_OK;
}
