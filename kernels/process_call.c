/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The steps around the backend that every process call takes. */
#include "process_call.h"

#include "process_checks.h"

#include <string.h>

GpucclStatus gpuccl_prepare_process(GpucclContext *ctx,
                                    const GpucclImage *image,
                                    const GpucclParams *params,
                                    const GpucclOverlay *overlay,
                                    GpucclError *error)
{
  memset(&ctx->last, 0, sizeof ctx->last);
  ctx->intensity_valid = false;
  GpucclStatus status = gpuccl_check_image(image, error);
  if (status == GPUCCL_OK)
    status = gpuccl_check_params(params, image->format, error);
  if (status == GPUCCL_OK && (params->mask || params->want_intensity))
    status = gpuccl_mask_check(ctx, image, params, error);
  if (status == GPUCCL_OK && overlay)
    status = gpuccl_check_overlay(image, params, overlay->frame,
                                  &overlay->params, error);
  /* Last: the step changes the model (gpuccl_background_done undoes it). */
  if (status == GPUCCL_OK && params->background)
    status = gpuccl_background_prepare(ctx, image, params, error);
  return status;
}

void gpuccl_finish_process(GpucclContext *ctx, const GpucclParams *params,
                           GpucclStatus status)
{
  if (params && params->background)
    gpuccl_background_done(params->background, status == GPUCCL_OK);
  ctx->intensity_valid =
      status == GPUCCL_OK && params && params->want_intensity;
  if (status != GPUCCL_OK) {
    memset(&ctx->last, 0, sizeof ctx->last);
    if (params && params->nearest)
      params->nearest->answers = NULL;
  }
}
