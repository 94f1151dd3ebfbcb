/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob-watch — an application embedding the gpucclblob element.
 *
 * Builds a pipeline from a gst-launch style description, finds its
 * gpucclblob element and prints one JSON line per frame with the blobs of
 * that frame's GstCclBlobMeta:
 *
 *   {"frame":0,"pts":0,"width":960,"height":360,"threshold":127,
 *    "count":1,"blobs":[{"id":1,"track-id":1,"area":1245,
 *    "bbox":[10,20,49,59],"centroid":[29.5,39.5]}]}
 *
 * (pts in nanoseconds, null when the buffer has none; bbox is x0, y0, x1,
 * y1, inclusive). A frame without a blob table (attach-meta=false, or a
 * buffer the element let through unmeasured, such as a GAP buffer) is
 * printed as {"frame":N,"pts":P,"blobs":null}: nothing was measured, which
 * is not the same as no blobs. Frames are read at an appsink when the description has
 * one (the application owns the sink, e.g. after uridecodebin), otherwise
 * with a probe on gpucclblob's source pad (any sink).
 *
 * Exit status: 0 at end of stream (or after --frames frames), 1 when the
 * pipeline fails, 2 for a bad command line or description, 130 when
 * interrupted (Ctrl-C: the pipeline gets EOS first, so files are
 * finished properly; a second Ctrl-C stops at once).
 */
#include "gstcclblobmeta.h"

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define EXIT_PIPELINE 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

#define DEFAULT_DESCRIPTION \
  "videotestsrc pattern=ball num-buffers=30 ! video/x-raw,width=320,height=240 " \
  "! videoconvert ! gpucclblob track=true ! fakesink"

typedef struct {
  GMainLoop *loop;
  GstElement *pipeline;
  FILE *out;
  gint64 max_frames;     /* 0: no limit */
  gint64 frames;         /* frames printed (streaming thread only) */
  gboolean playing;      /* the pipeline reached PLAYING */
  gboolean eos_wanted;   /* --frames reached: EOS once PLAYING */
  gboolean eos_sent;     /* after --frames or the first Ctrl-C */
  gboolean interrupted;
  int status;
} App;

