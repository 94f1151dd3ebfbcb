/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta: registration, copy and scale, and the blob's ROI meta.
 * Built as its own small shared library (with a GObject-introspection
 * typelib) so that the plugin and applications share one GType. */
#include "gstcclblobmeta.h"

#include <math.h>
#include <string.h>

/* The ROI metas' parameter structure "gpucclblob": its name, its fields
 * and the roi type, as quarks made once. */
static GQuark q_blob, q_gpucclblob, q_id, q_track_id, q_area, q_centroid_x,
    q_centroid_y, q_value;

static void
init_quarks (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    q_blob = g_quark_from_static_string ("blob");
    q_gpucclblob = g_quark_from_static_string ("gpucclblob");
    q_id = g_quark_from_static_string ("id");
    q_track_id = g_quark_from_static_string ("track-id");
    q_area = g_quark_from_static_string ("area");
    q_centroid_x = g_quark_from_static_string ("centroid-x");
    q_centroid_y = g_quark_from_static_string ("centroid-y");
    q_value = g_quark_from_static_string ("value");
    g_once_init_leave (&done, 1);
  }
}

/**
 * gst_ccl_blob_meta_api_get_type:
 *
 * Returns: the #GType of the GstCclBlobMeta API
 */
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
  bmeta->n_roi_metas = 0;
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
    dmeta->n_roi_metas = src->n_roi_metas;
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

static GstStructure *
roi_param_new (const GstCclBlob * b)
{
  /* By quark: no string lookups, a third cheaper per blob. */
  return gst_structure_new_id (q_gpucclblob,
      q_id, G_TYPE_UINT, b->id,
      q_track_id, G_TYPE_UINT, b->track_id,
      q_area, G_TYPE_UINT64, b->area,
      q_centroid_x, G_TYPE_DOUBLE, b->cx,
      q_centroid_y, G_TYPE_DOUBLE, b->cy, q_value, G_TYPE_UINT, b->value, NULL);
}

static void
set_roi_box (GstVideoRegionOfInterestMeta * roi, const GstCclBlob * b)
{
  roi->x = b->x0;
  roi->y = b->y0;
  roi->w = b->x1 - b->x0 + 1;
  roi->h = b->y1 - b->y0 + 1;
}

static const GstCclBlob *
find_blob (const GstCclBlobMeta * meta, guint32 id)
{
  gsize lo = 0, hi = meta->n_blobs;

  while (lo < hi) {             /* the table is in increasing id */
    gsize mid = lo + (hi - lo) / 2;
    if (meta->blobs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < meta->n_blobs && meta->blobs[lo].id == id ?
      &meta->blobs[lo] : NULL;
}

/* GStreamer's ROI meta transform drops the parameter list when it scales
 * the box (rounding down: a small box can become 0 wide), and before 1.24
 * when it copies too. Metas are transformed in the order they were
 * attached and the element attaches this meta after the blobs' ROI metas,
 * so when this one is copied or scaled the ROI metas are already on dest:
 * give each blob's ROI meta its box and parameters back, from the table. */
static void
restore_roi_params (GstBuffer * dest, const GstCclBlobMeta * meta)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (dest, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    const GstCclBlob *b;

    if (roi->roi_type != q_blob || roi->id <= 0 ||
        gst_video_region_of_interest_meta_get_param (roi, "gpucclblob"))
      continue;
    b = find_blob (meta, (guint32) roi->id);
    if (!b)
      continue;
    set_roi_box (roi, b);
    gst_video_region_of_interest_meta_add_param (roi, roi_param_new (b));
  }
}

static gboolean
gst_ccl_blob_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCclBlobMeta *src = (GstCclBlobMeta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* A region of the buffer is not a frame: the table would not fit. */
    GstCclBlobMeta *dmeta;

    if (copy->region)
      return TRUE;
    dmeta = copy_meta (dest, src);
    if (!dmeta)
      return FALSE;
    restore_roi_params (dest, dmeta);
    return TRUE;
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
    restore_roi_params (dest, dmeta);
    return TRUE;
  }

  /* Flips, crops and other transforms are not supported: drop the meta. */
  return FALSE;
}

/**
 * gst_ccl_blob_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of GstCclBlobMeta
 */
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
    init_quarks ();
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_ccl_blob_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the blob table of @buffer, %NULL
 *   when it has none
 */
