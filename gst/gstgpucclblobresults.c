/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's results downstream: the blob table with track ids, as
 * GstCclBlobMeta and region-of-interest metas on the buffer and as an
 * element message. What a frame's metadata costs is bounded by
 * max-roi-metas: the table is copied as libgpuccl returns it, the per-blob
 * structures (ROI metas, message entries) are made for the listed blobs
 * only (docs/metadata.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstcclblobfields.h"

#include <string.h>

/* GstCclBlob is libgpuccl's record: the table is handed over as it is. */
G_STATIC_ASSERT (sizeof (GstCclBlob) == sizeof (GpucclBlob));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclBlob, area) ==
    G_STRUCT_OFFSET (GpucclBlob, area));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclBlob, x0) ==
    G_STRUCT_OFFSET (GpucclBlob, x0));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclBlob, y1) ==
    G_STRUCT_OFFSET (GpucclBlob, y1));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstCclBlob, sum_y) ==
    G_STRUCT_OFFSET (GpucclBlob, sum_y));
/* And GstCclBlobIntensity libgpuccl's intensity record. */
G_STATIC_ASSERT (sizeof (GpucclBlobIntensity) ==
    sizeof (GstCclBlobIntensity));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GpucclBlobIntensity, max) ==
    G_STRUCT_OFFSET (GstCclBlobIntensity, max));

/* What the metas and the message of one blob cost in many small GLib
 * allocations (a region-of-interest meta with its parameter structure;
 * a message's blob structure), generously rounded up. */
#define ROI_BYTES_PER_BLOB 512
#define MESSAGE_BYTES_PER_BLOB 1024
/* Metadata above this is probed for before it is made (see below). */
#define PROBE_ABOVE_BYTES (16 << 20)

gboolean
gst_gpuccl_blob_grow (gpointer * buf, gsize * cap, gsize n, gsize elem)
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

/* How many blobs max-roi-metas lists in a frame of r's size: -1 is one
 * per GPUCCL_BLOB_PIXELS_PER_ROI_META pixels (at least one), 0 all. */
static guint64
listing_cap (const GpucclResult * r, gint max_roi_metas)
{
  if (max_roi_metas > 0)
    return (guint64) max_roi_metas;
  if (max_roi_metas == 0)
    return G_MAXUINT64;
  return MAX ((guint64) r->width * r->height / GPUCCL_BLOB_PIXELS_PER_ROI_META,
      1);
}

/* The per-blob memory of one frame, before anything is made of it: the
 * track ids, and, for a frame whose metadata would be large, a probe of
 * that much memory (the table for every blob, the ROI metas and the
 * message's entries for the listed ones). GLib aborts the process when an
 * allocation fails, so under a memory limit a frame of hundreds of
 * thousands of blobs would end the application inside gst_structure_new;
 * the probe (allocated and freed at once) turns that into this element
 * error. FALSE after posting it. */
gboolean
gst_gpuccl_blob_reserve_frame (GstGpucclBlob * self, const Settings * s,
    const GpucclResult * r)
{
  const gsize n = MAX (r->n_blobs, 1);
  const gsize listed = MIN (n, listing_cap (r, s->max_roi_metas));
  const gboolean report = s->attach_meta || s->post_messages;
  const gsize per_blob = s->attach_meta ? sizeof (GstCclBlob) + 8 : 0;
  const gsize per_listed = (s->attach_meta ? ROI_BYTES_PER_BLOB : 0) +
      (s->post_messages ? MESSAGE_BYTES_PER_BLOB : 0);
  gsize bytes = 0, listed_bytes = 0;
  gboolean ok;

  ok = gst_gpuccl_blob_grow ((gpointer *) & self->track_ids,
      &self->track_ids_cap, n,
      sizeof (guint32));
  if (ok && report) {
    if (!g_size_checked_mul (&bytes, n, per_blob) ||
        !g_size_checked_mul (&listed_bytes, listed, per_listed) ||
        !g_size_checked_add (&bytes, bytes, listed_bytes)) {
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
            "(about %" G_GSIZE_FORMAT " MiB of metadata)", r->n_blobs,
            bytes >> 20),
        ("attach-meta=%d post-messages=%d track=%d max-roi-metas=%d",
            s->attach_meta, s->post_messages, s->track, s->max_roi_metas));
  return ok;
}

