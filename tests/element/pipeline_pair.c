/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two pipelines on the same frames (see pipeline_pair.h). */
#include "pipeline_pair.h"

#include <gst/app/gstappsink.h>

#define W 320
#define H 240
/* Frames a pipeline may lose against the other per comparison. */
#define MAX_SKIPS 3
/* Any single wait for a frame or a table. */
#define WAIT_S 10

/* Samples an appsink may still hold from before a restart. */
#define MAX_STALE 4

struct _PipelinePair
{
  GstElement *ref, *tested;
  GAsyncQueue *tables;          /* Table *, in the tested pipeline's order */
  GstSample *first[2];          /* ref's, tested's first after a restart */
};

typedef struct
{
  GstClockTime pts;
  GArray *blobs;                /* GstCclBlob */
} Table;

static GList *live_pairs;

static void
table_free (Table * t)
{
  g_array_unref (t->blobs);
  g_free (t);
}

static GstPadProbeReturn
keep_table (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);
  Table *t = g_new0 (Table, 1);

  t->pts = GST_BUFFER_PTS (buf);
  t->blobs = g_array_new (FALSE, FALSE, sizeof (GstCclBlob));
  if (meta)
    g_array_append_vals (t->blobs, meta->blobs, meta->n_blobs);
  g_async_queue_push ((GAsyncQueue *) user_data, t);
  return GST_PAD_PROBE_OK;
}

static GstElement *
launch (const gchar * format, const gchar * pattern, const gchar * props,
    gint num_buffers, const gchar * before, const gchar * after)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=%s ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! %s "
      "gpucclblob name=blob backend=%s %s ! %s appsink name=out sync=false "
      "max-buffers=2", num_buffers, pattern, format, W, H, before,
      test_backend (), props, after);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  g_free (desc);
  return pipeline;
}

PipelinePair *
pipeline_pair_new (const gchar * format, const gchar * pattern,
    const gchar * props, gint num_buffers, const gchar * before,
    const gchar * after)
{
  PipelinePair *pair = g_new0 (PipelinePair, 1);
  GstElement *blob;
  GstPad *pad;

  pair->tables = g_async_queue_new_full ((GDestroyNotify) table_free);
  pair->ref = launch (format, pattern, props, num_buffers, "", "");
  pair->tested = launch (format, pattern, props, num_buffers, before, after);
  blob = gst_bin_get_by_name (GST_BIN (pair->tested), "blob");
  pad = gst_element_get_static_pad (blob, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_table,
      pair->tables, NULL);
  gst_object_unref (pad);
  gst_object_unref (blob);
  live_pairs = g_list_prepend (live_pairs, pair);
  return pair;
}

void
pipeline_pair_play (PipelinePair * pair)
{
  gst_element_set_state (pair->ref, GST_STATE_PLAYING);
  gst_element_set_state (pair->tested, GST_STATE_PLAYING);
}

GstElement *
pipeline_pair_tested (PipelinePair * pair)
{
  return pair->tested;
}

static GstSample *
pull (GstElement * pipeline)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      WAIT_S * GST_SECOND);

  gst_object_unref (sink);
  return sample;
}

static GstClockTime
pts_of (GstSample * s)
{
  return GST_BUFFER_PTS (gst_sample_get_buffer (s));
}

/* The next frame of the reference (0) or tested (1) pipeline. */
static GstSample *
next (PipelinePair * pair, gint which)
{
  GstSample *s = pair->first[which];

  pair->first[which] = NULL;
  return s ? s : pull (which ? pair->tested : pair->ref);
}

/* The table the tested pipeline's gpucclblob sent with the frame at pts
 * (older ones, of frames the pipeline lost after it, are dropped). */
static Table *
table_at (PipelinePair * pair, GstClockTime pts)
{
  for (gint i = 0; i <= MAX_SKIPS; i++) {
    Table *t = g_async_queue_timeout_pop (pair->tables,
        WAIT_S * G_USEC_PER_SEC);
    if (!t || t->pts == pts)
      return t;
    table_free (t);
  }
  return NULL;
}

