/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's properties: their specs, defaults and accessors. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstgpucclblobenums.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

enum
{
  PROP_0,
  PROP_THRESHOLD,
  PROP_INVERT,
  PROP_AUTO_THRESHOLD,
  PROP_CONNECTIVITY,
  PROP_MIN_AREA,
  PROP_MAX_AREA,
  PROP_MAX_BLOBS,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ALGORITHM,
  PROP_CHANNEL,
  PROP_DRAW,
  PROP_BOX_COLOR,
  PROP_LINE_WIDTH,
  PROP_POST_MESSAGES,
  PROP_ATTACH_META,
  PROP_MAX_ROI_METAS,
  PROP_MEMORY,
  PROP_TRACK,
  PROP_TRACK_MAX_DISTANCE,
  PROP_TRACK_MAX_LOST,
  PROP_MODE,
  PROP_ATTACH_LABELS,
  PROP_POST_TRACK_EVENTS,
  PROP_REGION,
  PROP_BINARIZE,
  PROP_LEARNING_RATE,
  PROP_BACKGROUND_FRAMES,
  PROP_BACKGROUND_SELECTIVE,
  PROP_BATCH_SIZE,
  PROP_BATCH_MAX_WAIT,
  PROP_MASK_LOCATION,
  PROP_MEASURE_INTENSITY,
};

#define DEFAULT_BATCH_SIZE 1      /* no batching */
#define DEFAULT_BATCH_MAX_WAIT (2 * GST_MSECOND)
#define DEFAULT_THRESHOLD 127
#define DEFAULT_INVERT FALSE
#define DEFAULT_AUTO_THRESHOLD GPUCCL_AUTO_THRESHOLD_NONE
#define DEFAULT_CONNECTIVITY 8
#define DEFAULT_MIN_AREA 0
#define DEFAULT_MAX_AREA 0
#define DEFAULT_MAX_BLOBS 0
#define DEFAULT_BACKEND GPUCCL_BACKEND_AUTO
#define DEFAULT_DEVICE_ID GPUCCL_BLOB_DEVICE_AUTO
#define DEFAULT_ALGORITHM GPUCCL_ALGORITHM_DEFAULT
#define DEFAULT_CHANNEL GPUCCL_CHANNEL_LUMA
#define DEFAULT_DRAW 0
#define DEFAULT_BOX_COLOR 0xff00ff00    /* opaque green */
#define DEFAULT_LINE_WIDTH 2
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_MAX_ROI_METAS GPUCCL_BLOB_ROI_METAS_AUTO
#define DEFAULT_ATTACH_META TRUE
#define DEFAULT_MEMORY GPUCCL_MEMORY_AUTO
#define DEFAULT_TRACK FALSE
#define DEFAULT_MODE GPUCCL_MODE_BINARY
#define DEFAULT_ATTACH_LABELS FALSE
#define DEFAULT_POST_TRACK_EVENTS FALSE
#define DEFAULT_BINARIZE GST_GPUCCL_BLOB_BINARIZE_THRESHOLD

