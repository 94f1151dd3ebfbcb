/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob metadata against an independent oracle (OpenCV), for every
 * format, size, threshold mode and filter; the blob meta's copy and scale;
 * the bus message; tracking ids. */
#include "element_common.h"

#include "gstcclblobmeta.h"

static gint
threshold_for (GstVideoFormat format)
{
  /* GRAY16 samples are level << 8 | junk: > 32767 exactly when the
   * level is > 127. */
  return format == GST_VIDEO_FORMAT_GRAY16_LE ? 32767 : 127;
}

/* One frame of random levels through the element, checked against the
 * oracle. */
static void
run_oracle_case_with (const gchar * extra, GstVideoFormat format, gint width,
    gint height, gint connectivity, gboolean invert, const gchar * channel,
    gdouble density, gint granularity, guint32 seed)
{
  gchar *props = g_strdup_printf ("threshold=%d connectivity=%d invert=%d "
      "channel=%s %s", threshold_for (format), connectivity, invert, channel,
      extra ? extra : "");
  GstHarness *h = element_harness_new (props);
  GstCaps *caps = element_caps (format, width, height);
  guint8 *levels = element_levels_random (width, height, density,
      granularity, seed);
  GstVideoInfo info;
  Expected e;
  GstBuffer *out;

  GST_INFO ("%s %dx%d conn %d invert %d channel %s",
      gst_video_format_to_string (format), width, height, connectivity,
      invert, channel);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  out = element_push_pull (h, element_make_frame (&info, levels, channel,
          seed + 1));
  expected_compute (&e, levels, width, height, 127, invert, connectivity);
  check_buffer_blobs (out, &e, NULL, 0);

  expected_clear (&e);
  gst_buffer_unref (out);
  g_free (levels);
  g_free (props);
  gst_harness_teardown (h);
}

static void
run_oracle_case (GstVideoFormat format, gint width, gint height,
    gint connectivity, gboolean invert, const gchar * channel,
    gdouble density, gint granularity, guint32 seed)
{
  run_oracle_case_with (NULL, format, width, height, connectivity, invert,
      channel, density, granularity, seed);
}

GST_START_TEST (test_formats_vs_oracle)
{
  for (gsize f = 0; f < n_element_formats; f++) {
    run_oracle_case (element_formats[f], 97, 61, 8, FALSE, "luma", 0.45, 2,
        10 + f);
    run_oracle_case (element_formats[f], 97, 61, 4, FALSE, "luma", 0.55, 1,
        20 + f);
    run_oracle_case (element_formats[f], 64, 48, 8, TRUE, "luma", 0.5, 4,
        30 + f);
  }
}

GST_END_TEST;

GST_START_TEST (test_odd_sizes)
{
  static const gint sizes[][2] = { {1, 1}, {2, 1}, {1, 3}, {385, 289} };

  for (gsize f = 0; f < n_element_formats; f++)
    for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
      run_oracle_case (element_formats[f], sizes[s][0], sizes[s][1], 8,
          FALSE, "luma", 0.5, 1 + (gint) s, 40 + s);
}

GST_END_TEST;

GST_START_TEST (test_8k)
{
  run_oracle_case (GST_VIDEO_FORMAT_GRAY8, 7680, 4320, 8, FALSE, "luma",
      0.4, 8, 50);
  run_oracle_case (GST_VIDEO_FORMAT_NV12, 7680, 4320, 4, FALSE, "luma",
      0.6, 16, 51);
  run_oracle_case (GST_VIDEO_FORMAT_BGRx, 7680, 4320, 8, FALSE, "green",
      0.5, 32, 52);
}

GST_END_TEST;

/* Every algorithm the element offers gives the oracle's blobs (on the CPU
 * backend the choice is accepted and the CPU algorithm runs). */
GST_START_TEST (test_algorithms)
{
  GstElement *e = gst_element_factory_make ("gpucclblob", NULL);
  GParamSpec *pspec;
  GEnumClass *algorithms;

  fail_unless (e != NULL, "no gpucclblob element (GST_PLUGIN_PATH?)");
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "algorithm");
  algorithms = g_type_class_ref (pspec->value_type);

  gst_object_unref (e);
  for (guint a = 0; a < algorithms->n_values; a++) {
    gchar *extra = g_strdup_printf ("algorithm=%s",
        algorithms->values[a].value_nick);
    run_oracle_case_with (extra, GST_VIDEO_FORMAT_GRAY8, 385, 289, 8, FALSE,
        "luma", 0.45, 1 + a % 4, 140 + a);
    run_oracle_case_with (extra, GST_VIDEO_FORMAT_NV12, 97, 61, 8, TRUE,
        "luma", 0.6, 2, 150 + a);
    g_free (extra);
  }
  g_type_class_unref (algorithms);
}

