/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta: registration, copy and scale, and reading it. Built as
 * its own small shared library (with a GObject-introspection typelib) so
 * that the plugin and applications share one GType. */
#include "gstcclblobmetaprivate.h"

#include <math.h>
#include <string.h>

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
  bmeta->track_ids = bmeta->values = NULL;
  bmeta->processing_ns = 0;
  bmeta->tracking_ns = 0;
  bmeta->n_roi_metas = 0;
  bmeta->source = NULL;
  bmeta->intensity = NULL;
  return TRUE;
}

/* The table and its arrays are one allocation, starting at blobs. */
static void
gst_ccl_blob_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCclBlobMeta *bmeta = (GstCclBlobMeta *) meta;

  gst_ccl_blob_table_free (bmeta->blobs);
  bmeta->blobs = NULL;
  bmeta->track_ids = bmeta->values = NULL;
  g_clear_pointer (&bmeta->source, g_free);
  g_clear_pointer (&bmeta->intensity, gst_ccl_blob_table_free);
}

static GstCclBlobMeta *
copy_meta (GstBuffer * dest, const GstCclBlobMeta * src)
{
  GstCclBlobMeta *dmeta = gst_buffer_add_ccl_blob_meta (dest, src->width,
      src->height, src->blobs, src->track_ids, src->values, src->n_blobs);

  if (dmeta) {
    dmeta->threshold = src->threshold;
    dmeta->n_components = src->n_components;
    dmeta->processing_ns = src->processing_ns;
    dmeta->tracking_ns = src->tracking_ns;
    dmeta->n_roi_metas = src->n_roi_metas;
    gst_ccl_blob_meta_set_source (dmeta, src->source);
    if (src->intensity && !gst_ccl_blob_meta_set_intensity (dmeta,
            src->intensity))
      return NULL;
  }
  return dmeta;
}

/* Scale one inclusive pixel interval [a, b] from a side of n_in pixels to
 * one of n_out: the covered continuous range [a, b + 1) is scaled and the
 * pixels it touches are kept. */
static void
scale_interval (guint16 * a, guint16 * b, guint n_in, guint n_out)
{
  guint64 a2 = (guint64) * a * n_out / n_in;
  guint64 b2 = ((guint64) (*b + 1) * n_out + n_in - 1) / n_in;

  if (b2 > n_out)
    b2 = n_out;
  if (b2 <= a2)
    b2 = a2 + 1;
  *a = (guint16) a2;
  *b = (guint16) (b2 - 1);
}

/* Pixel centres are at integer + 0.5 in continuous coordinates. */
static gdouble
scale_coordinate (gdouble c, guint n_in, guint n_out)
{
  gdouble s = (c + 0.5) * n_out / n_in - 0.5;
  return s < 0 ? 0 : s;
}

/* The area scales with the frame; the sums follow it so that sum / area is
 * the scaled centroid (exact to 0.5 / area pixel). */
static void
scale_blob (GstCclBlob * b, guint iw, guint ih, guint ow, guint oh)
{
  gdouble area = (gdouble) b->area * ((gdouble) ow / iw) * ((gdouble) oh / ih);
  gdouble cx, cy;

  gst_ccl_blob_get_centroid (b, &cx, &cy);
  scale_interval (&b->x0, &b->x1, iw, ow);
  scale_interval (&b->y0, &b->y1, ih, oh);
  b->area = area < 1.0 ? 1 : area > G_MAXUINT32 ? G_MAXUINT32 :
      (guint32) llround (area);
  b->sum_x = (guint64) llround (scale_coordinate (cx, iw, ow) * b->area);
  b->sum_y = (guint64) llround (scale_coordinate (cy, ih, oh) * b->area);
}

/* Where the picture lies in a scaled frame. videoscale's default
 * (add-borders=true) keeps the display aspect ratio: when the output's
 * differs, the picture is centred between borders, as computed here the
 * way videoscale computes them. FALSE when it has no area. */
