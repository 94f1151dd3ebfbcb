/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's region property: only a rectangle of the frame is labeled.
 * The library labels a sub-image (the planes' pointers moved to the
 * rectangle's corner, host and device memory alike) and draws into the
 * same sub-frame; the blob table and the label image are then moved back
 * into frame coordinates, so everything downstream of the labeling
 * (tracker, metas, messages) sees the frame's coordinates. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* The property's value: an empty array unsets the region; four integers
 * x, y, width, height (width and height >= 1; the corner may be outside
 * the frame) set it. FALSE, nothing changed, for anything else. */
gboolean
gst_gpuccl_blob_region_from_value (Settings * s, const GValue * value)
{
  gint v[4];
  guint n = gst_value_array_get_size (value);

  if (n == 0) {
    s->has_region = FALSE;
    return TRUE;
  }
  if (n != 4)
    return FALSE;
  for (guint i = 0; i < 4; i++) {
    const GValue *item = gst_value_array_get_value (value, i);
    if (!G_VALUE_HOLDS_INT (item))
      return FALSE;
    v[i] = g_value_get_int (item);
  }
  if (v[2] < 1 || v[3] < 1)
    return FALSE;
  memcpy (s->region, v, sizeof v);
  s->has_region = TRUE;
  return TRUE;
}

void
gst_gpuccl_blob_region_to_value (const Settings * s, GValue * value)
{
  GValue item = G_VALUE_INIT;

  g_value_init (&item, G_TYPE_INT);
  for (guint i = 0; s->has_region && i < 4; i++) {
    g_value_set_int (&item, s->region[i]);
    gst_value_array_append_value (value, &item);
  }
  g_value_unset (&item);
}

/* The labeled rectangle of a width x height frame: the region clipped to
 * the frame, its left and top edges rounded down to even on 4:2:0 frames
 * (a chroma sample covers 2 x 2 pixels: the overlays' colours stay on
 * their pixels). The whole frame without a region. */
void
gst_gpuccl_blob_region_clip (const Settings * s, const FormatDesc * f,
    gint width, gint height, Window * win)
{
  gint64 x0 = 0, y0 = 0, x1 = width, y1 = height;

  if (s->has_region) {
    x0 = MAX (s->region[0], 0);
    y0 = MAX (s->region[1], 0);
    x1 = MIN ((gint64) s->region[0] + s->region[2], width);
    y1 = MIN ((gint64) s->region[1] + s->region[3], height);
  }
  if (f->frame == GPUCCL_FRAME_NV12 || f->frame == GPUCCL_FRAME_I420) {
    x0 &= ~(gint64) 1;
    y0 &= ~(gint64) 1;
  }
  win->empty = x1 <= x0 || y1 <= y0;
  win->x = win->empty ? 0 : (gint) x0;
  win->y = win->empty ? 0 : (gint) y0;
  win->width = win->empty ? 0 : (gint) (x1 - x0);
  win->height = win->empty ? 0 : (gint) (y1 - y0);
  win->frame_width = width;
  win->frame_height = height;
}

static gsize
pixel_bytes (GpucclPixelFormat format)
{
  return format == GPUCCL_PIXEL_U16 ? 2 : format == GPUCCL_PIXEL_PACKED4 ?
      4 : 1;
}

/* The labeled plane of the window (data: host or device pointer, moved
 * the same way). */
void
gst_gpuccl_blob_region_image (const Window * win, const FormatDesc * f,
    GstVideoFrame * vframe, GpucclImage * image)
{
  const gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, f->plane[0]);
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (vframe, f->plane[0]);

  image->data = data + (gsize) win->y * stride +
      (gsize) win->x * pixel_bytes (f->pixel);
  image->width = win->width;
  image->height = win->height;
  image->stride = stride;
}

