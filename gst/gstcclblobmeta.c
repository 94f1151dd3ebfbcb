/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta: registration, copy and scale. Built as its own small
 * shared library so that the plugin and applications share one GType. */
#include "gstcclblobmeta.h"

#include <gst/video/video.h>
#include <math.h>
#include <string.h>

GType
gst_ccl_blob_meta_api_get_type (void)
{
  static GType type = 0;
  /* Tagged video + size: kept by elements that only change colour or
   * size (videoconvert, videoscale: the latter scales it, see below). */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCclBlobMetaV"
        G_STRINGIFY (GST_CCL_BLOB_META_ABI_VERSION) "API", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_ccl_blob_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCclBlobMeta *bmeta = (GstCclBlobMeta *) meta;

  bmeta->width = bmeta->height = 0;
  bmeta->threshold = 0;
  bmeta->n_components = 0;
  bmeta->n_blobs = 0;
  bmeta->blobs = NULL;
  bmeta->processing_ns = 0;
  bmeta->tracking_ns = 0;
  return TRUE;
}

static void
gst_ccl_blob_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCclBlobMeta *bmeta = (GstCclBlobMeta *) meta;

  g_free (bmeta->blobs);
  bmeta->blobs = NULL;
}

static GstCclBlobMeta *
copy_meta (GstBuffer * dest, const GstCclBlobMeta * src)
{
  GstCclBlobMeta *dmeta = gst_buffer_add_ccl_blob_meta (dest, src->width,
      src->height, src->blobs, src->n_blobs);

  if (dmeta) {
    dmeta->threshold = src->threshold;
    dmeta->n_components = src->n_components;
    dmeta->processing_ns = src->processing_ns;
    dmeta->tracking_ns = src->tracking_ns;
  }
  return dmeta;
}

/* Scale one inclusive pixel interval [a, b] from a side of n_in pixels to
 * one of n_out: the covered continuous range [a, b + 1) is scaled and the
 * pixels it touches are kept. */
static void
scale_interval (guint32 * a, guint32 * b, guint n_in, guint n_out)
{
  guint64 a2 = (guint64) * a * n_out / n_in;
  guint64 b2 = ((guint64) (*b + 1) * n_out + n_in - 1) / n_in;

  if (b2 > n_out)
    b2 = n_out;
  if (b2 <= a2)
    b2 = a2 + 1;
  *a = (guint32) a2;
  *b = (guint32) (b2 - 1);
}

/* Pixel centres are at integer + 0.5 in continuous coordinates. */
static gdouble
scale_coordinate (gdouble c, guint n_in, guint n_out)
{
  gdouble s = (c + 0.5) * n_out / n_in - 0.5;
  return s < 0 ? 0 : s;
}

static void
scale_blob (GstCclBlob * b, guint iw, guint ih, guint ow, guint oh)
{
  gdouble area = (gdouble) b->area * ((gdouble) ow / iw) * ((gdouble) oh / ih);

  scale_interval (&b->x0, &b->x1, iw, ow);
  scale_interval (&b->y0, &b->y1, ih, oh);
  b->cx = scale_coordinate (b->cx, iw, ow);
  b->cy = scale_coordinate (b->cy, ih, oh);
  b->area = area < 1.0 ? 1 : (guint64) llround (area);
  /* Keep sum / area == centroid, as in the library's results. */
  b->sum_x = (guint64) llround (b->cx * b->area);
  b->sum_y = (guint64) llround (b->cy * b->area);
}

static gboolean
gst_ccl_blob_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCclBlobMeta *src = (GstCclBlobMeta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* A region of the buffer is not a frame: the table would not fit. */
    if (copy->region)
      return TRUE;
    return copy_meta (dest, src) != NULL;
  }

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *trans = data;
    guint ow = GST_VIDEO_INFO_WIDTH (trans->out_info);
    guint oh = GST_VIDEO_INFO_HEIGHT (trans->out_info);
    guint iw = src->width, ih = src->height;
    GstCclBlobMeta *dmeta;

    if (iw == 0 || ih == 0 || ow == 0 || oh == 0)
      return FALSE;
    dmeta = copy_meta (dest, src);
    if (!dmeta)
      return FALSE;
    dmeta->width = ow;
    dmeta->height = oh;
    for (guint i = 0; i < dmeta->n_blobs; i++)
      scale_blob (&dmeta->blobs[i], iw, ih, ow, oh);
    return TRUE;
  }

  /* Flips, crops and other transforms are not supported: drop the meta. */
  return FALSE;
}

const GstMetaInfo *
gst_ccl_blob_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CCL_BLOB_META_API_TYPE,
        "GstCclBlobMetaV" G_STRINGIFY (GST_CCL_BLOB_META_ABI_VERSION),
        sizeof (GstCclBlobMeta),
        gst_ccl_blob_meta_init, gst_ccl_blob_meta_free,
        gst_ccl_blob_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstCclBlobMeta *
gst_buffer_add_ccl_blob_meta (GstBuffer * buffer, guint width, guint height,
    const GstCclBlob * blobs, guint n_blobs)
{
  GstCclBlobMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (n_blobs == 0 || blobs != NULL, NULL);

  meta = (GstCclBlobMeta *) gst_buffer_add_meta (buffer,
      GST_CCL_BLOB_META_INFO, NULL);
  if (!meta)
    return NULL;
  meta->width = width;
  meta->height = height;
  meta->n_blobs = n_blobs;
  meta->blobs = NULL;
  if (n_blobs) {
    meta->blobs = g_new (GstCclBlob, n_blobs);
    memcpy (meta->blobs, blobs, sizeof (GstCclBlob) * n_blobs);
  }
  return meta;
}
