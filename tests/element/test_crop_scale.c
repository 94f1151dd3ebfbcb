/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob between the elements that change a frame's geometry
 * (issue 28), its blobs against OpenCV on the pixels it really sees:
 *
 *  - videocrop upstream and downstream: the element must reach EOS
 *    (before, downstream's GstVideoCropMeta support went upstream, the
 *    upstream videocrop cropped by meta and the element refused every
 *    buffer) with the blobs of the cropped frame;
 *  - videoscale with borders (add-borders, another display aspect ratio):
 *    the table and the ROI metas must follow the picture into its
 *    letterbox (before, they were scaled as if it filled the frame). */
#include "element_common.h"

#include <gst/app/gstappsrc.h>
#include <math.h>

#define W 64
#define H 48

typedef struct
{
  GstElement *pipeline;
  GPtrArray *seen;              /* buffers at gpucclblob's src pad */
} Run;

static GstPadProbeReturn
keep_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run *run = data;

  g_ptr_array_add (run->seen, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER
          (info)));
  return GST_PAD_PROBE_OK;
}

/* appsrc (W x H GRAY8 frames of `levels`, n of them) ! `middle`, where
 * `middle` has a gpucclblob named ccl; runs to EOS (an error fails) and
 * returns what came out of ccl. `probe` names the element whose src pad
 * is watched. */
static GPtrArray *
run_pipeline (const gchar * middle, const guint8 * levels, guint n,
    const gchar * probe)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s ! "
      "fakesink name=sink sync=false", middle);
  GError *err = NULL;
  Run run = { gst_parse_launch (desc, &err),
    g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref)
  };
  GstElement *src, *ccl, *watched;
  GstVideoInfo info;
  GstMessage *msg;
  GstCaps *caps;
  GstPad *pad;

  fail_unless (run.pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  src = gst_bin_get_by_name (GST_BIN (run.pipeline), "src");
  ccl = gst_bin_get_by_name (GST_BIN (run.pipeline), "ccl");
  watched = gst_bin_get_by_name (GST_BIN (run.pipeline), probe);
  gst_util_set_object_arg (G_OBJECT (ccl), "backend", test_backend ());
  gst_util_set_object_arg (G_OBJECT (ccl), "max-roi-metas", "0");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  caps = element_caps (GST_VIDEO_FORMAT_GRAY8, W, H);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  pad = gst_element_get_static_pad (watched, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, &run, NULL);
  gst_object_unref (pad);

  gst_element_set_state (run.pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = element_make_frame (&info, levels, "luma", i);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (run.pipeline),
      10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS in 10 s", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", desc, err->message);
  }
  gst_message_unref (msg);
  gst_element_set_state (run.pipeline, GST_STATE_NULL);
  fail_unless_equals_int (run.seen->len, n);
  gst_object_unref (src);
  gst_object_unref (ccl);
  gst_object_unref (watched);
  gst_object_unref (run.pipeline);
  g_free (desc);
  return run.seen;
}

/* videocrop on both sides: the blobs of rows 8..47, in the cropped frame's
 * coordinates. */
GST_START_TEST (test_crop_both_sides)
{
  guint8 *levels = element_levels_random (W, H, 0.3, 4, 2801);
  Expected e;
  GPtrArray *seen = run_pipeline ("videocrop top=8 ! gpucclblob name=ccl ! "
      "videocrop bottom=2", levels, 3, "ccl");

  expected_compute (&e, levels + 8 * W, W, H - 8, 127, FALSE, 8);
  for (guint i = 0; i < seen->len; i++)
    check_buffer_blobs (g_ptr_array_index (seen, i), &e, NULL, 0);
  expected_clear (&e);
  g_ptr_array_unref (seen);
  g_free (levels);
}

GST_END_TEST;

/* The pixels a range [a, b] of n_in covers, scaled to n_out and moved by
 * `at`: the blob's box in the letterbox (exact for integral factors). */
static void
box_in_letterbox (guint a, guint b, guint factor, guint at, guint * a2,
    guint * b2)
{
  *a2 = a * factor + at;
  *b2 = (b + 1) * factor - 1 + at;
}

