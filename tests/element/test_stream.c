/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Streams around gpucclblob that are legal but unusual (issue 28):
 *
 *  - a BYTES segment (a raw file source): no stream time to sync the
 *    controlled properties to; before, a GLib CRITICAL per buffer (which
 *    gst-check turns into a failure);
 *  - two gpucclblob in one pipeline, with other thresholds: a reader must
 *    reach both tables, by index (upstream first) and by element name;
 *    before, only the first one was reachable. */
#include "element_common.h"

#define W 48
#define H 32

GST_START_TEST (test_bytes_segment)
{
  GstHarness *h = element_harness_new ("");
  GstSegment segment;
  GstVideoInfo info;
  guint8 *levels = element_levels_random (W, H, 0.3, 3, 2803);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (guint i = 0; i < 3; i++) {
    GstBuffer *buf = element_make_frame (&info, levels, "luma", i);
    GST_BUFFER_OFFSET (buf) = i * info.size;
    GstBuffer *out = element_push_pull (h, buf);
    fail_unless (gst_buffer_get_ccl_blob_meta (out) != NULL);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  g_free (levels);
}

GST_END_TEST;

/* gpucclblob name=a threshold=127 ! gpucclblob name=b threshold=200 over
 * levels where the two thresholds give different blobs. */
GST_START_TEST (test_two_elements)
{
  GstHarness *h = gst_harness_new_parse ("gpucclblob name=a threshold=127 "
      "max-roi-metas=1 ! gpucclblob name=b threshold=200 max-roi-metas=1");
  GstElement *a = gst_bin_get_by_name (GST_BIN (h->element), "a");
  GstElement *b = gst_bin_get_by_name (GST_BIN (h->element), "b");
  guint8 *levels = element_levels_random (W, H, 0.4, 2, 2804);
  Expected e127, e200;
  GstVideoInfo info;
  GstBuffer *out;
  GstCclBlobMeta *ma, *mb;

  gst_util_set_object_arg (G_OBJECT (a), "backend", test_backend ());
  gst_util_set_object_arg (G_OBJECT (b), "backend", test_backend ());
  for (gsize i = 0; i < (gsize) W * H; i++)     /* some pixels in between */
    if (levels[i] > 127 && i % 3 == 0)
      levels[i] = 150;
  expected_compute (&e127, levels, W, H, 127, FALSE, 8);
  expected_compute (&e200, levels, W, H, 200, FALSE, 8);
  fail_unless (e127.n != e200.n, "the thresholds must differ in blobs");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  out = element_push_pull (h, element_make_frame (&info, levels, "luma", 1));

  fail_unless_equals_int (gst_buffer_get_n_ccl_blob_metas (out), 2);
  ma = gst_buffer_get_nth_ccl_blob_meta (out, 0);
  mb = gst_buffer_get_nth_ccl_blob_meta (out, 1);
  fail_unless (ma && mb && !gst_buffer_get_nth_ccl_blob_meta (out, 2));
  fail_unless_equals_string (gst_ccl_blob_meta_get_source (ma), "a");
  fail_unless_equals_string (gst_ccl_blob_meta_get_source (mb), "b");
  fail_unless (gst_buffer_get_ccl_blob_meta_by_source (out, "a") == ma);
  fail_unless (gst_buffer_get_ccl_blob_meta_by_source (out, "b") == mb);
  fail_unless (gst_buffer_get_ccl_blob_meta_by_source (out, "c") == NULL);
  fail_unless (gst_buffer_get_ccl_blob_meta (out) == ma);
  fail_unless_equals_int (ma->n_blobs, e127.n);
  fail_unless_equals_int (mb->n_blobs, e200.n);
  fail_unless_equals_int (ma->threshold, 127);
  fail_unless_equals_int (mb->threshold, 200);
  for (guint i = 0; i < e200.n; i++)
    fail_unless (mb->blobs[i].area == e200.stats[i].area &&
        mb->blobs[i].x0 == e200.stats[i].x0 &&
        mb->blobs[i].y1 == e200.stats[i].y1, "b's blob %u", i + 1);

  gst_buffer_unref (out);
  expected_clear (&e127);
  expected_clear (&e200);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_harness_teardown (h);
  g_free (levels);
}

GST_END_TEST;

static Suite *
stream_suite (void)
{
  Suite *s = suite_create ("gpucclblob-stream");
  TCase *tc = tcase_create ("stream");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_two_elements);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, stream_suite);
}
