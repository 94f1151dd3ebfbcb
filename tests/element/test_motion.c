/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob binarize=background|difference (issue 29) through GstHarness,
 * on the scene of tests/common/motion_scene.h (textured, brightening,
 * objects that move, stop and leave), in every format the element takes:
 * after the warm-up each frame's blobs are exactly the truth's (checked
 * against OpenCV on the truth mask, check_buffer_blobs). Then what starts
 * the model afresh: new caps (size, then format), READY -> NULL and back,
 * reset-background, a new region, binarize=threshold and back; and the
 * properties' defaults and ranges. */
#include "element_common.h"
#include "motion_scene.h"

#define W 160
#define H 120
#define WARMUP 8
#define THRESHOLD 30

static gboolean
covered (gint t, gint x, gint y, gint w, gint h)
{
  for (gint i = 0; i < MOTION_SCENE_OBJECTS; i++)
    if (motion_scene_inside (motion_scene_rect (i, t, w, h), x, y))
      return TRUE;
  return FALSE;
}

/* Frame t of the scene at w x h as `format`, its truth in *e: the objects
 * in the frame (changed: only the pixels covered in exactly one of frames
 * t - 1 and t). */
static GstBuffer *
scene_buffer (GstVideoFormat format, gint w, gint h, gint t,
    gboolean changed, Expected * e)
{
  GstVideoInfo info;
  guint8 *levels = g_malloc (w * h), *truth = g_malloc (w * h);
  GstBuffer *buf;

  gst_video_info_set_format (&info, format, w, h);
  motion_scene_frame (levels, w, w, h, t);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      gboolean now = covered (t, x, y, w, h);
      gboolean fg = changed ? now != covered (t - 1, x, y, w, h) : now;
      truth[y * w + x] = fg ? 255 : 0;
    }
  buf = element_make_frame (&info, levels, "luma", t);
  if (e)
    expected_compute (e, truth, w, h, 127, FALSE, 8);
  g_free (levels);
  g_free (truth);
  return buf;
}

static GstHarness *
motion_harness (GstVideoFormat format, const gchar * binarize)
{
  gchar *props = g_strdup_printf ("binarize=%s background-selective=true "
      "background-frames=%d learning-rate=0.05 threshold=%d", binarize,
      WARMUP, format == GST_VIDEO_FORMAT_GRAY16_LE ? THRESHOLD * 256 :
      THRESHOLD);
  GstHarness *h = element_harness_new (props);

  g_free (props);
  gst_harness_set_src_caps (h, element_caps (format, W, H));
  return h;
}

/* Frames [from, to) of the scene; those from `check` on against the
 * truth, those before it (a warm-up) must have no blobs. */
static void
run_frames (GstHarness * h, GstVideoFormat format, gint from, gint to,
    gint check, gboolean changed)
{
  for (gint t = from; t < to; t++) {
    Expected e;
    GstBuffer *out = element_push_pull (h, scene_buffer (format, W, H, t,
            changed, &e));
    GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (out);

    fail_unless (meta != NULL);
    if (t < check)
      fail_unless (meta->n_blobs == 0, "frame %d: %u blobs in warm-up", t,
          meta->n_blobs);
    else
      check_buffer_blobs (out, &e, NULL, 0);
    expected_clear (&e);
    gst_buffer_unref (out);
  }
}

