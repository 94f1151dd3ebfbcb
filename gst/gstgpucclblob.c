/**
 * SECTION:element-gpucclblob
 * @title: gpucclblob
 *
 * Binarizes each video frame (the luma plane, or a chosen channel of RGB),
 * labels its connected components and measures them (area, bounding box,
 * centroid) with libgpuccl — the HA4 algorithm on an NVIDIA GPU, or the
 * CPU backend. The blobs travel downstream as metadata on the buffer:
 *
 *  - one #GstVideoRegionOfInterestMeta per blob, roi type "blob", with a
 *    parameter structure "gpucclblob" (id, track-id, area, centroid-x,
 *    centroid-y, value);
 *  - one #GstCclBlobMeta with the whole table (gstcclblobmeta.h);
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

#include "gstgpucclblob.h"
#include "gstgpucclblobenums.h"
#include "gstgpucclallocator.h"
#include "gstcclblobmeta.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_gpuccl_blob_debug);
#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* The property values; guarded by the object lock and copied once per
 * frame, so a change applies from the next frame on. */
typedef struct
{
  gint threshold;
  gboolean invert;
  GpucclAutoThreshold auto_threshold;
  gint connectivity;
  guint64 min_area, max_area;
  guint max_blobs;
  GpucclBackend backend;
  gint device_id;
  GpucclAlgorithm algorithm;
  GpucclChannel channel;
  guint draw;                   /* GpucclDrawFlags */
  guint box_color;              /* 0xAARRGGBB, alpha ignored */
  gint line_width;
  gboolean post_messages;
  gboolean attach_meta;
  GpucclMemory memory;
  gboolean track;
  gdouble track_max_distance;
  gint track_max_lost;
  GpucclMode mode;
} Settings;

/* How the negotiated format maps onto libgpuccl, decided once in set_info
 * so the per-frame path never looks at the video format. */
typedef struct
{
  GpucclPixelFormat pixel;      /* the plane that is labeled */
  GpucclFrameFormat frame;      /* the frame that overlays are drawn on */
  gint n_planes;                /* planes of GpucclFrame in use */
  gint plane[3];                /* memory plane of Y (or packed), U (or UV), V */
  guint8 offset_r, offset_g, offset_b;
  gint max_threshold;
} FormatDesc;

struct _GstGpucclBlob
{
  GstVideoFilter parent;

  /* object lock */
  Settings settings;
  FormatDesc format;
  GstAllocator *allocator;      /* offered upstream; NULL until asked */

  /* streaming thread only */
  GpucclContext *ctx;
  GpucclBackend ctx_backend;    /* as asked for (may be AUTO) */
  gint ctx_device;
  gboolean warned_fallback;
  GpucclTracker *tracker;
  GArray *track_ids;            /* guint32 per blob */
  GArray *blobs;                /* GstCclBlob per blob */
};

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
  PROP_MEMORY,
  PROP_TRACK,
  PROP_TRACK_MAX_DISTANCE,
  PROP_TRACK_MAX_LOST,
  PROP_MODE,
};

#define DEFAULT_THRESHOLD 127
#define DEFAULT_INVERT FALSE
#define DEFAULT_AUTO_THRESHOLD GPUCCL_AUTO_THRESHOLD_NONE
#define DEFAULT_CONNECTIVITY 8
#define DEFAULT_MIN_AREA 0
#define DEFAULT_MAX_AREA 0
#define DEFAULT_MAX_BLOBS 0
#define DEFAULT_BACKEND GPUCCL_BACKEND_AUTO
#define DEFAULT_DEVICE_ID 0
#define DEFAULT_ALGORITHM GPUCCL_ALGORITHM_DEFAULT
#define DEFAULT_CHANNEL GPUCCL_CHANNEL_LUMA
#define DEFAULT_DRAW 0
#define DEFAULT_BOX_COLOR 0xff00ff00    /* opaque green */
#define DEFAULT_LINE_WIDTH 2
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_ATTACH_META TRUE
#define DEFAULT_MEMORY GPUCCL_MEMORY_AUTO
#define DEFAULT_TRACK FALSE
#define DEFAULT_MODE GPUCCL_MODE_BINARY

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
/* GRAY16 is labeled in host byte order. */
#define GRAY16_FORMAT "GRAY16_LE, "
#else
#define GRAY16_FORMAT
#endif
#define VIDEO_CAPS GST_VIDEO_CAPS_MAKE ("{ GRAY8, " GRAY16_FORMAT \
    "NV12, I420, YV12, RGBA, BGRA, RGBx, BGRx }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (VIDEO_CAPS));