/* The k-th largest of n distinct keys (1 <= k <= n), reordering them:
 * quickselect, O(n) on average. */
static guint64
kth_largest (guint64 * keys, gssize n, gssize k)
{
  gssize lo = 0, hi = n - 1, want = k - 1;

  while (lo < hi) {
    guint64 pivot = keys[lo + (hi - lo) / 2];
    gssize i = lo, j = hi;

    while (i <= j) {            /* larger keys to the left */
      while (keys[i] > pivot)
        i++;
      while (keys[j] < pivot)
        j--;
      if (i <= j) {
        guint64 t = keys[i];
        keys[i++] = keys[j];
        keys[j--] = t;
      }
    }
    if (want <= j)
      hi = j;
    else if (want >= i)
      lo = i;
    else
      break;                    /* keys[want] is the pivot */
  }
  return keys[want];
}

/* Areas counted exactly below this, the larger ones together. */
#define AREA_BUCKETS 1024

/* The blobs given a ROI meta and listed in the message: all of them up to
 * the cap, else the cap largest. max-roi-metas -1 makes the cap one blob
 * per GPUCCL_BLOB_PIXELS_PER_ROI_META pixels: a ROI meta (a GstMeta and
 * a GstStructure, allocated, then freed by the sink) costs the CPU far
 * more than labeling that many pixels costs the GPU, so a noisy frame's
 * metadata stays bounded (docs/metadata.md has the figures).
 *
 * A histogram of the areas finds the smallest listed area; when it is
 * below AREA_BUCKETS, the blobs of larger areas are all listed and the
 * ones of that area by increasing id (one walk). Else only the blobs of
 * the largest areas (about cap of them) go to a quickselect. */
Listing
gst_gpuccl_blob_choose_listed (GstGpucclBlob * self, const GpucclResult * r,
    gint max_roi_metas)
{
  gsize n = r->n_blobs;
  guint64 cap = listing_cap (r, max_roi_metas);
  Listing listing = { (guint) n, 0 };
  guint counts[AREA_BUCKETS];
  guint64 *keys, above = 0;
  guint bucket, n_keys = 0;

  if (n <= cap)
    return listing;
  /* Zeroed here, not where it is declared: an initializer there zeroes
   * its 4 KiB on every frame, also those that list every blob. */
  memset (counts, 0, sizeof counts);
  listing.n_listed = (guint) cap;
  for (gsize i = 0; i < n; i++)
    counts[MIN (r->blobs[i].area, AREA_BUCKETS - 1)]++;
  for (bucket = AREA_BUCKETS - 1; bucket > 0; bucket--)
    if ((above += counts[bucket]) >= cap)
      break;

  if (bucket < AREA_BUCKETS - 1) {
    /* Take this many of area `bucket`, the first ones in id order. */
    guint64 wanted = cap - (above - counts[bucket]);

    for (gsize i = 0; i < n; i++)
      if (r->blobs[i].area == bucket && --wanted == 0) {
        listing.min_key = gst_gpuccl_blob_listing_key (&r->blobs[i]);
        break;
      }
    return listing;
  }

  if (!gst_gpuccl_blob_grow ((gpointer *) & self->listing_keys,
          &self->listing_keys_cap,
          above, sizeof (guint64))) {
    GST_WARNING_OBJECT (self, "no memory to rank %" G_GUINT64_FORMAT
        " blobs: none listed", above);
    listing.n_listed = 0;
    listing.min_key = G_MAXUINT64;
    return listing;
  }
  keys = self->listing_keys;
  for (gsize i = 0; i < n; i++)
    if (r->blobs[i].area >= bucket)
      keys[n_keys++] = gst_gpuccl_blob_listing_key (&r->blobs[i]);
  listing.min_key = kth_largest (keys, n_keys, (gssize) cap);
  return listing;
}

