/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's results downstream: the blob table with track ids, as
 * GstCclBlobMeta and region-of-interest metas on the buffer and as an
 * element message. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

/* The blob table with track ids, as the meta and the message carry it. */
const GstCclBlob *
gst_gpuccl_blob_collect_blobs (GstGpucclBlob * self, const GpucclResult * r)
{
  const guint32 *ids = (const guint32 *) self->track_ids->data;
  GstCclBlob *out;

  g_array_set_size (self->blobs, r->n_blobs);
  out = (GstCclBlob *) self->blobs->data;
  for (gsize i = 0; i < r->n_blobs; i++) {
    const GpucclBlob *b = &r->blobs[i];
    out[i].id = b->id;
    out[i].track_id = ids[i];
    out[i].x0 = b->x0;
    out[i].y0 = b->y0;
    out[i].x1 = b->x1;
    out[i].y1 = b->y1;
    out[i].area = b->area;
    out[i].sum_x = b->sum_x;
    out[i].sum_y = b->sum_y;
    out[i].cx = gpuccl_blob_cx (b);
    out[i].cy = gpuccl_blob_cy (b);
    out[i].value = r->values ? r->values[i] : 1;
  }
  return out;
}

/* The ROI metas first: GstCclBlobMeta's transform, run after theirs, gives
 * them back the parameters GStreamer's ROI transform drops. */
void
gst_gpuccl_blob_attach_metas (GstBuffer * buffer, const GpucclResult * r,
    const GstCclBlob * blobs, const FrameTimes * times)
{
  GstCclBlobMeta *meta;

  for (gsize i = 0; i < r->n_blobs; i++)
    gst_buffer_add_ccl_blob_roi_meta (buffer, &blobs[i]);

  meta = gst_buffer_add_ccl_blob_meta (buffer, r->width, r->height, blobs,
      r->n_blobs);
  meta->threshold = r->threshold;
  meta->n_components = r->n_components;
  meta->processing_ns = times->processing_ns;
  meta->tracking_ns = times->tracking_ns;
}

/* Like facedetect's: the frame's times, then the blobs. */
void
gst_gpuccl_blob_post_message (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r, const GstCclBlob * blobs, const FrameTimes * times)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime ts = GST_BUFFER_PTS (buffer);
  GValue list = G_VALUE_INIT;
  GstStructure *s;

  g_value_init (&list, GST_TYPE_LIST);
  for (gsize i = 0; i < r->n_blobs; i++) {
    const GstCclBlob *b = &blobs[i];
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("blob",
            "id", G_TYPE_UINT, b->id,
            "track-id", G_TYPE_UINT, b->track_id,
            "x", G_TYPE_UINT, b->x0,
            "y", G_TYPE_UINT, b->y0,
            "width", G_TYPE_UINT, b->x1 - b->x0 + 1,
            "height", G_TYPE_UINT, b->y1 - b->y0 + 1,
            "area", G_TYPE_UINT64, b->area,
            "centroid-x", G_TYPE_DOUBLE, b->cx,
            "centroid-y", G_TYPE_DOUBLE, b->cy,
            "value", G_TYPE_UINT, b->value, NULL));
    gst_value_list_append_and_take_value (&list, &v);
  }

  s = gst_structure_new ("gpucclblob",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buffer),
      "count", G_TYPE_UINT, (guint) r->n_blobs,
      "components", G_TYPE_UINT, r->n_components,
      "threshold", G_TYPE_UINT, (guint) r->threshold,
      "processing-time", G_TYPE_UINT64, times->processing_ns,
      "tracking-time", G_TYPE_UINT64, times->tracking_ns, NULL);
  gst_structure_take_value (s, "blobs", &list);

  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}
