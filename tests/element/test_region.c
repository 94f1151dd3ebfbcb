/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The region property (issue 27): only a rectangle of the frame is
 * labeled, and everything is reported in the frame's coordinates. The
 * oracle is OpenCV on the masked frame: the levels outside the rectangle
 * set to background, labeled whole, so boxes, sums and ids (raster order
 * of the frame restricted to the rectangle) come out in frame coordinates
 * without any shifting in the test. Blobs cut by the rectangle's edges,
 * rectangles partly or wholly outside the frame, 4:2:0 rounding, caps
 * changes, overlays, and bad values. */
#include "element_common.h"

#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>
#include <string.h>

#define W 64
#define H 48

/* levels with everything outside [x0, x1) x [y0, y1) (clipped) at 0. */
static guint8 *
masked (const guint8 * levels, gint w, gint h, gint x0, gint y0, gint x1,
    gint y1)
{
  guint8 *m = g_malloc0 ((gsize) w * h);

  for (gint y = MAX (y0, 0); y < MIN (y1, h); y++)
    for (gint x = MAX (x0, 0); x < MIN (x1, w); x++)
      m[y * w + x] = levels[y * w + x];
  return m;
}

/* One frame of `format` through "region=<region>": its table and ROI
 * metas must be the oracle's on the levels masked to the rectangle. */
static void
check_region (GstVideoFormat format, gint w, gint h, const gchar * region,
    gint x0, gint y0, gint x1, gint y1, guint32 seed)
{
  /* GRAY16: level << 8 plus junk in the low byte (element_make_frame). */
  gchar *props = g_strdup_printf ("region=%s threshold=%d", region,
      format == GST_VIDEO_FORMAT_GRAY16_LE ? 32767 : 127);
  GstHarness *h_ = element_harness_new (props);
  guint8 *levels = element_levels_random (w, h, 0.45, 2, seed);
  guint8 *m = masked (levels, w, h, x0, y0, x1, y1);
  GstVideoInfo info;
  Expected e;
  GstBuffer *out;

  gst_video_info_set_format (&info, format, w, h);
  gst_harness_set_src_caps (h_, element_caps (format, w, h));
  expected_compute (&e, m, w, h, 127, FALSE, 8);
  out = element_push_pull (h_, element_make_frame (&info, levels, "luma",
          seed));
  check_buffer_blobs (out, &e, NULL, 0);
  gst_buffer_unref (out);
  expected_clear (&e);
  gst_harness_teardown (h_);
  g_free (m);
  g_free (levels);
  g_free (props);
}

/* An odd corner inside the frame: blobs cut on all four edges. */
GST_START_TEST (test_region_inside)
{
  check_region (GST_VIDEO_FORMAT_GRAY8, W, H, "<13,7,30,25>", 13, 7, 43, 32,
      1);
  check_region (GST_VIDEO_FORMAT_GRAY16_LE, W, H, "<5,11,41,20>", 5, 11, 46,
      31, 2);
  check_region (GST_VIDEO_FORMAT_BGRx, W, H, "<9,3,17,40>", 9, 3, 26, 43, 3);
}

GST_END_TEST;

/* Partly outside: clipped; wholly outside: no blobs. */
GST_START_TEST (test_region_clipped)
{
  check_region (GST_VIDEO_FORMAT_GRAY8, W, H, "<-5,30,40,100>", 0, 30, 35,
      H, 4);
  check_region (GST_VIDEO_FORMAT_GRAY8, W, H, "<50,-9,1000,20>", 50, 0, W,
      11, 5);
  check_region (GST_VIDEO_FORMAT_GRAY8, W, H, "<64,0,10,10>", 0, 0, 0, 0, 6);
  check_region (GST_VIDEO_FORMAT_GRAY8, W, H, "<-20,-20,20,20>", 0, 0, 0, 0,
      7);
}

GST_END_TEST;

/* 4:2:0: the left and top edges rounded down to even. */
GST_START_TEST (test_region_420_rounded)
{
  check_region (GST_VIDEO_FORMAT_I420, W, H, "<13,7,30,25>", 12, 6, 43, 32,
      8);
  check_region (GST_VIDEO_FORMAT_NV12, W, H, "<20,10,31,21>", 20, 10, 51,
      31, 9);
}

GST_END_TEST;

