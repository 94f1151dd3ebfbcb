/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* max-roi-metas: past the cap only the largest blobs (equal areas: the
 * smaller id) get a region-of-interest meta and an entry in the message,
 * while GstCclBlobMeta keeps every blob. The reference is the oracle's
 * blobs filtered as max-blobs filters them (expected_filter). */
#include "element_common.h"
#include "gstcclblobmeta.h"

/* One frame through a harness with these properties (and post-messages);
 * the buffer's ROI metas and the message must list the `cap` largest of
 * the oracle's blobs, the table all of them. cap 0: every blob. */
static void
check_cap (const guint8 * levels, gint w, gint hgt, const gchar * props,
    guint cap)
{
  gchar *all_props = g_strdup_printf ("post-messages=true %s", props);
  GstHarness *h = element_harness_new (all_props);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  Expected e;
  guint *kept, n_kept, n_roi = 0, count, listed;
  GstBuffer *out;
  GstCclBlobMeta *meta;
  GstMessage *msg;
  const GValue *list;
  gpointer state = NULL;
  GstMeta *m;

  g_free (all_props);
  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, w, hgt));
  out = element_push_pull (h, element_make_frame (&info, levels, "luma", 5));
  expected_compute (&e, levels, w, hgt, 127, FALSE, 8);
  n_kept = expected_filter (&e, 0, 0, cap, &kept);

  meta = gst_buffer_get_ccl_blob_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->n_blobs, e.n);
  fail_unless_equals_int (meta->n_roi_metas, n_kept);
  /* In increasing id, as attached. */
  while ((m = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    fail_unless (n_roi < n_kept, "%s: more ROI metas than %u", props, n_kept);
    fail_unless_equals_int (roi->id, kept[n_roi] + 1);
    n_roi++;
  }
  fail_unless_equals_int (n_roi, n_kept);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL);
  fail_unless (gst_structure_get (gst_message_get_structure (msg),
          "count", G_TYPE_UINT, &count, "listed", G_TYPE_UINT, &listed, NULL));
  fail_unless_equals_int (count, e.n);
  fail_unless_equals_int (listed, n_kept);
  list = gst_structure_get_value (gst_message_get_structure (msg), "blobs");
  fail_unless_equals_int (gst_value_list_get_size (list), n_kept);
  for (guint i = 0; i < n_kept; i++) {
    guint id;
    fail_unless (gst_structure_get_uint (gst_value_get_structure
            (gst_value_list_get_value (list, i)), "id", &id));
    fail_unless_equals_int (id, kept[i] + 1);
  }

  gst_message_unref (msg);
  gst_buffer_unref (out);
  g_free (kept);
  expected_clear (&e);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* Random speckle: thousands of blobs, most of a few equal areas. */
GST_START_TEST (test_cap_speckle)
{
  const gint w = 200, hgt = 150;
  guint8 *levels = element_levels_random (w, hgt, 0.2, 1, 77);
  Expected e;
  guint n;

  expected_compute (&e, levels, w, hgt, 127, FALSE, 8);
  n = e.n;
  expected_clear (&e);
  fail_unless (n > 500, "only %u blobs", n);
  {
    const guint caps[] = { 1, 2, 7, 100, n - 1, n, n + 1 };
    for (gsize i = 0; i < G_N_ELEMENTS (caps); i++) {
      gchar *props = g_strdup_printf ("max-roi-metas=%u", caps[i]);
      check_cap (levels, w, hgt, props, caps[i]);
      g_free (props);
    }
  }
  check_cap (levels, w, hgt, "max-roi-metas=0", 0);
  g_free (levels);
}

GST_END_TEST;

/* Large blobs (over a thousand pixels), some of equal area. */
GST_START_TEST (test_cap_large_ties)
{
  static const gint rects[][4] = {
    {2, 2, 41, 31}, {50, 2, 89, 31}, {100, 2, 149, 31}, {160, 2, 199, 31},
    {2, 40, 41, 69}, {50, 40, 52, 42}, {100, 40, 101, 40}, {160, 40, 219, 99},
  };
  const gint w = 240, hgt = 110;
  guint8 *levels = g_malloc0 ((gsize) w * hgt);

  for (gsize r = 0; r < G_N_ELEMENTS (rects); r++)
    for (gint y = rects[r][1]; y <= rects[r][3]; y++)
      memset (levels + (gsize) y * w + rects[r][0], 200,
          rects[r][2] - rects[r][0] + 1);
  for (guint cap = 1; cap <= G_N_ELEMENTS (rects); cap++) {
    gchar *props = g_strdup_printf ("max-roi-metas=%u", cap);
    check_cap (levels, w, hgt, props, cap);
    g_free (props);
  }
  g_free (levels);
}

GST_END_TEST;

/* The default: one ROI meta per 1024 pixels of the frame. */
GST_START_TEST (test_cap_default)
{
  static const gint sizes[][2] = { {64, 32}, {320, 240}, {33, 17} };

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gint w = sizes[s][0], hgt = sizes[s][1];
    guint8 *levels = element_levels_random (w, hgt, 0.4, 1, 11 + s);

    check_cap (levels, w, hgt, "max-roi-metas=-1", MAX (w * hgt / 1024, 1));
    g_free (levels);
  }
}

GST_END_TEST;

static Suite *
roi_cap_suite (void)
{
  Suite *s = suite_create ("gpucclblob-roi-cap");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cap_speckle);
  tcase_add_test (tc, test_cap_large_ties);
  tcase_add_test (tc, test_cap_default);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, roi_cap_suite);
}