GST_START_TEST (test_background_formats)
{
  for (gsize i = 0; i < n_element_formats; i++) {
    GstVideoFormat format = element_formats[i];
    GstHarness *h = motion_harness (format, "background");

    GST_INFO ("format %s", gst_video_format_to_string (format));
    run_frames (h, format, 0, 64, WARMUP, FALSE);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_difference)
{
  GstHarness *h = motion_harness (GST_VIDEO_FORMAT_NV12, "difference");

  run_frames (h, GST_VIDEO_FORMAT_NV12, 0, 64, WARMUP, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New caps start a warm-up: another size, then another format of that
 * size. The model is the previous frame (difference), so the frames after
 * a warm-up with objects in view are exact too, and a warm-up frame with
 * blobs is a reset that did not happen. */
GST_START_TEST (test_renegotiation)
{
  GstHarness *h = motion_harness (GST_VIDEO_FORMAT_GRAY8, "difference");
  GstBuffer *out;

  run_frames (h, GST_VIDEO_FORMAT_GRAY8, 0, 40, WARMUP, TRUE);
  /* Another size: the scene drawn at 96 x 64 for a few frames. */
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, 96, 64));
  for (gint t = 40; t < 40 + WARMUP; t++) {
    out = element_push_pull (h, scene_buffer (GST_VIDEO_FORMAT_GRAY8, 96, 64,
            t, FALSE, NULL));
    fail_unless_equals_int (gst_buffer_get_ccl_blob_meta (out)->n_blobs, 0);
    gst_buffer_unref (out);
  }
  /* Back to W x H in I420: warm-up again, then exact. */
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_I420, W, H));
  run_frames (h, GST_VIDEO_FORMAT_I420, 50, 80, 50 + WARMUP, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Each of these forgets the model: the next WARMUP frames, with objects
 * moving in view, report nothing, and the frames after are exact
 * (difference, as above). */
GST_START_TEST (test_resets)
{
  GstHarness *h = motion_harness (GST_VIDEO_FORMAT_GRAY8, "difference");
  GstElement *el = h->element;
  gint t = 40;

  run_frames (h, GST_VIDEO_FORMAT_GRAY8, 0, t, WARMUP, TRUE);

  g_signal_emit_by_name (el, "reset-background");
  run_frames (h, GST_VIDEO_FORMAT_GRAY8, t, t + 12, t + WARMUP, TRUE);
  t += 12;

  /* READY -> NULL and back (the harness' caps are sent again). */
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (el, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  run_frames (h, GST_VIDEO_FORMAT_GRAY8, t, t + 12, t + WARMUP, TRUE);
  t += 12;

  /* A new region (the whole frame again: still a new one). */
  gst_util_set_object_arg (G_OBJECT (el), "region", "<0,0,160,120>");
  run_frames (h, GST_VIDEO_FORMAT_GRAY8, t, t + 12, t + WARMUP, TRUE);
  t += 12;

  /* Threshold mode frees the model; back to background starts afresh. */
  gst_util_set_object_arg (G_OBJECT (el), "binarize", "threshold");
  gst_buffer_unref (element_push_pull (h, scene_buffer
          (GST_VIDEO_FORMAT_GRAY8, W, H, t++, FALSE, NULL)));
  gst_util_set_object_arg (G_OBJECT (el), "binarize", "difference");
  run_frames (h, GST_VIDEO_FORMAT_GRAY8, t, t + 12, t + WARMUP, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *el = gst_element_factory_make ("gpucclblob", NULL);
  GParamSpec *spec;
  gint binarize;
  gdouble rate;
  guint frames;
  gboolean selective;

  g_object_get (el, "binarize", &binarize, "learning-rate", &rate,
      "background-frames", &frames, "background-selective", &selective,
      NULL);
  fail_unless_equals_int (binarize, 0);        /* threshold */
  fail_unless (rate == 0.05);
  fail_unless_equals_int (frames, 0);
  fail_unless (!selective);
  spec = g_object_class_find_property (G_OBJECT_GET_CLASS (el),
      "learning-rate");
  fail_unless (G_PARAM_SPEC_DOUBLE (spec)->minimum == 0.0 &&
      G_PARAM_SPEC_DOUBLE (spec)->maximum == 1.0);
  gst_util_set_object_arg (G_OBJECT (el), "binarize", "difference");
  g_object_get (el, "binarize", &binarize, NULL);
  fail_unless_equals_int (binarize, 1);
  gst_object_unref (el);
}

GST_END_TEST;

/* mode=segments cannot binarise by motion: an element error naming the
 * mode, not a crash. */
GST_START_TEST (test_segments_refused)
{
  GstHarness *h = element_harness_new ("binarize=background mode=segments");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  fail_unless_equals_int (gst_harness_push (h, scene_buffer
          (GST_VIDEO_FORMAT_GRAY8, W, H, 30, FALSE, NULL)), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "needs mode=binary") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
motion_suite (void)
{
  Suite *s = suite_create ("gpucclblob-motion");
  TCase *tc = tcase_create ("motion");

  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_background_formats);
  tcase_add_test (tc, test_difference);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_resets);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_segments_refused);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, motion_suite);
}