static gboolean
picture_rect (const GstVideoInfo * in, const GstVideoInfo * out,
    GstVideoRectangle * r)
{
  gint from_n, from_d, to_n, to_d, n, d;

  *r = (GstVideoRectangle) {
  0, 0, GST_VIDEO_INFO_WIDTH (out), GST_VIDEO_INFO_HEIGHT (out)};
  if (in->par_n <= 0 || in->par_d <= 0 || out->par_n <= 0 || out->par_d <= 0
      || !gst_util_fraction_multiply (in->width, in->height, in->par_n,
          in->par_d, &from_n, &from_d)
      || !gst_util_fraction_multiply (out->width, out->height, out->par_n,
          out->par_d, &to_n, &to_d)
      || (from_n == to_n && from_d == to_d)
      || !gst_util_fraction_multiply (from_n, from_d, out->par_d, out->par_n,
          &n, &d))
    return TRUE;
  r->h = (gint) gst_util_uint64_scale_int (out->width, d, n);
  if (r->h <= out->height) {
    r->y = (out->height - r->h) / 2;
  } else {
    r->h = out->height;
    r->w = (gint) gst_util_uint64_scale_int (out->height, n, d);
    r->x = (out->width - r->w) / 2;
  }
  return r->w > 0 && r->h > 0;
}

/* Scale the table of dmeta (iw x ih) into the picture rectangle r of a
 * frame of ow x oh. */
static void
scale_table (GstCclBlobMeta * dmeta, guint iw, guint ih, guint ow, guint oh,
    const GstVideoRectangle * r)
{
  dmeta->width = ow;
  dmeta->height = oh;
  for (guint i = 0; i < dmeta->n_blobs; i++) {
    GstCclBlob *b = &dmeta->blobs[i];
    guint32 area = b->area;

    scale_blob (b, iw, ih, r->w, r->h);
    /* The mean (sum / area) stays the blob's: the sum follows the area. */
    if (dmeta->intensity)
      dmeta->intensity[i].sum = (guint64) llround ((gdouble)
          dmeta->intensity[i].sum / area * b->area);
    b->x0 += r->x;
    b->x1 += r->x;
    b->y0 += r->y;
    b->y1 += r->y;
    b->sum_x += (guint64) r->x * b->area;
    b->sum_y += (guint64) r->y * b->area;
  }
}

static gboolean
gst_ccl_blob_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCclBlobMeta *src = (GstCclBlobMeta *) meta;
  GstCclBlobMeta *dmeta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    /* A region of the buffer is not a frame: the table would not fit. */
    if (copy->region)
      return TRUE;
    dmeta = copy_meta (dest, src);
  } else if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *trans = data;
    guint ow = GST_VIDEO_INFO_WIDTH (trans->out_info);
    guint oh = GST_VIDEO_INFO_HEIGHT (trans->out_info);
    guint iw = src->width, ih = src->height;
    GstVideoRectangle picture;

    /* Coordinates are 16-bit: no sides beyond 65 536 pixels. */
    if (iw == 0 || ih == 0 || ow == 0 || oh == 0 ||
        ow > G_MAXUINT16 + 1 || oh > G_MAXUINT16 + 1)
      return FALSE;
    dmeta = copy_meta (dest, src);
    /* A picture without area shows no blob: an empty table (and the blobs'
     * ROI metas go, see gst_ccl_blob_restore_roi_metas). */
    if (dmeta && !picture_rect (trans->in_info, trans->out_info, &picture)) {
      dmeta->n_blobs = dmeta->n_roi_metas = 0;
      dmeta->width = ow;
      dmeta->height = oh;
    } else if (dmeta) {
      scale_table (dmeta, iw, ih, ow, oh, &picture);
    }
  } else {
    /* Flips, crops and other transforms are not supported: dropped. */
    return FALSE;
  }
  if (!dmeta)
    return FALSE;
  gst_ccl_blob_restore_roi_metas (dest, dmeta);
  return TRUE;
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
 * gst_buffer_get_n_ccl_blob_metas:
 * @buffer: a #GstBuffer
 *
 * Returns: how many blob tables @buffer carries (one per gpucclblob it
 *   went through)
 */