#define gst_gpuccl_blob_parent_class parent_class
G_DEFINE_TYPE (GstGpucclBlob, gst_gpuccl_blob, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (gpucclblob, "gpucclblob",
    GST_RANK_NONE, GST_TYPE_GPUCCL_BLOB,
    GST_DEBUG_CATEGORY_INIT (gst_gpuccl_blob_debug, "gpucclblob", 0,
        "gpuccl connected-component blob analysis"));

/* ------------------------------------------------------------------ */
/* Context and tracker (streaming thread)                             */

/* Open a context for the asked backend. AUTO without a usable GPU falls
 * back to the CPU with one warning per element; CUDA without one is an
 * element error. */
static gboolean
open_context (GstGpucclBlob * self, GpucclBackend backend, gint device_id)
{
  GpucclError error = { 0 };
  GpucclError cuda_error = { 0 };
  gboolean cuda_ok = TRUE;

  if (backend == GPUCCL_BACKEND_AUTO)
    cuda_ok = gpuccl_cuda_available (device_id, &cuda_error);

  self->ctx = gpuccl_context_new (backend, device_id, &error);
  if (!self->ctx) {
    if (backend == GPUCCL_BACKEND_CUDA)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("No usable CUDA device %d for backend=cuda (use backend=auto or "
              "backend=cpu to run on the CPU)", device_id),
          ("%s: %s", gpuccl_status_name (error.status), error.message));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot open the gpuccl %s backend", gpuccl_backend_name (backend)),
          ("%s: %s", gpuccl_status_name (error.status), error.message));
    return FALSE;
  }
  self->ctx_backend = backend;
  self->ctx_device = device_id;

  if (backend == GPUCCL_BACKEND_AUTO &&
      gpuccl_context_backend (self->ctx) == GPUCCL_BACKEND_CPU &&
      !self->warned_fallback) {
    self->warned_fallback = TRUE;
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device, using the CPU backend"),
        ("%s", cuda_ok ? "the CUDA context could not be created" :
            cuda_error.message));
  }
  GST_INFO_OBJECT (self, "gpuccl %s backend on %s",
      gpuccl_backend_name (gpuccl_context_backend (self->ctx)),
      gpuccl_context_device_name (self->ctx));
  return TRUE;
}

static void
close_context (GstGpucclBlob * self)
{
  gpuccl_context_free (self->ctx);
  self->ctx = NULL;
}

/* A new context when backend or device-id changed since the last frame. */
static gboolean
ensure_context (GstGpucclBlob * self, const Settings * s)
{
  if (self->ctx && self->ctx_backend == s->backend &&
      self->ctx_device == s->device_id)
    return TRUE;
  close_context (self);
  return open_context (self, s->backend, s->device_id);
}

/* With tracking on a backend that searches (CUDA), the labeling also
 * finds each track's nearest blob: ask for the tracks' predictions. */
static void
ask_nearest (GstGpucclBlob * self, const Settings * s, GpucclParams * p)
{
  if (s->track && self->tracker &&
      gpuccl_context_backend (self->ctx) == GPUCCL_BACKEND_CUDA)
    p->n_queries = gpuccl_tracker_predict (self->tracker, &p->query_x,
        &p->query_y);
}

