/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C sample of docs/install.md and docs/metadata.md: a user's program
 * built against an installed gpucclblob or the build tree (pkg-config
 * gstcclblobmeta, or its uninstalled .pc) that runs the element on three
 * frames of a moving ball and reads each frame's blob table in a pad
 * probe, with the README's loop. Exit 0 when every frame had one blob on
 * track 1. */
#include <gpucclblob/gstcclblobmeta.h>

static guint frames_ok;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buffer);

  for (guint i = 0; meta && i < meta->n_blobs; i++) {
    const GstCclBlob *b = &meta->blobs[i];
    gdouble cx, cy;

    gst_ccl_blob_get_centroid (b, &cx, &cy);
    g_print ("track %u: %u px at %.1f, %.1f, box %u,%u-%u,%u\n",
        gst_ccl_blob_meta_get_track_id (meta, i), b->area, cx, cy,
        b->x0, b->y0, b->x1, b->y1);
  }
  if (meta && meta->n_blobs == 1 && gst_ccl_blob_meta_get_track_id (meta, 0) == 1)
    frames_ok++;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;

  gst_init (&argc, &argv);
  GstElement *pipeline = gst_parse_launch ("videotestsrc pattern=ball "
      "num-buffers=3 ! video/x-raw,width=320,height=240 ! gpucclblob "
      "name=blob track=true ! fakesink", &error);
  if (!pipeline) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  GstElement *blob = gst_bin_get_by_name (GST_BIN (pipeline), "blob");
  GstPad *pad = gst_element_get_static_pad (blob, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (blob);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean eos = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && !eos) {
    gst_message_parse_error (msg, &error, NULL);
    g_printerr ("error: %s\n", error->message);
    g_clear_error (&error);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return eos && frames_ok == 3 ? 0 : 1;
}
