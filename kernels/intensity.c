/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Masks and blob intensities (gpuccl.h): the front's part. A mask is
 * copied once into its context's backend memory; intensities are measured
 * by the backends per component, then selected here for the blob table. */
#include "backend.h"

#include <stdlib.h>

GpucclMask *gpuccl_mask_new(GpucclContext *ctx, const GpucclImage *picture,
                            GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!ctx || !picture || !picture->data) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "no context or no mask picture");
    return NULL;
  }
  if (picture->format != GPUCCL_PIXEL_U8) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "a mask is GPUCCL_PIXEL_U8 (format %d given)",
                     (int)picture->format);
    return NULL;
  }
  if (picture->width < 1 || picture->height < 1 ||
      picture->width > GPUCCL_MAX_SIDE || picture->height > GPUCCL_MAX_SIDE ||
      picture->stride < (size_t)picture->width ||
      picture->stride > GPUCCL_MAX_STRIDE) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "mask picture %dx%d with stride %zu: sides must be "
                     "1..%d and the stride hold a row (at most %zu)",
                     picture->width, picture->height, picture->stride,
                     GPUCCL_MAX_SIDE, (size_t)GPUCCL_MAX_STRIDE);
    return NULL;
  }
  GpucclMask *mask = calloc(1, sizeof *mask);
  if (!mask) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "cannot allocate a mask");
    return NULL;
  }
  mask->ctx = ctx;
  mask->width = picture->width;
  mask->height = picture->height;
  mask->data = ctx->ops->model_alloc(
      ctx, (size_t)picture->width * picture->height, error);
  if (!mask->data ||
      ctx->ops->mask_copy(ctx, mask->data, picture, error) != GPUCCL_OK) {
    gpuccl_mask_free(mask);
    return NULL;
  }
  return mask;
}

void gpuccl_mask_free(GpucclMask *mask)
{
  if (!mask)
    return;
  if (mask->data)
    mask->ctx->ops->model_free(mask->ctx, mask->data);
  free(mask);
}

GpucclStatus gpuccl_mask_check(const GpucclContext *ctx,
                               const GpucclImage *image,
                               const GpucclParams *params,
                               GpucclError *error)
{
  const GpucclMask *mask = params->mask;
  if (params->mode != GPUCCL_MODE_BINARY)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%s needs GPUCCL_MODE_BINARY (mode is %d)",
                            mask ? "a mask" : "want_intensity",
                            (int)params->mode);
  if (!mask)
    return GPUCCL_OK;
  if (mask->ctx != ctx)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "the mask belongs to another context");
  if (mask->width != image->width || mask->height != image->height)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "the mask is %dx%d but the image is %dx%d",
                            mask->width, mask->height, image->width,
                            image->height);
  return GPUCCL_OK;
}

GpucclBlobIntensity *gpuccl_intensity_reserve(GpucclContext *ctx, size_t n,
                                              GpucclError *error)
{
  if (n > ctx->intensity_cap) {
    GpucclBlobIntensity *grown =
        realloc(ctx->intensity, n * sizeof *ctx->intensity);
    if (!grown) {
      gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                       "cannot allocate the intensities of %zu components",
                       n);
      return NULL;
    }
    ctx->intensity = grown;
    ctx->intensity_cap = n;
  }
  for (size_t i = 0; i < n; i++)
    ctx->intensity[i] = (GpucclBlobIntensity){0, UINT32_MAX, 0};
  return ctx->intensity;
}

void gpuccl_intensity_select(GpucclBlobIntensity *intensity,
                             const GpucclBlob *blobs, size_t n_blobs)
{
  for (size_t i = 0; i < n_blobs; i++)
    intensity[i] = intensity[blobs[i].id - 1];
}

const GpucclBlobIntensity *gpuccl_blob_intensities(const GpucclContext *ctx)
{
  return ctx && ctx->intensity_valid ? ctx->intensity : NULL;
}