/* The frame's planes moved to the window's corner, for the overlays. */
void
gst_gpuccl_blob_region_frame (const Window * win, GpucclFrame * frame)
{
  const gsize x = win->x, y = win->y;

  switch (frame->format) {
    case GPUCCL_FRAME_GRAY8:
    case GPUCCL_FRAME_GRAY16:
    case GPUCCL_FRAME_PACKED4:
      frame->data[0] = (guint8 *) frame->data[0] + y * frame->stride[0] +
          x * (frame->format == GPUCCL_FRAME_GRAY8 ? 1 :
          frame->format == GPUCCL_FRAME_GRAY16 ? 2 : 4);
      break;
    case GPUCCL_FRAME_NV12:
      frame->data[0] = (guint8 *) frame->data[0] + y * frame->stride[0] + x;
      frame->data[1] = (guint8 *) frame->data[1] +
          y / 2 * frame->stride[1] + x / 2 * 2;
      break;
    case GPUCCL_FRAME_I420:
      frame->data[0] = (guint8 *) frame->data[0] + y * frame->stride[0] + x;
      for (gint i = 1; i < 3; i++)
        frame->data[i] = (guint8 *) frame->data[i] +
            y / 2 * frame->stride[i] + x / 2;
      break;
  }
  frame->width = win->width;
  frame->height = win->height;
}

/* The label image of the whole frame: 0 outside the window. */
static gboolean
labels_to_frame (GstGpucclBlob * self, const Window * win,
    const guint32 * labels)
{
  const gsize w = win->frame_width, h = win->frame_height;
  guint32 *out;

  if (!gst_gpuccl_blob_grow ((gpointer *) & self->region_labels,
          &self->region_labels_cap,
          MAX (w * h, 1), sizeof (guint32)))
    return FALSE;
  out = self->region_labels;
  memset (out, 0, w * h * sizeof (guint32));
  for (gint y = 0; labels && y < win->height; y++)
    memcpy (out + (gsize) (win->y + y) * w + win->x,
        labels + (gsize) y * win->width, win->width * sizeof (guint32));
  return TRUE;
}

/* Move the window's result into frame coordinates: boxes, sums (area *
 * offset) and labels. *r is rewritten to point at the element's copies.
 * An empty window gives no blobs (and labels of 0 when asked for). FALSE
 * when out of memory. */
gboolean
gst_gpuccl_blob_region_to_frame (GstGpucclBlob * self, const Window * win,
    const GpucclParams * p, GpucclResult * r)
{
  GpucclBlob *blobs;
  gboolean labels;

  if (win->empty) {
    *r = (GpucclResult) {
    0};
    r->threshold = p->mode == GPUCCL_MODE_SEGMENTS ? 0 : p->threshold;
  } else if (win->x == 0 && win->y == 0 && win->width == win->frame_width &&
      win->height == win->frame_height) {
    return TRUE;
  }
  labels = r->labels != NULL || (win->empty && p->want_labels);
  if (!gst_gpuccl_blob_grow ((gpointer *) & self->region_blobs,
          &self->region_blobs_cap,
          MAX (r->n_blobs, 1), sizeof (GpucclBlob)))
    return FALSE;
  blobs = self->region_blobs;
  for (gsize i = 0; i < r->n_blobs; i++) {
    blobs[i] = r->blobs[i];
    blobs[i].x0 += win->x;
    blobs[i].x1 += win->x;
    blobs[i].y0 += win->y;
    blobs[i].y1 += win->y;
    blobs[i].sum_x += (guint64) blobs[i].area * win->x;
    blobs[i].sum_y += (guint64) blobs[i].area * win->y;
  }
  r->blobs = blobs;
  if (labels) {
    if (!labels_to_frame (self, win, r->labels))
      return FALSE;
    r->labels = self->region_labels;
  }
  r->width = win->frame_width;
  r->height = win->frame_height;
  return TRUE;
}

void
gst_gpuccl_blob_region_free (GstGpucclBlob * self)
{
  g_clear_pointer (&self->region_blobs, g_free);
  g_clear_pointer (&self->region_labels, g_free);
  self->region_blobs_cap = self->region_labels_cap = 0;
}