static void
compare_frame (PipelinePair * pair, const gchar * what, guint * skips)
{
  GstSample *a = next (pair, 0), *b = next (pair, 1);
  GstCclBlobMeta *meta;
  GstVideoInfo info;
  Table *table;

  while (a && b && pts_of (a) != pts_of (b) && *skips < MAX_SKIPS) {
    GstSample **behind = pts_of (a) < pts_of (b) ? &a : &b;
    gst_sample_unref (*behind);
    *behind = next (pair, behind == &b);
    (*skips)++;
  }
  fail_unless (a && b, "%s: no %s frame within %d s", what,
      a ? "tested" : "reference", WAIT_S);
  fail_unless (pts_of (a) == pts_of (b), "%s: frames at %" GST_TIME_FORMAT
      " and %" GST_TIME_FORMAT " after %u skipped", what,
      GST_TIME_ARGS (pts_of (a)), GST_TIME_ARGS (pts_of (b)), *skips);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (a)));
  element_assert_same_frames (gst_sample_get_buffer (a),
      gst_sample_get_buffer (b), &info, what);

  meta = gst_buffer_get_ccl_blob_meta (gst_sample_get_buffer (a));
  table = table_at (pair, pts_of (b));
  fail_unless (meta != NULL, "%s: no GstCclBlobMeta on the reference "
      "frame at %" GST_TIME_FORMAT, what, GST_TIME_ARGS (pts_of (a)));
  fail_unless (table != NULL, "%s: gpucclblob sent no frame at %"
      GST_TIME_FORMAT, what, GST_TIME_ARGS (pts_of (b)));
  fail_unless (meta->n_blobs > 0, "%s: no blobs", what);
  fail_unless_equals_int (table->blobs->len, meta->n_blobs);
  fail_unless (element_same_blob_tables ((const GstCclBlob *)
          table->blobs->data, meta->blobs, meta->n_blobs),
      "%s: blobs differ", what);
  table_free (table);
  gst_sample_unref (a);
  gst_sample_unref (b);
}

void
pipeline_pair_compare (PipelinePair * pair, guint n, const gchar * what)
{
  guint skips = 0;

  for (guint i = 0; i < n; i++)
    compare_frame (pair, what, &skips);
  if (skips)
    g_print ("%s: %u frame(s) of one pipeline had no match\n", what, skips);
}

void
pipeline_pair_assert_ended (PipelinePair * pair, const gchar * what)
{
  GstSample *s;

  for (gint i = 0; i < 2; i++) {
    s = next (pair, i);
    fail_unless (s == NULL, "%s: a frame past the end at %" GST_TIME_FORMAT,
        what, GST_TIME_ARGS (s ? pts_of (s) : GST_CLOCK_TIME_NONE));
  }
}

/* The stream starts again at timestamp 0, but appsink (GStreamer 1.22)
 * still hands out the samples it had queued before the state change, a
 * number that differs between the pipelines: they are skipped, up to the
 * first frame of the new stream. */
void
pipeline_pair_restart (PipelinePair * pair)
{
  Table *t;

  for (gint i = 0; i < 2; i++) {
    GstElement *p = i ? pair->tested : pair->ref;
    GstSample *s = NULL;

    g_clear_pointer (&pair->first[i], gst_sample_unref);
    gst_element_set_state (p, GST_STATE_PAUSED);
    gst_element_set_state (p, GST_STATE_READY);
    /* No table of before may match a frame of the new stream. */
    if (p == pair->tested)
      while ((t = g_async_queue_try_pop (pair->tables)))
        table_free (t);
    gst_element_set_state (p, GST_STATE_PLAYING);
    for (gint k = 0; k <= MAX_STALE && (s = pull (p)) && pts_of (s) != 0; k++)
      g_clear_pointer (&s, gst_sample_unref);
    fail_unless (s && pts_of (s) == 0, "no frame at 0 after the restart");
    pair->first[i] = s;
  }
}

void
pipeline_pair_free (PipelinePair * pair)
{
  if (!pair)
    return;
  live_pairs = g_list_remove (live_pairs, pair);
  g_clear_pointer (&pair->first[0], gst_sample_unref);
  g_clear_pointer (&pair->first[1], gst_sample_unref);
  gst_element_set_state (pair->ref, GST_STATE_NULL);
  gst_element_set_state (pair->tested, GST_STATE_NULL);
  gst_object_unref (pair->ref);
  gst_object_unref (pair->tested);
  g_async_queue_unref (pair->tables);
  g_free (pair);
}

void
pipeline_pair_stop_all (void)
{
  while (live_pairs)
    pipeline_pair_free (live_pairs->data);
}

void
pipeline_pair_caps_rounds (PipelinePair * pair, const gchar * const *caps,
    guint n_caps, guint frames)
{
  GstElement *cf = gst_bin_get_by_name (GST_BIN (pair->tested), "cf");

  fail_unless (cf != NULL, "no capsfilter named cf");
  for (guint round = 0; round <= n_caps; round++) {
    gchar *what = g_strdup_printf ("round %u (%s)", round,
        round < n_caps ? caps[round] : "restarted");
    if (round < n_caps) {
      GstCaps *c = gst_caps_from_string (caps[round]);
      g_object_set (cf, "caps", c, NULL);
      gst_caps_unref (c);
    } else {
      pipeline_pair_restart (pair);
    }
    pipeline_pair_compare (pair, frames, what);
    g_free (what);
  }
  gst_object_unref (cf);
}
