/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob per frame: the library context and tracker it runs on, and
 * transform_frame_ip (label, track, draw, report). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* ------------------------------------------------------------------ */
/* Context and tracker (streaming thread)                             */

/* Open a context for the asked backend. AUTO runs on the CPU when CUDA is
 * not there (a build without it, no driver or no device): what AUTO is
 * for, so an INFO line, not a warning on every run. A GPU that is there
 * but fails to open is a surprise worth one warning per element. CUDA
 * without a usable device is an element error. */
gboolean
gst_gpuccl_blob_open_context (GstGpucclBlob * self, GpucclBackend backend,
    gint device_id)
{
  GpucclError error = { 0 };
  GpucclError cuda_error = { 0 };
  gboolean cuda_ok = TRUE;

  if (backend == GPUCCL_BACKEND_AUTO)
    cuda_ok = gpuccl_cuda_available (device_id, &cuda_error);

  self->ctx = gpuccl_context_new (backend, device_id, &error);
  if (!self->ctx) {
    if (backend == GPUCCL_BACKEND_CUDA)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("No usable CUDA device %d for backend=cuda (use backend=auto or "
              "backend=cpu to run on the CPU)", device_id),
          ("%s: %s", gpuccl_status_name (error.status), error.message));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot open the gpuccl %s backend", gpuccl_backend_name (backend)),
          ("%s: %s", gpuccl_status_name (error.status), error.message));
    return FALSE;
  }
  self->ctx_backend = backend;
  self->ctx_device = device_id;

  if (backend == GPUCCL_BACKEND_AUTO &&
      gpuccl_context_backend (self->ctx) == GPUCCL_BACKEND_CPU) {
    if (!cuda_ok) {
      GST_INFO_OBJECT (self, "backend=auto: no CUDA (%s), using the CPU",
          cuda_error.message);
    } else if (!self->warned_fallback) {
      self->warned_fallback = TRUE;
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("CUDA device %d is present but could not be opened, using the "
              "CPU backend", device_id),
          ("the CUDA context could not be created"));
    }
  }
  GST_INFO_OBJECT (self, "gpuccl %s backend on %s",
      gpuccl_backend_name (gpuccl_context_backend (self->ctx)),
      gpuccl_context_device_name (self->ctx));
  return TRUE;
}

void
gst_gpuccl_blob_close_context (GstGpucclBlob * self)
{
  gst_gpuccl_blob_motion_free (self);   /* before its context */
  gst_gpuccl_blob_mask_forget (self, self->ctx);
  gpuccl_context_free (self->ctx);
  self->ctx = NULL;
}

/* A new context when backend or device-id changed since the last frame. */
static gboolean
ensure_context (GstGpucclBlob * self, const Settings * s)
{
  gint device = gst_gpuccl_blob_host_device (s);

  if (self->ctx && self->ctx_backend == s->backend &&
      self->ctx_device == device)
    return TRUE;
  gst_gpuccl_blob_close_context (self);
  return gst_gpuccl_blob_open_context (self, s->backend, device);
}

/* With tracking on a backend that searches (CUDA), the labeling also
 * finds each track's nearest blob: ask for the tracks' predictions. Not
 * for a region at an offset: the device would compare frame positions
 * with the region's (the tracker would see that and search itself). */
static void
ask_nearest (GstGpucclBlob * self, GpucclContext * ctx, const Settings * s,
    const Window * win, GpucclParams * p, GpucclNearestRequest * request)
{
  if (s->track && self->tracker && win->x == 0 && win->y == 0 &&
      gpuccl_context_backend (ctx) == GPUCCL_BACKEND_CUDA) {
    gpuccl_tracker_predict (self->tracker, request);
    p->nearest = request;
  }
}

/* Track ids of this frame's blobs (all 0 without tracking). */
static void
track_blobs (GstGpucclBlob * self, const Settings * s, const GpucclParams * p,
    const GpucclResult * r)
{
  guint32 *ids;

  /* Room for at least one id (gst_gpuccl_blob_reserve_frame): a memset
   * of NULL, even of 0 bytes, is undefined. With no blobs the tracker
   * still sees the empty frame, so its tracks age. */
  ids = self->track_ids;

  if (!s->track) {
    g_clear_pointer (&self->tracker, gpuccl_tracker_free);
    memset (ids, 0, r->n_blobs * sizeof (guint32));
    return;
  }

  GpucclTrackerParams params;
  gpuccl_tracker_params_init (&params);
  params.max_distance = s->track_max_distance;
  params.max_lost = s->track_max_lost;
  if (!self->tracker)
    self->tracker = gpuccl_tracker_new (&params);
  else
    gpuccl_tracker_set_params (self->tracker, &params);

  if (!self->tracker || !gpuccl_tracker_update_nearest (self->tracker,
          r->blobs, r->n_blobs, p->nearest, ids)) {
    GST_WARNING_OBJECT (self, "tracker out of memory, track ids are 0");
    memset (ids, 0, r->n_blobs * sizeof (guint32));
  }
}