/* Track ids of this frame's blobs (all 0 without tracking). */
static void
track_blobs (GstGpucclBlob * self, const Settings * s, const GpucclParams * p,
    const GpucclResult * r)
{
  guint32 *ids;

  /* No blobs: nothing to match, and the array may have no storage (a
   * memset of NULL, even of 0 bytes, is undefined). The tracker still
   * sees the empty frame, so its tracks age. */
  g_array_set_size (self->track_ids, MAX (r->n_blobs, 1));
  ids = (guint32 *) self->track_ids->data;

  if (!s->track) {
    g_clear_pointer (&self->tracker, gpuccl_tracker_free);
    memset (ids, 0, r->n_blobs * sizeof (guint32));
    return;
  }

  GpucclTrackerParams params;
  gpuccl_tracker_params_init (&params);
  params.max_distance = s->track_max_distance;
  params.max_lost = s->track_max_lost;
  if (!self->tracker)
    self->tracker = gpuccl_tracker_new (&params);
  else
    gpuccl_tracker_set_params (self->tracker, &params);

  if (!self->tracker || !gpuccl_tracker_update_nearest (self->tracker,
          r->blobs, r->n_blobs, r->nearest, p->n_queries, ids)) {
    GST_WARNING_OBJECT (self, "tracker out of memory, track ids are 0");
    memset (ids, 0, r->n_blobs * sizeof (guint32));
  }
}

static void
reset_tracker (GstGpucclBlob * self)
{
  if (self->tracker)
    gpuccl_tracker_reset (self->tracker);
}

/* ------------------------------------------------------------------ */
/* Per frame                                                          */

static void
fill_params (GpucclParams * p, const Settings * s, const FormatDesc * f)
{
  gpuccl_params_init (p);
  p->threshold = MIN (s->threshold, f->max_threshold);
  p->invert = s->invert;
  p->auto_threshold = s->auto_threshold;
  p->channel = s->channel;
  p->connectivity = s->connectivity;
  p->min_area = s->min_area;
  p->max_area = s->max_area;
  p->max_blobs = s->max_blobs;
  p->want_labels = (s->draw & GPUCCL_DRAW_LABELS) != 0;
  p->algorithm = s->algorithm;
  p->mode = s->mode;
}

static GstFlowReturn
library_error (GstGpucclBlob * self, const char *what,
    const GpucclError * error)
{
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
      ("%s failed: %s", what, error->message),
      ("gpuccl status: %s", gpuccl_status_name (error->status)));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
draw_frame (GstGpucclBlob * self, const Settings * s, const FormatDesc * f,
    GstVideoFrame * vframe)
{
  GpucclFrame frame = { 0 };
  GpucclDrawParams params = { 0 };
  GpucclError error = { 0 };

  frame.format = f->frame;
  frame.width = GST_VIDEO_FRAME_WIDTH (vframe);
  frame.height = GST_VIDEO_FRAME_HEIGHT (vframe);
  for (gint i = 0; i < f->n_planes; i++) {
    frame.data[i] = GST_VIDEO_FRAME_PLANE_DATA (vframe, f->plane[i]);
    frame.stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, f->plane[i]);
  }
  frame.offset_r = f->offset_r;
  frame.offset_g = f->offset_g;
  frame.offset_b = f->offset_b;

  params.flags = s->draw;
  params.r = (s->box_color >> 16) & 0xff;
  params.g = (s->box_color >> 8) & 0xff;
  params.b = s->box_color & 0xff;
  params.line_width = s->line_width;

  if (gpuccl_draw (self->ctx, &frame, &params, &error) != GPUCCL_OK)
    return library_error (self, "Drawing the overlays", &error);
  return GST_FLOW_OK;
}

/* The blob table with track ids, as the meta and the message carry it. */
static const GstCclBlob *
collect_blobs (GstGpucclBlob * self, const GpucclResult * r)
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
    out[i].cx = b->cx;
    out[i].cy = b->cy;
    out[i].value = b->value;
  }
  return out;
}

/* Field names of the ROI parameter structure, made quarks once. */
static GQuark q_gpucclblob, q_id, q_track_id, q_area, q_centroid_x,
    q_centroid_y, q_value;

/* What one frame cost the element, as the meta and the message report
 * it. */
typedef struct
{
  guint64 processing_ns;        /* labeling and analysis */
  guint64 tracking_ns;          /* the tracker's host part (0: no tracking) */
} FrameTimes;

