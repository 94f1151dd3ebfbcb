/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-gpucclblob
 * @title: gpucclblob
 *
 * Binarizes each video frame (the luma plane, or a chosen channel of RGB),
 * labels its connected components and measures them (area, bounding box,
 * centroid) with libgpuccl — the HA4 algorithm on an NVIDIA GPU, or the
 * CPU backend. The blobs travel downstream as metadata on the buffer:
 *
 *  - one #GstCclBlobMeta with the whole table (gstcclblobmeta.h);
 *  - one #GstVideoRegionOfInterestMeta per blob, up to
 *    #GstGpucclBlob:max-roi-metas (the largest), roi type "blob", with a
 *    parameter structure "gpucclblob" (id, track-id, area, centroid-x,
 *    centroid-y, value);
 *  - built against GStreamer >= 1.24, the same blobs as object-detection
 *    (and tracking) entries of a GstAnalyticsRelationMeta;
 *  - with #GstGpucclBlob:post-messages, an element message "gpucclblob"
 *    per frame.
 *
 * The frame is processed in place; it is written only when overlays are
 * drawn (#GstGpucclBlob:draw), otherwise the element works like a
 * passthrough and never copies the frame on the host.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball ! videoconvert ! \
 *     gpucclblob draw=boxes+centroids post-messages=true ! \
 *     videoconvert ! autovideosink
 * ]|
 * Draws a box and a cross on the moving ball and prints one message per
 * frame with its blob.
 *
 * ## Label maps
 * With #GstGpucclBlob:mode=segments the frame is a label map (a class
 * mask, a segmentation): 0 is background and touching pixels form one blob
 * only when their values are equal, so touching regions of different
 * classes stay apart; threshold, invert, auto-threshold and channel are
 * ignored. GRAY8 and GRAY16_LE are the natural inputs (RGB formats compare
 * the whole colour, black is background). Each blob carries its class as
 * "value" (meta, region-of-interest parameters, messages). On CUDA this
 * runs the Stava-Benes algorithm (algorithm=default or stava-benes; the
 * others are an error in this mode).
 * |[
 * gst-launch-1.0 filesrc location=mask.png ! pngdec ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! gpucclblob mode=segments draw=boxes \
 *     post-messages=true ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* This file: the element class, its pads and its virtual methods; the
 * work lives in the files gstgpucclblobprivate.h lists. */
#include "gstgpucclblobprivate.h"
#include "gstgpucclblobenums.h"

GST_DEBUG_CATEGORY (gst_gpuccl_blob_debug);
#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

#define gst_gpuccl_blob_parent_class parent_class
G_DEFINE_TYPE (GstGpucclBlob, gst_gpuccl_blob, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (gpucclblob, "gpucclblob",
    GST_RANK_NONE, GST_TYPE_GPUCCL_BLOB,
    GST_DEBUG_CATEGORY_INIT (gst_gpuccl_blob_debug, "gpucclblob", 0,
        "gpuccl connected-component blob analysis"));

/* GAP buffers pass untouched; a buffer shorter than its frame (per the
 * caps, or per its GstVideoMeta) is an error — the base class would only
 * warn and pass it on. GstVideoFilter's transform_ip is not used: the
 * frame is mapped in one place for host and CUDA memory
 * (gst_gpuccl_blob_transform_buffer). */
static GstFlowReturn
gst_gpuccl_blob_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return GST_FLOW_OK;
  if (!gst_gpuccl_blob_check_buffer (GST_GPUCCL_BLOB (trans), buf))
    return GST_FLOW_ERROR;
  return gst_gpuccl_blob_transform_buffer (GST_GPUCCL_BLOB (trans), buf);
}

/* A CUDA context from the neighbours or the application (a no-op in a
 * build without CUDA memory). */
static void
gst_gpuccl_blob_set_context (GstElement * element, GstContext * context)
{
  gst_gpuccl_blob_cuda_set_context (GST_GPUCCL_BLOB (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_gpuccl_blob_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  if (gst_gpuccl_blob_cuda_query (GST_GPUCCL_BLOB (trans), query))
    return TRUE;
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
          query))
    return FALSE;
  if (direction == GST_PAD_SINK && (GST_QUERY_TYPE (query) == GST_QUERY_CAPS
          || GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS))
    gst_gpuccl_blob_answer_caps (GST_GPUCCL_BLOB (trans), query);
  return TRUE;
}

/* Controlled properties follow the stream time of each buffer; a segment
 * in another format (BYTES from a raw file source) has no stream time to
 * follow, and asking would be a CRITICAL per buffer. */
static void
gst_gpuccl_blob_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime stream_time;

  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

static gboolean
gst_gpuccl_blob_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  guint crop;

  /* Downstream's answer first (passthrough forwards the query), so its
   * metas stay supported; our pool then goes first in the list. A
   * downstream that does not answer (fakesink) is no reason to fail. */
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    GST_DEBUG_OBJECT (trans, "downstream proposed nothing");
  /* Except crop metadata: a cropped frame is what gets labeled, so
   * upstream crops the pixels (a meta crop would leave the blobs in the
   * uncropped frame, and the frame larger than the caps). */
  while (gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          &crop))
    gst_query_remove_nth_allocation_meta (query, crop);
  gst_gpuccl_blob_offer_pool (GST_GPUCCL_BLOB (trans), query);
  return TRUE;
}