/* The ROI metas first: GstCclBlobMeta's transform, run after theirs, gives
 * them back the parameters GStreamer's ROI transform drops. The table
 * itself is copied as it is (no per-blob work). FALSE when that copy could
 * not be allocated. */
gboolean
gst_gpuccl_blob_attach_metas (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r, const guint32 * track_ids,
    const GpucclBlobIntensity * intensity,
    const Listing * listing, const FrameTimes * times)
{
  const GstCclBlob *blobs = (const GstCclBlob *) r->blobs;
  GstCclBlobMeta *meta;

  for (gsize i = 0; i < r->n_blobs; i++)
    if (gst_gpuccl_blob_is_listed (listing, &r->blobs[i]))
      gst_buffer_add_ccl_blob_roi_meta (buffer, &blobs[i],
          track_ids ? track_ids[i] : 0, r->values ? r->values[i] : 1);

  meta = gst_buffer_add_ccl_blob_meta (buffer, r->width, r->height, blobs,
      track_ids, r->values, r->n_blobs);
  if (!meta || !gst_ccl_blob_meta_set_intensity (meta,
          (const GstCclBlobIntensity *) intensity))
    return FALSE;
  meta->threshold = r->threshold;
  meta->n_components = r->n_components;
  meta->processing_ns = times->processing_ns;
  meta->tracking_ns = times->tracking_ns;
  meta->n_roi_metas = listing->n_listed;
  /* Which element's table this is, for a buffer that goes through two. */
  GST_OBJECT_LOCK (self);
  gst_ccl_blob_meta_set_source (meta, GST_OBJECT_NAME (self));
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Blob i's entry of the message: the fields of its ROI parameters with
 * its box, and its intensity when measured. */
static GstStructure *
message_entry (const GpucclResult * r, gsize i, const guint32 * track_ids,
    const GpucclBlobIntensity * intensity)
{
  const GstCclBlobFieldsOf of = { track_ids ? track_ids[i] : 0,
    r->values ? r->values[i] : 1, TRUE,
    intensity ? (const GstCclBlobIntensity *) &intensity[i] : NULL
  };

  return gst_ccl_blob_structure_new (GST_CCL_BLOB_NAME_BLOB,
      (const GstCclBlob *) &r->blobs[i], &of);
}

/* Like facedetect's: the frame's times, then the listed blobs, with
 * their intensities when measured (intensity: one per blob, or NULL). */
void
gst_gpuccl_blob_post_message (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r, const guint32 * track_ids,
    const GpucclBlobIntensity * intensity, const Listing * listing,
    const FrameTimes * times, const GpucclTrackEvents * events)
{
  GValue list = G_VALUE_INIT;
  GstStructure *s;

  g_value_init (&list, GST_TYPE_LIST);
  for (gsize i = 0; i < r->n_blobs; i++) {
    GValue v = G_VALUE_INIT;

    if (!gst_gpuccl_blob_is_listed (listing, &r->blobs[i]))
      continue;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, message_entry (r, i, track_ids, intensity));
    gst_value_list_append_and_take_value (&list, &v);
  }

  s = gst_structure_new_empty ("gpucclblob");
  gst_gpuccl_blob_set_times (self, s, buffer);
  gst_structure_set (s, "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buffer),
      "count", G_TYPE_UINT, (guint) r->n_blobs,
      "listed", G_TYPE_UINT, listing->n_listed,
      "components", G_TYPE_UINT, r->n_components,
      "threshold", G_TYPE_UINT, (guint) r->threshold,
      "processing-time", G_TYPE_UINT64, times->processing_ns,
      "tracking-time", G_TYPE_UINT64, times->tracking_ns, NULL);
  gst_structure_take_value (s, "blobs", &list);
  if (events)
    gst_gpuccl_blob_add_track_ids (s, events, track_ids);

  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}