guint
gst_buffer_get_n_ccl_blob_metas (GstBuffer * buffer)
{
  gpointer state = NULL;
  guint n = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);

  while (gst_buffer_iterate_meta_filtered (buffer, &state,
          GST_CCL_BLOB_META_API_TYPE))
    n++;
  return n;
}

/**
 * gst_buffer_get_nth_ccl_blob_meta:
 * @buffer: a #GstBuffer
 * @index: 0 for the table attached first (the most upstream gpucclblob)
 *
 * Returns: (transfer none) (nullable): the @index-th blob table of
 *   @buffer, %NULL past the last
 */
GstCclBlobMeta *
gst_buffer_get_nth_ccl_blob_meta (GstBuffer * buffer, guint index)
{
  gpointer state = NULL;
  GstMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_CCL_BLOB_META_API_TYPE)))
    if (index-- == 0)
      return (GstCclBlobMeta *) m;
  return NULL;
}

/**
 * gst_buffer_get_ccl_blob_meta_by_source:
 * @buffer: a #GstBuffer
 * @source: the name of the gpucclblob element
 *
 * Returns: (transfer none) (nullable): the blob table that element
 *   attached to @buffer (the last one when it did so twice), %NULL when
 *   none
 */
GstCclBlobMeta *
gst_buffer_get_ccl_blob_meta_by_source (GstBuffer * buffer,
    const gchar * source)
{
  GstCclBlobMeta *found = NULL;
  gpointer state = NULL;
  GstMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while (source && (m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_CCL_BLOB_META_API_TYPE)))
    if (g_strcmp0 (((GstCclBlobMeta *) m)->source, source) == 0)
      found = (GstCclBlobMeta *) m;
  return found;
}

/**
 * gst_ccl_blob_meta_get_source:
 * @meta: a #GstCclBlobMeta
 *
 * Returns: (nullable): the name of the element that attached @meta
 */
const gchar *
gst_ccl_blob_meta_get_source (const GstCclBlobMeta * meta)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return meta->source;
}

/**
 * gst_ccl_blob_meta_set_source:
 * @meta: a #GstCclBlobMeta
 * @source: (nullable): the name of the element attaching it
 */
void
gst_ccl_blob_meta_set_source (GstCclBlobMeta * meta, const gchar * source)
{
  g_return_if_fail (meta != NULL);

  /* A copy, not a quark: element names are unique per instance, and
   * quarks are never freed. */
  g_free (meta->source);
  meta->source = g_strdup (source);
}

/**
 * gst_buffer_add_ccl_blob_meta:
 * @buffer: a #GstBuffer
 * @width: frame width the coordinates refer to
 * @height: frame height the coordinates refer to
 * @blobs: (array length=n_blobs): the blob table, in increasing id; copied
 * @track_ids: (array length=n_blobs) (nullable): each blob's track id, or
 *   %NULL; copied
 * @values: (array length=n_blobs) (nullable): each blob's value, or %NULL
 *   (all 1); copied
 * @n_blobs: number of blobs
 *
 * Attaches a blob table to @buffer. Attach it after the blobs' ROI metas
 * (gst_buffer_add_ccl_blob_roi_meta()), so that its copies and scalings
 * can give them their parameters back.
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL when the table
 *   cannot be allocated
 */