void
gst_gpuccl_blob_settings_init (Settings * s)
{
  GpucclTrackerParams track;
  GpucclBackgroundParams background;

  gpuccl_tracker_params_init (&track);
  gpuccl_background_params_init (&background);
  s->threshold = DEFAULT_THRESHOLD;
  s->invert = DEFAULT_INVERT;
  s->auto_threshold = DEFAULT_AUTO_THRESHOLD;
  s->connectivity = DEFAULT_CONNECTIVITY;
  s->min_area = DEFAULT_MIN_AREA;
  s->max_area = DEFAULT_MAX_AREA;
  s->max_blobs = DEFAULT_MAX_BLOBS;
  s->backend = DEFAULT_BACKEND;
  s->device_id = DEFAULT_DEVICE_ID;
  s->algorithm = DEFAULT_ALGORITHM;
  s->channel = DEFAULT_CHANNEL;
  s->draw = DEFAULT_DRAW;
  s->box_color = DEFAULT_BOX_COLOR;
  s->line_width = DEFAULT_LINE_WIDTH;
  s->post_messages = DEFAULT_POST_MESSAGES;
  s->max_roi_metas = DEFAULT_MAX_ROI_METAS;
  s->attach_meta = DEFAULT_ATTACH_META;
  s->memory = DEFAULT_MEMORY;
  s->track = DEFAULT_TRACK;
  s->track_max_distance = track.max_distance;
  s->track_max_lost = track.max_lost;
  s->mode = DEFAULT_MODE;
  s->attach_labels = DEFAULT_ATTACH_LABELS;
  s->post_track_events = DEFAULT_POST_TRACK_EVENTS;
  s->binarize = DEFAULT_BINARIZE;
  s->learning_rate = background.learning_rate;
  s->background_frames = background.warmup_frames;
  s->background_selective = background.selective;
  s->batch_size = DEFAULT_BATCH_SIZE;
  s->batch_max_wait = DEFAULT_BATCH_MAX_WAIT;
  s->mask_serial = 0;
  s->measure_intensity = FALSE;
}

void
gst_gpuccl_blob_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (object);
  Settings *s = &self->settings;
  gboolean passthrough = FALSE, new_pool = FALSE, update_passthrough = FALSE;
  gboolean renegotiate = FALSE; /* the formats asked of upstream change */
  gboolean bad_region = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD:
      s->threshold = g_value_get_int (value);
      break;
    case PROP_INVERT:
      s->invert = g_value_get_boolean (value);
      break;
    case PROP_AUTO_THRESHOLD:
      s->auto_threshold = g_value_get_enum (value);
      break;
    case PROP_CONNECTIVITY:
      s->connectivity = g_value_get_enum (value);
      break;
    case PROP_MIN_AREA:
      s->min_area = g_value_get_uint64 (value);
      break;
    case PROP_MAX_AREA:
      s->max_area = g_value_get_uint64 (value);
      break;
    case PROP_MAX_BLOBS:
      s->max_blobs = g_value_get_uint (value);
      break;
    case PROP_BACKEND:
      s->backend = g_value_get_enum (value);
      new_pool = TRUE;
      break;
    case PROP_DEVICE_ID:
      s->device_id = g_value_get_int (value);
      new_pool = TRUE;
      break;
    case PROP_ALGORITHM:
      s->algorithm = g_value_get_enum (value);
      break;
    case PROP_CHANNEL:
      renegotiate = s->channel != (GpucclChannel) g_value_get_enum (value);
      s->channel = g_value_get_enum (value);
      break;
    case PROP_DRAW:
      s->draw = g_value_get_flags (value);
      passthrough = s->draw == 0;
      update_passthrough = TRUE;
      break;
    case PROP_BOX_COLOR:
      s->box_color = g_value_get_uint (value);
      break;
    case PROP_LINE_WIDTH:
      s->line_width = g_value_get_int (value);
      break;
    case PROP_POST_MESSAGES:
      s->post_messages = g_value_get_boolean (value);
      break;
    case PROP_ATTACH_META:
      s->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_MAX_ROI_METAS:
      s->max_roi_metas = g_value_get_int (value);
      break;
    case PROP_MEMORY:
      s->memory = g_value_get_enum (value);
      new_pool = TRUE;
      break;
    case PROP_TRACK:
      s->track = g_value_get_boolean (value);
      break;
    case PROP_TRACK_MAX_DISTANCE:
      s->track_max_distance = g_value_get_double (value);
      break;
    case PROP_TRACK_MAX_LOST:
      s->track_max_lost = g_value_get_int (value);
      break;
    case PROP_MODE:
      renegotiate = s->mode != (GpucclMode) g_value_get_enum (value);
      s->mode = g_value_get_enum (value);
      break;
    case PROP_ATTACH_LABELS:
      s->attach_labels = g_value_get_boolean (value);
      break;
    case PROP_POST_TRACK_EVENTS:
      s->post_track_events = g_value_get_boolean (value);
      break;
    case PROP_REGION:
      bad_region = !gst_gpuccl_blob_region_from_value (s, value);
      /* The model's pixels are the old region's. */
      gst_gpuccl_blob_motion_reset (self);
      break;
    case PROP_BINARIZE:
      s->binarize = g_value_get_enum (value);
      break;
    case PROP_LEARNING_RATE:
      s->learning_rate = g_value_get_double (value);
      break;
    case PROP_BACKGROUND_FRAMES:
      s->background_frames = g_value_get_uint (value);
      break;
    case PROP_BACKGROUND_SELECTIVE:
      s->background_selective = g_value_get_boolean (value);
      break;
    case PROP_BATCH_SIZE:
      s->batch_size = g_value_get_uint (value);
      break;
    case PROP_BATCH_MAX_WAIT:
      s->batch_max_wait = g_value_get_uint64 (value);
      break;
    case PROP_MASK_LOCATION:
      /* Decoded at the next frame (gstgpucclblobmask.c). */
      g_free (self->mask_location);
      self->mask_location = g_value_get_string (value) &&
          *g_value_get_string (value) ? g_value_dup_string (value) : NULL;
      s->mask_serial++;
      break;
    case PROP_MEASURE_INTENSITY:
      s->measure_intensity = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (new_pool)
    gst_clear_object (&self->allocator);
  GST_OBJECT_UNLOCK (self);

  /* Kept as it was: a warning on the bus says why (outside the lock). */
  if (bad_region) {
    gchar *text = gst_value_serialize (value);
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Ignoring region %s: give x, y, width, height (width and height "
            "at least 1), e.g. region=\"<0,0,320,240>\", or <> for the "
            "whole frame", text ? text : "?"), (NULL));
    g_free (text);
  }
  /* Both take the object lock themselves. */
  if (update_passthrough)
    gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self),
        passthrough);
  if (new_pool || renegotiate)
    gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
}

