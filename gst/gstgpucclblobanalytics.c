/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer >= 1.24's analytics metadata (GstAnalyticsRelationMeta): one
 * object-detection entry per listed blob (its box, label "blob",
 * confidence 1) and, with track=true, a tracking entry related to it, as
 * objectdetectionoverlay and other analytics elements read them; at most
 * MAX_ANALYTICS_BLOBS of them. On GStreamer >= 1.26 with attach-labels,
 * a segmentation mask related to the entries (gstgpucclbloblabels.c). Built only against a GStreamer that has the
 * analytics library. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstcclblobfields.h"

#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/analytics/analytics.h>

/* When each listed track was first seen, and the frame it was last seen
 * in (to forget it once the tracker has). */
typedef struct
{
  GstClockTime first_seen;
  guint64 last_frame;
} TrackSeen;

void
gst_gpuccl_blob_analytics_reset (GstGpucclBlob * self)
{
  if (self->tracks_seen)
    g_hash_table_remove_all (self->tracks_seen);
  self->analytics_frame = 0;
}

void
gst_gpuccl_blob_analytics_free (GstGpucclBlob * self)
{
  g_clear_pointer (&self->tracks_seen, g_hash_table_unref);
}

static GstClockTime
first_seen (GstGpucclBlob * self, guint32 track_id, GstClockTime now)
{
  TrackSeen *seen;

  if (!self->tracks_seen)
    self->tracks_seen = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  seen = g_hash_table_lookup (self->tracks_seen, GUINT_TO_POINTER (track_id));
  if (!seen) {
    seen = g_new (TrackSeen, 1);
    seen->first_seen = now;
    g_hash_table_insert (self->tracks_seen, GUINT_TO_POINTER (track_id), seen);
  }
  seen->last_frame = self->analytics_frame;
  return seen->first_seen;
}

static gboolean
seen_long_ago (gpointer key, gpointer value, gpointer data)
{
  const TrackSeen *seen = value;
  const guint64 *oldest = data;

  return seen->last_frame < *oldest;
}

/* The relation meta keeps an n x n matrix of relations between its
 * entries: the listed blobs, at most this many (the largest). */
#define MAX_ANALYTICS_BLOBS 1024

void
gst_gpuccl_blob_attach_analytics (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r, const guint32 * track_ids,
    const Listing * listed, gint track_max_lost, gboolean labels)
{
  /* Each entry's blob id and object-detection id, for the segmentation. */
  guint blob_ids[MAX_ANALYTICS_BLOBS], entries[MAX_ANALYTICS_BLOBS];
  gsize n_entries = 0;
  const GQuark q_blob = gst_ccl_blob_quark (GST_CCL_BLOB_NAME_BLOB);
  const Listing *listing = listed;
  Listing largest;
  GstAnalyticsRelationMetaInitParams init;
  GstAnalyticsRelationMeta *rmeta;
  GstClockTime now = GST_BUFFER_PTS (buffer);

  if (listed->n_listed == 0)
    return;
  if (listed->n_listed > MAX_ANALYTICS_BLOBS) {
    largest = gst_gpuccl_blob_choose_listed (self, r, MAX_ANALYTICS_BLOBS);
    listing = &largest;
  }
  /* Per entry: an object-detection record (and a tracking one). */
  init.initial_relation_order = listing->n_listed * (track_ids ? 2 : 1);
  init.initial_buf_size = listing->n_listed * (track_ids ? 128 : 64);
  rmeta = gst_buffer_add_analytics_relation_meta_full (buffer, &init);
  if (!rmeta)
    return;
  self->analytics_frame++;

  for (gsize i = 0; i < r->n_blobs; i++) {
    const GpucclBlob *b = &r->blobs[i];
    GstAnalyticsODMtd od;
    GstAnalyticsTrackingMtd trk;

    if (!gst_gpuccl_blob_is_listed (listing, b))
      continue;
    if (!gst_analytics_relation_meta_add_od_mtd (rmeta, q_blob, b->x0, b->y0,
            b->x1 - b->x0 + 1, b->y1 - b->y0 + 1, 1.0f, &od))
      break;
    blob_ids[n_entries] = b->id;
    entries[n_entries++] = od.id;
    if (!track_ids || track_ids[i] == 0)
      continue;
    if (!gst_analytics_relation_meta_add_tracking_mtd (rmeta, track_ids[i],
            first_seen (self, track_ids[i], now), &trk))
      break;
    gst_analytics_tracking_mtd_update_last_seen (&trk, now);
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id);
  }

#if GST_CHECK_VERSION(1, 26, 0)
  if (labels && r->labels)
    gst_gpuccl_blob_attach_segmentation (rmeta, r, blob_ids, entries,
        n_entries);
#else
  (void) labels;
  (void) blob_ids;
  (void) entries;
#endif

  /* Forget the tracks the tracker has dropped. */
  if (self->tracks_seen && self->analytics_frame > (guint64) track_max_lost) {
    guint64 oldest = self->analytics_frame - track_max_lost;
    g_hash_table_foreach_remove (self->tracks_seen, seen_long_ago, &oldest);
  }
}

#endif