GstCclBlobMeta *
gst_buffer_add_ccl_blob_meta (GstBuffer * buffer, guint width, guint height,
    const GstCclBlob * blobs, const guint32 * track_ids,
    const guint32 * values, guint n_blobs)
{
  gsize table = (gsize) n_blobs * sizeof (GstCclBlob);
  gsize column = (gsize) n_blobs * sizeof (guint32);
  GstCclBlobMeta *meta;
  guint8 *mem = NULL;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (n_blobs == 0 || blobs != NULL, NULL);

  if (n_blobs) {
    mem = gst_ccl_blob_table_alloc (table + (track_ids ? column : 0) +
        (values ? column : 0));
    if (!mem)
      return NULL;
  }
  meta = (GstCclBlobMeta *) gst_buffer_add_meta (buffer,
      GST_CCL_BLOB_META_INFO, NULL);
  if (!meta) {
    gst_ccl_blob_table_free (mem);
    return NULL;
  }
  meta->width = width;
  meta->height = height;
  meta->n_blobs = n_blobs;
  meta->n_roi_metas = n_blobs;
  if (n_blobs) {
    meta->blobs = (GstCclBlob *) mem;
    memcpy (meta->blobs, blobs, table);
    mem += table;
    if (track_ids) {
      meta->track_ids = memcpy (mem, track_ids, column);
      mem += column;
    }
    if (values)
      meta->values = memcpy (mem, values, column);
  }
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
 * gst_ccl_blob_meta_get_track_id:
 * @meta: a #GstCclBlobMeta
 * @index: 0..n_blobs - 1
 *
 * Returns: the track id of the blob at @index; 0 without tracking or past
 *   the end
 */
guint32
gst_ccl_blob_meta_get_track_id (const GstCclBlobMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, 0);

  return meta->track_ids && index < meta->n_blobs ? meta->track_ids[index] : 0;
}

/**
 * gst_ccl_blob_meta_get_value:
 * @meta: a #GstCclBlobMeta
 * @index: 0..n_blobs - 1
 *
 * Returns: the value of the blob at @index (1 in mode=binary); 0 past the
 *   end
 */
guint32
gst_ccl_blob_meta_get_value (const GstCclBlobMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, 0);

  if (index >= meta->n_blobs)
    return 0;
  return meta->values ? meta->values[index] : 1;
}

/**
 * gst_ccl_blob_get_centroid:
 * @blob: a #GstCclBlob
 * @cx: (out): sum_x / area
 * @cy: (out): sum_y / area
 *
 * The blob's centroid, in pixels (pixel centres at integers).
 */
void
gst_ccl_blob_get_centroid (const GstCclBlob * blob, gdouble * cx,
    gdouble * cy)
{
  g_return_if_fail (blob != NULL && cx != NULL && cy != NULL);

  *cx = blob->area ? (gdouble) blob->sum_x / blob->area : 0;
  *cy = blob->area ? (gdouble) blob->sum_y / blob->area : 0;
}

/* An array of the meta as raw bytes: what the *_bytes functions give. */
static const guint8 *
as_bytes (gconstpointer array, gsize element_size, guint n, gsize * n_bytes)
{
  *n_bytes = array ? (gsize) n * element_size : 0;
  return array;
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
  g_return_val_if_fail (meta != NULL && n_bytes != NULL, NULL);

  return as_bytes (meta->blobs, sizeof (GstCclBlob), meta->n_blobs, n_bytes);
}

/**
 * gst_ccl_blob_meta_get_track_id_bytes:
 * @meta: a #GstCclBlobMeta
 * @n_bytes: (out): n_blobs * 4, 0 without tracking
 *
 * Returns: (transfer none) (array length=n_bytes) (element-type guint8):
 *   the track ids (native-endian guint32) as raw memory
 */
const guint8 *
gst_ccl_blob_meta_get_track_id_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes)
{
  g_return_val_if_fail (meta != NULL && n_bytes != NULL, NULL);

  return as_bytes (meta->track_ids, sizeof (guint32), meta->n_blobs, n_bytes);
}

/**
 * gst_ccl_blob_meta_get_value_bytes:
 * @meta: a #GstCclBlobMeta
 * @n_bytes: (out): n_blobs * 4, 0 in mode=binary
 *
 * Returns: (transfer none) (array length=n_bytes) (element-type guint8):
 *   the values (native-endian guint32) as raw memory
 */
const guint8 *
gst_ccl_blob_meta_get_value_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes)
{
  g_return_val_if_fail (meta != NULL && n_bytes != NULL, NULL);

  return as_bytes (meta->values, sizeof (guint32), meta->n_blobs, n_bytes);
}