/* One element, caps of another size: the region is clipped anew. */
GST_START_TEST (test_region_follows_caps)
{
  GstHarness *h = element_harness_new ("region=<13,7,30,25>");
  const gint sizes[][2] = { {W, H}, {32, 24}, {W, H} };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    const gint w = sizes[i][0], hh = sizes[i][1];
    guint8 *levels = element_levels_random (w, hh, 0.45, 2, 20 + i);
    guint8 *m = masked (levels, w, hh, 13, 7, 43, 32);
    GstVideoInfo info;
    Expected e;
    GstBuffer *out;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hh);
    gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, w,
            hh));
    expected_compute (&e, m, w, hh, 127, FALSE, 8);
    out = element_push_pull (h, element_make_frame (&info, levels, "luma",
            i));
    check_buffer_blobs (out, &e, NULL, 0);
    gst_buffer_unref (out);
    expected_clear (&e);
    g_free (m);
    g_free (levels);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Overlays: the frame with a region must be the masked frame's output
 * inside the rectangle (same blobs, boxes drawn at the same places) and
 * untouched outside it (labels paint the background too, so the masked
 * frame's outside is no reference). A chroma sample that straddles the
 * rectangle's edge is neither. */
static void
check_overlays (GstVideoFormat format, const gchar * draw)
{
  const gint x0 = 14, y0 = 8, x1 = 44, y1 = 33;
  gchar *props = g_strdup_printf ("draw=%s region=<14,8,30,25>", draw);
  gchar *plain = g_strdup_printf ("draw=%s", draw);
  GstHarness *hr = element_harness_new (props), *hm = element_harness_new
      (plain);
  guint8 *levels = element_levels_random (W, H, 0.3, 3, 11);
  guint8 *m = masked (levels, W, H, x0, y0, x1, y1);
  GstVideoInfo info;
  GstBuffer *in, *out_r, *out_m;
  GstVideoFrame fi, fr, fm;

  gst_video_info_set_format (&info, format, W, H);
  gst_harness_set_src_caps (hr, element_caps (format, W, H));
  gst_harness_set_src_caps (hm, element_caps (format, W, H));
  in = element_make_frame (&info, levels, "luma", 11);
  out_r = element_push_pull (hr, gst_buffer_copy_deep (in));
  out_m = element_push_pull (hm, element_make_frame (&info, m, "luma", 11));
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fr, &info, out_r, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fm, &info, out_m, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
    const gint pw = GST_VIDEO_FRAME_COMP_WIDTH (&fi, p) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, p);
    const gint ph = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p);
    /* Pixels of this plane per frame pixel: 1 on the labeled plane. */
    const gint sx = W / GST_VIDEO_FRAME_COMP_WIDTH (&fi, p);
    const gint sy = H / ph;
    const gint bpp = GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, p);

    for (gint y = 0; y < ph; y++)
      for (gint b = 0; b < pw; b++) {
        const gint x = b / bpp;
        const gboolean inside = x * sx >= x0 && (x + 1) * sx <= x1 &&
            y * sy >= y0 && (y + 1) * sy <= y1;
        const gboolean outside = (x + 1) * sx <= x0 || x * sx >= x1 ||
            (y + 1) * sy <= y0 || y * sy >= y1;
        const guint8 *pr = GST_VIDEO_FRAME_PLANE_DATA (&fr, p);
        const guint8 *pm = GST_VIDEO_FRAME_PLANE_DATA (&fm, p);
        const guint8 *pi = GST_VIDEO_FRAME_PLANE_DATA (&fi, p);
        const gsize sr = GST_VIDEO_FRAME_PLANE_STRIDE (&fr, p);
        const gsize sm = GST_VIDEO_FRAME_PLANE_STRIDE (&fm, p);
        const gsize si = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p);
        const guint8 want = inside ? pm[y * sm + b] : pi[y * si + b];

        if (!inside && !outside)
          continue;

        fail_unless (pr[y * sr + b] == want, "%s %s plane %u byte %d,%d: "
            "%u, want %u", gst_video_format_to_string (format), draw, p, b, y,
            pr[y * sr + b], want);
      }
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fr);
  gst_video_frame_unmap (&fm);
  gst_buffer_unref (in);
  gst_buffer_unref (out_r);
  gst_buffer_unref (out_m);
  gst_harness_teardown (hr);
  gst_harness_teardown (hm);
  g_free (m);
  g_free (levels);
  g_free (props);
  g_free (plain);
}

GST_START_TEST (test_region_overlays)
{
  check_overlays (GST_VIDEO_FORMAT_GRAY8, "boxes+centroids+labels");
  check_overlays (GST_VIDEO_FORMAT_I420, "boxes+centroids+labels");
  check_overlays (GST_VIDEO_FORMAT_NV12, "boxes+centroids");
  check_overlays (GST_VIDEO_FORMAT_RGBA, "boxes+centroids+labels");
}

GST_END_TEST;

/* The tracker sees frame coordinates: each appeared track's centroid is
 * its blob's in the oracle, in blob order (ids 1, 2, ...). */
