/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Background models (gpuccl.h): their parameters, their memory (the
 * context's backend allocates it), and the schedule of each frame (rate,
 * warm-up, selectivity) that motion.h's arithmetic follows. */
#include "backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gpuccl_background_params_init_sized(GpucclBackgroundParams *params,
                                         size_t size)
{
  const GpucclBackgroundParams defaults = {
      .mode = GPUCCL_BACKGROUND_AVERAGE,
      .learning_rate = 0.05,
  };
  gpuccl_init_sized(params, size, &defaults, sizeof defaults);
}

/* The caller's parameters (size bytes; NULL: the defaults) into *own,
 * checked. */
static GpucclStatus read_params(const GpucclBackgroundParams *params,
                                size_t size, GpucclBackgroundParams *own,
                                GpucclError *error)
{
  gpuccl_background_params_init(own);
  if (params && !gpuccl_read_sized(own, sizeof *own, params, size))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "background parameters of %zu bytes set fields "
                            "past the %zu this library knows",
                            size, sizeof *own);
  if (own->mode != GPUCCL_BACKGROUND_AVERAGE &&
      own->mode != GPUCCL_BACKGROUND_DIFFERENCE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown background mode %d", (int)own->mode);
  /* Written so that NaN fails too. */
  if (!(own->learning_rate >= 0.0 && own->learning_rate <= 1.0))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "background learning_rate %g is outside 0..1",
                            own->learning_rate);
  return GPUCCL_OK;
}

static void apply_params(GpucclBackground *bg,
                         const GpucclBackgroundParams *params)
{
  if (bg->params.mode != params->mode)
    bg->frames = 0;
  bg->params = *params;
  bg->rate = params->mode == GPUCCL_BACKGROUND_DIFFERENCE
                 ? GPUCCL_MOTION_RATE_ONE
                 : (uint32_t)lround(params->learning_rate *
                                    GPUCCL_MOTION_RATE_ONE);
}

GpucclBackground *gpuccl_background_new_sized(
    GpucclContext *ctx, const GpucclBackgroundParams *params, size_t size,
    GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!ctx) {
    gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT, "no context");
    return NULL;
  }
  GpucclBackgroundParams own;
  if (read_params(params, size, &own, error) != GPUCCL_OK)
    return NULL;
  GpucclBackground *bg = calloc(1, sizeof *bg);
  if (!bg) {
    gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                     "cannot allocate a background model");
    return NULL;
  }
  bg->ctx = ctx;
  apply_params(bg, &own);
  return bg;
}

GpucclStatus gpuccl_background_set_params_sized(
    GpucclBackground *background, const GpucclBackgroundParams *params,
    size_t size, GpucclError *error)
{
  gpuccl_clear_error(error);
  if (!background || !params)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no background model or no parameters");
  GpucclBackgroundParams own;
  GpucclStatus status = read_params(params, size, &own, error);
  if (status == GPUCCL_OK)
    apply_params(background, &own);
  return status;
}

void gpuccl_background_reset(GpucclBackground *background)
{
  if (background)
    background->frames = 0;
}

uint64_t gpuccl_background_frames(const GpucclBackground *background)
{
  return background ? background->frames : 0;
}

void gpuccl_background_free(GpucclBackground *background)
{
  if (!background)
    return;
  if (background->model)
    background->ctx->ops->model_free(background->ctx, background->model);
  free(background);
}

GpucclStatus gpuccl_background_prepare(GpucclContext *ctx,
                                       const GpucclImage *image,
                                       const GpucclParams *params,
                                       GpucclError *error)
{
  GpucclBackground *bg = params->background;
  if (bg->ctx != ctx)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "the background model belongs to another "
                            "context");
  if (params->mode != GPUCCL_MODE_BINARY)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "a background model needs GPUCCL_MODE_BINARY "
                            "(mode is %d)",
                            (int)params->mode);
  const bool wide = image->format == GPUCCL_PIXEL_U16;
  const GpucclChannel channel = image->format == GPUCCL_PIXEL_PACKED4
                                    ? params->channel
                                    : GPUCCL_CHANNEL_LUMA;
  if (image->width != bg->width || image->height != bg->height ||
      image->format != bg->format || channel != bg->channel) {
    bg->frames = 0;
    bg->width = image->width;
    bg->height = image->height;
    bg->format = image->format;
    bg->channel = channel;
  }
  const bool previous = bg->params.mode == GPUCCL_BACKGROUND_DIFFERENCE;
  /* Four-byte values: rows of whole 32-pixel words, the CUDA backend's
   * layout (cuda/motion_layout.cuh); the CPU backend's row-major model
   * uses the first width * height values. */
  const size_t row = wide && !previous
                         ? ((size_t)image->width + 31) & ~(size_t)31
                         : (size_t)image->width;
  const size_t bytes =
      row * image->height * gpuccl_motion_value_bytes(wide, previous);
  if (bytes > bg->model_bytes) {
    if (bg->model)
      ctx->ops->model_free(ctx, bg->model);
    bg->model_bytes = 0;
    bg->model = ctx->ops->model_alloc(ctx, bytes, error);
    if (!bg->model) {
      bg->frames = 0;
      return error ? error->status : GPUCCL_ERROR_OUT_OF_MEMORY;
    }
    bg->model_bytes = bytes;
  }
  /* Warm-up: frame k learns at least 1 / (k + 1), so the model is the
   * mean of the frames so far (the first one copied), everywhere. */
  const uint64_t k = bg->frames;
  const uint64_t warmup =
      bg->params.warmup_frames ? bg->params.warmup_frames : 1;
  const bool warm = k < warmup;
  uint32_t rate = bg->rate;
  if (warm && GPUCCL_MOTION_RATE_ONE / (k + 1) > rate)
    rate = (uint32_t)(GPUCCL_MOTION_RATE_ONE / (k + 1));
  /* Field by field over zeros: the CUDA backend's graph key compares the
   * step's bytes, padding included. */
  memset(&bg->step, 0, sizeof bg->step);
  bg->step.model = bg->model;
  bg->step.rate = rate;
  bg->step.selective = !warm && bg->params.selective &&
                       bg->params.mode == GPUCCL_BACKGROUND_AVERAGE;
  bg->step.emit = !warm;
  bg->step.fresh = k == 0;
  bg->step.previous = previous;
  return GPUCCL_OK;
}

void gpuccl_background_done(GpucclBackground *background, bool ok)
{
  background->frames = ok ? background->frames + 1 : 0;
}
