/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob between nvcodec's cudaupload and cudadownload (gst-plugins-bad;
 * exit 77 where they are not registered: no nvcodec plugin, no CUDA
 * driver). The same videotestsrc frames go through
 *   ... ! gpucclblob ! appsink                                  (system)
 *   ... ! cudaupload ! gpucclblob ! cudadownload ! appsink      (CUDA)
 * and must give the same blob tables and the same pixels, for every format
 * cudaupload takes; the CUDA context is the one an application gave
 * cudaupload; caps switch between CUDA and system memory while playing;
 * state changes in between. */
#include "element_common.h"

#include "gstcclblobmeta.h"

#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#define W 320
#define H 240

/* The blob tables gpucclblob sends (read on its src pad: whether
 * cudadownload copies the meta is its business, see main()). */
static GAsyncQueue *tables;

static GstPadProbeReturn
keep_table (GstPad * pad, GstPadProbeInfo * info, gpointer unused)
{
  GstCclBlobMeta *meta =
      gst_buffer_get_ccl_blob_meta (GST_PAD_PROBE_INFO_BUFFER (info));
  GArray *t = g_array_new (FALSE, FALSE, sizeof (GstCclBlob));

  if (meta)
    g_array_append_vals (t, meta->blobs, meta->n_blobs);
  g_async_queue_push (tables, t);
  return GST_PAD_PROBE_OK;
}

static void
watch_tables (GstElement * pipeline)
{
  GstElement *blob = gst_bin_get_by_name (GST_BIN (pipeline), "blob");
  GstPad *pad = gst_element_get_static_pad (blob, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_table, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (blob);
}

static GstElement *
launch (const gchar * format, const gchar * pattern, const gchar * props,
    gboolean cuda, gboolean live_caps)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=%s ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! %s"
      "gpucclblob name=blob backend=%s %s ! %s appsink name=out sync=false max-buffers=2",
      live_caps ? -1 : 6, pattern, format, W, H,
      !cuda ? "" : live_caps ? "cudaupload name=up ! capsfilter name=cf "
      "caps=\"video/x-raw(memory:CUDAMemory)\" ! " :
      "cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! ",
      test_backend (), props, cuda ? "cudadownload ! video/x-raw ! " : "");
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  g_free (desc);
  if (cuda)
    watch_tables (pipeline);
  return pipeline;
}

static GstSample *
pull (GstElement * pipeline)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      10 * GST_SECOND);
  gst_object_unref (sink);
  return sample;
}

/* a from the system pipeline, b from the CUDA one: the same pixels, and
 * the table the element sent in the CUDA pipeline is a's. */
static void
assert_same_samples (GstSample * a, GstSample * b, const gchar * what)
{
  GstVideoInfo info;
  GstCclBlobMeta *meta;
  GArray *table;

  fail_unless (a && b, "%s: a frame is missing", what);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (a)));
  element_assert_same_frames (gst_sample_get_buffer (a),
      gst_sample_get_buffer (b), &info, what);
  meta = gst_buffer_get_ccl_blob_meta (gst_sample_get_buffer (a));
  table = g_async_queue_timeout_pop (tables, 10 * G_USEC_PER_SEC);
  fail_unless (meta && table, "%s: no blob table", what);
  fail_unless (meta->n_blobs > 0, "%s: no blobs", what);
  fail_unless_equals_int (table->len, meta->n_blobs);
  fail_unless (element_same_blob_tables ((const GstCclBlob *) table->data,
          meta->blobs, meta->n_blobs), "%s: blobs differ", what);
  g_array_unref (table);
}

static gboolean
cudaupload_takes (const gchar * format)
{
  GstElementFactory *f = gst_element_factory_find ("cudaupload");
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, NULL);
  gboolean ok = gst_element_factory_can_sink_any_caps (f, caps);

  gst_caps_unref (caps);
  gst_object_unref (f);
  return ok;
}

/* Every format cudaupload takes, each overlay, one and many blobs. */
GST_START_TEST (test_same_as_system_memory)
{
  static const gchar *cases[][2] = {
    {"ball", "draw=0"},
    {"ball", "draw=boxes+centroids"},
    {"checkers-8", "connectivity=4 draw=labels+boxes"},
  };
  guint ran = 0;

  for (gsize f = 0; f < n_element_formats; f++) {
    const gchar *format = gst_video_format_to_string (element_formats[f]);
    if (!cudaupload_takes (format)) {
      g_print ("cudaupload does not take %s: not compared\n", format);
      continue;
    }
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++) {
      gchar *props = g_strdup_printf ("%s%s", cases[c][1],
          element_formats[f] == GST_VIDEO_FORMAT_GRAY16_LE ?
          " threshold=32767" : "");
      gchar *what = g_strdup_printf ("%s %s %s", format, cases[c][0], props);
      GstElement *sys = launch (format, cases[c][0], props, FALSE, FALSE);
      GstElement *cuda = launch (format, cases[c][0], props, TRUE, FALSE);
      GstSample *a, *b;
      guint n = 0;

      gst_element_set_state (sys, GST_STATE_PLAYING);
      gst_element_set_state (cuda, GST_STATE_PLAYING);
      while ((a = pull (sys))) {
        b = pull (cuda);
        assert_same_samples (a, b, what);
        gst_sample_unref (a);
        gst_sample_unref (b);
        n++;
      }
      fail_unless_equals_int (n, 6);
      fail_unless (pull (cuda) == NULL, "%s: extra CUDA frames", what);
      gst_element_set_state (sys, GST_STATE_NULL);
      gst_element_set_state (cuda, GST_STATE_NULL);
      gst_object_unref (sys);
      gst_object_unref (cuda);
      g_free (what);
      g_free (props);
      ran++;
    }
  }
  fail_unless (ran > 0, "cudaupload takes none of the element's formats");
}

