/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gpuccl front: argument checks, backend choice and dispatch. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GpucclStatus gpuccl_set_error(GpucclError *error, GpucclStatus status,
                              const char *format, ...)
{
  if (error) {
    va_list args;
    error->status = status;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
  }
  return status;
}

void gpuccl_params_init(GpucclParams *params)
{
  memset(params, 0, sizeof *params);
  params->threshold = 127;
  params->connectivity = 8;
  params->auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE;
  params->channel = GPUCCL_CHANNEL_LUMA;
  params->algorithm = GPUCCL_ALGORITHM_DEFAULT;
  params->mode = GPUCCL_MODE_BINARY;
}

const char *gpuccl_status_name(GpucclStatus status)
{
  switch (status) {
  case GPUCCL_OK: return "ok";
  case GPUCCL_ERROR_INVALID_ARGUMENT: return "invalid argument";
  case GPUCCL_ERROR_UNSUPPORTED: return "unsupported";
  case GPUCCL_ERROR_NO_DEVICE: return "no usable CUDA device";
  case GPUCCL_ERROR_OUT_OF_MEMORY: return "out of memory";
  case GPUCCL_ERROR_DEVICE: return "device error";
  case GPUCCL_ERROR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char *gpuccl_backend_name(GpucclBackend backend)
{
  switch (backend) {
  case GPUCCL_BACKEND_AUTO: return "auto";
  case GPUCCL_BACKEND_CUDA: return "cuda";
  case GPUCCL_BACKEND_CPU: return "cpu";
  }
  return "unknown";
}

bool gpuccl_cuda_available(int device_id, GpucclError *error)
{
#ifdef GPUCCL_HAVE_CUDA
  return gpuccl_cuda_probe(device_id, error);
#else
  (void)device_id;
  gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                   "gpuccl was built without CUDA support");
  return false;
#endif
}

static GpucclContext *context_open(const GpucclBackendOps *ops, int device_id,
                                   GpucclError *error)
{
  GpucclContext *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "cannot allocate a gpuccl context");
    return NULL;
  }
  ctx->ops = ops;
  if (ops->open(ctx, device_id, error) != GPUCCL_OK) {
    free(ctx);
    return NULL;
  }
  return ctx;
}

GpucclContext *gpuccl_context_new(GpucclBackend backend, int device_id,
                                  GpucclError *error)
{
  if (device_id < 0) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "device id %d is negative", device_id);
    return NULL;
  }
  switch (backend) {
  case GPUCCL_BACKEND_CPU:
    return context_open(&gpuccl_cpu_ops, device_id, error);
  case GPUCCL_BACKEND_CUDA:
#ifdef GPUCCL_HAVE_CUDA
    return context_open(&gpuccl_cuda_ops, device_id, error);
#else
    gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                     "gpuccl was built without CUDA support");
    return NULL;
#endif
  case GPUCCL_BACKEND_AUTO:
#ifdef GPUCCL_HAVE_CUDA
    if (gpuccl_cuda_probe(device_id, NULL)) {
      GpucclContext *ctx = context_open(&gpuccl_cuda_ops, device_id, error);
      if (ctx)
        return ctx;
    }
#endif
    return context_open(&gpuccl_cpu_ops, device_id, error);
  }
  gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                   "unknown backend %d", (int)backend);
  return NULL;
}

void gpuccl_context_free(GpucclContext *ctx)
{
  if (!ctx)
    return;
  ctx->ops->close(ctx);
  free(ctx);
}

GpucclBackend gpuccl_context_backend(const GpucclContext *ctx)
{
  return ctx->ops->kind;
}

const char *gpuccl_context_device_name(const GpucclContext *ctx)
{
  return ctx->device_name;
}

static size_t pixel_size(GpucclPixelFormat format)
{
  switch (format) {
  case GPUCCL_PIXEL_U8: return 1;
  case GPUCCL_PIXEL_U16: return 2;
  case GPUCCL_PIXEL_PACKED4: return 4;
  }
  return 0;
}

static GpucclStatus check_size(int width, int height, GpucclError *error)
{
  if (width < 1 || height < 1 || width > GPUCCL_MAX_SIDE ||
      height > GPUCCL_MAX_SIDE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "image size %dx%d is outside 1x1..%dx%d", width,
                            height, GPUCCL_MAX_SIDE, GPUCCL_MAX_SIDE);
  return GPUCCL_OK;
}

static GpucclStatus check_image(const GpucclImage *image, GpucclError *error)
{
  if (!image || !image->data)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no image data");
  size_t bpp = pixel_size(image->format);
  if (bpp == 0)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown pixel format %d", (int)image->format);
  GpucclStatus status = check_size(image->width, image->height, error);
  if (status != GPUCCL_OK)
    return status;
  if (image->stride < (size_t)image->width * bpp)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "stride %zu is smaller than a row of %d pixels "
                            "(%zu bytes)",
                            image->stride, image->width,
                            (size_t)image->width * bpp);
  if (image->format == GPUCCL_PIXEL_PACKED4 &&
      (image->offset_r > 3 || image->offset_g > 3 || image->offset_b > 3))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "channel offsets %u/%u/%u are not inside a "
                            "4-byte pixel",
                            image->offset_r, image->offset_g,
                            image->offset_b);
  return GPUCCL_OK;
}