/* One blob of the scaled table (and its ROI meta) against the oracle's,
 * scaled by `factor` into the picture at (ox, oy). */
static void
check_letterboxed (GstCclBlobMeta * meta, GstBuffer * buf,
    const Expected * e, guint factor, guint ox, guint oy)
{
  fail_unless_equals_int (meta->n_blobs, e->n);
  for (guint i = 0; i < e->n; i++) {
    const OracleStats *s = &e->stats[i];
    const GstCclBlob *b = &meta->blobs[i];
    guint x0, x1, y0, y1;
    gdouble cx, cy;
    GstVideoRegionOfInterestMeta *roi;

    box_in_letterbox (s->x0, s->x1, factor, ox, &x0, &x1);
    box_in_letterbox (s->y0, s->y1, factor, oy, &y0, &y1);
    fail_unless (b->x0 == x0 && b->x1 == x1 && b->y0 == y0 && b->y1 == y1,
        "blob %u: (%u,%u)-(%u,%u), truth (%u,%u)-(%u,%u)", i + 1, b->x0,
        b->y0, b->x1, b->y1, x0, y0, x1, y1);
    gst_ccl_blob_get_centroid (b, &cx, &cy);
    /* Pixel centres at +0.5; the sums follow the area to 0.5 / area. */
    fail_unless (fabs (cx - ((s->cx + 0.5) * factor - 0.5 + ox)) < 0.51 &&
        fabs (cy - ((s->cy + 0.5) * factor - 0.5 + oy)) < 0.51,
        "blob %u centroid %f,%f", i + 1, cx, cy);
    roi = gst_buffer_get_video_region_of_interest_meta_id (buf, b->id);
    fail_unless (roi != NULL, "no ROI meta for blob %u", b->id);
    fail_unless (roi->x == x0 && roi->y == y0 && roi->w == x1 - x0 + 1 &&
        roi->h == y1 - y0 + 1, "ROI %u: %u,%u %ux%u, truth (%u,%u)-(%u,%u)",
        b->id, roi->x, roi->y, roi->w, roi->h, x0, y0, x1, y1);
  }
}

/* 64x48 (4:3) scaled into 128x128 square pixels: a 128x96 picture with
 * 16 rows of border above and below; into 256x96: 128x96 with 64
 * columns either side. */
GST_START_TEST (test_scale_letterbox)
{
  static const struct
  {
    guint w, h, ox, oy;
  } out[] = { {128, 128, 0, 16}, {256, 96, 64, 0}, {128, 96, 0, 0} };
  guint8 *levels = element_levels_random (W, H, 0.2, 6, 2802);
  Expected e;

  expected_compute (&e, levels, W, H, 127, FALSE, 8);
  for (guint k = 0; k < G_N_ELEMENTS (out); k++) {
    gchar *middle = g_strdup_printf ("gpucclblob name=ccl ! videoscale "
        "name=scale add-borders=true ! video/x-raw,width=%u,height=%u,"
        "pixel-aspect-ratio=1/1", out[k].w, out[k].h);
    GPtrArray *seen = run_pipeline (middle, levels, 2, "scale");

    for (guint i = 0; i < seen->len; i++) {
      GstBuffer *buf = g_ptr_array_index (seen, i);
      GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);

      fail_unless (meta != NULL, "%ux%u: no table", out[k].w, out[k].h);
      fail_unless (meta->width == out[k].w && meta->height == out[k].h);
      check_letterboxed (meta, buf, &e, 2, out[k].ox, out[k].oy);
    }
    g_ptr_array_unref (seen);
    g_free (middle);
  }
  expected_clear (&e);
  g_free (levels);
}

GST_END_TEST;

static Suite *
crop_scale_suite (void)
{
  Suite *s = suite_create ("gpucclblob-crop-scale");
  TCase *tc = tcase_create ("crop-scale");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_crop_both_sides);
  tcase_add_test (tc, test_scale_letterbox);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, crop_scale_suite);
}
