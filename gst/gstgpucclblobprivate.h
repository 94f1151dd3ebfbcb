/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The element's instance and what its source files share. Each file has
 * one job: gstgpucclblob.c the class and its virtual methods,
 * gstgpucclblobprops.c the properties, gstgpucclblobcaps.c the pad
 * templates and the caps query, gstgpucclblobformat.c the
 * negotiated format and incoming buffers, gstgpucclblobframe.c the
 * library context and the per-frame work, gstgpucclblobresults.c the
 * metadata and messages, gstgpucclblobevents.c the track events,
 * gstgpucclblobregion.c the labeled rectangle (region),
 * gstgpucclbloblabels.c the label image,
 * gstgpucclblobmotion.c the background model (binarize),
 * gstgpucclblobpool.c the pool offered upstream,
 * gstgpucclblobcuda.c CUDA memory (stubs unless built with
 * gstreamer-cuda-1.0: the only file that knows which build it is). */
#ifndef __GST_GPUCCL_BLOB_PRIVATE_H__
#define __GST_GPUCCL_BLOB_PRIVATE_H__

#include "gstgpucclblob.h"
#include "gstcclblobmeta.h"
#include "gstgpucclblobenums.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#endif

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_gpuccl_blob_debug);

/* max-roi-metas: -1 is one ROI meta per this many pixels of the frame, at
 * most (bench/metadata_bench.c: below the CPU labeling's time). */
#define GPUCCL_BLOB_ROI_METAS_AUTO (-1)
#define GPUCCL_BLOB_PIXELS_PER_ROI_META 1024

/* device-id: CUDA memory on the GPU it lives on (its GstCudaContext's
 * device, whatever context the neighbours share), host frames on device
 * 0. */
#define GPUCCL_BLOB_DEVICE_AUTO (-1)

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
  gint device_id;               /* GPUCCL_BLOB_DEVICE_AUTO, or an index */
  GpucclAlgorithm algorithm;
  GpucclChannel channel;
  guint draw;                   /* GpucclDrawFlags */
  guint box_color;              /* 0xAARRGGBB, alpha ignored */
  gint line_width;
  gboolean post_messages;
  gboolean attach_meta;
  gint max_roi_metas;           /* GPUCCL_BLOB_ROI_METAS_AUTO, 0: all */
  GpucclMemory memory;
  gboolean track;
  gdouble track_max_distance;
  gint track_max_lost;
  gboolean post_track_events;
  gboolean has_region;
  gint region[4];               /* x, y, width, height in the frame */
  GpucclMode mode;
  gboolean attach_labels;
  GstGpucclBlobBinarize binarize;
  gdouble learning_rate;
  guint background_frames;
  gboolean background_selective;
  guint batch_size;             /* 1: no batching */
  GstClockTime batch_max_wait;
  guint mask_serial;            /* bumped by each mask-location set */
  gboolean measure_intensity;
} Settings;

/* The device that labels host frames (and whose pinned memory the pool
 * offers): device-id, 0 when automatic. */
static inline gint
gst_gpuccl_blob_host_device (const Settings * s)
{
  return s->device_id == GPUCCL_BLOB_DEVICE_AUTO ? 0 : s->device_id;
}

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
  gboolean cuda_memory;         /* caps feature memory:CUDAMemory */
} FormatDesc;

/* gstgpucclblobregion.c: the rectangle of a frame that is labeled, in
 * the frame's coordinates (empty: nothing is). */
typedef struct
{
  gint x, y, width, height;
  gboolean empty;
  gint frame_width, frame_height;
} Window;

struct _GstGpucclBlob
{
  GstVideoFilter parent;

  /* object lock */
  Settings settings;
  FormatDesc format;
  GstAllocator *allocator;      /* offered upstream; NULL until asked */
  gchar *mask_location;         /* NULL: no mask */
  gint oversize_posted;         /* atomic: the caps query's size error */