void
gst_gpuccl_blob_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (object);
  const Settings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD:
      g_value_set_int (value, s->threshold);
      break;
    case PROP_INVERT:
      g_value_set_boolean (value, s->invert);
      break;
    case PROP_AUTO_THRESHOLD:
      g_value_set_enum (value, s->auto_threshold);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, s->connectivity);
      break;
    case PROP_MIN_AREA:
      g_value_set_uint64 (value, s->min_area);
      break;
    case PROP_MAX_AREA:
      g_value_set_uint64 (value, s->max_area);
      break;
    case PROP_MAX_BLOBS:
      g_value_set_uint (value, s->max_blobs);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, s->device_id);
      break;
    case PROP_ALGORITHM:
      g_value_set_enum (value, s->algorithm);
      break;
    case PROP_CHANNEL:
      g_value_set_enum (value, s->channel);
      break;
    case PROP_DRAW:
      g_value_set_flags (value, s->draw);
      break;
    case PROP_BOX_COLOR:
      g_value_set_uint (value, s->box_color);
      break;
    case PROP_LINE_WIDTH:
      g_value_set_int (value, s->line_width);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s->post_messages);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, s->attach_meta);
      break;
    case PROP_MAX_ROI_METAS:
      g_value_set_int (value, s->max_roi_metas);
      break;
    case PROP_MEMORY:
      g_value_set_enum (value, s->memory);
      break;
    case PROP_TRACK:
      g_value_set_boolean (value, s->track);
      break;
    case PROP_TRACK_MAX_DISTANCE:
      g_value_set_double (value, s->track_max_distance);
      break;
    case PROP_TRACK_MAX_LOST:
      g_value_set_int (value, s->track_max_lost);
      break;
    case PROP_MODE:
      g_value_set_enum (value, s->mode);
      break;
    case PROP_ATTACH_LABELS:
      g_value_set_boolean (value, s->attach_labels);
      break;
    case PROP_POST_TRACK_EVENTS:
      g_value_set_boolean (value, s->post_track_events);
      break;
    case PROP_REGION:
      gst_gpuccl_blob_region_to_value (s, value);
      break;
    case PROP_BINARIZE:
      g_value_set_enum (value, s->binarize);
      break;
    case PROP_LEARNING_RATE:
      g_value_set_double (value, s->learning_rate);
      break;
    case PROP_BACKGROUND_FRAMES:
      g_value_set_uint (value, s->background_frames);
      break;
    case PROP_BACKGROUND_SELECTIVE:
      g_value_set_boolean (value, s->background_selective);
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, s->batch_size);
      break;
    case PROP_BATCH_MAX_WAIT:
      g_value_set_uint64 (value, s->batch_max_wait);
      break;
    case PROP_MASK_LOCATION:
      g_value_set_string (value, self->mask_location);
      break;
    case PROP_MEASURE_INTENSITY:
      g_value_set_boolean (value, s->measure_intensity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)
