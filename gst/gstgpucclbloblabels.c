/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The label image on the buffer (attach-labels=true): the library's
 * labels, one guint32 per pixel, as a GstBuffer in a custom meta
 * "GpucclBlobLabelsMeta" (fields labels, width, height, stride), on every
 * GStreamer; and on GStreamer >= 1.26 also as analytics segmentation
 * metadata, a GRAY16 mask of the listed blobs related to their
 * object-detection entries (gstgpucclblobanalytics.c calls it).
 *
 * A custom meta, not a field of GstCclBlobMeta: that struct's layout is
 * the meta library's ABI. Tagged "video" and "size": copies (tee, queue)
 * keep it, videoconvert and videoscale ask for a scale transform, kept
 * only at the same size (transform_labels), and other transforms keep no
 * meta so tagged, so a label image never describes another frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

static gboolean
copy_field (GQuark field, const GValue * value, gpointer dest)
{
  gst_structure_id_set_value (dest, field, value);
  return TRUE;
}

/* Copies keep the label image, and so does a "scale" to the same size
 * (videoconvert asks for one); any other size or transform drops it. */
static gboolean
transform_labels (GstBuffer * dest, GstCustomMeta * meta, GstBuffer * src,
    GQuark type, gpointer data, gpointer user_data)
{
  GstCustomMeta *copy;

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    const GstVideoMetaTransform *scale = data;

    if (GST_VIDEO_INFO_WIDTH (scale->in_info) !=
        GST_VIDEO_INFO_WIDTH (scale->out_info) ||
        GST_VIDEO_INFO_HEIGHT (scale->in_info) !=
        GST_VIDEO_INFO_HEIGHT (scale->out_info))
      return FALSE;
  } else if (!GST_META_TRANSFORM_IS_COPY (type)) {
    return FALSE;
  }
  copy = gst_buffer_add_custom_meta (dest, GST_GPUCCL_BLOB_LABELS_META);
  if (!copy)
    return FALSE;
  /* The labels GstBuffer is shared (a ref), never written after. */
  gst_structure_foreach (gst_custom_meta_get_structure (meta), copy_field,
      gst_custom_meta_get_structure (copy));
  return TRUE;
}

void
gst_gpuccl_blob_register_labels_meta (void)
{
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };
  static gsize registered;

  if (g_once_init_enter (&registered)) {
    gst_meta_register_custom (GST_GPUCCL_BLOB_LABELS_META, tags,
        transform_labels, NULL, NULL);
    g_once_init_leave (&registered, 1);
  }
}

/* A buffer of `size` bytes from a pool of them: fresh memory costs a page
 * fault per 4 KiB on first use, more than the copy; a label image goes
 * back to the pool when its last frame is gone. */
static GstBuffer *
acquire_labels (GstGpucclBlob * self, guint size)
{
  GstBuffer *buffer = NULL;
  GstStructure *config;
  guint pool_size = 0;

  if (self->labels_pool) {
    config = gst_buffer_pool_get_config (self->labels_pool);
    gst_buffer_pool_config_get_params (config, NULL, &pool_size, NULL, NULL);
    gst_structure_free (config);
    if (pool_size != size)
      gst_gpuccl_blob_free_labels (self);
  }
  if (!self->labels_pool) {
    self->labels_pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (self->labels_pool);
    gst_buffer_pool_config_set_params (config, NULL, size, 0, 0);
    if (!gst_buffer_pool_set_config (self->labels_pool, config) ||
        !gst_buffer_pool_set_active (self->labels_pool, TRUE)) {
      gst_gpuccl_blob_free_labels (self);
      return NULL;
    }
  }
  if (gst_buffer_pool_acquire_buffer (self->labels_pool, &buffer,
          NULL) != GST_FLOW_OK)
    return NULL;
  return buffer;
}

void
gst_gpuccl_blob_free_labels (GstGpucclBlob * self)
{
  if (self->labels_pool) {
    gst_buffer_pool_set_active (self->labels_pool, FALSE);
    gst_clear_object (&self->labels_pool);
  }
}

gboolean
gst_gpuccl_blob_attach_labels (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r)
{
  gsize stride = (gsize) r->width * sizeof (guint32);
  gsize size = stride * r->height;
  GstBuffer *labels;
  GstCustomMeta *meta;

  /* 16384 x 16384 x 4 bytes is 1 GiB: fits the pool's guint. */
  labels = acquire_labels (self, (guint) size);
  if (!labels)
    return FALSE;
  /* The context's labels are overwritten by the next frame. */
  gst_buffer_fill (labels, 0, r->labels, size);
  meta = gst_buffer_add_custom_meta (buffer, GST_GPUCCL_BLOB_LABELS_META);
  if (!meta) {
    gst_buffer_unref (labels);
    return FALSE;
  }
  gst_structure_set (gst_custom_meta_get_structure (meta),
      "labels", GST_TYPE_BUFFER, labels,
      "width", G_TYPE_INT, r->width, "height", G_TYPE_INT, r->height,
      "stride", G_TYPE_INT, (gint) stride, NULL);
  gst_buffer_unref (labels);
  return TRUE;
}

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>

/* Region ids are mask samples: a GRAY16 mask holds ids up to this. */
#define MAX_MASK_ID G_MAXUINT16

/* One frame-sized GRAY16_LE mask: the label of each pixel of a blob that
 * has an object-detection entry (entries[i] is blob_ids[i]'s), 0
 * elsewhere; region i of the segmentation is entry i. Not attached when an
 * entry's blob id does not fit 16 bits (the custom meta has them all). */
void
gst_gpuccl_blob_attach_segmentation (GstAnalyticsRelationMeta * rmeta,
    const GpucclResult * r, const guint * blob_ids, const guint * entries,
    gsize n)
{
  GstAnalyticsSegmentationMtd seg;
  gsize pixels = (gsize) r->width * r->height;
  guint8 *listed;
  guint16 *mask;
  GstBuffer *buffer;

  for (gsize i = 0; i < n; i++)
    if (blob_ids[i] > MAX_MASK_ID) {
      GST_DEBUG ("blob id %u above %u: no segmentation mask", blob_ids[i],
          MAX_MASK_ID);
      return;
    }
  listed = g_try_malloc0 (MAX_MASK_ID + 1);
  mask = g_try_malloc (pixels * sizeof (guint16));
  if (!listed || !mask) {
    g_free (listed);
    g_free (mask);
    return;
  }
  for (gsize i = 0; i < n; i++)
    listed[blob_ids[i]] = 1;
  for (gsize p = 0; p < pixels; p++) {
    guint32 id = r->labels[p];
    mask[p] = id <= MAX_MASK_ID && listed[id] ? GUINT16_TO_LE (id) : 0;
  }
  g_free (listed);

  buffer = gst_buffer_new_wrapped (mask, pixels * sizeof (guint16));
  gst_buffer_add_video_meta (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY16_LE, r->width, r->height);
  if (!gst_analytics_relation_meta_add_segmentation_mtd (rmeta, buffer,
          GST_SEGMENTATION_TYPE_INSTANCE, n, (guint *) blob_ids, 0, 0,
          r->width, r->height, &seg)) {
    gst_buffer_unref (buffer);
    return;
  }
  for (gsize i = 0; i < n; i++) {
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_RELATE_TO, entries[i], seg.id);
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_RELATE_TO, seg.id, entries[i]);
  }
}
#endif