GST_END_TEST;

/* A context the application gave cudaupload is the one gpucclblob shares
 * (found through the context query), and the frames are labeled. */
GST_START_TEST (test_context_of_another_element)
{
  GstCudaContext *app_ctx = gst_cuda_context_new (0);
  GstElement *pipeline = launch ("NV12", "ball", "", TRUE, FALSE);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *blob = gst_bin_get_by_name (GST_BIN (pipeline), "blob");
  GstContext *context = gst_context_new_cuda_context (app_ctx);
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *shared = NULL;
  GstSample *s;

  gst_element_set_context (up, context);
  gst_context_unref (context);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  s = pull (pipeline);
  fail_unless (s != NULL);
  gst_sample_unref (s);

  fail_unless (gst_element_query (blob, query),
      "gpucclblob has no CUDA context");
  gst_query_parse_context (query, &context);
  fail_unless (gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &shared, NULL));
  fail_unless (shared == app_ctx, "gpucclblob did not share cudaupload's");
  gst_object_unref (shared);
  gst_query_unref (query);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  {
    GArray *t;
    while ((t = g_async_queue_try_pop (tables)))
      g_array_unref (t);
  }
  gst_object_unref (blob);
  gst_object_unref (up);
  gst_object_unref (pipeline);
  gst_object_unref (app_ctx);
}

GST_END_TEST;

/* CUDA memory, system memory, CUDA memory again while playing (the caps
 * after cudaupload change), then PAUSED, READY and PLAYING again: every
 * frame as in the system-memory pipeline. */
GST_START_TEST (test_renegotiate_while_playing)
{
  static const gchar *caps[] = {
    "video/x-raw(memory:CUDAMemory)", "video/x-raw",
    "video/x-raw(memory:CUDAMemory)",
  };
  GstElement *sys = launch ("NV12", "ball", "draw=boxes", FALSE, TRUE);
  GstElement *cuda = launch ("NV12", "ball", "draw=boxes", TRUE, TRUE);
  GstElement *cf = gst_bin_get_by_name (GST_BIN (cuda), "cf");

  gst_element_set_state (sys, GST_STATE_PLAYING);
  gst_element_set_state (cuda, GST_STATE_PLAYING);
  for (gsize round = 0; round < 4; round++) {
    gchar *what = g_strdup_printf ("round %" G_GSIZE_FORMAT, round);
    if (round < G_N_ELEMENTS (caps)) {
      GstCaps *c = gst_caps_from_string (caps[round]);
      g_object_set (cf, "caps", c, NULL);
      gst_caps_unref (c);
    } else {
      /* Restart both from their first frame (a table may be left from a
       * frame the flush dropped). */
      GArray *t;
      for (gint i = 0; i < 2; i++) {
        GstElement *p = i ? cuda : sys;
        gst_element_set_state (p, GST_STATE_PAUSED);
        gst_element_set_state (p, GST_STATE_READY);
        if (p == cuda)
          while ((t = g_async_queue_try_pop (tables)))
            g_array_unref (t);
        gst_element_set_state (p, GST_STATE_PLAYING);
      }
    }
    for (gint i = 0; i < 5; i++) {
      GstSample *a = pull (sys), *b = pull (cuda);
      assert_same_samples (a, b, what);
      gst_sample_unref (a);
      gst_sample_unref (b);
    }
    g_free (what);
  }
  gst_element_set_state (sys, GST_STATE_NULL);
  gst_element_set_state (cuda, GST_STATE_NULL);
  gst_object_unref (cf);
  gst_object_unref (sys);
  gst_object_unref (cuda);
}

GST_END_TEST;

static Suite *
cuda_pipeline_suite (void)
{
  Suite *s = suite_create ("gpucclblob-cuda-pipeline");
  TCase *tc = tcase_create ("nvcodec");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_same_as_system_memory);
  tcase_add_test (tc, test_context_of_another_element);
  tcase_add_test (tc, test_renegotiate_while_playing);
  return s;
}

int
main (int argc, char **argv)
{
  GstElementFactory *up;

  gst_init (&argc, &argv);
  up = gst_element_factory_find ("cudaupload");
  if (!up || !gst_cuda_load_library ()) {
    g_print ("SKIP: no cudaupload (nvcodec needs gst-plugins-bad and a "
        "CUDA driver)\n");
    return 77;
  }
  gst_object_unref (up);
  g_setenv ("CK_FORK", "no", TRUE);
  tables = g_async_queue_new_full ((GDestroyNotify) g_array_unref);
  return element_test_main (argc, argv, cuda_pipeline_suite);
}