/* The parameters that only binarization reads (segments mode ignores
 * them, gpuccl.h). */
static GpucclStatus check_binarization(const GpucclParams *params,
                                       GpucclPixelFormat format,
                                       GpucclError *error)
{
  int max_threshold = format == GPUCCL_PIXEL_U16 ? 65535 : 255;
  if (params->threshold < 0 || params->threshold > max_threshold)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "threshold %d is outside 0..%d", params->threshold,
                            max_threshold);
  if (params->auto_threshold != GPUCCL_AUTO_THRESHOLD_NONE &&
      params->auto_threshold != GPUCCL_AUTO_THRESHOLD_OTSU)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown auto-threshold %d",
                            (int)params->auto_threshold);
  if ((unsigned)params->channel > GPUCCL_CHANNEL_BLUE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown channel %d", (int)params->channel);
  return GPUCCL_OK;
}

static GpucclStatus check_params(const GpucclParams *params,
                                 GpucclPixelFormat format, GpucclError *error)
{
  if (!params)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no parameters");
  if (params->connectivity != 4 && params->connectivity != 8)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "connectivity must be 4 or 8, not %d",
                            params->connectivity);
  if (params->mode != GPUCCL_MODE_BINARY &&
      params->mode != GPUCCL_MODE_SEGMENTS)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown mode %d", (int)params->mode);
  if (params->mode == GPUCCL_MODE_BINARY) {
    GpucclStatus st = check_binarization(params, format, error);
    if (st != GPUCCL_OK)
      return st;
  }
  if (params->max_area != 0 && params->min_area > params->max_area)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "min area %llu is above max area %llu",
                            (unsigned long long)params->min_area,
                            (unsigned long long)params->max_area);
  if ((unsigned)params->algorithm > GPUCCL_ALGORITHM_LAST)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown algorithm %d", (int)params->algorithm);
  if (params->n_queries && (!params->query_x || !params->query_y))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%zu query points without coordinates",
                            params->n_queries);
  if (params->n_queries >= GPUCCL_NO_BLOB)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%zu query points: at most %u", params->n_queries,
                            GPUCCL_NO_BLOB - 1);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_process(GpucclContext *ctx, const GpucclImage *image,
                            const GpucclParams *params, GpucclResult *result,
                            GpucclError *error)
{
  if (!ctx || !result)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no context or no result");
  memset(&ctx->last, 0, sizeof ctx->last);
  GpucclStatus status = check_image(image, error);
  if (status == GPUCCL_OK)
    status = check_params(params, image->format, error);
  if (status == GPUCCL_OK)
    status = ctx->ops->process(ctx, image, params, &ctx->last, error);
  if (status != GPUCCL_OK)
    memset(&ctx->last, 0, sizeof ctx->last);
  *result = ctx->last;
  return status;
}

GpucclStatus gpuccl_draw(GpucclContext *ctx, const GpucclFrame *frame,
                         const GpucclDrawParams *params, GpucclError *error)
{
  if (!ctx || !frame || !params)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no context, frame or draw parameters");
  if (frame->width != ctx->last.width || frame->height != ctx->last.height)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "frame is %dx%d but the last result is %dx%d",
                            frame->width, frame->height, ctx->last.width,
                            ctx->last.height);
  if ((unsigned)frame->format > GPUCCL_FRAME_PACKED4)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown frame format %d", (int)frame->format);
  int planes = frame->format == GPUCCL_FRAME_NV12   ? 2
               : frame->format == GPUCCL_FRAME_I420 ? 3
                                                    : 1;
  for (int i = 0; i < planes; i++)
    if (!frame->data[i])
      return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                              "frame plane %d has no data", i);
  if (params->line_width < 1)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "line width %d is below 1", params->line_width);
  if ((params->flags & GPUCCL_DRAW_LABELS) && !ctx->last.labels)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "drawing labels needs want_labels in the last "
                            "process call");
  return ctx->ops->draw(ctx, frame, params, error);
}

void *gpuccl_host_alloc(GpucclContext *ctx, size_t size, GpucclMemory memory,
                        GpucclError *error)
{
  if (!ctx || size == 0) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "no context or zero size");
    return NULL;
  }
  return ctx->ops->host_alloc(ctx, size, memory, error);
}

void gpuccl_host_free(GpucclContext *ctx, void *ptr)
{
  if (ctx && ptr)
    ctx->ops->host_free(ctx, ptr);
}