GST_END_TEST;

GST_START_TEST (test_rgb_channels)
{
  static const gchar *channels[] = { "red", "green", "blue" };
  static const GstVideoFormat rgb[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx
  };

  for (gsize f = 0; f < G_N_ELEMENTS (rgb); f++)
    for (gsize c = 0; c < G_N_ELEMENTS (channels); c++)
      run_oracle_case (rgb[f], 71, 53, 8, FALSE, channels[c], 0.5, 2,
          60 + 3 * f + c);
}

GST_END_TEST;

GST_START_TEST (test_filters)
{
  const gint w = 160, hgt = 120;
  guint8 *levels = element_levels_random (w, hgt, 0.35, 3, 70);
  GstVideoInfo info;
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, w, hgt);
  Expected e;
  static const struct
  {
    guint64 min_area, max_area;
    guint max_blobs;
  } cases[] = {
    {5, 0, 0}, {0, 12, 0}, {4, 30, 0}, {0, 0, 7}, {3, 0, 10}, {0, 0, 1},
    {1000000, 0, 0},
  };

  fail_unless (gst_video_info_from_caps (&info, caps));
  expected_compute (&e, levels, w, hgt, 127, FALSE, 8);
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstHarness *h = element_harness_new (NULL);
    guint *kept, n_kept;
    GstBuffer *out;

    g_object_set (h->element, "min-area", cases[c].min_area, "max-area",
        cases[c].max_area, "max-blobs", cases[c].max_blobs, NULL);
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    out = element_push_pull (h, element_make_frame (&info, levels, "luma",
            71));
    n_kept = expected_filter (&e, cases[c].min_area, cases[c].max_area,
        cases[c].max_blobs, &kept);
    check_buffer_blobs (out, &e, kept, n_kept);
    g_free (kept);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
  expected_clear (&e);
  gst_caps_unref (caps);
  g_free (levels);
}

GST_END_TEST;

/* min-area and max-area are resolved per frame, not refused between two
 * g_object_set calls: from max-area=100, min-area=200 then max-area=500
 * while playing (a fatal "min area is above max area" before) gives one
 * frame of the crossed pair, an empty table, and then the new range. The
 * other order and the other direction too. */
GST_START_TEST (test_retune_area_range)
{
  const gint w = 160, hgt = 120;
  guint8 *levels = element_levels_random (w, hgt, 0.45, 6, 90);
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, w, hgt);
  GstVideoInfo info;
  Expected e;
  static const struct
  {
    const gchar *prop;
    guint64 value;
  } steps[] = {
    {"max-area", 100}, {"min-area", 200}, {"max-area", 500},
    {"max-area", 150}, {"min-area", 20}, {"min-area", 400}, {"max-area", 0},
  };
  GstHarness *h = element_harness_new (NULL);
  guint64 min_area = 0, max_area = 0;
  guint crossed = 0;

  fail_unless (gst_video_info_from_caps (&info, caps));
  expected_compute (&e, levels, w, hgt, 127, FALSE, 8);
  gst_harness_set_src_caps (h, caps);
  for (gsize i = 0; i < G_N_ELEMENTS (steps); i++) {
    guint *kept, n_kept;
    GstBuffer *out;

    g_object_set (h->element, steps[i].prop, steps[i].value, NULL);
    if (g_str_equal (steps[i].prop, "min-area"))
      min_area = steps[i].value;
    else
      max_area = steps[i].value;
    crossed += max_area != 0 && min_area > max_area;
    out = element_push_pull (h, element_make_frame (&info, levels, "luma",
            91));
    n_kept = expected_filter (&e, min_area, max_area, 0, &kept);
    fail_unless (n_kept > 0 || (max_area && min_area > max_area),
        "step %" G_GSIZE_FORMAT ": the scene has no blob in %" G_GUINT64_FORMAT
        "..%" G_GUINT64_FORMAT, i, min_area, max_area);
    check_buffer_blobs (out, &e, kept, n_kept);
    g_free (kept);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (crossed, 3);
  gst_harness_teardown (h);
  expected_clear (&e);
  g_free (levels);
}

GST_END_TEST;