static void
attach_metas (GstBuffer * buffer, const GpucclResult * r,
    const GstCclBlob * blobs, const FrameTimes * times)
{
  GstCclBlobMeta *meta = gst_buffer_add_ccl_blob_meta (buffer, r->width,
      r->height, blobs, r->n_blobs);

  meta->threshold = r->threshold;
  meta->n_components = r->n_components;
  meta->processing_ns = times->processing_ns;
  meta->tracking_ns = times->tracking_ns;

  for (gsize i = 0; i < r->n_blobs; i++) {
    const GstCclBlob *b = &blobs[i];
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buffer, "blob",
        b->x0, b->y0, b->x1 - b->x0 + 1, b->y1 - b->y0 + 1);

    roi->id = (gint) b->id;
    /* By quark: no string lookups, a third cheaper per blob. */
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new_id (q_gpucclblob,
            q_id, G_TYPE_UINT, b->id,
            q_track_id, G_TYPE_UINT, b->track_id,
            q_area, G_TYPE_UINT64, b->area,
            q_centroid_x, G_TYPE_DOUBLE, b->cx,
            q_centroid_y, G_TYPE_DOUBLE, b->cy,
            q_value, G_TYPE_UINT, b->value, NULL));
  }
}

/* Like facedetect's: the frame's times, then the blobs. */
static void
post_message (GstGpucclBlob * self, GstBuffer * buffer,
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

static GstFlowReturn
gst_gpuccl_blob_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * vframe)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (filter);
  Settings s;
  FormatDesc f;
  GpucclParams params;
  GpucclImage image = { 0 };
  GpucclResult result;
  GpucclError error = { 0 };
  FrameTimes times;
  GstClockTime start, asked, labeled;
  GstFlowReturn ret = GST_FLOW_OK;

  GST_OBJECT_LOCK (self);
  s = self->settings;
  f = self->format;
  GST_OBJECT_UNLOCK (self);

  if (!ensure_context (self, &s))
    return GST_FLOW_ERROR;

  image.data = GST_VIDEO_FRAME_PLANE_DATA (vframe, f.plane[0]);
  image.width = GST_VIDEO_FRAME_WIDTH (vframe);
  image.height = GST_VIDEO_FRAME_HEIGHT (vframe);
  image.stride = GST_VIDEO_FRAME_PLANE_STRIDE (vframe, f.plane[0]);
  image.format = f.pixel;
  image.offset_r = f.offset_r;
  image.offset_g = f.offset_g;
  image.offset_b = f.offset_b;
  fill_params (&params, &s, &f);

  start = gst_util_get_timestamp ();
  ask_nearest (self, &s, &params);
  asked = gst_util_get_timestamp ();
  if (gpuccl_process (self->ctx, &image, &params, &result, &error)
      != GPUCCL_OK)
    return library_error (self, "Labeling", &error);
  labeled = gst_util_get_timestamp ();
  times.processing_ns = labeled - asked;
  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " blobs of %u components, "
      "threshold %d, %" G_GUINT64_FORMAT " ns", result.n_blobs,
      result.n_components, result.threshold, times.processing_ns);

  track_blobs (self, &s, &params, &result);
  /* The tracker's host part, on both sides of the labeling: the
   * predictions, then the matching. */
  times.tracking_ns = s.track ? (asked - start) +
      (gst_util_get_timestamp () - labeled) : 0;

  /* The draw property may have been set after this buffer was mapped
   * read-only in passthrough: then draw from the next frame on. */
  if (s.draw && (vframe->map[0].flags & GST_MAP_WRITE))
    ret = draw_frame (self, &s, &f, vframe);
  if (ret != GST_FLOW_OK)
    return ret;

  if (s.attach_meta || s.post_messages) {
    const GstCclBlob *blobs = collect_blobs (self, &result);
    if (s.attach_meta)
      attach_metas (vframe->buffer, &result, blobs, &times);
    if (s.post_messages)
      post_message (self, vframe->buffer, &result, blobs, &times);
  }
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ */
/* GstBaseTransform / GstVideoFilter                                  */