GstCclBlobMeta *
gst_buffer_get_ccl_blob_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCclBlobMeta *) gst_buffer_get_meta (buffer,
      GST_CCL_BLOB_META_API_TYPE);
}

/**
 * gst_buffer_add_ccl_blob_meta:
 * @buffer: a #GstBuffer
 * @width: frame width the coordinates refer to
 * @height: frame height the coordinates refer to
 * @blobs: (array length=n_blobs) (nullable): the blob table, in increasing
 *   id; copied
 * @n_blobs: number of entries of @blobs
 *
 * Attaches a blob table to @buffer. Attach it after the blobs' ROI metas
 * (gst_buffer_add_ccl_blob_roi_meta()), so that its scaling can give them
 * their parameters back.
 *
 * Returns: (transfer none) (nullable): the new meta
 */
GstCclBlobMeta *
gst_buffer_add_ccl_blob_meta (GstBuffer * buffer, guint width, guint height,
    const GstCclBlob * blobs, guint n_blobs)
{
  GstCclBlobMeta *meta;
  GstCclBlob *copy = NULL;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (n_blobs == 0 || blobs != NULL, NULL);

  /* A table can be large (one blob per pixel pair): no memory for it is
   * a NULL return, not an abort in g_new. */
  if (n_blobs) {
    copy = g_try_new (GstCclBlob, n_blobs);
    if (!copy)
      return NULL;
    memcpy (copy, blobs, sizeof (GstCclBlob) * n_blobs);
  }
  meta = (GstCclBlobMeta *) gst_buffer_add_meta (buffer,
      GST_CCL_BLOB_META_INFO, NULL);
  if (!meta) {
    g_free (copy);
    return NULL;
  }
  meta->width = width;
  meta->height = height;
  meta->n_blobs = n_blobs;
  meta->n_roi_metas = n_blobs;
  meta->blobs = copy;
  return meta;
}

/**
 * gst_ccl_blob_meta_get_blob:
 * @meta: a #GstCclBlobMeta
 * @index: 0..n_blobs - 1
 *
 * Returns: (transfer none) (nullable): the blob at @index, %NULL past the
 *   end
 */
const GstCclBlob *
gst_ccl_blob_meta_get_blob (const GstCclBlobMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return index < meta->n_blobs ? &meta->blobs[index] : NULL;
}

/**
 * gst_ccl_blob_meta_get_table_bytes:
 * @meta: a #GstCclBlobMeta
 * @n_bytes: (out): n_blobs * sizeof (GstCclBlob)
 *
 * The blob table as raw memory, for bindings that view it as an array of
 * records (Python: GpucclBlob.CclBlobMeta.table() makes a NumPy array of
 * it without a loop over the blobs).
 *
 * Returns: (transfer none) (array length=n_bytes) (element-type guint8):
 *   the table's bytes
 */
const guint8 *
gst_ccl_blob_meta_get_table_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes)
{
  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail (n_bytes != NULL, NULL);

  *n_bytes = (gsize) meta->n_blobs * sizeof (GstCclBlob);
  return (const guint8 *) meta->blobs;
}

/**
 * gst_buffer_add_ccl_blob_roi_meta:
 * @buffer: a #GstBuffer
 * @blob: the blob
 *
 * Attaches @blob as a #GstVideoRegionOfInterestMeta: roi type "blob", id
 * the blob's id, its bounding box, and a parameter structure "gpucclblob"
 * (id, track-id, area, centroid-x, centroid-y, value).
 *
 * Returns: (transfer none) (nullable): the new ROI meta
 */
GstVideoRegionOfInterestMeta *
gst_buffer_add_ccl_blob_roi_meta (GstBuffer * buffer, const GstCclBlob * blob)
{
  GstVideoRegionOfInterestMeta *roi;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (blob != NULL, NULL);

  init_quarks ();
  roi = gst_buffer_add_video_region_of_interest_meta_id (buffer, q_blob,
      0, 0, 0, 0);
  if (!roi)
    return NULL;
  set_roi_box (roi, blob);
  roi->id = (gint) blob->id;
  gst_video_region_of_interest_meta_add_param (roi, roi_param_new (blob));
  return roi;
}