void
gst_gpuccl_blob_reset_tracker (GstGpucclBlob * self)
{
  if (self->tracker)
    gpuccl_tracker_reset (self->tracker);
#ifdef HAVE_GST_ANALYTICS
  gst_gpuccl_blob_analytics_reset (self);
#endif
}

/* ------------------------------------------------------------------ */
/* Per frame                                                          */

static void
fill_params (GpucclParams * p, const Settings * s, const FormatDesc * f)
{
  gpuccl_params_init (p);
  p->threshold = MIN (s->threshold, f->max_threshold);
  p->invert = s->invert;
  p->auto_threshold = s->auto_threshold;
  p->channel = s->channel;
  p->connectivity = s->connectivity;
  p->min_area = s->min_area;
  p->max_area = s->max_area;
  p->max_blobs = s->max_blobs;
  p->want_labels = (s->draw & GPUCCL_DRAW_LABELS) != 0 ||
      (s->attach_labels && s->attach_meta);
  p->algorithm = s->algorithm;
  p->mode = s->mode;
  p->want_intensity = s->measure_intensity;
}

/* A library call failed: an element error whose message is the library's
 * (which names the field and its values), in the domain of its status. */
static GstFlowReturn
library_error (GstGpucclBlob * self, const char *what,
    const GpucclError * error)
{
  switch (error->status) {
    case GPUCCL_ERROR_INVALID_ARGUMENT:
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("%s failed: %s", what, error->message),
          ("gpuccl status: %s", gpuccl_status_name (error->status)));
      break;
    case GPUCCL_ERROR_UNSUPPORTED:
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("%s failed: %s", what, error->message),
          ("gpuccl status: %s", gpuccl_status_name (error->status)));
      break;
    case GPUCCL_ERROR_OUT_OF_MEMORY:
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("%s failed: %s", what, error->message),
          ("gpuccl status: %s", gpuccl_status_name (error->status)));
      break;
    default:
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("%s failed: %s", what, error->message),
          ("gpuccl status: %s", gpuccl_status_name (error->status)));
      break;
  }
  return GST_FLOW_ERROR;
}

/* The frame's planes and the overlays of the draw property but the ids. */
static void
fill_overlay (GpucclFrame * frame, GpucclDrawParams * params,
    const Settings * s, const FormatDesc * f, GstVideoFrame * vframe,
    const Window * win)
{
  memset (frame, 0, sizeof *frame);
  memset (params, 0, sizeof *params);
  frame->format = f->frame;
  frame->width = GST_VIDEO_FRAME_WIDTH (vframe);
  frame->height = GST_VIDEO_FRAME_HEIGHT (vframe);
  for (gint i = 0; i < f->n_planes; i++) {
    frame->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vframe, f->plane[i]);
    frame->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, f->plane[i]);
  }
  frame->offset_r = f->offset_r;
  frame->offset_g = f->offset_g;
  frame->offset_b = f->offset_b;
  gst_gpuccl_blob_region_frame (win, frame);

  params->flags = s->draw & ~GST_GPUCCL_BLOB_DRAW_IDS;
  params->r = (s->box_color >> 16) & 0xff;
  params->g = (s->box_color >> 8) & 0xff;
  params->b = s->box_color & 0xff;
  params->line_width = s->line_width;
}

/* Ids on top of the overlays gpuccl_process_draw drew. Tracked: the
 * number that follows the object; else the blob id. */
static GstFlowReturn
draw_ids (GstGpucclBlob * self, GpucclContext * ctx, const Settings * s,
    const GpucclFrame * frame, const GpucclDrawParams * params)
{
  GpucclError error = { 0 };

  if ((s->draw & GST_GPUCCL_BLOB_DRAW_IDS) &&
      gpuccl_draw_ids (ctx, frame, params,
          s->track ? self->track_ids : NULL, &error) != GPUCCL_OK)
    return library_error (self, "Drawing the ids", &error);
  return GST_FLOW_OK;
}

