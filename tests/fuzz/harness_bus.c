/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See harness_bus.h. */
#include "harness_bus.h"
#include "frames.h"

#include <gst/check/gstcheck.h>

GstHarness *
rel_harness_with_bus (const gchar * props, GstBus ** bus)
{
  GstHarness *h = gst_harness_new ("gpucclblob");
  gchar **kv = g_strsplit (props ? props : "", " ", -1);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", rel_backend ());
  /* Every rectangle as a ROI meta (no cap): each is checked. */
  gst_util_set_object_arg (G_OBJECT (h->element), "max-roi-metas", "0");
  for (gchar ** p = kv; *p; p++) {
    gchar *eq = strchr (*p, '=');
    if (!eq)
      continue;
    *eq = '\0';
    gst_util_set_object_arg (G_OBJECT (h->element), *p, eq + 1);
  }
  g_strfreev (kv);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

gchar *
rel_expect_error (GstBus * bus, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *debug = NULL, *text;

  fail_unless (msg != NULL, "%s: no error message on the bus", what);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (err && err->message && *err->message,
      "%s: an error without a message", what);
  GST_INFO ("%s: %s (%s)", what, err->message, GST_STR_NULL (debug));
  text = g_strdup (err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_bus_set_flushing (bus, TRUE);     /* drop the rest */
  gst_bus_set_flushing (bus, FALSE);
  return text;
}

void
rel_expect_good_frame (GstHarness * h, GstVideoFormat format, guint w,
    guint hgt)
{
  GstVideoInfo info;
  guint8 *mask = g_malloc ((gsize) w * hgt);
  RelRect rects[8];
  GRand *rand = g_rand_new_with_seed (w * 1000 + hgt);
  guint n = rel_mask_rects (mask, w, hgt, rand, rects, 8);
  GstBuffer *out;
  gchar *why = NULL;

  gst_video_info_set_format (&info, format, w, hgt);
  gst_harness_set_src_caps (h, rel_caps_new (format, w, hgt));
  fail_unless_equals_int (gst_harness_push (h, rel_buffer_new (&info, mask)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (rel_rois_match (out, rects, n, &why), "%s", why);
  gst_buffer_unref (out);
  g_free (mask);
  g_rand_free (rand);
}

void
rel_teardown_with_bus (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}
