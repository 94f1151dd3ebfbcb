/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fault injection into the gpucclblob element: with GPUCCL_FAULT=SITE:N
 * (see fault_loop.h) a pipeline videotestsrc ! gpucclblob ! fakesink meets
 * one failed allocation (or launch). The element must post a clear error
 * (or, with backend=auto and a CUDA failure, fall back to the CPU with a
 * warning and finish the stream), the pipeline must shut down and free
 * everything, and a new pipeline in the same process must run to the end.
 * Run under valgrind or with GST_TRACERS=leaks (the 'memcheck' suite) to
 * check the "frees everything".
 *
 * GPUCCL_TEST_BACKEND=cuda (or auto) runs it on the GPU; exit 77 there
 * without a device. */
#include "fault_loop.h"
#include "frames.h"

#include <stdlib.h>
#include <string.h>

typedef enum { RAN_EOS, RAN_ERROR, RAN_FALLBACK, RAN_BROKEN } Outcome;

/* Run one pipeline to its end; report what happened. */
static Outcome
run (const gchar * caps, const gchar * extra)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=6 pattern=ball ! "
      "%s ! gpucclblob name=ccl backend=%s %s ! fakesink", caps,
      rel_backend (), extra);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstBus *bus;
  Outcome outcome = RAN_BROKEN;
  gboolean warned = FALSE;

  if (!pipe) {
    g_printerr ("cannot build %s: %s\n", desc, err->message);
    exit (FAULT_FAILED);
  }
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *e = NULL;
    gchar *debug = NULL;
    GstMessageType type;

    if (!msg) {
      g_printerr ("%s: neither EOS nor an error within 60 s\n", desc);
      break;
    }
    type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_EOS) {
      outcome = warned ? RAN_FALLBACK : RAN_EOS;
      gst_message_unref (msg);
      break;
    }
    if (type == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &e, &debug);
      g_print ("warning from %s: %s\n", GST_OBJECT_NAME (msg->src),
          e->message);
      warned = TRUE;
    } else {
      gst_message_parse_error (msg, &e, &debug);
      g_print ("error from %s: %s (%s)\n", GST_OBJECT_NAME (msg->src),
          e->message, GST_STR_NULL (debug));
      /* An allocation for the element's buffer pool fails in upstream's
       * thread, so the error may come from upstream; it must have text. */
      if (e->message[0])
        outcome = RAN_ERROR;
      else
        g_printerr ("an error without text\n");
    }
    g_clear_error (&e);
    g_free (debug);
    gst_message_unref (msg);
    if (type == GST_MESSAGE_ERROR)
      break;
  }
  if (gst_element_set_state (pipe, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE)
    outcome = RAN_BROKEN;
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
  return outcome;
}

static int
workload (void)
{
  /* Two streams that allocate differently: gray with overlays and the
   * label image, RGBA growing the buffers. */
  static const gchar *const streams[][2] = {
    {"video/x-raw,format=GRAY8,width=320,height=240",
        "draw=boxes+centroids+labels"},
    {"video/x-raw,format=RGBA,width=640,height=480", "track=true"},
  };
  gboolean hit = FALSE;

  gst_init (NULL, NULL);
  rel_backend ();               /* exits 77 for cuda without a device */
  for (guint i = 0; i < G_N_ELEMENTS (streams) && !hit; i++) {
    Outcome o = run (streams[i][0], streams[i][1]);
    if (o == RAN_BROKEN)
      return FAULT_FAILED;
    hit = fault_was_hit ();
    if (hit)
      g_print ("GPUCCL_FAULT=%s: %s\n", g_getenv ("GPUCCL_FAULT"),
          o == RAN_ERROR ? "error posted" : o == RAN_FALLBACK ?
          "fell back with a warning" : "absorbed, stream complete");
    else if (o != RAN_EOS) {
      g_printerr ("an error or warning without the injected fault\n");
      return FAULT_FAILED;
    }
  }
  if (hit) {
    /* the fault happens once: a new pipeline must now just work */
    for (guint i = 0; i < G_N_ELEMENTS (streams); i++)
      if (run (streams[i][0], streams[i][1]) != RAN_EOS) {
        g_printerr ("a new pipeline failed after the fault\n");
        return FAULT_FAILED;
      }
  }
  /* With GST_TRACERS=leaks, gst_deinit() reports what is still alive as
   * a warning: make it fatal so a leak fails the case. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  gst_deinit ();
  return hit ? FAULT_HANDLED : FAULT_NOT_HIT;
}

int
main (int argc, char **argv)
{
  static const char *const sites[] = { "alloc", "launch", NULL };
  static const char *const required[] = { "alloc", NULL };

  (void) argc;
  return fault_loop (argv, sites, required, workload);
}
