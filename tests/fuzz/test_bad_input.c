/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bad input to the gpucclblob element: buffers shorter than the caps say,
 * empty buffers, zero-sized and absurd caps, unsupported formats, a video
 * meta that lies about the planes. Each must end in a refusal or a clear
 * error (never a crash, never a giant allocation), and the element must
 * work normally with good input afterwards. */
#include "frames.h"
#include "harness_bus.h"

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

/* Caps (taken) and a segment, whether or not the element takes the caps
 * (the harness's own helper asserts that it does). */
static void
push_caps (GstHarness * h, GstCaps * caps)
{
  GstSegment segment;

  gst_harness_push_event (h, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
}

/* A buffer after caps that cannot work: not negotiated (the caps were
 * refused), or an error with its message on the bus. */
static void
expect_refusal (GstFlowReturn ret, GstBus * bus, const gchar * what)
{
  if (ret == GST_FLOW_ERROR)
    g_free (rel_expect_error (bus, what));
  else
    fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  g_print ("%s: %s\n", what, gst_flow_get_name (ret));
}

GST_START_TEST (test_short_buffers)
{
  for (guint f = 0; f < rel_n_formats; f++) {
    GstBus *bus;
    GstHarness *h = rel_harness_with_bus (NULL, &bus);
    GstVideoInfo info;
    gsize sizes[4];

    gst_video_info_set_format (&info, rel_formats[f], 64, 48);
    sizes[0] = info.size - 1;
    sizes[1] = info.size / 2;
    sizes[2] = 1;
    sizes[3] = 0;
    gst_harness_set_src_caps (h, rel_caps_new (rel_formats[f], 64, 48));
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      GstBuffer *buf = sizes[i] ? gst_buffer_new_allocate (NULL, sizes[i],
          NULL) : gst_buffer_new ();
      if (sizes[i])
        gst_buffer_memset (buf, 0, 0xff, sizes[i]);
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
      g_free (rel_expect_error (bus, gst_video_format_to_string (rel_formats[f])));
    }
    rel_expect_good_frame (h, rel_formats[f], 64, 48);
    rel_teardown_with_bus (h, bus);
  }
}

GST_END_TEST;

/* Upstream attaches a video meta whose last row runs past the memory: the
 * element must not read beyond the buffer (ASan and valgrind watch). */
GST_START_TEST (test_lying_video_meta)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus (NULL, &bus);
  GstVideoInfo info;
  GstBuffer *buf;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 256 };  /* 4x the real one */
  GstFlowReturn ret;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_harness_set_src_caps (h, rel_caps_new (GST_VIDEO_FORMAT_GRAY8, 64, 48));
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0xff, info.size);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, 64, 48, 1, offset, stride);
  ret = gst_harness_push (h, buf);
  /* Refusing it is right; processing it is acceptable only if nothing was
   * read beyond the memory, which the sanitizers check. */
  if (ret == GST_FLOW_OK)
    gst_buffer_unref (gst_harness_pull (h));
  else
    g_free (rel_expect_error (bus, "lying video meta"));
  rel_expect_good_frame (h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  rel_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* Caps that cannot work, then a 4 KiB buffer: refused at negotiation
 * (not-negotiated), or, unless `unsupported`, accepted and the buffer is an
 * error with a message. A good stream must work afterwards. */
static void
try_bad_caps (const gchar * desc, gboolean unsupported)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus (NULL, &bus);
  GstCaps *caps = gst_caps_from_string (desc);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4096, NULL);
  GstFlowReturn ret;

  fail_unless (caps != NULL, "%s", desc);
  if (unsupported)
    fail_if (gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps),
        "the element accepts %s", desc);
  push_caps (h, caps);
  gst_buffer_memset (buf, 0, 0xff, 4096);
  ret = gst_harness_push (h, buf);
  if (unsupported) {
    fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  } else {
    expect_refusal (ret, bus, desc);
  }
  rel_expect_good_frame (h, GST_VIDEO_FORMAT_GRAY8, 31, 17);
  rel_teardown_with_bus (h, bus);
}

/* Formats the element does not do, not video at all: refused at
 * negotiation. */
