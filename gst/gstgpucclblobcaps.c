/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's caps: the pad templates (the formats, sides up to the
 * library's limit) and what the sink pad answers upstream's caps query:
 * the luma formats first, and only those when they are possible and
 * nothing asks for RGB, so that a videoconvert before the element hands
 * it the camera's luma instead of RGB; an upstream that can only make
 * frames larger than the limit is told to put videoscale in between. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
/* GRAY16 is labeled in host byte order. */
#define GRAY16_FORMAT ", GRAY16_LE"
#else
#define GRAY16_FORMAT
#endif
/* Luma formats first: the order is upstream's preference among equals.
 * GRAY16 counts as luma, so a 16-bit source keeps its depth. */
#define LUMA_FORMATS "I420, NV12, YV12, GRAY8" GRAY16_FORMAT
#define FORMATS "{ " LUMA_FORMATS ", RGBA, BGRA, RGBx, BGRx }"
#define SIDE G_STRINGIFY (GPUCCL_MAX_SIDE)
#define RAW_CAPS(features, formats) "video/x-raw" features ", " \
    "format = (string) " formats ", " \
    "width = (int) [ 1, " SIDE " ], height = (int) [ 1, " SIDE " ], " \
    "framerate = (fraction) [ 0, max ]"
/* In a build with CUDA memory (gst_gpuccl_blob_cuda_built), CUDA memory
 * first: a GPU upstream and downstream keep the frame on the device; a
 * neighbour without it negotiates system memory. */
#define CUDA_FEATURE "(memory:CUDAMemory)"   /* GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY */
static GstStaticCaps video_caps = GST_STATIC_CAPS (RAW_CAPS ("", FORMATS));
static GstStaticCaps luma_caps =
GST_STATIC_CAPS (RAW_CAPS ("", "{ " LUMA_FORMATS " }"));
static GstStaticCaps cuda_video_caps =
GST_STATIC_CAPS (RAW_CAPS (CUDA_FEATURE, FORMATS) "; " RAW_CAPS ("",
        FORMATS));
static GstStaticCaps cuda_luma_caps =
GST_STATIC_CAPS (RAW_CAPS (CUDA_FEATURE, "{ " LUMA_FORMATS " }") "; "
    RAW_CAPS ("", "{ " LUMA_FORMATS " }"));

static GstCaps *
get_caps (GstStaticCaps * system, GstStaticCaps * cuda)
{
  return gst_static_caps_get (gst_gpuccl_blob_cuda_built ()? cuda : system);
}

void
gst_gpuccl_blob_add_pad_templates (GstElementClass * element_class)
{
  GstCaps *caps = get_caps (&video_caps, &cuda_video_caps);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

/* Whether every structure of the caps is wider or taller than the
 * library takes (a range counts by its smallest value). */
static gboolean
all_oversize (const GstCaps * caps, gint * width, gint * height)
{
  guint n = gst_caps_get_size (caps);

  if (n == 0 || gst_caps_is_any (caps))
    return FALSE;
  for (guint i = 0; i < n; i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *w = gst_structure_get_value (s, "width");
    const GValue *h = gst_structure_get_value (s, "height");

    *width = w && G_VALUE_HOLDS_INT (w) ? g_value_get_int (w) :
        w && GST_VALUE_HOLDS_INT_RANGE (w) ? gst_value_get_int_range_min (w) : 0;
    *height = h && G_VALUE_HOLDS_INT (h) ? g_value_get_int (h) :
        h && GST_VALUE_HOLDS_INT_RANGE (h) ? gst_value_get_int_range_min (h) : 0;
    if (*width <= GPUCCL_MAX_SIDE && *height <= GPUCCL_MAX_SIDE)
      return FALSE;
  }
  return TRUE;
}

/* Nothing upstream can make fits: say what would, once per start. */
static void
post_oversize (GstGpucclBlob * self, GstCaps * offered)
{
  gint width = 0, height = 0;

  if (!offered || !all_oversize (offered, &width, &height) ||
      g_atomic_int_exchange (&self->oversize_posted, TRUE))
    return;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Frame size %dx%d is above the largest supported side of %d: "
          "put videoscale before gpucclblob (e.g. videoscale ! "
          "video/x-raw,width=1920,height=1080)", width, height,
          GPUCCL_MAX_SIDE), ("upstream offers %" GST_PTR_FORMAT, offered));
}

/* Upstream's caps queries on the sink pad, already answered by
 * GstBaseTransform from downstream and the template. */
void
gst_gpuccl_blob_answer_caps (GstGpucclBlob * self, GstQuery * query)
{
  GstCaps *filter, *caps, *luma, *luma_formats;
  gboolean rgb_asked, accepted;

  if (GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &accepted);
    if (!accepted)
      post_oversize (self, caps);
    return;
  }
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &caps);
  if (!caps)
    return;
  if (gst_caps_is_empty (caps)) {
    post_oversize (self, filter);
    return;
  }

  /* Steered only when upstream says what it can make and that includes
   * both (the answer is already within the filter): without a filter the
   * answer is everything the element takes, so link checks still see RGB.
   * A channel of RGB or a label map in colour needs RGB as it comes. */
  if (!filter)
    return;
  GST_OBJECT_LOCK (self);
  rgb_asked = self->settings.channel != GPUCCL_CHANNEL_LUMA ||
      self->settings.mode == GPUCCL_MODE_SEGMENTS;
  GST_OBJECT_UNLOCK (self);
  if (rgb_asked)
    return;

  luma_formats = get_caps (&luma_caps, &cuda_luma_caps);
  luma = gst_caps_intersect_full (caps, luma_formats, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (luma_formats);
  if (gst_caps_is_empty (luma) || gst_caps_is_equal (luma, caps)) {
    gst_caps_unref (luma);
    return;
  }
  GST_DEBUG_OBJECT (self, "offering the luma formats only: %" GST_PTR_FORMAT,
      luma);
  gst_query_set_caps_result (query, luma);
  gst_caps_unref (luma);
}
