/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A blob as a GstVideoRegionOfInterestMeta: roi type "blob", id the blob's
 * id, its bounding box, and a parameter structure "gpucclblob" (id,
 * track-id, area, centroid-x, centroid-y, value). */
#include "gstcclblobmetaprivate.h"
#include "gstcclblobfields.h"

/* The blob's ROI parameters: its fields but the box, which the ROI meta
 * holds itself (gstcclblobfields.c). */
static GstStructure *
roi_param_new (const GstCclBlob * b, guint32 track_id, guint32 value)
{
  const GstCclBlobFieldsOf of = { track_id, value, FALSE, NULL };

  return gst_ccl_blob_structure_new (GST_CCL_BLOB_NAME_GPUCCLBLOB, b, &of);
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

  roi = gst_buffer_add_video_region_of_interest_meta_id (buffer,
      gst_ccl_blob_quark (GST_CCL_BLOB_NAME_BLOB), 0, 0, 0, 0);
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
  const GQuark q_blob = gst_ccl_blob_quark (GST_CCL_BLOB_NAME_BLOB);

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