static gboolean
describe_format (const GstVideoInfo * info, FormatDesc * f)
{
  const GstVideoFormatInfo *finfo = info->finfo;

  memset (f, 0, sizeof *f);
  f->pixel = GPUCCL_PIXEL_U8;
  f->max_threshold = 255;
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
      f->frame = GPUCCL_FRAME_GRAY8;
      f->n_planes = 1;
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      f->pixel = GPUCCL_PIXEL_U16;
      f->max_threshold = 65535;
      f->frame = GPUCCL_FRAME_GRAY16;
      f->n_planes = 1;
      break;
    case GST_VIDEO_FORMAT_NV12:
      f->frame = GPUCCL_FRAME_NV12;
      f->n_planes = 2;
      break;
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
      f->frame = GPUCCL_FRAME_I420;
      f->n_planes = 3;
      break;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      f->pixel = GPUCCL_PIXEL_PACKED4;
      f->frame = GPUCCL_FRAME_PACKED4;
      f->n_planes = 1;
      f->offset_r = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R);
      f->offset_g = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G);
      f->offset_b = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B);
      break;
    default:
      return FALSE;
  }
  /* Component i (Y/R, U/G, V/B) lives in this memory plane: YV12's U is
   * plane 2, NV12's U starts its interleaved plane 1. */
  for (gint i = 0; i < f->n_planes; i++)
    f->plane[i] = GST_VIDEO_FORMAT_INFO_PLANE (finfo, i);
  return TRUE;
}

static gboolean
gst_gpuccl_blob_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (filter);
  FormatDesc f;

  if (!describe_format (in_info, &f)) {
    GST_ERROR_OBJECT (self, "unsupported caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  if (GST_VIDEO_INFO_WIDTH (in_info) > GPUCCL_MAX_SIDE ||
      GST_VIDEO_INFO_HEIGHT (in_info) > GPUCCL_MAX_SIDE) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frame size %dx%d is above the largest supported side of %d",
            GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
            GPUCCL_MAX_SIDE), (NULL));
    return FALSE;
  }

  /* Tracks do not survive a change of frame size. */
  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (&filter->in_info)
      || GST_VIDEO_INFO_HEIGHT (in_info) !=
      GST_VIDEO_INFO_HEIGHT (&filter->in_info))
    reset_tracker (self);

  GST_OBJECT_LOCK (self);
  self->format = f;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s %dx%d", GST_VIDEO_INFO_NAME (in_info),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info));
  return TRUE;
}

/* The bytes a frame needs: the caps' size, or with a GstVideoMeta the end
 * of its last plane. 0 when the meta itself is unusable. */
static gsize
frame_bytes_needed (const GstVideoInfo * info, const GstVideoMeta * meta)
{
  gsize end = 0;

  if (!meta)
    return GST_VIDEO_INFO_SIZE (info);
  if (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
      meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return 0;
  for (guint p = 0; p < meta->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows;
    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp[0],
        meta->height);
    if (meta->stride[p] <= 0)
      return 0;
    end = MAX (end, meta->offset[p] + (gsize) meta->stride[p] * rows);
  }
  return end;
}

/* GAP buffers pass untouched; a buffer shorter than its frame (per the
 * caps, or per its GstVideoMeta) is an error — the base class would only
 * warn and pass it on. */
static GstFlowReturn
gst_gpuccl_blob_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  gsize size = gst_buffer_get_size (buf), needed;

  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return GST_FLOW_OK;
  if (!filter->negotiated)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_ip (trans, buf);

  needed = frame_bytes_needed (&filter->in_info,
      gst_buffer_get_video_meta (buf));
  if (needed == 0 || size < needed) {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
        ("Buffer of %" G_GSIZE_FORMAT " bytes is too small for a %dx%d %s "
            "frame (%" G_GSIZE_FORMAT " bytes%s)", size,
            GST_VIDEO_INFO_WIDTH (&filter->in_info),
            GST_VIDEO_INFO_HEIGHT (&filter->in_info),
            GST_VIDEO_INFO_NAME (&filter->in_info), needed,
            needed ? "" : ", video meta does not match the caps"), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_ip (trans, buf);
}