#define PARAM_CONTROLLABLE (PARAM_FLAGS | GST_PARAM_CONTROLLABLE)

void
gst_gpuccl_blob_install_properties (GObjectClass * gobject_class)
{
  GpucclTrackerParams track;
  GpucclBackgroundParams background;

  gpuccl_tracker_params_init (&track);
  gpuccl_background_params_init (&background);

  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int ("threshold", "Threshold",
          "Foreground is sample > threshold (<= with invert). Samples are "
          "0..255 for 8-bit and RGB formats (larger values act as 255) and "
          "0..65535 for GRAY16_LE. Unused with auto-threshold=otsu",
          0, 65535, DEFAULT_THRESHOLD, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_INVERT,
      g_param_spec_boolean ("invert", "Invert",
          "Label dark blobs on a bright background: foreground is sample "
          "<= threshold", DEFAULT_INVERT, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_AUTO_THRESHOLD,
      g_param_spec_enum ("auto-threshold", "Automatic threshold",
          "Compute each frame's threshold instead of using the threshold "
          "property (the value used is in the blob meta and message)",
          GST_TYPE_GPUCCL_BLOB_AUTO_THRESHOLD, DEFAULT_AUTO_THRESHOLD,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CONNECTIVITY,
      g_param_spec_enum ("connectivity", "Connectivity",
          "Which neighbouring foreground pixels belong to one blob",
          GST_TYPE_GPUCCL_BLOB_CONNECTIVITY, DEFAULT_CONNECTIVITY,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MIN_AREA,
      g_param_spec_uint64 ("min-area", "Minimum area",
          "Blobs with fewer pixels are not reported (above a non-zero "
          "max-area: none is, so the two can be set in either order while "
          "playing)", 0, G_MAXUINT64, DEFAULT_MIN_AREA, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_MAX_AREA,
      g_param_spec_uint64 ("max-area", "Maximum area",
          "Blobs with more pixels are not reported (0: no limit; below "
          "min-area: no blob is)",
          0, G_MAXUINT64, DEFAULT_MAX_AREA, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_MAX_BLOBS,
      g_param_spec_uint ("max-blobs", "Maximum blobs",
          "Report only this many blobs, the largest ones (0: all)",
          0, G_MAXUINT32, DEFAULT_MAX_BLOBS, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the labeling runs; a change opens a new context at the "
          "next frame", GST_TYPE_GPUCCL_BLOB_BACKEND, DEFAULT_BACKEND,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device id",
          "CUDA device index; -1 (auto): CUDA memory is labeled on the GPU "
          "it lives on and system memory on device 0. A change opens a new "
          "context at the next frame", GPUCCL_BLOB_DEVICE_AUTO, G_MAXINT,
          DEFAULT_DEVICE_ID, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ALGORITHM,
      g_param_spec_enum ("algorithm", "Algorithm",
          "Labeling algorithm of the CUDA backend (every algorithm gives the "
          "same blobs; the block-based ones do 8-connectivity only, 4 is an "
          "error with them; the CPU backend runs its own whatever is chosen)",
          GST_TYPE_GPUCCL_BLOB_ALGORITHM, DEFAULT_ALGORITHM,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHANNEL,
      g_param_spec_enum ("channel", "Channel",
          "What is thresholded in RGB formats (YUV and gray formats always "
          "use their luma plane)", GST_TYPE_GPUCCL_BLOB_CHANNEL,
          DEFAULT_CHANNEL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_flags ("draw", "Draw",
          "Overlays drawn into the frame. Without any the frame is not "
          "written (no copy)", GST_TYPE_GPUCCL_BLOB_DRAW_FLAGS, DEFAULT_DRAW,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BOX_COLOR,
      g_param_spec_uint ("box-color", "Box colour",
          "Colour of boxes and centroid crosses, 0xAARRGGBB (alpha is "
          "ignored; converted to full-range BT.601 on YUV and gray frames)",
          0, G_MAXUINT32, DEFAULT_BOX_COLOR, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_LINE_WIDTH,
      g_param_spec_int ("line-width", "Line width",
          "Thickness of boxes (drawn inside the bounding box) and crosses, "
          "in pixels", 1, 256, DEFAULT_LINE_WIDTH, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message \"gpucclblob\" per frame with its "
          "timestamps, blob count and blob list (the blobs that have a "
          "region-of-interest meta, see max-roi-metas)",
          DEFAULT_POST_MESSAGES, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach metadata",
          "Attach a GstCclBlobMeta (every blob) and a "
          "GstVideoRegionOfInterestMeta (type \"blob\") per blob, up to "
          "max-roi-metas, to each buffer", DEFAULT_ATTACH_META, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MAX_ROI_METAS,
      g_param_spec_int ("max-roi-metas", "Maximum ROI metas",
          "Blobs given a region-of-interest meta (and listed in the "
          "message) per frame: past it, only the largest. GstCclBlobMeta "
          "always holds every blob. -1: one per "
          G_STRINGIFY (GPUCCL_BLOB_PIXELS_PER_ROI_META) " pixels of the "
          "frame (so that they cost less than the labeling), 0: no limit",
          -1, G_MAXINT, DEFAULT_MAX_ROI_METAS, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_MEMORY,
      g_param_spec_enum ("memory", "Memory",
          "Host memory of the buffer pool offered upstream: pinned and "
          "copied to the GPU, or pinned and mapped (read in place, best on "
          "integrated GPUs such as Jetson)", GST_TYPE_GPUCCL_BLOB_MEMORY,
          DEFAULT_MEMORY, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_TRACK,
      g_param_spec_boolean ("track", "Track",
          "Give blobs ids that stay stable across frames (track-id in the "
          "metadata and messages; 0 when off)", DEFAULT_TRACK, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_TRACK_MAX_DISTANCE,
      g_param_spec_double ("track-max-distance", "Track maximum distance",
          "Largest centroid distance, in pixels, between a track's predicted "
          "position and a blob it is matched with", 0, G_MAXDOUBLE,
          track.max_distance, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_TRACK_MAX_LOST,
      g_param_spec_int ("track-max-lost", "Track maximum lost frames",
          "Frames a track survives without a blob before its id is dropped",
          0, G_MAXINT, track.max_lost, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_POST_TRACK_EVENTS,
      g_param_spec_boolean ("post-track-events", "Post track events",
          "With track, post an element message \"gpucclblob-track-appeared\" "
          "when a track starts and \"gpucclblob-track-lost\" when it is "
          "dropped (unseen for more than track-max-lost frames, or past the "
          "live-track cap), with its id, frames and positions",
          DEFAULT_POST_TRACK_EVENTS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION,
      gst_param_spec_array ("region", "Region",
          "Label only this rectangle of the frame: x, y, width, height in "
          "pixels, e.g. \"<0,0,320,240>\" (empty: the whole frame). "
          "Clipped to the frame; on I420, YV12 and NV12 its left and top "
          "edges are rounded down to even. Coordinates are reported in the "
          "frame", g_param_spec_int ("value", "Value", "x, y, width or height",
              G_MININT, G_MAXINT, 0, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS), PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "binary: threshold the frame (threshold, invert, auto-threshold, "
          "channel). segments: the frame is a label map (class mask, e.g. "
          "GRAY8 or GRAY16_LE): 0 is background, touching pixels form one "
          "blob only when their values are equal, each blob reports its "
          "value; the threshold properties are ignored, and on CUDA only "
          "algorithm default or stava-benes can do it",
          GST_TYPE_GPUCCL_BLOB_MODE, DEFAULT_MODE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BINARIZE,
      g_param_spec_enum ("binarize", "Binarize",
          "What threshold is compared with. threshold: the sample. "
          "difference: |sample - the previous frame's|, so what moved is "
          "foreground. background: |sample - a running-average background| "
          "(learning-rate, background-frames, background-selective). "
          "invert, channel and auto-threshold=otsu apply to the "
          "difference; the model starts afresh on new caps, a new region, "
          "a flush, stop, and the reset-background action signal",
          GST_TYPE_GPUCCL_BLOB_BINARIZE, DEFAULT_BINARIZE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LEARNING_RATE,
      g_param_spec_double ("learning-rate", "Learning rate",
          "binarize=background: each frame moves the background this "
          "fraction of the way to the frame (B += rate * (sample - B), in "
          "fixed point: steps below 1/512 of a level are lost)",
          0.0, 1.0, background.learning_rate, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND_FRAMES,
      g_param_spec_uint ("background-frames", "Background frames",
          "Warm-up after each reset: frames that build the background (their "
          "mean, at least learning-rate) and report no blobs (0 and 1: the "
          "first frame only)", 0, G_MAXUINT32, background.warmup_frames,
          PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND_SELECTIVE,
      g_param_spec_boolean ("background-selective", "Selective background",
          "binarize=background: learn only the pixels that match the "
          "background (difference <= threshold), so objects that stop stay "
          "blobs instead of fading into the background",
          background.selective, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ATTACH_LABELS,
      g_param_spec_boolean ("attach-labels", "Attach the label image",
          "With attach-meta, attach each frame's label image: a custom meta "
          "\"" GST_GPUCCL_BLOB_LABELS_META "\" whose GstBuffer \"labels\" "
          "holds a guint32 component id per pixel (0: background), and on "
          "GStreamer >= 1.26 an analytics segmentation mask of the listed "
          "blobs. Costs a copy of the labels (and a download on CUDA)",
          DEFAULT_ATTACH_LABELS, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Frames per batch",
          "Label the frames of up to this many gpucclblob instances of the "
          "process (cameras) as one batch: one GPU launch and one wait for "
          "all, so N cameras pay the fixed cost of a frame about once. A "
          "frame waits for the batch to fill, at most batch-max-wait. 1: "
          "each frame alone (no added latency). Frames drawn on are labeled "
          "alone", 1, GST_GPUCCL_BLOB_MAX_BATCH, DEFAULT_BATCH_SIZE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BATCH_MAX_WAIT,
      g_param_spec_uint64 ("batch-max-wait", "Longest wait for a batch",
          "With batch-size > 1: how long (ns) a batch waits for more frames "
          "after its first one arrived; the latency batching may add",
          0, 10 * GST_SECOND, DEFAULT_BATCH_MAX_WAIT, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MASK_LOCATION,
      g_param_spec_string ("mask-location", "Mask location",
          "A picture of the frame's size (PNG, JPEG or any format "
          "decodebin decodes; read as GRAY8, colour by its luma): where it "
          "is 0 (black) nothing is foreground. Read at the next frame; "
          "empty: no mask. Works with region (both in frame coordinates); "
          "on CUDA with the default algorithm (HA4) only",
          NULL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MEASURE_INTENSITY,
      g_param_spec_boolean ("measure-intensity", "Measure intensity",
          "Measure each blob's sum, min and max of the thresholded sample "
          "(luma, gray level or the channel property's channel) into the "
          "blob meta (GstCclBlobMeta.intensity) and the message's blob "
          "entries (intensity-sum/min/max/mean): one more pass over the "
          "blobs' pixels. On CUDA with the default algorithm (HA4) only",
          FALSE, PARAM_FLAGS));
}