/* The settings and format for one frame, under the object lock. */
void
gst_gpuccl_blob_snapshot (GstGpucclBlob * self, Settings * s, FormatDesc * f)
{
  GST_OBJECT_LOCK (self);
  *s = self->settings;
  *f = self->format;
  GST_OBJECT_UNLOCK (self);
}

/* Label the frame on ctx, track its blobs, draw the overlays, report. The
 * frame's planes are host memory, or device memory of ctx's CUDA context. */
/* One frame's labeling: alone, or in a batch with other instances'. */
static GpucclStatus
label (GpucclContext * ctx, const Settings * s, const GpucclImage * image,
    const GpucclParams * params, GpucclResult * result, GpucclError * error)
{
  if (s->batch_size > 1)
    return gst_gpuccl_blob_batch_process (s->batch_size, s->batch_max_wait,
        ctx, image, params, result, error);
  return gpuccl_process (ctx, image, params, result, error);
}

GstFlowReturn
gst_gpuccl_blob_process_frame (GstGpucclBlob * self, GpucclContext * ctx,
    const Settings * s, const FormatDesc * f, GstVideoFrame * vframe)
{
  GpucclParams params;
  GpucclNearestRequest request;
  GpucclImage image = { 0 };
  Window win;
  GpucclFrame frame;
  GpucclDrawParams draw;
  gboolean drawing;
  GpucclResult result;
  const GpucclBlobIntensity *intensity;
  GpucclError error = { 0 };
  FrameTimes times;
  GpucclTrackEvents events;
  gboolean have_events;
  GstClockTime start, asked, labeled;
  GstFlowReturn ret = GST_FLOW_OK;

  gst_gpuccl_blob_region_clip (s, f, GST_VIDEO_FRAME_WIDTH (vframe),
      GST_VIDEO_FRAME_HEIGHT (vframe), &win);
  gst_gpuccl_blob_region_image (&win, f, vframe, &image);
  image.format = f->pixel;
  image.offset_r = f->offset_r;
  image.offset_g = f->offset_g;
  image.offset_b = f->offset_b;
  fill_params (&params, s, f);
  if (!gst_gpuccl_blob_motion_params (self, ctx, s, &params) ||
      !gst_gpuccl_blob_mask_params (self, ctx, s, &win, &params))
    return GST_FLOW_ERROR;

  /* The draw property may have been set after this buffer was mapped
   * read-only in passthrough: then draw from the next frame on. The
   * overlays are drawn by the labeling call, so on the device they share
   * its wait. */
  drawing = s->draw && (vframe->map[0].flags & GST_MAP_WRITE) && !win.empty;
  if (drawing)
    fill_overlay (&frame, &draw, s, f, vframe, &win);

  start = gst_util_get_timestamp ();
  ask_nearest (self, ctx, s, &win, &params, &request);
  asked = gst_util_get_timestamp ();
  if (win.empty) {
    /* Nothing to label: no blobs (gst_gpuccl_blob_region_to_frame). */
  } else if (drawing && draw.flags) {
    if (gpuccl_process_draw (ctx, &image, &params, &frame, &draw, &result,
            &error) != GPUCCL_OK)
      return library_error (self, "Labeling and drawing", &error);
  } else if (label (ctx, s, &image, &params, &result, &error) != GPUCCL_OK) {
    return library_error (self, "Labeling", &error);
  }
  /* Per blob, so the region's move to frame coordinates keeps them. */
  intensity = win.empty ? NULL : gpuccl_blob_intensities (ctx);
  if (!gst_gpuccl_blob_region_to_frame (self, &win, &params, &result)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory for the blob table of the region"), (NULL));
    return GST_FLOW_ERROR;
  }
  labeled = gst_util_get_timestamp ();
  times.processing_ns = labeled - asked;
  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " blobs of %u components, "
      "threshold %d, %" G_GUINT64_FORMAT " ns", result.n_blobs,
      result.n_components, result.threshold, times.processing_ns);

  if (!gst_gpuccl_blob_reserve_frame (self, s, &result))
    return GST_FLOW_ERROR;
  track_blobs (self, s, &params, &result);
  /* The tracker's host part, on both sides of the labeling: the
   * predictions, then the matching. */
  times.tracking_ns = s->track ? (asked - start) +
      (gst_util_get_timestamp () - labeled) : 0;

  if (drawing) {
    ret = draw_ids (self, ctx, s, &frame, &draw);
    if (ret != GST_FLOW_OK)
      return ret;
  }

  have_events = gst_gpuccl_blob_track_events (self, s, &events);
  if (have_events && s->post_track_events)
    gst_gpuccl_blob_post_track_events (self, vframe->buffer, &events,
        &result, self->track_ids);

  if (s->attach_meta || s->post_messages) {
    const guint32 *track_ids = s->track ? self->track_ids : NULL;
    Listing listing = gst_gpuccl_blob_choose_listed (self, &result,
        s->max_roi_metas);

    if (s->attach_meta && !gst_gpuccl_blob_attach_metas (self,
            vframe->buffer, &result, track_ids, intensity, &listing,
            &times)) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for the blob table of %" G_GSIZE_FORMAT
              " blobs", result.n_blobs), (NULL));
      return GST_FLOW_ERROR;
    }
    if (s->attach_meta && s->attach_labels &&
        !gst_gpuccl_blob_attach_labels (self, vframe->buffer, &result)) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for the label image of %dx%d pixels",
              result.width, result.height), (NULL));
      return GST_FLOW_ERROR;
    }