static gboolean
gst_gpuccl_blob_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gst_gpuccl_blob_reset_tracker (GST_GPUCCL_BLOB (trans));
    gst_gpuccl_blob_motion_reset (GST_GPUCCL_BLOB (trans));
  }
  /* Before the EOS goes on: its messages precede the pipeline's EOS. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    gst_gpuccl_blob_finish_tracks (GST_GPUCCL_BLOB (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_gpuccl_blob_start (GstBaseTransform * trans)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (trans);
  GpucclBackend backend;
  gint device_id;

  GST_OBJECT_LOCK (self);
  backend = self->settings.backend;
  device_id = gst_gpuccl_blob_host_device (&self->settings);
  GST_OBJECT_UNLOCK (self);

  gst_gpuccl_blob_close_context (self);
  g_atomic_int_set (&self->oversize_posted, FALSE);
  return gst_gpuccl_blob_open_context (self, backend, device_id);
}

static gboolean
gst_gpuccl_blob_stop (GstBaseTransform * trans)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (trans);

  gst_gpuccl_blob_close_context (self);
  gst_gpuccl_blob_cuda_stop (self);
  g_clear_pointer (&self->tracker, gpuccl_tracker_free);
  g_clear_pointer (&self->listing_keys, g_free);
  g_clear_pointer (&self->track_ids, g_free);
  self->listing_keys_cap = self->track_ids_cap = 0;
  gst_gpuccl_blob_free_labels (self);
  gst_gpuccl_blob_region_free (self);
#ifdef HAVE_GST_ANALYTICS
  gst_gpuccl_blob_analytics_free (self);
#endif
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->allocator);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_gpuccl_blob_finalize (GObject * object)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (object);

  gst_gpuccl_blob_close_context (self);
  gst_gpuccl_blob_cuda_free (self);
  gst_gpuccl_blob_mask_free (self);
  g_free (self->mask_location);
  g_clear_pointer (&self->tracker, gpuccl_tracker_free);
  g_free (self->listing_keys);
  g_free (self->track_ids);
  gst_gpuccl_blob_free_labels (self);
  gst_gpuccl_blob_region_free (self);
#ifdef HAVE_GST_ANALYTICS
  gst_gpuccl_blob_analytics_free (self);
#endif
  gst_clear_object (&self->allocator);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_gpuccl_blob_class_init (GstGpucclBlobClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_gpuccl_blob_set_property;
  gobject_class->get_property = gst_gpuccl_blob_get_property;
  gobject_class->finalize = gst_gpuccl_blob_finalize;
  gst_gpuccl_blob_install_properties (gobject_class);
  gst_gpuccl_blob_register_labels_meta ();

  gst_gpuccl_blob_add_pad_templates (element_class);
  gst_element_class_set_static_metadata (element_class,
      "GPU connected-component blob analysis", "Filter/Analyzer/Video",
      "Labels the connected components of each thresholded frame on an "
      "NVIDIA GPU (HA4) or the CPU and attaches the blobs (area, box, "
      "centroid) as metadata", "gpucclblob developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_stop);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_transform_ip);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_gpuccl_blob_prepare_output_buffer);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_gpuccl_blob_before_transform);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_gpuccl_blob_propose_allocation);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_sink_event);
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->query = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_query);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_set_context);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_set_info);
  /* Called by our transform_ip; set also because GstVideoFilter turns
   * transform_ip_on_passthrough off for a class without it. */
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_gpuccl_blob_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_ALGORITHM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_AUTO_THRESHOLD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_CHANNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_MEMORY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_DRAW_FLAGS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_BINARIZE, 0);

  /* Action signal: forget the background model; the next frame starts a
   * warm-up (background-frames). */
  g_signal_new_class_handler ("reset-background", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_gpuccl_blob_motion_reset), NULL, NULL, NULL,
      G_TYPE_NONE, 0);
}

static void
gst_gpuccl_blob_init (GstGpucclBlob * self)
{
  gst_gpuccl_blob_settings_init (&self->settings);
  gst_gpuccl_blob_cuda_init (self);

  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self),
      self->settings.draw == 0);
  /* GAP buffers are left alone and keep their flag. */
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}
