/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gpuccl front: argument checks, backend choice and dispatch. */
#include "backend.h"
#ifdef GPUCCL_HAVE_CUDA
#include "cuda/cuda_internal.h"
#endif
#include "checked.h"
#include "draw_common.h"
#include "draw_host.h"
#include "process_call.h"
#include "process_checks.h"

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

void gpuccl_clear_error(GpucclError *error)
{
  if (error) {
    error->status = GPUCCL_OK;
    error->message[0] = '\0';
  }
}

unsigned gpuccl_abi_version(void)
{
  return GPUCCL_ABI_VERSION;
}

void gpuccl_params_init_sized(GpucclParams *params, size_t size)
{
  const GpucclParams defaults = {
      .threshold = 127,
      .connectivity = 8,
      .auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE,
      .channel = GPUCCL_CHANNEL_LUMA,
      .algorithm = GPUCCL_ALGORITHM_DEFAULT,
      .mode = GPUCCL_MODE_BINARY,
  };
  gpuccl_init_sized(params, size, &defaults, sizeof defaults);
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
  gpuccl_clear_error(error);
#ifdef GPUCCL_HAVE_CUDA
  return gpuccl_cuda_probe(device_id, error);
#else
  (void)device_id;
  gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                   "gpuccl was built without CUDA support");
  return false;
#endif
}

static GpucclContext *context_open_on(const GpucclBackendOps *ops,
                                      int device_id, void *cuda_context,
                                      void *cuda_stream, GpucclError *error)
{
  GpucclContext *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "cannot allocate a gpuccl context");
    return NULL;
  }
  ctx->ops = ops;
  ctx->cuda_context = cuda_context;
  ctx->cuda_stream = cuda_stream;
  if (ops->open(ctx, device_id, error) != GPUCCL_OK) {
    free(ctx);
    return NULL;
  }
  return ctx;
}

static GpucclContext *context_open(const GpucclBackendOps *ops, int device_id,
                                   GpucclError *error)
{
  return context_open_on(ops, device_id, NULL, NULL, error);
}

GpucclContext *gpuccl_context_new(GpucclBackend backend, int device_id,
                                  GpucclError *error)
{
  gpuccl_clear_error(error);
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
      gpuccl_clear_error(error); /* the CPU is the answer to AUTO */
    }
#endif
    return context_open(&gpuccl_cpu_ops, device_id, error);
  }
  gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                   "unknown backend %d", (int)backend);
  return NULL;
}

GpucclContext *gpuccl_context_new_cuda(void *cuda_context, void *cuda_stream,
                                       GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!cuda_context) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "no CUDA context (use gpuccl_context_new for the "
                     "device's primary context)");
    return NULL;
  }
#ifdef GPUCCL_HAVE_CUDA
  return context_open_on(&gpuccl_cuda_ops, 0, cuda_context, cuda_stream,
                         error);
#else
  (void)cuda_stream;
  gpuccl_set_error(error, GPUCCL_ERROR_NO_DEVICE,
                   "gpuccl was built without CUDA support");
  return NULL;
#endif
}

uint64_t gpuccl_frame_uploads(void)
{
#ifdef GPUCCL_HAVE_CUDA
  return gpuccl_cuda_frame_uploads();
#else
  return 0;
#endif
}

void gpuccl_context_free(GpucclContext *ctx)
{
  if (!ctx)
    return;
  ctx->ops->close(ctx);
  free(ctx->intensity);
  free(ctx);
}

GpucclBackend gpuccl_context_backend(const GpucclContext *ctx)
{
  return ctx ? ctx->ops->kind : GPUCCL_BACKEND_AUTO;
}

const char *gpuccl_context_device_name(const GpucclContext *ctx)
{
  return ctx ? ctx->device_name : "";
}

/* What every overlay call needs: a context whose last result has the
 * frame's size, a valid frame and a line width. */
static GpucclStatus check_draw(const GpucclContext *ctx,
                               const GpucclFrame *frame,
                               const GpucclDrawParams *params,
                               GpucclError *error)
{
  if (!ctx || !frame || !params)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no context, frame or draw parameters");
  return gpuccl_check_frame_for(frame, params, ctx->last.width,
                                ctx->last.height, "the last result", error);
}

/* Wider lines draw what the widest does (draw_common.h), and the
 * backends' arithmetic on the width stays far from overflow. */