/* Always in place: the output is the input, made writable for the metas.
 * Decided here once per buffer, whatever the passthrough flag (which the
 * draw property flips from other threads): a buffer upstream still holds
 * gets a shallow copy — its memory stays shared, so without drawing
 * (passthrough, mapped read-only) the pixels are never copied, and when
 * drawing, mapping it writable copies the frame first, so upstream's
 * buffer is never written. */
static GstFlowReturn
gst_gpuccl_blob_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  *outbuf = gst_buffer_is_writable (input) ? input : gst_buffer_copy (input);
  return GST_FLOW_OK;
}

/* Controlled properties follow the stream time of each buffer. */
static void
gst_gpuccl_blob_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
}

/* The allocator upstream should fill: host memory of our backend (pinned
 * with CUDA). Made on first use and after backend, device-id or memory
 * changed. */
static GstAllocator *
get_allocator (GstGpucclBlob * self)
{
  GstAllocator *allocator;
  GpucclBackend backend;
  GpucclMemory memory;
  gint device_id;
  GpucclError error = { 0 };

  GST_OBJECT_LOCK (self);
  allocator = self->allocator ? gst_object_ref (self->allocator) : NULL;
  backend = self->settings.backend;
  device_id = self->settings.device_id;
  memory = self->settings.memory;
  GST_OBJECT_UNLOCK (self);
  if (allocator)
    return allocator;

  /* AUTO without a GPU already warned when the context opened: quietly
   * use what AUTO resolves to. */
  allocator = gst_gpuccl_allocator_new (backend, device_id, memory, &error);
  if (!allocator) {
    GST_WARNING_OBJECT (self, "no gpuccl allocator: %s", error.message);
    return NULL;
  }
  GST_OBJECT_LOCK (self);
  gst_object_replace ((GstObject **) & self->allocator,
      GST_OBJECT (allocator));
  GST_OBJECT_UNLOCK (self);
  return allocator;
}

static gboolean
gst_gpuccl_blob_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (trans);
  GstAllocationParams params;
  GstAllocator *allocator;
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo info;
  guint n_pools;

  /* Downstream's answer first (passthrough forwards the query), so its
   * metas stay supported; our pool then goes first in the list. A
   * downstream that does not answer (fakesink) is no reason to fail. */
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    GST_DEBUG_OBJECT (self, "downstream proposed nothing");

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  allocator = get_allocator (self);
  if (!allocator)
    return TRUE;

  gst_allocation_params_init (&params);
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (self, "pool refused its configuration");
    gst_object_unref (pool);
    gst_object_unref (allocator);
    return TRUE;
  }

  n_pools = gst_query_get_n_allocation_pools (query);
  if (n_pools > 0) {
    /* Move the first pool to the end, ours in its place. */
    GstBufferPool *first = NULL;
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (query, 0, &first, &size, &min, &max);
    gst_query_add_allocation_pool (query, first, size, min, max);
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, 0, 0);
    if (first)
      gst_object_unref (first);
  } else {
    gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
  }
  if (gst_query_get_n_allocation_params (query) > 0) {
    /* Likewise for the allocators: ours first. */
    GstAllocator *first = NULL;
    GstAllocationParams first_params;
    gst_query_parse_nth_allocation_param (query, 0, &first, &first_params);
    gst_query_add_allocation_param (query, first, &first_params);
    gst_query_set_nth_allocation_param (query, 0, allocator, &params);
    if (first)
      gst_object_unref (first);
  } else {
    gst_query_add_allocation_param (query, allocator, &params);
  }
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  gst_object_unref (pool);
  gst_object_unref (allocator);
  return TRUE;
}

static gboolean
gst_gpuccl_blob_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    reset_tracker (GST_GPUCCL_BLOB (trans));
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
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);

  close_context (self);
  return open_context (self, backend, device_id);
}