  /* streaming thread only */
  GpucclContext *ctx;
  GpucclBackend ctx_backend;    /* as asked for (may be AUTO) */
  gint ctx_device;
  gboolean warned_fallback;
  GpucclTracker *tracker;
  /* Per-blob buffers, grown with g_try_realloc (a frame of too many blobs
   * is an error, not an abort): see gst_gpuccl_blob_reserve_frame. */
  guint32 *track_ids;
  gsize track_ids_cap;
  guint64 *listing_keys;        /* to find the largest blobs (max-roi-metas) */
  gsize listing_keys_cap;
  GHashTable *tracks_seen;      /* analytics: track id -> when first seen */
  guint64 analytics_frame;      /* analytics: frames with entries so far */
  GstBufferPool *labels_pool;   /* attach-labels: label images' memory */
  GpucclBlob *region_blobs;     /* region: the table in frame coordinates */
  gsize region_blobs_cap;
  guint32 *region_labels;       /* region: the labels of the whole frame */
  gsize region_labels_cap;
  /* binarize=difference/background: the model, made in the context that
   * labels the frames (background_ctx), freed before it. */
  GpucclBackground *background;
  GpucclContext *background_ctx;
  gint background_reset;        /* atomic: forget the model at the next frame */
  /* mask-location: the decoded picture (GRAY8, stride = width) of
   * settings.mask_serial mask_loaded_serial, and the library's mask of
   * the window mask_win, made in mask_ctx. */
  guint8 *mask_pixels;
  gint mask_width, mask_height;
  guint mask_loaded_serial;
  GpucclMask *mask;
  GpucclContext *mask_ctx;
  Window mask_win;

  /* CUDA memory: its own state (gstgpucclblobcuda.c), NULL in a build
   * without it. */
  struct _GpucclBlobCuda *cuda;
};

/* What one frame cost the element, as the meta and the message report
 * it. */
typedef struct
{
  guint64 processing_ns;        /* labeling and analysis */
  guint64 tracking_ns;          /* the tracker's host part (0: no tracking) */
} FrameTimes;

/* gstgpucclblobprops.c */
void gst_gpuccl_blob_install_properties (GObjectClass * gobject_class);
void gst_gpuccl_blob_settings_init (Settings * s);
void gst_gpuccl_blob_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_gpuccl_blob_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* gstgpucclblobcaps.c */
void gst_gpuccl_blob_add_pad_templates (GstElementClass * element_class);
void gst_gpuccl_blob_answer_caps (GstGpucclBlob * self, GstQuery * query);

/* gstgpucclblobformat.c */
gboolean gst_gpuccl_blob_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info);
gboolean gst_gpuccl_blob_check_buffer (GstGpucclBlob * self,
    GstBuffer * buf);
GstFlowReturn gst_gpuccl_blob_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf);

/* gstgpucclblobframe.c */
gboolean gst_gpuccl_blob_open_context (GstGpucclBlob * self,
    GpucclBackend backend, gint device_id);
void gst_gpuccl_blob_close_context (GstGpucclBlob * self);
void gst_gpuccl_blob_reset_tracker (GstGpucclBlob * self);
void gst_gpuccl_blob_snapshot (GstGpucclBlob * self, Settings * s,
    FormatDesc * f);
/* gstgpucclblobbatch.c: gpuccl_process, in a batch with the frames of
 * other instances that arrive within max_wait, up to size frames (at most
 * GST_GPUCCL_BLOB_MAX_BATCH). */
#define GST_GPUCCL_BLOB_MAX_BATCH 64
GpucclStatus gst_gpuccl_blob_batch_process (guint size,
    GstClockTime max_wait, GpucclContext * ctx, const GpucclImage * image,
    const GpucclParams * params, GpucclResult * result, GpucclError * error);

GstFlowReturn gst_gpuccl_blob_process_frame (GstGpucclBlob * self,
    GpucclContext * ctx, const Settings * s, const FormatDesc * f,
    GstVideoFrame * vframe);
GstFlowReturn gst_gpuccl_blob_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * vframe);
GstFlowReturn gst_gpuccl_blob_transform_buffer (GstGpucclBlob * self,
    GstBuffer * buf);

