/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* batch-size: several gpucclblob instances of one process (cameras, each
 * on its own streaming thread) labeled as one batch.
 *
 *  - cameras in batches: four instances, four threads, every output's
 *    blobs against OpenCV; with a long batch-max-wait they finish at once,
 *    so their frames were labeled together (alone, each would wait it out);
 *  - a lone frame waits batch-max-wait for company, then is labeled alone;
 *  - an instance that leaves mid-stream (torn down) only makes the others'
 *    batches smaller: nothing hangs, nothing is lost. */
#include "element_common.h"

#define W 96
#define H 64
#define FRAMES 5

typedef struct
{
  const gchar *props;
  guint frames;                 /* pushed before leaving */
  guint32 seed;
  guint good;                   /* outputs whose blobs match the oracle */
  gchar *failure;               /* the first mismatch, or NULL */
} Camera;

/* Whether buf's meta holds exactly the oracle's blobs. */
static gboolean
same_as_oracle (GstBuffer * buf, const Expected * e, gchar ** why)
{
  GstCclBlobMeta *m = gst_buffer_get_ccl_blob_meta (buf);
  if (!m || m->n_blobs != e->n) {
    *why = g_strdup_printf ("%u blobs, the oracle %u", m ? m->n_blobs : 0,
        e->n);
    return FALSE;
  }
  for (guint i = 0; i < e->n; i++) {
    const GstCclBlob *b = &m->blobs[i];
    const OracleStats *o = &e->stats[i];
    if (b->area != o->area || b->x0 != o->x0 || b->y0 != o->y0 ||
        b->x1 != o->x1 || b->y1 != o->y1) {
      *why = g_strdup_printf ("blob %u differs from the oracle's", i + 1);
      return FALSE;
    }
  }
  return TRUE;
}

/* One camera's streaming thread: frames pushed and checked, then the
 * instance torn down. The check library's asserts belong to the main
 * thread: the findings are collected and asserted there. */
static gpointer
run_camera (gpointer data)
{
  Camera *cam = data;
  GstHarness *h = element_harness_new (cam->props);
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  for (guint f = 0; f < cam->frames; f++) {
    guint8 *levels = element_levels_random (W, H, 0.25 + 0.05 * f, 2,
        cam->seed + f);
    Expected e;
    GstBuffer *out;

    expected_compute (&e, levels, W, H, 127, FALSE, 8);
    gst_harness_push (h, element_make_frame (&info, levels, "luma", f));
    out = gst_harness_pull (h);
    if (out && same_as_oracle (out, &e, &cam->failure))
      cam->good++;
    else if (!out && !cam->failure)
      cam->failure = g_strdup ("no output");
    if (out)
      gst_buffer_unref (out);
    expected_clear (&e);
    g_free (levels);
  }
  gst_harness_teardown (h);
  return NULL;
}

/* Runs the cameras on their threads; returns the seconds they took. */
static gdouble
run_cameras (Camera * cams, guint n)
{
  GThread *threads[8];
  gint64 start = g_get_monotonic_time ();

  g_assert (n <= G_N_ELEMENTS (threads));
  element_require ();
  for (guint i = 0; i < n; i++)
    threads[i] = g_thread_new ("camera", run_camera, &cams[i]);
  for (guint i = 0; i < n; i++)
    g_thread_join (threads[i]);
  for (guint i = 0; i < n; i++) {
    fail_unless (cams[i].failure == NULL, "camera %u: %s", i,
        cams[i].failure);
    fail_unless_equals_int (cams[i].good, cams[i].frames);
    g_free (cams[i].failure);
  }
  return (g_get_monotonic_time () - start) / 1e6;
}

GST_START_TEST (test_cameras_in_batches)
{
  /* 8 s of patience: a frame not batched with the others would wait it
   * out. */
  const gchar *props = "batch-size=4 batch-max-wait=8000000000";
  Camera cams[4] = {
    {props, FRAMES, 100, 0, NULL}, {props, FRAMES, 200, 0, NULL},
    {props, FRAMES, 300, 0, NULL}, {props, FRAMES, 400, 0, NULL},
  };
  gdouble seconds = run_cameras (cams, 4);

  fail_unless (seconds < 7.0, "4 x %d frames took %.1f s: not batched",
      FRAMES, seconds);
}

GST_END_TEST;

GST_START_TEST (test_lone_frame_waits)
{
  Camera cam = { "batch-size=2 batch-max-wait=300000000", 1, 500, 0, NULL };
  gdouble seconds = run_cameras (&cam, 1);

  fail_unless (seconds >= 0.3, "a lone frame of a batch of 2 waited %.3f s, "
      "less than batch-max-wait", seconds);
}

GST_END_TEST;

GST_START_TEST (test_instance_leaves)
{
  const gchar *props = "batch-size=3 batch-max-wait=200000000";
  Camera cams[3] = {
    {props, FRAMES, 600, 0, NULL}, {props, 2, 700, 0, NULL},
    {props, FRAMES, 800, 0, NULL},
  };
  gdouble seconds = run_cameras (cams, 3);

  /* At most one wait per frame once the second camera left. */
  fail_unless (seconds < FRAMES * 0.2 + 5.0, "took %.1f s", seconds);
}

GST_END_TEST;

static Suite *
batch_suite (void)
{
  Suite *s = suite_create ("gpucclblob-batch");
  TCase *tc = tcase_create ("batch");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cameras_in_batches);
  tcase_add_test (tc, test_lone_frame_waits);
  tcase_add_test (tc, test_instance_leaves);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, batch_suite);
}
