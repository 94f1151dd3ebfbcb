/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Renegotiation and state cycling: 1 000 random caps changes (format and
 * size) within one stream through one gpucclblob instance, with NULL ->
 * PLAYING cycles and property changes in between. Every frame carries
 * rectangles drawn a pixel apart; the element's ROI metas must be exactly
 * those rectangles, whatever came before.
 *
 * GPUCCL_RENEG_CHANGES overrides the number of changes, GPUCCL_RENEG_SEED the
 * seed (printed, so a failure can be replayed). */
#include "frames.h"

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#define MAX_RECTS 16

static guint
env_uint (const gchar * name, guint fallback)
{
  const gchar *v = g_getenv (name);
  return v && *v ? (guint) g_ascii_strtoull (v, NULL, 10) : fallback;
}

/* Push one frame of rectangles with the current caps and check the ROIs. */
static void
push_and_check (GstHarness * h, const GstVideoInfo * info, GRand * rand,
    guint step)
{
  guint w = GST_VIDEO_INFO_WIDTH (info), hgt = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *mask = g_malloc ((gsize) w * hgt);
  RelRect rects[MAX_RECTS];
  guint n = rel_mask_rects (mask, w, hgt, rand, rects, MAX_RECTS);
  GstBuffer *in = rel_buffer_new (info, mask), *out;
  gchar *why = NULL;

  GST_BUFFER_PTS (in) = step * GST_SECOND / 30;
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  if (!rel_rois_match (out, rects, n, &why))
    fail ("step %u, %s %ux%u: %s", step, GST_VIDEO_INFO_NAME (info), w, hgt,
        why);
  gst_buffer_unref (out);
  g_free (mask);
}

GST_START_TEST (test_random_caps_changes)
{
  guint changes = env_uint ("GPUCCL_RENEG_CHANGES", 1000);
  guint32 seed = env_uint ("GPUCCL_RENEG_SEED", 20261123);
  GRand *rand = g_rand_new_with_seed (seed);
  GstHarness *h = gst_harness_new ("gpucclblob");
  guint cycles = 0, frames = 0;

  g_print ("renegotiate: %u changes, seed %u, backend %s\n", changes, seed,
      rel_backend ());
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", rel_backend ());
  /* Every rectangle as a ROI meta (no cap): each is checked. */
  gst_util_set_object_arg (G_OBJECT (h->element), "max-roi-metas", "0");

  for (guint i = 0; i < changes; i++) {
    GstVideoFormat format = rel_formats[g_rand_int_range (rand, 0,
            rel_n_formats)];
    /* mostly small, sometimes odd and larger sizes */
    guint max = g_rand_int_range (rand, 0, 10) == 0 ? 700 : 96;
    guint w = g_rand_int_range (rand, 1, max + 1);
    guint hgt = g_rand_int_range (rand, 1, max + 1);
    GstVideoInfo info;

    if (i > 0 && g_rand_int_range (rand, 0, 20) == 0) {
      /* a full state cycle: the element forgets its caps */
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
      gst_harness_play (h);
      cycles++;
    }
    if (g_rand_int_range (rand, 0, 4) == 0) {
      /* settings that must not change which rectangles are found */
      g_object_set (h->element, "connectivity",
          g_rand_boolean (rand) ? 4 : 8, NULL);
      gst_util_set_object_arg (G_OBJECT (h->element), "draw",
          g_rand_boolean (rand) ? "boxes+centroids" : "0");
    }
    gst_video_info_set_format (&info, format, w, hgt);
    gst_harness_set_src_caps (h, rel_caps_new (format, w, hgt));
    /* one to three frames per caps */
    for (guint k = g_rand_int_range (rand, 1, 4); k > 0; k--)
      push_and_check (h, &info, rand, frames++);
  }
  g_print ("renegotiate: %u caps changes, %u state cycles, %u frames\n",
      changes, cycles, frames);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* Many short-lived instances, each through NULL -> PLAYING -> NULL. */
GST_START_TEST (test_state_cycles)
{
  GRand *rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < 100; i++) {
    GstHarness *h = gst_harness_new ("gpucclblob");
    GstVideoFormat format = rel_formats[i % rel_n_formats];
    GstVideoInfo info;

    gst_util_set_object_arg (G_OBJECT (h->element), "backend", rel_backend ());
    /* Every rectangle as a ROI meta (no cap): each is checked. */
    gst_util_set_object_arg (G_OBJECT (h->element), "max-roi-metas", "0");
    gst_video_info_set_format (&info, format, 33 + i, 17 + i);
    gst_harness_set_src_caps (h, rel_caps_new (format, 33 + i, 17 + i));
    if (i % 3 != 0)             /* some never see a frame */
      push_and_check (h, &info, rand, i);
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
    gst_harness_teardown (h);
  }
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
renegotiate_suite (void)
{
  Suite *s = suite_create ("gpucclblob-renegotiate");
  TCase *tc = tcase_create ("renegotiate");

  tcase_set_timeout (tc, 0);    /* meson's timeout rules */
  tcase_add_test (tc, test_random_caps_changes);
  tcase_add_test (tc, test_state_cycles);
  suite_add_tcase (s, tc);
  return s;
}

REL_CHECK_MAIN (renegotiate);