GST_START_TEST (test_region_tracks)
{
  GstHarness *h = element_harness_new ("region=<13,7,30,25> track=true "
      "post-track-events=true");
  guint8 *levels = element_levels_random (W, H, 0.45, 2, 31);
  guint8 *m = masked (levels, W, H, 13, 7, 43, 32);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstMessage *msg;
  Expected e;
  guint n = 0;

  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  expected_compute (&e, m, W, H, 127, FALSE, 8);
  gst_buffer_unref (element_push_pull (h, element_make_frame (&info, levels,
              "luma", 31)));
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint id;
    gdouble cx, cy;

    fail_unless (gst_structure_has_name (s, "gpucclblob-track-appeared"));
    fail_unless (gst_structure_get (s, "id", G_TYPE_UINT, &id, "centroid-x",
            G_TYPE_DOUBLE, &cx, "centroid-y", G_TYPE_DOUBLE, &cy, NULL));
    fail_unless (id >= 1 && id <= e.n);
    fail_unless (G_APPROX_VALUE (cx, e.stats[id - 1].cx, 1e-9) &&
        G_APPROX_VALUE (cy, e.stats[id - 1].cy, 1e-9), "blob %u at %f,%f",
        id, cx, cy);
    gst_message_unref (msg);
    n++;
  }
  fail_unless (n == e.n && n > 0, "%u tracks for %u blobs", n, e.n);
  expected_clear (&e);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (m);
  g_free (levels);
}

GST_END_TEST;

/* A bad value: a warning on the bus, the region as it was. */
GST_START_TEST (test_region_bad_values)
{
  const gchar *bad[] = { "<1,2,3>", "<1,2,0,5>", "<1,2,5,-1>",
    "<1,2,3,4,5>"
  };
  GstElement *e = gst_element_factory_make ("gpucclblob", NULL);
  GstBus *bus = gst_bus_new ();
  const gint want[4] = { 1, 2, 30, 40 };
  GValue v = G_VALUE_INIT;

  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "region", "<1,2,30,40>");
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstMessage *msg;

    gst_util_set_object_arg (G_OBJECT (e), "region", bad[i]);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no warning for %s", bad[i]);
    gst_message_unref (msg);
    g_value_init (&v, GST_TYPE_ARRAY);
    g_object_get_property (G_OBJECT (e), "region", &v);
    fail_unless_equals_int (gst_value_array_get_size (&v), 4);
    for (guint k = 0; k < 4; k++)
      fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v,
                  k)), want[k]);
    g_value_unset (&v);
  }
  /* Empty: the whole frame again. */
  gst_util_set_object_arg (G_OBJECT (e), "region", "<>");
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "region", &v);
  fail_unless_equals_int (gst_value_array_get_size (&v), 0);
  g_value_unset (&v);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* mask (W x H, stride W) as a GRAY8 PNG at path, written by GStreamer. */
static void
write_png (const gchar * path, const guint8 * mask)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=video/x-raw,"
      "format=GRAY8,width=%d,height=%d,framerate=0/1 ! pngenc ! filesink "
      "location=\"%s\"", W, H, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstVideoInfo info;
  GstBuffer *buf;
  GstMessage *msg;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  buf = element_make_frame (&info, mask, "luma", 0);
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless (gst_app_src_push_buffer (GST_APP_SRC (src), buf) ==
      GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 5 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
  g_free (desc);
}

/* mask-location: a PNG mask, alone and with a region (the oracle on the
 * levels zeroed where the mask is 0 and outside the region); then a mask
 * of another size is an element error naming both sizes. */
GST_START_TEST (test_mask_file)
{
  gchar *dir = g_dir_make_tmp ("gpucclblob-mask-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "mask.png", NULL);
  guint8 *levels = element_levels_random (W, H, 0.5, 2, 11);
  guint8 *mask = g_malloc ((gsize) W * H);
  GstVideoInfo info;

  for (gint i = 0; i < W * H; i++)
    mask[i] = (i % W) / 8 % 3 == 1 || (i / W) / 5 % 4 == 2 ? 0 : 200;
  write_png (path, mask);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  for (gint with_region = 0; with_region < 2; with_region++) {
    gchar *props = g_strdup_printf ("mask-location=\"%s\" %s", path,
        with_region ? "region=<7,5,40,30>" : "");
    GstHarness *h = element_harness_new (props);
    guint8 *m = with_region ? masked (levels, W, H, 7, 5, 47, 35) :
        g_memdup2 (levels, (gsize) W * H);
    Expected e;
    GstBuffer *out;

    for (gint i = 0; i < W * H; i++)
      m[i] = mask[i] ? m[i] : 0;
    gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W,
            H));
    expected_compute (&e, m, W, H, 127, FALSE, 8);
    fail_unless (e.n > 3, "the oracle finds %u blobs", e.n);
    out = element_push_pull (h, element_make_frame (&info, levels, "luma",
            12));
    check_buffer_blobs (out, &e, NULL, 0);
    gst_buffer_unref (out);
    expected_clear (&e);
    gst_harness_teardown (h);
    g_free (m);
    g_free (props);
  }
  {
    gchar *props = g_strdup_printf ("mask-location=\"%s\"", path);
    GstHarness *h = element_harness_new (props);
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *err = NULL;

    gst_element_set_bus (h->element, bus);
    gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8,
            W + 2, H));
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W + 2, H);
    gst_harness_push (h, gst_buffer_new_allocate (NULL, info.size, NULL));
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "no error for a mask of another size");
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, "64x48") && strstr (err->message,
            "66x48"), "%s", err->message);
    g_error_free (err);
    gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (props);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (mask);
  g_free (levels);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* measure-intensity puts each listed blob's sum, min, max and mean in the
 * frame's message (with a region: in frame coordinates, the oracle's ids);
 * without it the message has none. Oracle: OpenCV's labels of the masked
 * levels, the levels summed under each label here. */