static void
add_int_member (JsonBuilder * b, const gchar * name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

/* The members of one frame's blob table. */
static void
add_blob_table (JsonBuilder * b, const GstCclBlobMeta * meta)
{
  add_int_member (b, "width", meta->width);
  add_int_member (b, "height", meta->height);
  add_int_member (b, "threshold", meta->threshold);
  add_int_member (b, "count", meta->n_blobs);
  json_builder_set_member_name (b, "blobs");
  json_builder_begin_array (b);
  for (guint i = 0; i < meta->n_blobs; i++) {
    const GstCclBlob *bl = &meta->blobs[i];
    gdouble cx, cy;

    gst_ccl_blob_get_centroid (bl, &cx, &cy);
    json_builder_begin_object (b);
    add_int_member (b, "id", bl->id);
    add_int_member (b, "track-id", gst_ccl_blob_meta_get_track_id (meta, i));
    add_int_member (b, "area", (gint64) bl->area);
    json_builder_set_member_name (b, "bbox");
    json_builder_begin_array (b);
    json_builder_add_int_value (b, bl->x0);
    json_builder_add_int_value (b, bl->y0);
    json_builder_add_int_value (b, bl->x1);
    json_builder_add_int_value (b, bl->y1);
    json_builder_end_array (b);
    json_builder_set_member_name (b, "centroid");
    json_builder_begin_array (b);
    json_builder_add_double_value (b, cx);
    json_builder_add_double_value (b, cy);
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

/* One frame as a JSON object; without a meta, "blobs":null. */
static JsonNode *
frame_to_json (gint64 frame, GstBuffer * buffer, const GstCclBlobMeta * meta)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  add_int_member (b, "frame", frame);
  json_builder_set_member_name (b, "pts");
  if (GST_BUFFER_PTS_IS_VALID (buffer))
    json_builder_add_int_value (b, (gint64) GST_BUFFER_PTS (buffer));
  else
    json_builder_add_null_value (b);
  if (meta) {
    add_blob_table (b, meta);
  } else {
    json_builder_set_member_name (b, "blobs");
    json_builder_add_null_value (b);
  }
  json_builder_end_object (b);

  JsonNode *root = json_builder_get_root (b);
  g_object_unref (b);
  return root;
}

/* Main thread, PLAYING only. An EOS sent to a pipeline still prerolling
 * deadlocks: the source's send_event waits, holding the pipeline's state
 * lock, for its streaming thread, which waits in the prerolled sink for
 * the PLAYING that state lock keeps from coming (a one-picture source
 * reaches --frames 1 during preroll). */
static void
send_eos (App * app)
{
  if (!app->eos_sent) {
    app->eos_sent = TRUE;
    gst_element_send_event (app->pipeline, gst_event_new_eos ());
  }
}

/* Main thread: --frames reached; EOS now, or when PLAYING is reached. If
 * the source ends by itself first, its own EOS ends the run. */
static gboolean
want_eos (gpointer data)
{
  App *app = data;

  app->eos_wanted = TRUE;
  if (app->playing)
    send_eos (app);
  return G_SOURCE_REMOVE;
}

/* Streaming thread: print one frame. Buffers without the meta are
 * reported rather than skipped, so frame numbers stay in step with the
 * stream. */
static void
handle_buffer (App * app, GstBuffer * buffer)
{
  if (app->max_frames && app->frames >= app->max_frames)
    return;

  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buffer);
  JsonNode *node = frame_to_json (app->frames, buffer, meta);
  gchar *line = json_to_string (node, FALSE);

  fprintf (app->out, "%s\n", line);
  fflush (app->out);
  g_free (line);
  json_node_unref (node);

  if (++app->frames == app->max_frames)
    g_idle_add (want_eos, app);
}

static GstPadProbeReturn
on_buffer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  (void) pad;
  handle_buffer (data, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
on_new_sample (GstAppSink * sink, gpointer data)
{
  GstSample *sample = gst_app_sink_pull_sample (sink);

  if (!sample)
    return GST_FLOW_EOS;
  handle_buffer (data, gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* The first element in bin (recursively) made by the named factory. */
static GstElement *
find_by_factory (GstBin * bin, const gchar * factory_name)
{
  GstIterator *it = gst_bin_iterate_recurse (bin);
  GValue item = G_VALUE_INIT;
  GstElement *found = NULL;

  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    GstElementFactory *f = gst_element_get_factory (e);

    if (f && g_strcmp0 (GST_OBJECT_NAME (f), factory_name) == 0)
      found = gst_object_ref (e);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

static gboolean
on_bus_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  App *app = data;
  (void) bus;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_EOS:
      g_main_loop_quit (app->loop);
      break;
    case GST_MESSAGE_STATE_CHANGED:{
      GstState state;

      if (GST_MESSAGE_SRC (msg) != GST_OBJECT (app->pipeline))
        break;
      gst_message_parse_state_changed (msg, NULL, &state, NULL);
      app->playing = state == GST_STATE_PLAYING;
      if (app->playing && app->eos_wanted)
        send_eos (app);
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &err, &debug);
      g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (msg->src),
          err->message);
      if (debug)
        g_printerr ("  %s\n", debug);
      g_clear_error (&err);
      g_free (debug);
      app->status = EXIT_PIPELINE;
      g_main_loop_quit (app->loop);
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("warning from %s: %s\n", GST_OBJECT_NAME (msg->src),
          err->message);
      g_clear_error (&err);
      break;
    }
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* First Ctrl-C: EOS, so sinks finish their files; second, or one before
 * the pipeline plays (nothing to finish, and EOS could not get through):
 * stop now. */
static gboolean
on_sigint (gpointer data)
{
  App *app = data;

  app->interrupted = TRUE;
  if (!app->eos_sent && app->playing) {
    g_printerr ("interrupted: finishing the stream (Ctrl-C again to stop now)\n");
    send_eos (app);
  } else {
    g_main_loop_quit (app->loop);
  }
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char **argv)
{
  gchar *element_name = NULL, *output = NULL;
  gint64 max_frames = 0;
  gchar **rest = NULL;
  GError *err = NULL;
  GOptionEntry entries[] = {
    {"element", 'e', 0, G_OPTION_ARG_STRING, &element_name,
        "Name of the gpucclblob element to watch (default: the first one)",
        "NAME"},
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &max_frames,
        "Stop (with EOS) after this many frames (default: until EOS)", "N"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
        "Write the JSON lines to FILE instead of standard output", "FILE"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
        "[PIPELINE-DESCRIPTION...]"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new (NULL);
  g_option_context_set_summary (ctx,
      "Runs a GStreamer pipeline that contains gpucclblob and prints one JSON\n"
      "line per frame with its blobs (id, track-id, area, bbox, centroid).\n"
      "The description is written as for gst-launch-1.0; the default is\n  "
      DEFAULT_DESCRIPTION);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_clear_error (&err);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (max_frames < 0) {
    g_printerr ("--frames must be >= 0\n");
    return EXIT_USAGE;
  }

  App app = { .max_frames = max_frames, .out = stdout };
  if (output && !(app.out = fopen (output, "w"))) {
    g_printerr ("cannot write %s: %s\n", output, g_strerror (errno));
    return EXIT_USAGE;
  }

  gchar *description = rest && rest[0] ? g_strjoinv (" ", rest)
      : g_strdup (DEFAULT_DESCRIPTION);
  app.pipeline = gst_parse_launch (description, &err);
  if (!app.pipeline || err) {
    g_printerr ("bad pipeline description: %s\n",
        err ? err->message : "(unknown error)");
    g_clear_error (&err);
    g_free (description);
    if (app.pipeline)
      gst_object_unref (app.pipeline);
    return EXIT_USAGE;
  }
  g_free (description);
  if (!GST_IS_BIN (app.pipeline)) {   /* a single element: wrap it */
    GstElement *bin = gst_pipeline_new (NULL);
    gst_bin_add (GST_BIN (bin), app.pipeline);
    app.pipeline = bin;
  }

  GstElement *blob = element_name
      ? gst_bin_get_by_name (GST_BIN (app.pipeline), element_name)
      : find_by_factory (GST_BIN (app.pipeline), "gpucclblob");
  if (!blob) {
    g_printerr ("the pipeline has no gpucclblob element%s%s\n",
        element_name ? " named " : "", element_name ? element_name : "");
    gst_object_unref (app.pipeline);
    return EXIT_USAGE;
  }
  GstElement *appsink = find_by_factory (GST_BIN (app.pipeline), "appsink");
  if (appsink) {
    GstAppSinkCallbacks cb = {.new_sample = on_new_sample };
    gst_app_sink_set_callbacks (GST_APP_SINK (appsink), &cb, &app, NULL);
    gst_object_unref (appsink);
  } else {
    GstPad *src = gst_element_get_static_pad (blob, "src");
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_buffer_probe, &app,
        NULL);
    gst_object_unref (src);
  }
  gst_object_unref (blob);

  app.loop = g_main_loop_new (NULL, FALSE);
  GstBus *bus = gst_element_get_bus (app.pipeline);
  guint bus_watch = gst_bus_add_watch (bus, on_bus_message, &app);
  gst_object_unref (bus);
  guint sigint = g_unix_signal_add (SIGINT, on_sigint, &app);

  if (gst_element_set_state (app.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* The reason is on the bus as an error message: let it be printed. */
    app.status = EXIT_PIPELINE;
    GstBus *b = gst_element_get_bus (app.pipeline);
    GstMessage *msg = gst_bus_pop_filtered (b, GST_MESSAGE_ERROR);
    gst_object_unref (b);
    if (msg) {
      on_bus_message (NULL, msg, &app);
      gst_message_unref (msg);
    } else {
      g_printerr ("the pipeline failed to start\n");
    }
  } else {
    g_main_loop_run (app.loop);
  }

  gst_element_set_state (app.pipeline, GST_STATE_NULL);
  g_source_remove (sigint);
  g_source_remove (bus_watch);
  gst_object_unref (app.pipeline);
  g_main_loop_unref (app.loop);
  if (app.out != stdout)
    fclose (app.out);
  g_free (element_name);
  g_free (output);
  g_strfreev (rest);

  if (app.status)
    return app.status;
  return app.interrupted ? EXIT_INTERRUPTED : 0;
}
