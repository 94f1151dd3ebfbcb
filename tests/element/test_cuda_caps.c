/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's CUDA memory caps through GstHarness (the element built
 * with gstreamer-cuda-1.0; exit 77 otherwise): the pads offer
 * video/x-raw(memory:CUDAMemory) before system memory for every format;
 * negotiation falls back to system memory where a neighbour cannot do CUDA
 * memory; an upstream that announces CUDA memory and sends system memory
 * still gets the same blobs. No GPU needed (backend=cpu labels frames
 * that GstCudaMemory would download; test_cuda_memory.c has the device
 * side). */
#include "element_common.h"

#include <gst/cuda/gstcudamemory.h>

static GstCaps *
with_feature (GstCaps * caps, const gchar * feature)
{
  caps = gst_caps_make_writable (caps);
  gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  return caps;
}

static gboolean
caps_have_cuda (GstCaps * caps, guint i)
{
  return gst_caps_features_contains (gst_caps_get_features (caps, i),
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* Both pads: CUDA memory first, system memory second, every format in
 * each. */
GST_START_TEST (test_templates)
{
  GstElement *e = gst_element_factory_make ("gpucclblob", NULL);

  fail_unless (e != NULL);
  for (gint p = 0; p < 2; p++) {
    GstPad *pad = gst_element_get_static_pad (e, p ? "src" : "sink");
    GstCaps *caps = gst_pad_get_pad_template_caps (pad);

    fail_unless_equals_int (gst_caps_get_size (caps), 2);
    fail_unless (caps_have_cuda (caps, 0));
    fail_unless (gst_caps_features_is_equal (gst_caps_get_features (caps, 1),
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
    for (gsize f = 0; f < n_element_formats; f++) {
      for (guint i = 0; i < 2; i++) {
        GstCaps *one = element_caps (element_formats[f], 64, 48);
        if (i == 0)
          one = with_feature (one, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
        fail_unless (gst_caps_can_intersect (one, caps), "%s %s",
            gst_video_format_to_string (element_formats[f]),
            i ? "system memory" : "CUDA memory");
        gst_caps_unref (one);
      }
    }
    gst_caps_unref (caps);
    gst_object_unref (pad);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* What upstream may send follows what downstream takes: CUDA memory only
 * where downstream accepts it, system memory always. */
GST_START_TEST (test_fallback_to_system_memory)
{
  for (gint cuda_downstream = 0; cuda_downstream < 2; cuda_downstream++) {
    GstHarness *h = element_harness_new ("");
    GstCaps *sink = element_caps (GST_VIDEO_FORMAT_NV12, 64, 48);
    GstCaps *offered;

    if (cuda_downstream) {
      GstCaps *cuda = with_feature (gst_caps_copy (sink),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
      gst_caps_append (cuda, sink);
      sink = cuda;
    }
    gst_harness_set_sink_caps (h, sink);
    offered = gst_pad_peer_query_caps (h->srcpad, NULL);
    fail_if (gst_caps_is_empty (offered));
    if (cuda_downstream) {
      fail_unless (caps_have_cuda (offered, 0),
          "CUDA memory not first: %" GST_PTR_FORMAT, offered);
    } else {
      for (guint i = 0; i < gst_caps_get_size (offered); i++)
        fail_if (caps_have_cuda (offered, i),
            "CUDA memory offered to a system-memory downstream: %"
            GST_PTR_FORMAT, offered);
    }
    gst_caps_unref (offered);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* One frame labeled with the given caps (not taken). */
static GstBuffer *
label_with_caps (GstCaps * caps, const GstVideoInfo * info, guint32 seed)
{
  GstHarness *h = element_harness_new ("draw=boxes");
  guint8 *levels = element_levels_random (info->width, info->height, 0.4, 3,
      seed);
  GstBuffer *in = element_make_frame (info, levels, "luma", seed);
  GstBuffer *out;

  g_free (levels);
  gst_harness_set_caps (h, gst_caps_copy (caps), gst_caps_copy (caps));
  out = element_push_pull (h, in);
  gst_harness_teardown (h);
  return out;
}

/* An upstream that announces CUDA memory but sends system memory (or a
 * backend=cpu element on CUDA memory) takes the host path: same blobs,
 * same overlays as with system-memory caps. */
GST_START_TEST (test_cuda_caps_system_buffers)
{
  for (gsize f = 0; f < n_element_formats; f++) {
    GstCaps *caps = element_caps (element_formats[f], 61, 37);
    GstVideoInfo info;
    GstCaps *cuda_caps = with_feature (gst_caps_copy (caps),
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    GstBuffer *sys, *cuda;

    fail_unless (gst_video_info_from_caps (&info, caps));
    sys = label_with_caps (caps, &info, 500 + f);
    cuda = label_with_caps (cuda_caps, &info, 500 + f);
    gst_caps_unref (cuda_caps);
    element_assert_same_blobs (sys, cuda,
        gst_video_format_to_string (element_formats[f]));
    element_assert_same_frames (sys, cuda, &info,
        gst_video_format_to_string (element_formats[f]));
    /* Padding too: nothing outside the frame was written. */
    fail_unless (element_same_bytes (sys, cuda), "%s",
        gst_video_format_to_string (element_formats[f]));
    gst_buffer_unref (sys);
    gst_buffer_unref (cuda);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

static Suite *
cuda_caps_suite (void)
{
  Suite *s = suite_create ("gpucclblob-cuda-caps");
  TCase *tc = tcase_create ("negotiation");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_templates);
  tcase_add_test (tc, test_fallback_to_system_memory);
  tcase_add_test (tc, test_cuda_caps_system_buffers);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, cuda_caps_suite);
}
