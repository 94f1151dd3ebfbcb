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

  /* A background model does not survive new caps (another format or
   * size, or upstream restarting). */
  gst_gpuccl_blob_motion_reset (self);
  /* Tracks do not survive a change of frame size. */
  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (&filter->in_info)
      || GST_VIDEO_INFO_HEIGHT (in_info) !=
      GST_VIDEO_INFO_HEIGHT (&filter->in_info))
    gst_gpuccl_blob_reset_tracker (self);

  f.cuda_memory = gst_gpuccl_blob_cuda_negotiated (self, incaps);

  GST_OBJECT_LOCK (self);
  self->format = f;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s %dx%d", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info));
  return TRUE;
}

/* The plane's rows and the bytes of one row at the negotiated size. */
static void
plane_shape (const GstVideoInfo * info, guint plane, gsize * rows,
    gsize * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (finfo, plane, comp);
  *rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
      GST_VIDEO_INFO_HEIGHT (info));
  *row_bytes = (gsize) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comp[0],
      GST_VIDEO_INFO_WIDTH (info)) * GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo,
      comp[0]);
}

/* A GstVideoMeta against the caps and the buffer's size: same format,
 * size and plane count, and every plane's rows inside the buffer with a
 * stride that holds a row, computed without wrapping. NULL when it fits,
 * else what does not (to be freed). */
static gchar *
video_meta_problem (const GstVideoInfo * info, const GstVideoMeta * meta,
    gsize size)
{
  if (meta->format != GST_VIDEO_INFO_FORMAT (info))
    return g_strdup_printf ("GstVideoMeta format %s is not the caps' %s",
        gst_video_format_to_string (meta->format),
        GST_VIDEO_INFO_NAME (info));
  if (meta->width != (guint) GST_VIDEO_INFO_WIDTH (info) ||
      meta->height != (guint) GST_VIDEO_INFO_HEIGHT (info))
    return g_strdup_printf ("GstVideoMeta size %ux%u is not the caps' %dx%d",
        meta->width, meta->height, GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info));
  if (meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return g_strdup_printf ("GstVideoMeta has %u planes, %s has %u",
        meta->n_planes, GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_N_PLANES (info));
  for (guint p = 0; p < meta->n_planes; p++) {
    gsize rows, row_bytes, end;

    plane_shape (info, p, &rows, &row_bytes);
    if (meta->stride[p] <= 0 || (gsize) meta->stride[p] < row_bytes)
      return g_strdup_printf ("GstVideoMeta plane %u stride %d is below its "
          "row of %" G_GSIZE_FORMAT " bytes", p, meta->stride[p], row_bytes);
    if (!g_size_checked_mul (&end, (gsize) meta->stride[p], rows - 1) ||
        !g_size_checked_add (&end, end, row_bytes) ||
        !g_size_checked_add (&end, end, meta->offset[p]) || end > size)
      return g_strdup_printf ("GstVideoMeta plane %u (offset %"
          G_GSIZE_FORMAT ", stride %d, %" G_GSIZE_FORMAT " rows) reaches "
          "past the buffer's %" G_GSIZE_FORMAT " bytes", p, meta->offset[p],
          meta->stride[p], rows, size);
  }
  return NULL;
}

/* Whether a plane of the meta crosses from one GstMemory into the next.
 * GStreamer's video-meta map maps only the memory that holds a plane's
 * first byte, so such a plane would be read and drawn past that block. */
static gboolean
plane_crosses_memories (const GstVideoInfo * info, const GstVideoMeta * meta,
    GstBuffer * buf)
{
  if (gst_buffer_n_memory (buf) < 2)
    return FALSE;
  for (guint p = 0; p < meta->n_planes; p++) {
    gsize rows, row_bytes, skip;
    guint idx, length;
    GstMemory *mem;
    gboolean inside;

    plane_shape (info, p, &rows, &row_bytes);
    if (!gst_buffer_find_memory (buf, meta->offset[p], 1, &idx, &length,
            &skip))
      return TRUE;
    mem = gst_buffer_peek_memory (buf, idx);
    /* video_meta_problem checked that this span does not wrap. */
    inside = skip + (gsize) meta->stride[p] * (rows - 1) + row_bytes <=
        gst_memory_get_sizes (mem, NULL, NULL);
    if (!inside)
      return TRUE;
  }
  return FALSE;
}

/* One memory for the whole buffer, a copy of the frame (buf is writable:
 * prepare_output_buffer made it so, and upstream's memories are not
 * touched). Rare: an element that appends memories (a depayloader, an
 * application) and a meta whose plane straddles two of them. */
static gboolean
merge_memories (GstGpucclBlob * self, GstBuffer * buf)
{
  GstMemory *merged = gst_buffer_get_all_memory (buf);

  if (!merged) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot merge the %u memories of a video buffer whose planes cross "
            "them", gst_buffer_n_memory (buf)), (NULL));
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "a plane crosses memories: merged %u memories",
      gst_buffer_n_memory (buf));
  gst_buffer_replace_all_memory (buf, merged);
  return TRUE;
}

/* A buffer that cannot hold its frame (per the caps, or per its
 * GstVideoMeta, which is checked against the caps once here) is an
 * element error: FALSE. Before negotiation there is nothing to check
 * against (the base class refuses the buffer). A plane that crosses
 * memories is made whole (host memory only). */
gboolean
gst_gpuccl_blob_check_buffer (GstGpucclBlob * self, GstBuffer * buf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  const GstVideoInfo *info = &filter->in_info;
  GstVideoMeta *meta;
  gsize size = gst_buffer_get_size (buf);
  gchar *problem;

  if (!filter->negotiated)
    return TRUE;

  meta = gst_buffer_get_video_meta (buf);
  if (meta)
    problem = video_meta_problem (info, meta, size);
  else if (size < GST_VIDEO_INFO_SIZE (info))
    problem = g_strdup_printf ("buffer of %" G_GSIZE_FORMAT " bytes is too "
        "small for a %dx%d %s frame (%" G_GSIZE_FORMAT " bytes)", size,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info));
  else
    problem = NULL;
  if (!problem) {
    gboolean cuda;

    GST_OBJECT_LOCK (self);
    cuda = self->format.cuda_memory;
    GST_OBJECT_UNLOCK (self);
    if (meta && !cuda && plane_crosses_memories (info, meta, buf))
      return merge_memories (self, buf);
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Invalid video buffer from upstream: %s", problem),
      ("%dx%d %s, buffer of %" G_GSIZE_FORMAT " bytes%s",
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), size, meta ? ", with a GstVideoMeta" :
          ""));
  g_free (problem);
  return FALSE;
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
