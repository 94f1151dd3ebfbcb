/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's negotiated format and incoming buffers: the format is
 * described for libgpuccl once in set_info; each buffer is checked against
 * it (and its GstVideoMeta) before it is mapped. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

static gboolean
describe_format (const GstVideoInfo * info, FormatDesc * f)
{
  const GstVideoFormatInfo *finfo = info->finfo;

  memset (f, 0, sizeof *f);
  f->pixel = GPUCCL_PIXEL_U8;
  f->max_threshold = 255;
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
      f->frame = GPUCCL_FRAME_GRAY8;
      f->n_planes = 1;
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      f->pixel = GPUCCL_PIXEL_U16;
      f->max_threshold = 65535;
      f->frame = GPUCCL_FRAME_GRAY16;
      f->n_planes = 1;
      break;
    case GST_VIDEO_FORMAT_NV12:
      f->frame = GPUCCL_FRAME_NV12;
      f->n_planes = 2;
      break;
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
      f->frame = GPUCCL_FRAME_I420;
      f->n_planes = 3;
      break;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      f->pixel = GPUCCL_PIXEL_PACKED4;
      f->frame = GPUCCL_FRAME_PACKED4;
      f->n_planes = 1;
      f->offset_r = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R);
      f->offset_g = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G);
      f->offset_b = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B);
      break;
    default:
      return FALSE;
  }
  /* Component i (Y/R, U/G, V/B) lives in this memory plane: YV12's U is
   * plane 2, NV12's U starts its interleaved plane 1. */
  for (gint i = 0; i < f->n_planes; i++)
    f->plane[i] = GST_VIDEO_FORMAT_INFO_PLANE (finfo, i);
  return TRUE;
}

gboolean
gst_gpuccl_blob_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (filter);
  FormatDesc f;

  if (!describe_format (in_info, &f)) {
    GST_ERROR_OBJECT (self, "unsupported caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  if (GST_VIDEO_INFO_WIDTH (in_info) > GPUCCL_MAX_SIDE ||
      GST_VIDEO_INFO_HEIGHT (in_info) > GPUCCL_MAX_SIDE) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frame size %dx%d is above the largest supported side of %d",
            GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
            GPUCCL_MAX_SIDE), (NULL));
    return FALSE;
  }

  /* Tracks do not survive a change of frame size. */
  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (&filter->in_info)
      || GST_VIDEO_INFO_HEIGHT (in_info) !=
      GST_VIDEO_INFO_HEIGHT (&filter->in_info))
    gst_gpuccl_blob_reset_tracker (self);

  GST_OBJECT_LOCK (self);
  self->format = f;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s %dx%d", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info));
  return TRUE;
}

/* The bytes a frame needs: the caps' size, or with a GstVideoMeta the end
 * of its last plane. 0 when the meta itself is unusable. */
static gsize
frame_bytes_needed (const GstVideoInfo * info, const GstVideoMeta * meta)
{
  gsize end = 0;

  if (!meta)
    return GST_VIDEO_INFO_SIZE (info);
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
      meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return 0;
  for (guint p = 0; p < meta->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows;
    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp[0],
        meta->height);
    if (meta->stride[p] <= 0)
      return 0;
    end = MAX (end, meta->offset[p] + (gsize) meta->stride[p] * rows);
  }
  return end;
}

/* A buffer shorter than its frame (per the caps, or per its GstVideoMeta)
 * is an element error: FALSE. Before negotiation there is nothing to check
 * against (the base class refuses the buffer). */
gboolean
gst_gpuccl_blob_check_buffer_size (GstGpucclBlob * self, GstBuffer * buf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  gsize size = gst_buffer_get_size (buf), needed;

  if (!filter->negotiated)
    return TRUE;

  needed = frame_bytes_needed (&filter->in_info,
      gst_buffer_get_video_meta (buf));
  if (needed == 0 || size < needed) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer of %" G_GSIZE_FORMAT " bytes is too small for a %dx%d %s "
            "frame (%" G_GSIZE_FORMAT " bytes%s)", size,
            GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info),
            GST_VIDEO_INFO_NAME (&filter->in_info), needed,
            needed ? "" : ", video meta does not match the caps"), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* Always in place: the output is the input, made writable for the metas.
 * Decided here once per buffer, whatever the passthrough flag (which the
 * draw property flips from other threads): a buffer upstream still holds
 * gets a shallow copy — its memory stays shared, so without drawing
 * (passthrough, mapped read-only) the pixels are never copied, and when
 * drawing, mapping it writable copies the frame first, so upstream's
 * buffer is never written. */
GstFlowReturn
gst_gpuccl_blob_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  *outbuf = gst_buffer_is_writable (input) ? input : gst_buffer_copy (input);
  return GST_FLOW_OK;
}
