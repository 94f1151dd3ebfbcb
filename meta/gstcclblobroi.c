/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A blob as a GstVideoRegionOfInterestMeta: roi type "blob", id the blob's
 * id, its bounding box, and a parameter structure "gpucclblob" (id,
 * track-id, area, centroid-x, centroid-y, value). */
#include "gstcclblobmetaprivate.h"

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

/* One field appended: the value is made here and handed over, which skips
 * the varargs' collection and copy of gst_structure_new_id. */
static void
take_uint (GstStructure * s, GQuark field, guint v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_UINT);
  g_value_set_uint (&value, v);
  gst_structure_id_take_value (s, field, &value);
}

static void
take_uint64 (GstStructure * s, GQuark field, guint64 v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_UINT64);
  g_value_set_uint64 (&value, v);
  gst_structure_id_take_value (s, field, &value);
}

static void
take_double (GstStructure * s, GQuark field, gdouble v)
{
  GValue value = G_VALUE_INIT;

  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, v);
  gst_structure_id_take_value (s, field, &value);
}

/* By quark, no string lookups; one of these per listed blob per frame, so
 * the fields are taken one by one (the same fields in the same order as
 * gst_structure_new_id would set). */
static GstStructure *
roi_param_new (const GstCclBlob * b, guint32 track_id, guint32 value)
{
  GstStructure *s = gst_structure_new_id_empty (q_gpucclblob);
  gdouble cx, cy;

  gst_ccl_blob_get_centroid (b, &cx, &cy);
  take_uint (s, q_id, b->id);
  take_uint (s, q_track_id, track_id);
  take_uint64 (s, q_area, (guint64) b->area);
  take_double (s, q_centroid_x, cx);
  take_double (s, q_centroid_y, cy);
  take_uint (s, q_value, value);
  return s;
}

static void
set_roi_box (GstVideoRegionOfInterestMeta * roi, const GstCclBlob * b)
{
  roi->x = b->x0;
  roi->y = b->y0;
  roi->w = b->x1 - b->x0 + 1;
  roi->h = b->y1 - b->y0 + 1;
}

/**
 * gst_buffer_add_ccl_blob_roi_meta:
 * @buffer: a #GstBuffer
 * @blob: the blob
 * @track_id: its track id (0: none)
 * @value: its value (1 in mode=binary)
 *
 * Attaches @blob as a #GstVideoRegionOfInterestMeta: roi type "blob", id
 * the blob's id, its bounding box, and a parameter structure "gpucclblob"
 * (id, track-id, area, centroid-x, centroid-y, value).
 *
 * Returns: (transfer none) (nullable): the new ROI meta
 */
GstVideoRegionOfInterestMeta *
gst_buffer_add_ccl_blob_roi_meta (GstBuffer * buffer, const GstCclBlob * blob,
    guint32 track_id, guint32 value)
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
  gst_video_region_of_interest_meta_add_param (roi,
      roi_param_new (blob, track_id, value));
  return roi;
}

/* The index of the blob with this id (the table is in increasing id), or
 * n_blobs. */
static guint
find_blob (const GstCclBlobMeta * meta, guint32 id)
{
  guint lo = 0, hi = meta->n_blobs;

  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (meta->blobs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < meta->n_blobs && meta->blobs[lo].id == id ? lo : meta->n_blobs;
}

/* GStreamer's ROI meta transform drops the parameter list when it scales
 * the box (rounding down: a small box can become 0 wide), and when it
 * copies too (1.22 to 1.26 at least). Metas are transformed in the order
 * they were attached and the element attaches GstCclBlobMeta after the
 * blobs' ROI metas, so when the table is copied or scaled the ROI metas
 * are already on dest: each gets its box and parameters back, from the
 * table. */
void
gst_ccl_blob_restore_roi_metas (GstBuffer * dest, const GstCclBlobMeta * meta)
{
  gpointer state = NULL;
  GstMeta *m;
  GPtrArray *gone = NULL;

  init_quarks ();
  while ((m = gst_buffer_iterate_meta_filtered (dest, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    guint i;

    if (roi->roi_type != q_blob || roi->id <= 0 ||
        gst_video_region_of_interest_meta_get_param (roi, "gpucclblob"))
      continue;
    i = find_blob (meta, (guint32) roi->id);
    if (i == meta->n_blobs) {
      /* Its blob is not in the table (a picture with no area): GStreamer's
       * box would point at pixels that are not the blob's. */
      if (!gone)
        gone = g_ptr_array_new ();
      g_ptr_array_add (gone, m);
      continue;
    }
    set_roi_box (roi, &meta->blobs[i]);
    gst_video_region_of_interest_meta_add_param (roi,
        roi_param_new (&meta->blobs[i], gst_ccl_blob_meta_get_track_id (meta,
                i), gst_ccl_blob_meta_get_value (meta, i)));
  }
  for (guint k = 0; gone && k < gone->len; k++)
    gst_buffer_remove_meta (dest, g_ptr_array_index (gone, k));
  if (gone)
    g_ptr_array_free (gone, TRUE);
}