static GpucclDrawParams clamped_draw(const GpucclDrawParams *params)
{
  GpucclDrawParams clamped = *params;
  if (clamped.line_width > GPUCCL_DRAW_WIDEST_LINE)
    clamped.line_width = GPUCCL_DRAW_WIDEST_LINE;
  return clamped;
}

GpucclStatus gpuccl_draw(GpucclContext *ctx, const GpucclFrame *frame,
                         const GpucclDrawParams *params, GpucclError *error)
{
  gpuccl_clear_error(error);
  GpucclStatus status = check_draw(ctx, frame, params, error);
  if (status != GPUCCL_OK)
    return status;
  if ((params->flags & GPUCCL_DRAW_LABELS) && !ctx->last.labels)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "drawing labels needs want_labels in the last "
                            "process call");
  const GpucclDrawParams clamped = clamped_draw(params);
  return ctx->ops->draw(ctx, frame, &clamped, error);
}

/* gpuccl_process, and gpuccl_process_draw when overlay is not NULL: a
 * backend that can draws it within the frame, else the overlay follows the
 * labeling as gpuccl_draw's. */
static GpucclStatus process(GpucclContext *ctx, const GpucclImage *image,
                            const GpucclParams *caller, size_t params_size,
                            const GpucclOverlay *overlay,
                            GpucclResult *result, GpucclError *error)
{
  GpucclParams own;
  const GpucclParams *params;
  gpuccl_clear_error(error);
  GpucclStatus status =
      gpuccl_read_params(caller, params_size, &own, &params, error);
  if (status == GPUCCL_OK && (!ctx || !result))
    status = gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                              "no context or no result");
  if (status != GPUCCL_OK) {
    if (result)
      *result = (GpucclResult){0};
    return status;
  }
  status = gpuccl_prepare_process(ctx, image, params, overlay, error);
  const bool fused = overlay && ctx->ops->process_draw;
  if (status == GPUCCL_OK)
    status = fused ? ctx->ops->process_draw(ctx, image, params, overlay,
                                            &ctx->last, error)
                   : ctx->ops->process(ctx, image, params, &ctx->last, error);
  if (status == GPUCCL_OK && overlay && !fused)
    status = ctx->ops->draw(ctx, overlay->frame, &overlay->params, error);
  gpuccl_finish_process(ctx, params, status);
  *result = ctx->last;
  return status;
}

GpucclStatus gpuccl_process_sized(GpucclContext *ctx,
                                  const GpucclImage *image,
                                  const GpucclParams *params,
                                  size_t params_size, GpucclResult *result,
                                  GpucclError *error)
{
  return process(ctx, image, params, params_size, NULL, result, error);
}

GpucclStatus gpuccl_process_draw_sized(GpucclContext *ctx,
                                       const GpucclImage *image,
                                       const GpucclParams *params,
                                       size_t params_size,
                                       const GpucclFrame *frame,
                                       const GpucclDrawParams *draw,
                                       GpucclResult *result, GpucclError *error)
{
  GpucclOverlay overlay = {frame, {0}};
  if (draw)
    overlay.params = clamped_draw(draw);
  else
    overlay.frame = NULL; /* gpuccl_check_overlay refuses it */
  return process(ctx, image, params, params_size, &overlay, result, error);
}

GpucclStatus gpuccl_draw_ids(GpucclContext *ctx, const GpucclFrame *frame,
                             const GpucclDrawParams *params,
                             const uint32_t *ids, GpucclError *error)
{
  gpuccl_clear_error(error);
  GpucclStatus status = check_draw(ctx, frame, params, error);
  if (status != GPUCCL_OK)
    return status;
  /* A few small rectangles per blob: drawn on the host, where the frame
   * is, by the same code for every backend. */
  gpuccl_host_draw_ids(&ctx->last, frame, params, ids);
  return GPUCCL_OK;
}

void *gpuccl_host_alloc(GpucclContext *ctx, size_t size, GpucclMemory memory,
                        GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!ctx || size == 0) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "no context or zero size");
    return NULL;
  }
  if ((unsigned)memory > GPUCCL_MEMORY_MAPPED) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                     "unknown memory kind %d", (int)memory);
    return NULL;
  }
  return ctx->ops->host_alloc(ctx, size, memory, error);
}

void gpuccl_host_free(GpucclContext *ctx, void *ptr)
{
  if (ctx && ptr)
    ctx->ops->host_free(ctx, ptr);
}
