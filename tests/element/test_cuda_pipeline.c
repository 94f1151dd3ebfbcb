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
#include "pipeline_pair.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#define TO_CUDA "cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! "
#define FROM_CUDA "cudadownload ! video/x-raw ! "

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
      PipelinePair *pair = pipeline_pair_new (format, cases[c][0], props, 6,
          TO_CUDA, FROM_CUDA);

      pipeline_pair_play (pair);
      pipeline_pair_compare (pair, 6, what);
      pipeline_pair_assert_ended (pair, what);
      pipeline_pair_free (pair);
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
  PipelinePair *pair = pipeline_pair_new ("NV12", "ball", "", -1, TO_CUDA,
      FROM_CUDA);
  GstElement *tested = pipeline_pair_tested (pair);
  GstElement *up = gst_bin_get_by_name (GST_BIN (tested), "up");
  GstElement *blob = gst_bin_get_by_name (GST_BIN (tested), "blob");
  GstContext *context = gst_context_new_cuda_context (app_ctx);
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *shared = NULL;

  gst_element_set_context (up, context);
  gst_context_unref (context);
  pipeline_pair_play (pair);
  pipeline_pair_compare (pair, 2, "context of cudaupload");

  fail_unless (gst_element_query (blob, query),
      "gpucclblob has no CUDA context");
  gst_query_parse_context (query, &context);
  fail_unless (gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &shared, NULL));
  fail_unless (shared == app_ctx, "gpucclblob did not share cudaupload's");
  gst_object_unref (shared);
  gst_query_unref (query);
  pipeline_pair_free (pair);
  gst_object_unref (blob);
  gst_object_unref (up);
  gst_object_unref (app_ctx);
}

GST_END_TEST;

/* CUDA memory, system memory, CUDA memory again while playing (the caps
 * after cudaupload change), then PAUSED, READY and PLAYING again: every
 * frame as in the system-memory pipeline. */
GST_START_TEST (test_renegotiate_while_playing)
{
  static const gchar *const caps[] = {
    "video/x-raw(memory:CUDAMemory)", "video/x-raw",
    "video/x-raw(memory:CUDAMemory)",
  };
  PipelinePair *pair = pipeline_pair_new ("NV12", "ball", "draw=boxes", -1,
      "cudaupload name=up ! capsfilter name=cf "
      "caps=\"video/x-raw(memory:CUDAMemory)\" ! ", FROM_CUDA);

  pipeline_pair_play (pair);
  pipeline_pair_caps_rounds (pair, caps, G_N_ELEMENTS (caps), 5);
  pipeline_pair_free (pair);
}

GST_END_TEST;

static Suite *
cuda_pipeline_suite (void)
{
  Suite *s = suite_create ("gpucclblob-cuda-pipeline");
  TCase *tc = tcase_create ("nvcodec");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  /* Stops the pipelines a failed check left playing. */
  tcase_add_checked_fixture (tc, NULL, pipeline_pair_stop_all);
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
  return element_test_main (argc, argv, cuda_pipeline_suite);
}