GST_START_TEST (test_unsupported_caps)
{
  const gchar *bad[] = {
    "video/x-raw,format=RGB,width=64,height=48,framerate=30/1",
    "video/x-raw,format=YUY2,width=64,height=48,framerate=30/1",
    "video/x-raw,format=GRAY16_BE,width=64,height=48,framerate=30/1",
    "video/x-raw,format=v210,width=64,height=48,framerate=30/1",
    "video/x-raw(memory:DMABuf),format=GRAY8,width=64,height=48,framerate=30/1",
    "video/x-bayer,format=rggb,width=64,height=48,framerate=30/1",
    "audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    try_bad_caps (bad[i], TRUE);
}

GST_END_TEST;

/* Zero, absurd or overflowing sizes: refused at negotiation, or accepted
 * and then every (necessarily short) buffer is an error. Never a
 * frame-sized allocation: the smallest of these frames is 1 GB. */
GST_START_TEST (test_absurd_sizes)
{
  const gchar *bad[] = {
    "video/x-raw,format=GRAY8,width=0,height=0,framerate=30/1",
    "video/x-raw,format=GRAY8,width=0,height=480,framerate=30/1",
    "video/x-raw,format=GRAY8,width=1,height=1000000,framerate=30/1",
    "video/x-raw,format=NV12,width=1000000,height=1,framerate=30/1",
    "video/x-raw,format=GRAY8,width=65536,height=65536,framerate=30/1",
    "video/x-raw,format=RGBA,width=65536,height=65536,framerate=30/1",
    "video/x-raw,format=GRAY16_LE,width=16385,height=16,framerate=30/1",
    "video/x-raw,format=BGRx,width=1000000,height=1000000,framerate=30/1",
    "video/x-raw,format=I420,width=2147483647,height=2147483647,framerate=30/1",
  };
  guint64 peak_before = rel_peak_rss_kib ();

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    try_bad_caps (bad[i], FALSE);
  fail_unless (rel_peak_rss_kib () - peak_before < 256 * 1024,
      "peak RSS grew by %" G_GUINT64_FORMAT " KiB",
      rel_peak_rss_kib () - peak_before);
}

GST_END_TEST;

/* The largest size the library takes, 16384 a side: refused, or accepted
 * and a buffer shorter than that is an error, not a read past its end. */
GST_START_TEST (test_largest_caps_short_buffer)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus (NULL, &bus);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 1 << 20, NULL);

  gst_buffer_memset (buf, 0, 0xff, 1 << 20);
  push_caps (h, rel_caps_new (GST_VIDEO_FORMAT_GRAY8, 16384, 16384));
  expect_refusal (gst_harness_push (h, buf), bus, "16384x16384 short buffer");
  rel_expect_good_frame (h, GST_VIDEO_FORMAT_GRAY8, 16, 16);
  rel_teardown_with_bus (h, bus);
}

GST_END_TEST;

/* The densest blob pattern there is: a 1-pixel checkerboard under
 * 4-connectivity, every foreground pixel its own blob, with tracking on.
 * Per-frame memory must stay in proportion to the frame (a few MB here),
 * not to blobs x blobs-within-the-gating-distance. */
GST_START_TEST (test_dense_blobs_tracking)
{
  const guint w = 160, hgt = 120;
  GstHarness *h = gst_harness_new ("gpucclblob");
  guint8 *mask = g_malloc ((gsize) w * hgt);
  GstVideoInfo info;
  guint64 peak_before;
  gint64 t0;

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", rel_backend ());
  /* Every rectangle as a ROI meta (no cap): each is checked. */
  gst_util_set_object_arg (G_OBJECT (h->element), "max-roi-metas", "0");
  gst_util_set_object_arg (G_OBJECT (h->element), "connectivity", "4");
  g_object_set (h->element, "track", TRUE, NULL);
  for (guint y = 0; y < hgt; y++)
    for (guint x = 0; x < w; x++)
      mask[y * w + x] = (x + y) % 2;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  gst_harness_set_src_caps (h, rel_caps_new (GST_VIDEO_FORMAT_GRAY8, w, hgt));
  peak_before = rel_peak_rss_kib ();
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < 3; i++) {
    fail_unless_equals_int (gst_harness_push (h, rel_buffer_new (&info,
                mask)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  g_print ("dense blobs, tracking: 3 frames of %ux%u (%u blobs) in %.2f s, "
      "peak RSS +%" G_GUINT64_FORMAT " KiB\n", w, hgt, w * hgt / 2,
      (g_get_monotonic_time () - t0) / 1e6, rel_peak_rss_kib () - peak_before);
  fail_unless (rel_peak_rss_kib () - peak_before < 64 * 1024,
      "tracking %u blobs took %" G_GUINT64_FORMAT " KiB more memory",
      w * hgt / 2, rel_peak_rss_kib () - peak_before);
  gst_harness_teardown (h);
  g_free (mask);
}

GST_END_TEST;

static Suite *
bad_input_suite (void)
{
  Suite *s = suite_create ("gpucclblob-bad-input");
  TCase *tc = tcase_create ("bad-input");

  tcase_set_timeout (tc, 0);
  tcase_add_test (tc, test_short_buffers);
  tcase_add_test (tc, test_lying_video_meta);
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_test (tc, test_absurd_sizes);
  tcase_add_test (tc, test_largest_caps_short_buffer);
  tcase_add_test (tc, test_dense_blobs_tracking);
  suite_add_tcase (s, tc);
  return s;
}

REL_CHECK_MAIN (bad_input);
