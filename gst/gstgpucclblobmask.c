/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's mask-location property: a picture whose zero pixels are
 * never foreground. The file is decoded once, at the first frame after
 * the property is set, by a small GStreamer pipeline (decodebin, so any
 * picture format the installed plugins decode; videoconvert to GRAY8),
 * then handed to libgpuccl as a GpucclMask of the labeled window (the
 * region's rectangle of it), made in the context that labels the frames
 * and made again when the context, window or file change. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* A picture should decode in well under this; a file that never prerolls
 * (not a picture, a stream that waits) is an error, not a hang. */
#define MASK_DECODE_TIMEOUT (10 * GST_SECOND)

void
gst_gpuccl_blob_mask_forget (GstGpucclBlob * self, GpucclContext * ctx)
{
  if (self->mask && (ctx == NULL || self->mask_ctx == ctx)) {
    g_clear_pointer (&self->mask, gpuccl_mask_free);
    self->mask_ctx = NULL;
  }
}

void
gst_gpuccl_blob_mask_free (GstGpucclBlob * self)
{
  gst_gpuccl_blob_mask_forget (self, NULL);
  g_clear_pointer (&self->mask_pixels, g_free);
  self->mask_width = self->mask_height = 0;
  self->mask_loaded_serial = 0;
}

/* The error a decoding pipeline posted, or a generic one. */
static gchar *
pipeline_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  if (msg)
    gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err ? err->message : "it did not decode to a picture");
  g_clear_error (&err);
  gst_clear_message (&msg);
  gst_object_unref (bus);
  return text;
}

/* The picture at path as GRAY8 rows (stride = width) into the element's
 * mask_pixels; FALSE with *why set when it cannot be read. */
static gboolean
decode_picture (GstGpucclBlob * self, const gchar * path, gchar ** why)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch ("filesrc name=src ! decodebin ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! appsink name=sink "
      "sync=false", &err);
  GstElement *src, *sink;
  GstSample *sample = NULL;
  GstVideoFrame frame;
  GstVideoInfo info;
  gboolean ok = FALSE;

  /* A pipeline may come back with an error (an element missing). */
  if (!pipeline || err) {
    *why = g_strdup_printf ("cannot make the decoder (filesrc, decodebin, "
        "videoconvert and appsink are needed): %s",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return FALSE;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (src, "location", path, NULL);
  if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE || gst_element_get_state (pipeline, NULL, NULL,
          MASK_DECODE_TIMEOUT) != GST_STATE_CHANGE_SUCCESS) {
    *why = pipeline_error (pipeline);
  } else {
    g_signal_emit_by_name (sink, "pull-preroll", &sample);
    if (!sample || !gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)) || !gst_video_frame_map (&frame,
            &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
      *why = g_strdup ("it did not decode to a picture");
    } else {
      const gint w = GST_VIDEO_INFO_WIDTH (&info);
      const gint h = GST_VIDEO_INFO_HEIGHT (&info);
      const guint8 *rows = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
      const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

      g_free (self->mask_pixels);
      self->mask_pixels = g_malloc ((gsize) w * h);
      for (gint y = 0; y < h; y++)
        memcpy (self->mask_pixels + (gsize) y * w,
            rows + (gsize) y * stride, w);
      self->mask_width = w;
      self->mask_height = h;
      gst_video_frame_unmap (&frame);
      ok = TRUE;
    }
  }
  if (sample)
    gst_sample_unref (sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok;
}

/* The file of the property, decoded when it changed since the last frame;
 * FALSE after an element error. */
static gboolean
load_picture (GstGpucclBlob * self, const Settings * s)
{
  gchar *path, *why = NULL;

  if (self->mask_loaded_serial == s->mask_serial)
    return TRUE;
  gst_gpuccl_blob_mask_free (self);
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->mask_location);
  GST_OBJECT_UNLOCK (self);
  if (path && !decode_picture (self, path, &why)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Cannot read the mask-location picture \"%s\": %s", path, why),
        ("a GRAY8 picture (any format decodebin decodes: PNG, JPEG, ...) "
            "of the frame's size; zero pixels are never foreground"));
    g_free (why);
    g_free (path);
    return FALSE;
  }
  g_free (path);
  self->mask_loaded_serial = s->mask_serial;
  return TRUE;
}

gboolean
gst_gpuccl_blob_mask_params (GstGpucclBlob * self, GpucclContext * ctx,
    const Settings * s, const Window * win, GpucclParams * p)
{
  GpucclError error = { 0 };
  GpucclImage picture = { 0 };

  if (!load_picture (self, s))
    return FALSE;
  if (s->mode != GPUCCL_MODE_BINARY && (self->mask_pixels ||
          s->measure_intensity)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("%s needs mode=binary: a label map (mode=segments) is not "
            "thresholded", self->mask_pixels ? "mask-location" :
            "measure-intensity"), (NULL));
    return FALSE;
  }
  if (!self->mask_pixels || win->empty)
    return TRUE;
  if (self->mask_width != win->frame_width ||
      self->mask_height != win->frame_height) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The mask-location picture is %dx%d but the frame is %dx%d: give "
            "a mask of the frame's size", self->mask_width,
            self->mask_height, win->frame_width, win->frame_height), (NULL));
    return FALSE;
  }
  if (self->mask && (self->mask_ctx != ctx || memcmp (&self->mask_win, win,
              sizeof *win) != 0))
    gst_gpuccl_blob_mask_forget (self, NULL);
  if (!self->mask) {
    /* The window's rectangle of the picture: its rows, the picture's
     * stride. */
    picture.data = self->mask_pixels + (gsize) win->y * self->mask_width +
        win->x;
    picture.width = win->width;
    picture.height = win->height;
    picture.stride = self->mask_width;
    picture.format = GPUCCL_PIXEL_U8;
    self->mask = gpuccl_mask_new (ctx, &picture, &error);
    if (!self->mask) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot make the mask: %s", error.message),
          ("gpuccl status: %s", gpuccl_status_name (error.status)));
      return FALSE;
    }
    self->mask_ctx = ctx;
    self->mask_win = *win;
  }
  p->mask = self->mask;
  return TRUE;
}