/* Which blobs of a frame are listed one by one (ROI metas, the message's
 * list, analytics entries): those whose listing key is at least min_key. */
typedef struct
{
  guint n_listed;
  guint64 min_key;
} Listing;

/* Listed first: the larger area, then the smaller id. Unique per blob. */
static inline guint64
gst_gpuccl_blob_listing_key (const GpucclBlob * b)
{
  return ((guint64) b->area << 32) | (G_MAXUINT32 - b->id);
}

static inline gboolean
gst_gpuccl_blob_is_listed (const Listing * listing, const GpucclBlob * b)
{
  return gst_gpuccl_blob_listing_key (b) >= listing->min_key;
}

/* gstgpucclblobresults.c */
gboolean gst_gpuccl_blob_reserve_frame (GstGpucclBlob * self,
    const Settings * s, const GpucclResult * r);
Listing gst_gpuccl_blob_choose_listed (GstGpucclBlob * self,
    const GpucclResult * r, gint max_roi_metas);
gboolean gst_gpuccl_blob_attach_metas (GstGpucclBlob * self,
    GstBuffer * buffer,
    const GpucclResult * r, const guint32 * track_ids,
    const GpucclBlobIntensity * intensity,
    const Listing * listing, const FrameTimes * times);
void gst_gpuccl_blob_post_message (GstGpucclBlob * self, GstBuffer * buffer,
    const GpucclResult * r, const guint32 * track_ids,
    const GpucclBlobIntensity * intensity, const Listing * listing,
    const FrameTimes * times, const GpucclTrackEvents * events);

/* gstgpucclblobregion.c */
gboolean gst_gpuccl_blob_region_from_value (Settings * s,
    const GValue * value);
void gst_gpuccl_blob_region_to_value (const Settings * s, GValue * value);
void gst_gpuccl_blob_region_clip (const Settings * s, const FormatDesc * f,
    gint width, gint height, Window * win);
void gst_gpuccl_blob_region_image (const Window * win, const FormatDesc * f,
    GstVideoFrame * vframe, GpucclImage * image);
void gst_gpuccl_blob_region_frame (const Window * win, GpucclFrame * frame);
gboolean gst_gpuccl_blob_region_to_frame (GstGpucclBlob * self,
    const Window * win, const GpucclParams * p, GpucclResult * r);
void gst_gpuccl_blob_region_free (GstGpucclBlob * self);

/* gstgpucclblobevents.c */
void gst_gpuccl_blob_set_times (GstGpucclBlob * self, GstStructure * s,
    GstBuffer * buffer);
gboolean gst_gpuccl_blob_track_events (GstGpucclBlob * self,
    const Settings * s, GpucclTrackEvents * ev);
void gst_gpuccl_blob_post_track_events (GstGpucclBlob * self,
    GstBuffer * buffer, const GpucclTrackEvents * ev, const GpucclResult * r,
    const guint32 * track_ids);
void gst_gpuccl_blob_finish_tracks (GstGpucclBlob * self);
void gst_gpuccl_blob_add_track_ids (GstStructure * s,
    const GpucclTrackEvents * ev, const guint32 * track_ids);

/* gstgpucclblobanalytics.c (GStreamer >= 1.24) */
#ifdef HAVE_GST_ANALYTICS
void gst_gpuccl_blob_attach_analytics (GstGpucclBlob * self,
    GstBuffer * buffer, const GpucclResult * r, const guint32 * track_ids,
    const Listing * listing, gint track_max_lost, gboolean labels);
void gst_gpuccl_blob_analytics_reset (GstGpucclBlob * self);
void gst_gpuccl_blob_analytics_free (GstGpucclBlob * self);
#endif

/* gstgpucclbloblabels.c: the label image (attach-labels) */
#define GST_GPUCCL_BLOB_LABELS_META "GpucclBlobLabelsMeta"
void gst_gpuccl_blob_register_labels_meta (void);
gboolean gst_gpuccl_blob_attach_labels (GstGpucclBlob * self,
    GstBuffer * buffer, const GpucclResult * r);
