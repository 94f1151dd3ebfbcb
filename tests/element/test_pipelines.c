/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob in whole pipelines, on any machine: the checks
 * test_cuda_pipeline.c makes around cudaupload/cudadownload, with
 * videoconvert in their place. The same videotestsrc frames go through
 *   ... ! gpucclblob ! appsink
 *   ... ! videoconvert ! capsfilter ! gpucclblob ! videoconvert ! appsink
 * and must give the same pixels and blob tables while the caps between
 * the converters change while playing (NV12, I420, NV12: the element
 * renegotiates; I420 to NV12 is lossless) and after PAUSED, READY and
 * PLAYING again. */
#include "pipeline_pair.h"

#define TO_CF "videoconvert ! capsfilter name=cf caps=video/x-raw,format=NV12 ! "
#define BACK "videoconvert ! video/x-raw,format=NV12 ! "

GST_START_TEST (test_renegotiate_while_playing)
{
  static const gchar *const caps[] = {
    "video/x-raw,format=NV12", "video/x-raw,format=I420",
    "video/x-raw,format=NV12",
  };
  PipelinePair *pair = pipeline_pair_new ("NV12", "ball",
      "draw=boxes+centroids", -1, TO_CF, BACK);

  pipeline_pair_play (pair);
  pipeline_pair_caps_rounds (pair, caps, G_N_ELEMENTS (caps), 5);
  pipeline_pair_free (pair);
}

GST_END_TEST;

/* A source that ends: as many frames out as in, then none. */
GST_START_TEST (test_source_ends)
{
  PipelinePair *pair = pipeline_pair_new ("NV12", "ball", "draw=boxes", 6,
      TO_CF, BACK);

  pipeline_pair_play (pair);
  pipeline_pair_compare (pair, 6, "six frames");
  pipeline_pair_assert_ended (pair, "six frames");
  pipeline_pair_free (pair);
}

GST_END_TEST;

static Suite *
pipelines_suite (void)
{
  Suite *s = suite_create ("gpucclblob-pipelines");
  TCase *tc = tcase_create ("pipelines");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  /* Stops the pipelines a failed check left playing (without fork). */
  tcase_add_checked_fixture (tc, NULL, pipeline_pair_stop_all);
  tcase_add_test (tc, test_renegotiate_while_playing);
  tcase_add_test (tc, test_source_ends);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, pipelines_suite);
}
