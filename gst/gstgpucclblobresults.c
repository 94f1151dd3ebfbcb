/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's results downstream: the blob table with track ids, as
 * GstCclBlobMeta and region-of-interest metas on the buffer and as an
 * element message. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#include <string.h>

/* What the metas and the message of one blob cost in many small GLib
 * allocations (a region-of-interest meta with its parameter structure;
 * a message's blob structure), generously rounded up. */
#define ROI_BYTES_PER_BLOB 512
#define MESSAGE_BYTES_PER_BLOB 1024
/* Metadata above this is probed for before it is made (see below). */
#define PROBE_ABOVE_BYTES (16 << 20)

/* *buf holds at least n elements of elem bytes (n >= 1); FALSE when the
 * memory is not there (the old buffer stays). */
static gboolean
grow (gpointer * buf, gsize * cap, gsize n, gsize elem)
{
  gpointer p;

  if (n <= *cap)
    return TRUE;
  p = g_try_realloc_n (*buf, n, elem);
  if (!p)
    return FALSE;
  *buf = p;
  *cap = n;
  return TRUE;
}

/* The per-blob memory of one frame, before anything is made of it: the
 * track ids and the table, and, for a frame whose metadata would be large,
 * a probe of that much memory. GLib aborts the process when an
 * allocation fails, so under a memory limit a frame of hundreds of
 * thousands of blobs would end the application inside gst_structure_new;
 * the probe (allocated and freed at once) turns that into this element
 * error. FALSE after posting it. */
gboolean
gst_gpuccl_blob_reserve_frame (GstGpucclBlob * self, const Settings * s,
    gsize n_blobs)
{
  const gsize n = MAX (n_blobs, 1);
  const gboolean report = s->attach_meta || s->post_messages;
  const gsize per_blob = sizeof (GstCclBlob) +
      (s->attach_meta ? sizeof (GstCclBlob) + ROI_BYTES_PER_BLOB : 0) +
      (s->post_messages ? MESSAGE_BYTES_PER_BLOB : 0);
  gsize bytes;
  gboolean ok;

  ok = grow ((gpointer *) & self->track_ids, &self->track_ids_cap, n,
      sizeof (guint32)) && (!report || grow ((gpointer *) & self->table,
          &self->table_cap, n, sizeof (GstCclBlob)));
  if (ok && report) {
    if (!g_size_checked_mul (&bytes, n, per_blob)) {
      ok = FALSE;
    } else if (bytes > PROBE_ABOVE_BYTES) {
      gpointer probe = g_try_malloc (bytes);
      ok = probe != NULL;
      g_free (probe);
    }
  }
  if (!ok)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Not enough memory for the %" G_GSIZE_FORMAT " blobs of this frame "
            "(about %" G_GSIZE_FORMAT " MiB of metadata)", n_blobs,
            (n * per_blob) >> 20),
        ("attach-meta=%d post-messages=%d track=%d", s->attach_meta,
            s->post_messages, s->track));
  return ok;
}

/* The blob table with track ids, as the meta and the message carry it
 * (room reserved by gst_gpuccl_blob_reserve_frame). */
const GstCclBlob *
gst_gpuccl_blob_collect_blobs (GstGpucclBlob * self, const GpucclResult * r)
{
  const guint32 *ids = self->track_ids;
  GstCclBlob *out = self->table;

  /* Padding too: the table is copied and compared as bytes downstream. */
  memset (out, 0, r->n_blobs * sizeof *out);
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
 * them back the parameters GStreamer's ROI transform drops. FALSE when the
 * table's copy could not be allocated. */
gboolean
gst_gpuccl_blob_attach_metas (GstBuffer * buffer, const GpucclResult * r,
    const GstCclBlob * blobs, const FrameTimes * times)
{
  GstCclBlobMeta *meta;

  for (gsize i = 0; i < r->n_blobs; i++)
    gst_buffer_add_ccl_blob_roi_meta (buffer, &blobs[i]);

  meta = gst_buffer_add_ccl_blob_meta (buffer, r->width, r->height, blobs,
      r->n_blobs);
  if (!meta)
    return FALSE;
  meta->threshold = r->threshold;
  meta->n_components = r->n_components;
  meta->processing_ns = times->processing_ns;
  meta->tracking_ns = times->tracking_ns;
  return TRUE;
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