void gst_gpuccl_blob_free_labels (GstGpucclBlob * self);
#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
void gst_gpuccl_blob_attach_segmentation (GstAnalyticsRelationMeta * rmeta,
    const GpucclResult * r, const guint * blob_ids, const guint * entries,
    gsize n);
#endif

/* gstgpucclblobmotion.c: binarisation by motion (binarize) */
gboolean gst_gpuccl_blob_motion_params (GstGpucclBlob * self,
    GpucclContext * ctx, const Settings * s, GpucclParams * p);
void gst_gpuccl_blob_motion_reset (GstGpucclBlob * self);
void gst_gpuccl_blob_motion_free (GstGpucclBlob * self);

/* gstgpucclblobmask.c: mask-location. mask_forget frees the library's
 * mask when it was made in ctx (NULL: whichever), before that context. */
gboolean gst_gpuccl_blob_mask_params (GstGpucclBlob * self,
    GpucclContext * ctx, const Settings * s, const Window * win,
    GpucclParams * p);
void gst_gpuccl_blob_mask_forget (GstGpucclBlob * self, GpucclContext * ctx);
void gst_gpuccl_blob_mask_free (GstGpucclBlob * self);

/* gstgpucclblobpool.c */
void gst_gpuccl_blob_offer_pool (GstGpucclBlob * self, GstQuery * query);

/* gstgpucclblobcuda.c: CUDA memory (video/x-raw(memory:CUDAMemory)). In
 * a build without gstreamer-cuda-1.0 or the CUDA backend these are stubs:
 * the caps never carry CUDA memory and every frame takes the host path. */
typedef enum
{
  FRAME_IN_HOST_MEMORY,         /* on the host path (mapped to the host) */
  FRAME_IN_CUDA_MEMORY,         /* in place on the device (GST_MAP_CUDA) */
  FRAME_REFUSED,                /* an element error was posted */
} FramePlace;
/* Whether the pad templates offer CUDA memory. */
gboolean gst_gpuccl_blob_cuda_built (void);
void gst_gpuccl_blob_cuda_init (GstGpucclBlob * self);
void gst_gpuccl_blob_cuda_free (GstGpucclBlob * self);
void gst_gpuccl_blob_cuda_set_context (GstGpucclBlob * self,
    GstContext * context);
gboolean gst_gpuccl_blob_cuda_query (GstGpucclBlob * self, GstQuery * query);
/* The caps were set: TRUE when they carry CUDA memory. */
gboolean gst_gpuccl_blob_cuda_negotiated (GstGpucclBlob * self,
    GstCaps * caps);
/* Where a buffer's frame is labeled; on the device, *ctx is the library
 * context that labels it, *flags how to map it (GST_MAP_CUDA added), and
 * *info its layout. */
FramePlace gst_gpuccl_blob_cuda_place (GstGpucclBlob * self,
    const Settings * s, const FormatDesc * f, GstBuffer * buf,
    GstVideoInfo * info, GstMapFlags * flags, GpucclContext ** ctx);
/* Around the labeling of a frame mapped on the device: the library's work
 * ordered after the producer's stream (FALSE after an element error), and
 * the memory marked for the next reader once it is done. */
gboolean gst_gpuccl_blob_cuda_begin (GstGpucclBlob * self,
    GpucclContext * ctx, GstVideoFrame * vframe);
void gst_gpuccl_blob_cuda_end (GstGpucclBlob * self, GstVideoFrame * vframe);
/* The library context, then the GstCudaContext it lives in. */
void gst_gpuccl_blob_cuda_stop (GstGpucclBlob * self);

/* *buf holds at least n elements of elem bytes (n >= 1); FALSE when the
 * memory is not there (the old buffer stays). gstgpucclblobresults.c */
gboolean gst_gpuccl_blob_grow (gpointer * buf, gsize * cap, gsize n,
    gsize elem);

G_END_DECLS

#endif /* __GST_GPUCCL_BLOB_PRIVATE_H__ */
