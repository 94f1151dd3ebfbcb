/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's track events: a bus message when a track appears and when
 * it is lost (post-track-events; at the end of the stream for every track
 * still alive), and the ids of both in the per-frame message. The tracker says which tracks its update started and ended
 * (gpuccl_tracker_events), so nothing here keeps state of its own. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* The buffer's times, as in the per-frame message. */
void
gst_gpuccl_blob_set_times (GstGpucclBlob * self, GstStructure * s,
    GstBuffer * buffer)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime ts = GST_BUFFER_PTS (buffer);

  gst_structure_set (s, "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts), NULL);
}

/* buffer NULL: at the end of the stream, no frame's times. */
static void
post (GstGpucclBlob * self, GstStructure * s, GstBuffer * buffer,
    guint64 frame)
{
  gst_structure_set (s, "frame", G_TYPE_UINT64, frame, NULL);
  if (buffer)
    gst_gpuccl_blob_set_times (self, s, buffer);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static void
post_appeared (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclTrackEvents * ev, const GpucclResult * r,
    const guint32 * track_ids)
{
  for (gsize k = 0; k < ev->n_started; k++) {
    const guint32 i = ev->started[k];
    const GpucclBlob *b = &r->blobs[i];

    post (self, gst_structure_new ("gpucclblob-track-appeared",
            "track-id", G_TYPE_UINT, track_ids[i],
            "id", G_TYPE_UINT, b->id,
            "area", G_TYPE_UINT64, (guint64) b->area,
            "centroid-x", G_TYPE_DOUBLE, gpuccl_blob_cx (b),
            "centroid-y", G_TYPE_DOUBLE, gpuccl_blob_cy (b), NULL),
        buffer, ev->frame);
  }
}

static void
post_lost (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclTrackEvents * ev)
{
  for (gsize k = 0; k < ev->n_ended; k++) {
    const GpucclTrackEnd *e = &ev->ended[k];

    post (self, gst_structure_new ("gpucclblob-track-lost",
            "track-id", G_TYPE_UINT, e->id,
            "reason", G_TYPE_STRING,
            e->reason == GPUCCL_TRACK_CAPPED ? "capped" :
            e->reason == GPUCCL_TRACK_FINISHED ? "end-of-stream" : "unseen",
            "first-frame", G_TYPE_UINT64, e->first_frame,
            "last-frame", G_TYPE_UINT64, e->last_frame,
            "age", G_TYPE_UINT64, e->last_frame - e->first_frame + 1,
            "frames-seen", G_TYPE_UINT64, e->frames_seen,
            "first-x", G_TYPE_DOUBLE, e->first_x,
            "first-y", G_TYPE_DOUBLE, e->first_y,
            "last-x", G_TYPE_DOUBLE, e->last_x,
            "last-y", G_TYPE_DOUBLE, e->last_y, NULL), buffer, ev->frame);
  }
}

/* This frame's events, or FALSE without tracking (or after a failed
 * update, which started and ended nothing). */
gboolean
gst_gpuccl_blob_track_events (GstGpucclBlob * self, const Settings * s,
    GpucclTrackEvents * ev)
{
  return s->track && gpuccl_tracker_events (self->tracker, ev);
}

void
gst_gpuccl_blob_post_track_events (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclTrackEvents * ev, const GpucclResult * r,
    const guint32 * track_ids)
{
  post_appeared (self, buffer, ev, r, track_ids);
  post_lost (self, buffer, ev);
}

/* At EOS: every live track ends, each with its lost message when
 * post-track-events is on (the tracker ends them either way, so a track
 * never outlives its stream). Streaming thread. */
void
gst_gpuccl_blob_finish_tracks (GstGpucclBlob * self)
{
  GpucclTrackEvents ev;
  gboolean post_events;

  GST_OBJECT_LOCK (self);
  post_events = self->settings.track && self->settings.post_track_events;
  GST_OBJECT_UNLOCK (self);
  if (!gpuccl_tracker_finish (self->tracker) ||
      !gpuccl_tracker_events (self->tracker, &ev))
    return;
  if (post_events)
    post_lost (self, NULL, &ev);
}

/* The per-frame message's "tracks-appeared" and "tracks-lost": arrays of
 * track ids, in the order of the event messages. */
void
gst_gpuccl_blob_add_track_ids (GstStructure * s,
    const GpucclTrackEvents * ev, const guint32 * track_ids)
{
  GValue appeared = G_VALUE_INIT, lost = G_VALUE_INIT, v = G_VALUE_INIT;

  g_value_init (&appeared, GST_TYPE_ARRAY);
  g_value_init (&lost, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_UINT);
  for (gsize k = 0; k < ev->n_started; k++) {
    g_value_set_uint (&v, track_ids[ev->started[k]]);
    gst_value_array_append_value (&appeared, &v);
  }
  for (gsize k = 0; k < ev->n_ended; k++) {
    g_value_set_uint (&v, ev->ended[k].id);
    gst_value_array_append_value (&lost, &v);
  }
  g_value_unset (&v);
  gst_structure_take_value (s, "tracks-appeared", &appeared);
  gst_structure_take_value (s, "tracks-lost", &lost);
}