GST_START_TEST (test_otsu)
{
  const gint w = 128, hgt = 96;
  guint8 *levels = element_levels_random (w, hgt, 0.3, 4, 80);
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, w, hgt);
  GstHarness *h = element_harness_new ("auto-threshold=otsu threshold=3");
  GstVideoInfo info;
  GstCclBlobMeta *meta;
  GstBuffer *out;
  Expected e;
  gint t = oracle_opencv_otsu (levels, w, hgt, w);

  fail_unless (t >= 0);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  out = element_push_pull (h, element_make_frame (&info, levels, "luma", 81));
  meta = gst_buffer_get_ccl_blob_meta (out);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->threshold, t);
  expected_compute (&e, levels, w, hgt, t, FALSE, 8);
  check_buffer_blobs (out, &e, NULL, 0);

  expected_clear (&e);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (levels);
}

GST_END_TEST;

/* Caps change mid-stream: each frame is labeled at its own size and
 * format. */
GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    GstVideoFormat format;
    gint w, h;
  } steps[] = {
    {GST_VIDEO_FORMAT_GRAY8, 64, 48},
    {GST_VIDEO_FORMAT_NV12, 385, 289},
    {GST_VIDEO_FORMAT_RGBA, 33, 17},
    {GST_VIDEO_FORMAT_GRAY8, 640, 480},
    {GST_VIDEO_FORMAT_I420, 31, 7},
  };
  GstHarness *h = element_harness_new (NULL);

  for (gsize s = 0; s < G_N_ELEMENTS (steps); s++) {
    GstCaps *caps = element_caps (steps[s].format, steps[s].w, steps[s].h);
    guint8 *levels = element_levels_random (steps[s].w, steps[s].h, 0.5, 2,
        90 + s);
    GstVideoInfo info;
    GstBuffer *out;
    Expected e;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    for (gint rep = 0; rep < 2; rep++) {
      out = element_push_pull (h, element_make_frame (&info, levels, "luma",
              91 + s));
      expected_compute (&e, levels, steps[s].w, steps[s].h, 127, FALSE, 8);
      check_buffer_blobs (out, &e, NULL, 0);
      expected_clear (&e);
      gst_buffer_unref (out);
    }
    g_free (levels);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBuffer *
rect_frame (const GstVideoInfo * info, const gint (*rects)[4], gsize n_rects)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), hgt = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *levels = g_malloc0 ((gsize) w * hgt);
  GstBuffer *buf;

  for (gsize r = 0; r < n_rects; r++)
    for (gint y = rects[r][1]; y <= rects[r][3]; y++)
      memset (levels + (gsize) y * w + rects[r][0], 255,
          rects[r][2] - rects[r][0] + 1);
  buf = element_make_frame (info, levels, "luma", 7);
  g_free (levels);
  return buf;
}

/* The meta survives gst_buffer_copy() and is scaled by videoscale. */
GST_START_TEST (test_meta_copy_and_scale)
{
  static const gint rects[][4] = { {10, 4, 19, 13}, {30, 20, 39, 23} };
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 64, 32);
  GstHarness *h = element_harness_new (NULL);
  GstHarness *hs;
  GstVideoInfo info;
  GstBuffer *out, *copy;
  GstCclBlobMeta *meta, *cmeta;
  gchar *desc;
  gdouble cx, cy;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  out = element_push_pull (h, rect_frame (&info, rects, 2));
  meta = gst_buffer_get_ccl_blob_meta (out);
  fail_unless (meta != NULL && meta->n_blobs == 2);
  fail_unless (meta->processing_ns > 0);

  copy = gst_buffer_copy (out);
  cmeta = gst_buffer_get_ccl_blob_meta (copy);
  fail_unless (cmeta != NULL && cmeta != meta);
  fail_unless_equals_int (cmeta->n_blobs, meta->n_blobs);
  fail_unless_equals_int (cmeta->threshold, meta->threshold);
  fail_unless_equals_uint64 (cmeta->processing_ns, meta->processing_ns);
  fail_unless_equals_uint64 (cmeta->tracking_ns, meta->tracking_ns);
  fail_unless (cmeta->blobs != meta->blobs);
  fail_unless (memcmp (cmeta->blobs, meta->blobs,
          meta->n_blobs * sizeof (GstCclBlob)) == 0);
  gst_buffer_unref (copy);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* Twice the size: boxes cover twice the pixels, centroids follow. */
  desc = g_strdup_printf ("gpucclblob backend=%s ! videoscale ! "
      "capsfilter caps=video/x-raw,width=128,height=64", test_backend ());
  hs = gst_harness_new_parse (desc);
  g_free (desc);
  gst_harness_set_src_caps (hs, caps);
  out = element_push_pull (hs, rect_frame (&info, rects, 2));
  meta = gst_buffer_get_ccl_blob_meta (out);
  fail_unless (meta != NULL, "videoscale dropped the blob meta");
  fail_unless_equals_int (meta->width, 128);
  fail_unless_equals_int (meta->height, 64);
  fail_unless_equals_int (meta->n_blobs, 2);
  fail_unless (meta->blobs[0].x0 == 20 && meta->blobs[0].x1 == 39 &&
      meta->blobs[0].y0 == 8 && meta->blobs[0].y1 == 27);
  fail_unless (meta->blobs[1].x0 == 60 && meta->blobs[1].x1 == 79 &&
      meta->blobs[1].y0 == 40 && meta->blobs[1].y1 == 47);
  /* Centre of x 10..19 is 14.5 → 29.5 at twice the size. */
  gst_ccl_blob_get_centroid (&meta->blobs[0], &cx, &cy);
  fail_unless (G_APPROX_VALUE (cx, 29.5, 1e-9));
  gst_ccl_blob_get_centroid (&meta->blobs[1], &cx, &cy);
  fail_unless (G_APPROX_VALUE (cy, 43.5, 1e-9));
  fail_unless_equals_uint64 (meta->blobs[0].area, 400);
  gst_buffer_unref (out);
  gst_harness_teardown (hs);
}