#ifdef HAVE_GST_ANALYTICS
    if (s->attach_meta)
      gst_gpuccl_blob_attach_analytics (self, vframe->buffer, &result,
          track_ids, &listing, s->track_max_lost, s->attach_labels);
#endif
    if (s->post_messages)
      gst_gpuccl_blob_post_message (self, vframe->buffer, &result, track_ids,
          intensity, &listing, &times, have_events ? &events : NULL);
  }
  return GST_FLOW_OK;
}

/* A frame in host memory, on the context of the backend and device the
 * properties ask for. GstVideoFilter's entry for a mapped frame; this
 * element maps its frames itself (gst_gpuccl_blob_transform_buffer), which
 * takes the one snapshot of a frame and calls process_host. */
static GstFlowReturn
process_host (GstGpucclBlob * self, const Settings * s, const FormatDesc * f,
    GstVideoFrame * vframe)
{
  if (!ensure_context (self, s))
    return GST_FLOW_ERROR;
  return gst_gpuccl_blob_process_frame (self, self->ctx, s, f, vframe);
}

GstFlowReturn
gst_gpuccl_blob_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * vframe)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (filter);
  Settings s;
  FormatDesc f;

  gst_gpuccl_blob_snapshot (self, &s, &f);
  return process_host (self, &s, &f, vframe);
}

/* One buffer: its frame mapped, processed, unmapped, on one snapshot of
 * the properties. Mapped as GstVideoFilter maps:
 * GST_VIDEO_FRAME_MAP_FLAG_NO_REF, so that the buffer stays writable for
 * the metas; read-only in passthrough (no overlays), so that a frame
 * shared with upstream is never copied. CUDA memory labeled on the device
 * is mapped with GST_MAP_CUDA: device pointers, and a write there makes
 * GstCudaMemory download before a later host map. */
GstFlowReturn
gst_gpuccl_blob_transform_buffer (GstGpucclBlob * self, GstBuffer * buf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstMapFlags flags = GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  GstVideoInfo info = filter->in_info;
  GpucclContext *device_ctx = NULL;
  gboolean on_device = FALSE;
  GstVideoFrame vframe;
  GstFlowReturn ret;
  Settings s;
  FormatDesc f;

  if (G_UNLIKELY (!filter->negotiated)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer before its caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (self)))
    flags |= GST_MAP_WRITE;
  gst_gpuccl_blob_snapshot (self, &s, &f);
  switch (gst_gpuccl_blob_cuda_place (self, &s, &f, buf, &info, &flags,
          &device_ctx)) {
    case FRAME_IN_CUDA_MEMORY:
      on_device = TRUE;
      break;
    case FRAME_REFUSED:
      return GST_FLOW_ERROR;
    case FRAME_IN_HOST_MEMORY:
      break;
  }

  if (!gst_video_frame_map (&vframe, &info, buf, flags)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the video frame %s", on_device ? "on the device" :
            "in host memory"), ("map flags 0x%x", (guint) flags));
    return GST_FLOW_ERROR;
  }
  if (!on_device) {
    ret = process_host (self, &s, &f, &vframe);
  } else if (!gst_gpuccl_blob_cuda_begin (self, device_ctx, &vframe)) {
    ret = GST_FLOW_ERROR;
  } else {
    ret = gst_gpuccl_blob_process_frame (self, device_ctx, &s, &f, &vframe);
    if (ret == GST_FLOW_OK)
      gst_gpuccl_blob_cuda_end (self, &vframe);
  }
  gst_video_frame_unmap (&vframe);
  return ret;
}
