/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every process and overlay call checks before a backend sees it. */
#include "process_checks.h"

#include "backend.h"
#include "checked.h"

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

/* Where a PACKED4 pixel's red, green and blue bytes lie: each must be one
 * of its 4 bytes. `what` names whose offsets they are in the message. */
static GpucclStatus check_offsets(unsigned r, unsigned g, unsigned b,
                                  const char *what, GpucclError *error)
{
  if (r > 3 || g > 3 || b > 3)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%s offsets %u/%u/%u are not inside a 4-byte "
                            "pixel",
                            what, r, g, b);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_check_plane(const void *data, size_t stride, size_t rows,
                                size_t row_bytes, const char *what,
                                GpucclError *error)
{
  size_t span;
  if (stride > GPUCCL_MAX_STRIDE)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%s: stride %zu is above the largest accepted, "
                            "%zu bytes",
                            what, stride, (size_t)GPUCCL_MAX_STRIDE);
  if (stride < row_bytes)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%s: stride %zu is smaller than a row of %zu "
                            "bytes",
                            what, stride, row_bytes);
  if (!gpuccl_plane_span(data, stride, rows, row_bytes, &span))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%s: stride %zu x %zu rows does not fit in "
                            "memory",
                            what, stride, rows);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_check_image(const GpucclImage *image, GpucclError *error)
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
  status = gpuccl_check_plane(image->data, image->stride, (size_t)image->height,
                              (size_t)image->width * bpp, "image", error);
  if (status != GPUCCL_OK)
    return status;
  if (image->format == GPUCCL_PIXEL_PACKED4)
    return check_offsets(image->offset_r, image->offset_g, image->offset_b,
                         "channel", error);
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

GpucclStatus gpuccl_check_params(const GpucclParams *params,
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
  if ((unsigned)params->algorithm > GPUCCL_ALGORITHM_LAST)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown algorithm %d", (int)params->algorithm);
  const GpucclNearestRequest *q = params->nearest;
  if (q && q->n && (!q->x || !q->y))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%zu query points without coordinates", q->n);
  if (q && q->n >= GPUCCL_NO_BLOB)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%zu query points: at most %u", q->n,
                            GPUCCL_NO_BLOB - 1);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_read_params(const GpucclParams *params,
                                size_t params_size, GpucclParams *own,
                                const GpucclParams **use, GpucclError *error)
{
  *use = NULL;
  if (!params)
    return GPUCCL_OK;
  gpuccl_params_init(own);
  if (!gpuccl_read_sized(own, sizeof *own, params, params_size))
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "parameters of %zu bytes set fields past the "
                            "%zu this library knows",
                            params_size, sizeof *own);
  *use = own;
  if (own->nearest)
    own->nearest->answers = NULL;
  return GPUCCL_OK;
}

/* Plane i of a frame: its rows and the bytes of one row. */
typedef struct {
  size_t rows, row_bytes;
} PlaneShape;

/* The planes a frame format has, and their shapes; 0 for an unknown
 * format. Chroma of 4:2:0 covers odd sizes with a last half sample. */
static int frame_planes(const GpucclFrame *f, PlaneShape shape[3])
{
  const size_t w = (size_t)f->width, h = (size_t)f->height;
  const size_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  switch (f->format) {
  case GPUCCL_FRAME_GRAY8:
    shape[0] = (PlaneShape){h, w};
    return 1;
  case GPUCCL_FRAME_GRAY16:
    shape[0] = (PlaneShape){h, 2 * w};
    return 1;
  case GPUCCL_FRAME_PACKED4:
    shape[0] = (PlaneShape){h, 4 * w};
    return 1;
  case GPUCCL_FRAME_NV12:
    shape[0] = (PlaneShape){h, w};
    shape[1] = (PlaneShape){ch, 2 * cw};
    return 2;
  case GPUCCL_FRAME_I420:
    shape[0] = (PlaneShape){h, w};
    shape[1] = shape[2] = (PlaneShape){ch, cw};
    return 3;
  }
  return 0;
}

static GpucclStatus check_frame(const GpucclFrame *frame, GpucclError *error)
{
  PlaneShape shape[3];
  const int planes = frame_planes(frame, shape);
  if (planes == 0)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "unknown frame format %d", (int)frame->format);
  static const char *const names[3] = {"frame plane 0", "frame plane 1",
                                       "frame plane 2"};
  for (int i = 0; i < planes; i++) {
    if (!frame->data[i])
      return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                              "frame plane %d has no data", i);
    GpucclStatus st =
        gpuccl_check_plane(frame->data[i], frame->stride[i], shape[i].rows,
                           shape[i].row_bytes, names[i], error);
    if (st != GPUCCL_OK)
      return st;
  }
  if (frame->format == GPUCCL_FRAME_PACKED4)
    return check_offsets(frame->offset_r, frame->offset_g, frame->offset_b,
                         "frame channel", error);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_check_frame_for(const GpucclFrame *frame,
                                    const GpucclDrawParams *params, int width,
                                    int height, const char *whose,
                                    GpucclError *error)
{
  if (frame->width != width || frame->height != height)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "frame is %dx%d but %s is %dx%d", frame->width,
                            frame->height, whose, width, height);
  GpucclStatus status = check_frame(frame, error);
  if (status != GPUCCL_OK)
    return status;
  if (params->line_width < 1)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "line width %d is below 1", params->line_width);
  return GPUCCL_OK;
}

GpucclStatus gpuccl_check_overlay(const GpucclImage *image,
                                  const GpucclParams *params,
                                  const GpucclFrame *frame,
                                  const GpucclDrawParams *draw,
                                  GpucclError *error)
{
  if (!frame || !draw)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "no frame or draw parameters");
  GpucclStatus status = gpuccl_check_frame_for(
      frame, draw, image->width, image->height, "the image", error);
  if (status != GPUCCL_OK)
    return status;
  if ((draw->flags & GPUCCL_DRAW_LABELS) && !params->want_labels)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "drawing labels needs want_labels in the "
                            "parameters");
  return GPUCCL_OK;
}