GST_END_TEST;

GST_START_TEST (test_message)
{
  static const gint rects[][4] = { {2, 2, 5, 5}, {10, 3, 20, 9} };
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_I420, 32, 16);
  GstHarness *h = element_harness_new ("post-messages=true");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMessage *msg;
  const GstStructure *s;
  const GValue *blobs;
  guint64 ts, stream_time, running_time, duration, spent;
  guint count;

  gst_element_set_bus (h->element, bus);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  in = rect_frame (&info, rects, 2);
  GST_BUFFER_PTS (in) = 2 * GST_SECOND;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  out = element_push_pull (h, in);
  gst_buffer_unref (out);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no element message");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (h->element));
  s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "gpucclblob"));
  fail_unless (gst_structure_get (s, "timestamp", G_TYPE_UINT64, &ts,
          "stream-time", G_TYPE_UINT64, &stream_time,
          "running-time", G_TYPE_UINT64, &running_time,
          "duration", G_TYPE_UINT64, &duration, "count", G_TYPE_UINT, &count,
          NULL), "message %" GST_PTR_FORMAT, s);
  /* The harness's segment starts at 0. */
  fail_unless_equals_uint64 (ts, 2 * GST_SECOND);
  fail_unless_equals_uint64 (stream_time, 2 * GST_SECOND);
  fail_unless_equals_uint64 (running_time, 2 * GST_SECOND);
  fail_unless_equals_uint64 (duration, GST_SECOND / 30);
  fail_unless_equals_int (count, 2);
  /* No tracking here: its time is there, and 0. */
  fail_unless (gst_structure_get (s, "processing-time", G_TYPE_UINT64,
          &spent, NULL) && spent > 0);
  fail_unless (gst_structure_get (s, "tracking-time", G_TYPE_UINT64,
          &spent, NULL) && spent == 0);
  blobs = gst_structure_get_value (s, "blobs");
  fail_unless (GST_VALUE_HOLDS_LIST (blobs));
  fail_unless_equals_int (gst_value_list_get_size (blobs), 2);
  for (guint i = 0; i < 2; i++) {
    const GstStructure *b =
        gst_value_get_structure (gst_value_list_get_value (blobs, i));
    guint id, x, y, bw, bh;
    guint64 area;
    gdouble cx, cy;
    fail_unless (gst_structure_get (b, "id", G_TYPE_UINT, &id,
            "x", G_TYPE_UINT, &x, "y", G_TYPE_UINT, &y,
            "width", G_TYPE_UINT, &bw, "height", G_TYPE_UINT, &bh,
            "area", G_TYPE_UINT64, &area, "centroid-x", G_TYPE_DOUBLE, &cx,
            "centroid-y", G_TYPE_DOUBLE, &cy, NULL));
    fail_unless (gst_structure_has_field_typed (b, "track-id", G_TYPE_UINT));
    fail_unless_equals_int (id, i + 1);
    fail_unless_equals_int (x, rects[i][0]);
    fail_unless_equals_int (y, rects[i][1]);
    fail_unless_equals_int (bw, rects[i][2] - rects[i][0] + 1);
    fail_unless_equals_int (bh, rects[i][3] - rects[i][1] + 1);
    fail_unless_equals_uint64 (area, (guint64) bw * bh);
    fail_unless (G_APPROX_VALUE (cx, (rects[i][0] + rects[i][2]) / 2.0, 1e-9));
    fail_unless (G_APPROX_VALUE (cy, (rects[i][1] + rects[i][3]) / 2.0, 1e-9));
  }
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL,
      "more than one message per frame");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* attach-meta=false leaves the buffer without blob metas. */