static gboolean
gst_gpuccl_blob_stop (GstBaseTransform * trans)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (trans);

  close_context (self);
  g_clear_pointer (&self->tracker, gpuccl_tracker_free);
  g_array_set_size (self->blobs, 0);
  g_array_set_size (self->track_ids, 0);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->allocator);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* GObject                                                            */

static void
gst_gpuccl_blob_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (object);
  Settings *s = &self->settings;
  gboolean passthrough = FALSE, new_pool = FALSE, update_passthrough = FALSE;

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
      s->mode = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (new_pool)
    gst_clear_object (&self->allocator);
  GST_OBJECT_UNLOCK (self);

  /* Both take the object lock themselves. */
  if (update_passthrough)
    gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self),
        passthrough);
  if (new_pool)
    gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
}

static void
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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpuccl_blob_finalize (GObject * object)
{
  GstGpucclBlob *self = GST_GPUCCL_BLOB (object);

  close_context (self);
  g_clear_pointer (&self->tracker, gpuccl_tracker_free);
  g_array_unref (self->blobs);
  g_array_unref (self->track_ids);
  gst_clear_object (&self->allocator);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)
#define PARAM_CONTROLLABLE (PARAM_FLAGS | GST_PARAM_CONTROLLABLE)

static void
install_properties (GObjectClass * gobject_class)
{
  GpucclTrackerParams track;

  gpuccl_tracker_params_init (&track);

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
          "Blobs with fewer pixels are not reported",
          0, G_MAXUINT64, DEFAULT_MIN_AREA, PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_MAX_AREA,
      g_param_spec_uint64 ("max-area", "Maximum area",
          "Blobs with more pixels are not reported (0: no limit)",
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
          "CUDA device index; a change opens a new context at the next frame",
          0, G_MAXINT, DEFAULT_DEVICE_ID, PARAM_FLAGS));
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
          "timestamps, blob count and blob list",
          DEFAULT_POST_MESSAGES, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach metadata",
          "Attach a GstCclBlobMeta and one GstVideoRegionOfInterestMeta "
          "(type \"blob\") per blob to each buffer",
          DEFAULT_ATTACH_META, PARAM_FLAGS));
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
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "binary: threshold the frame (threshold, invert, auto-threshold, "
          "channel). segments: the frame is a label map (class mask, e.g. "
          "GRAY8 or GRAY16_LE): 0 is background, touching pixels form one "
          "blob only when their values are equal, each blob reports its "
          "value; the threshold properties are ignored, and on CUDA only "
          "algorithm default or stava-benes can do it",
          GST_TYPE_GPUCCL_BLOB_MODE, DEFAULT_MODE, PARAM_FLAGS));
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
  install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
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
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_gpuccl_blob_set_info);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_gpuccl_blob_transform_frame_ip);

  q_gpucclblob = g_quark_from_static_string ("gpucclblob");
  q_id = g_quark_from_static_string ("id");
  q_track_id = g_quark_from_static_string ("track-id");
  q_area = g_quark_from_static_string ("area");
  q_centroid_x = g_quark_from_static_string ("centroid-x");
  q_centroid_y = g_quark_from_static_string ("centroid-y");
  q_value = g_quark_from_static_string ("value");

  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_ALGORITHM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_AUTO_THRESHOLD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_CONNECTIVITY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_CHANNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_MEMORY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_DRAW_FLAGS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPUCCL_BLOB_MODE, 0);
}

static void
gst_gpuccl_blob_init (GstGpucclBlob * self)
{
  Settings *s = &self->settings;
  GpucclTrackerParams track;

  gpuccl_tracker_params_init (&track);
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
  s->attach_meta = DEFAULT_ATTACH_META;
  s->memory = DEFAULT_MEMORY;
  s->track = DEFAULT_TRACK;
  s->track_max_distance = track.max_distance;
  s->track_max_lost = track.max_lost;
  s->mode = DEFAULT_MODE;

  self->blobs = g_array_new (FALSE, FALSE, sizeof (GstCclBlob));
  self->track_ids = g_array_new (FALSE, FALSE, sizeof (guint32));

  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self),
      DEFAULT_DRAW == 0);
  /* GAP buffers are left alone and keep their flag. */
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}