static void
message_blobs (const gchar * props, const guint8 * levels, GstStructure ** s)
{
  GstHarness *h = element_harness_new (props);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  gst_buffer_unref (element_push_pull (h, element_make_frame (&info, levels,
              "luma", 21)));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no message");
  *s = gst_structure_copy (gst_message_get_structure (msg));
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_message_intensity)
{
  guint8 *levels = element_levels_random (W, H, 0.45, 2, 20);
  guint8 *m = masked (levels, W, H, 7, 5, 47, 35);
  guint8 *binary = g_malloc ((gsize) W * H);
  guint32 *labels = g_malloc ((gsize) W * H * sizeof *labels);
  guint64 sum[W * H / 2 + 1] = { 0 };
  guint lo[W * H / 2 + 1], hi[W * H / 2 + 1] = { 0 };
  GstStructure *s;
  const GValue *list;
  long n;

  for (gint i = 0; i < W * H; i++)
    binary[i] = m[i] > 127 ? 255 : 0;
  n = oracle_opencv (binary, W, H, W, 8, labels, NULL, 0);
  fail_unless (n > 3, "the oracle finds %ld blobs", n);
  memset (lo, 0xff, sizeof lo);
  for (gint i = 0; i < W * H; i++) {
    guint32 l = labels[i];
    if (!l)
      continue;
    sum[l] += m[i];
    lo[l] = MIN (lo[l], m[i]);
    hi[l] = MAX (hi[l], m[i]);
  }

  message_blobs ("region=<7,5,40,30> threshold=127 post-messages=true "
      "max-roi-metas=0 measure-intensity=true", levels, &s);
  list = gst_structure_get_value (s, "blobs");
  fail_unless_equals_int (gst_value_list_get_size (list), n);
  for (guint i = 0; i < (guint) n; i++) {
    const GstStructure *b =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    guint id, bmin, bmax;
    guint64 area, bsum;
    gdouble mean;
    fail_unless (gst_structure_get (b, "id", G_TYPE_UINT, &id,
            "area", G_TYPE_UINT64, &area,
            "intensity-sum", G_TYPE_UINT64, &bsum,
            "intensity-min", G_TYPE_UINT, &bmin,
            "intensity-max", G_TYPE_UINT, &bmax,
            "intensity-mean", G_TYPE_DOUBLE, &mean, NULL),
        "listed blob %u: no id, area or intensity fields", i);
    fail_unless (id >= 1 && id <= (guint) n);
    fail_unless_equals_uint64 (bsum, sum[id]);
    fail_unless_equals_int (bmin, lo[id]);
    fail_unless_equals_int (bmax, hi[id]);
    fail_unless (G_APPROX_VALUE (mean, (gdouble) sum[id] / area, 1e-9));
  }
  gst_structure_free (s);

  message_blobs ("region=<7,5,40,30> threshold=127 post-messages=true "
      "max-roi-metas=0", levels, &s);
  list = gst_structure_get_value (s, "blobs");
  fail_unless_equals_int (gst_value_list_get_size (list), n);
  fail_if (gst_structure_has_field (gst_value_get_structure
          (gst_value_list_get_value (list, 0)), "intensity-sum"),
      "intensities without measure-intensity");
  gst_structure_free (s);
  g_free (labels);
  g_free (binary);
  g_free (m);
  g_free (levels);
}

GST_END_TEST;

static Suite *
region_suite (void)
{
  Suite *s = suite_create ("gpucclblob-region");
  TCase *tc = tcase_create ("region");

  tcase_add_test (tc, test_region_inside);
  tcase_add_test (tc, test_region_clipped);
  tcase_add_test (tc, test_region_420_rounded);
  tcase_add_test (tc, test_region_follows_caps);
  tcase_add_test (tc, test_region_overlays);
  tcase_add_test (tc, test_region_tracks);
  tcase_add_test (tc, test_region_bad_values);
  tcase_add_test (tc, test_mask_file);
  tcase_add_test (tc, test_message_intensity);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, region_suite);
}