GST_START_TEST (test_attach_meta_off)
{
  static const gint rects[][4] = { {2, 2, 5, 5} };
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 16, 16);
  GstHarness *h = element_harness_new ("attach-meta=false");
  GstVideoInfo info;
  GstBuffer *out;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  out = element_push_pull (h, rect_frame (&info, rects, 1));
  fail_unless (gst_buffer_get_ccl_blob_meta (out) == NULL);
  fail_unless (gst_buffer_get_video_region_of_interest_meta (out) == NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* With track=true, two blobs moving a few pixels per frame keep their
 * ids (in the blob meta and the ROI params); a blob appearing later gets
 * a new one. Without tracking, track ids are 0. */
GST_START_TEST (test_tracking)
{
  const gint w = 96, hgt = 64;
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, w, hgt);
  GstHarness *h = element_harness_new ("track=true");
  GstVideoInfo info;
  guint32 first_ids[2] = { 0, 0 };

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  for (gint f = 0; f < 8; f++) {
    /* Blob A moves right, blob B moves left; C appears at frame 5. */
    gint rects[3][4] = {
      {5 + 2 * f, 5, 12 + 2 * f, 12},
      {70 - 2 * f, 40, 80 - 2 * f, 50},
      {40, 25, 44, 29},
    };
    GstBuffer *out = element_push_pull (h, rect_frame (&info,
            (const gint (*)[4]) rects, f >= 5 ? 3 : 2));
    GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (out);
    guint32 ids[3] = { 0, 0, 0 };

    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->n_blobs, f >= 5 ? 3 : 2);
    fail_unless (meta->tracking_ns > 0, "frame %d: no tracking time", f);
    /* Raster order of first pixels: A (y 5), then C (y 25), then B. */
    for (guint i = 0; i < meta->n_blobs; i++) {
      const GstCclBlob *b = &meta->blobs[i];
      gint which = b->y0 == 5 ? 0 : b->y0 == 40 ? 1 : 2;
      fail_unless (meta->track_ids != NULL && meta->track_ids[i] != 0,
          "frame %d blob %u has no track id", f, b->id);
      ids[which] = meta->track_ids[i];
    }
    if (f == 0) {
      first_ids[0] = ids[0];
      first_ids[1] = ids[1];
      fail_unless (ids[0] != ids[1]);
    } else {
      fail_unless_equals_int (ids[0], first_ids[0]);
      fail_unless_equals_int (ids[1], first_ids[1]);
    }
    if (f >= 5)
      fail_unless (ids[2] != first_ids[0] && ids[2] != first_ids[1]);
    gst_buffer_unref (out);
  }

  /* Tracking off: ids are 0. */
  g_object_set (h->element, "track", FALSE, NULL);
  {
    static const gint r[][4] = { {5, 5, 12, 12} };
    GstBuffer *out = element_push_pull (h, rect_frame (&info, r, 1));
    GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (out);
    fail_unless (meta != NULL && meta->n_blobs == 1);
    fail_unless (meta->track_ids == NULL);
    fail_unless_equals_int (gst_ccl_blob_meta_get_track_id (meta, 0), 0);
    fail_unless_equals_uint64 (meta->tracking_ns, 0);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
meta_suite (void)
{
  Suite *s = suite_create ("gpucclblob-meta");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_vs_oracle);
  tcase_add_test (tc, test_odd_sizes);
  tcase_add_test (tc, test_8k);
  tcase_add_test (tc, test_algorithms);
  tcase_add_test (tc, test_rgb_channels);
  tcase_add_test (tc, test_filters);
  tcase_add_test (tc, test_retune_area_range);
  tcase_add_test (tc, test_otsu);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_meta_copy_and_scale);
  tcase_add_test (tc, test_message);
  tcase_add_test (tc, test_attach_meta_off);
  tcase_add_test (tc, test_tracking);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, meta_suite);
}
