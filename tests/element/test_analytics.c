/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer >= 1.24: the blobs as analytics metadata. Frames of known
 * rectangles; the GstAnalyticsRelationMeta must hold one object-detection
 * entry per rectangle (its box, label "blob", confidence 1) and, with
 * track=true, a tracking entry related to it whose id is the blob's track
 * id and whose first-seen time is the frame the object appeared in;
 * objectdetectionoverlay must draw each box. Built only against a
 * GStreamer with the analytics library. */
#include "element_common.h"
#include "gstcclblobmeta.h"

#include <gst/analytics/analytics.h>

#define W 160
#define H 120

/* Inclusive x0, y0, x1, y1; apart from each other and from the edges. */
static const gint rects[][4] = {
  {10, 10, 39, 29}, {60, 15, 69, 74}, {100, 60, 149, 99}, {20, 80, 24, 84},
};

#define N_RECTS G_N_ELEMENTS (rects)

/* RGBA, black with white rectangles, moved right by dx pixels. */
static GstBuffer *
rgba_frame (gint dx, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H * 4, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, 0, map.size);
  for (gsize r = 0; r < N_RECTS; r++)
    for (gint y = rects[r][1]; y <= rects[r][3]; y++)
      for (gint x = rects[r][0] + dx; x <= rects[r][2] + dx; x++)
        memset (map.data + ((gsize) y * W + x) * 4, 0xff, 4);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

static GstHarness *
harness (const gchar * element_props, const gchar * downstream)
{
  gchar *desc = g_strdup_printf ("gpucclblob backend=%s %s%s%s",
      test_backend (), element_props, downstream ? " ! " : "",
      downstream ? downstream : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width="
      G_STRINGIFY (W) ",height=" G_STRINGIFY (H) ",framerate=10/1");
  return h;
}

/* The rectangle (moved by dx) whose box is x, y, w, h; -1 when none. */
static gint
rect_of_box (gint x, gint y, gint w, gint h, gint dx)
{
  for (gsize r = 0; r < N_RECTS; r++)
    if (x == rects[r][0] + dx && y == rects[r][1] &&
        w == rects[r][2] - rects[r][0] + 1 && h == rects[r][3] - rects[r][1] + 1)
      return (gint) r;
  return -1;
}

/* One entry per rectangle, with its box, label "blob", confidence 1; with
 * tracking, each related to a tracking entry of the blob's track id.
 * Returns the number of object-detection entries; track_of[r] gets the
 * track id of rectangle r, first_seen[r] its first-seen time. */
static guint
check_entries (GstBuffer * out, gint dx, gboolean tracked, guint64 * track_of,
    GstClockTime * first_seen)
{
  GstAnalyticsRelationMeta *rmeta = (GstAnalyticsRelationMeta *)
      gst_buffer_get_meta (out, GST_ANALYTICS_RELATION_META_API_TYPE);
  GstCclBlobMeta *bmeta = gst_buffer_get_ccl_blob_meta (out);
  GstAnalyticsMtd mtd;
  gpointer state = NULL;
  guint n_od = 0;
  gboolean seen[N_RECTS] = { FALSE };

  fail_unless (rmeta != NULL, "no analytics relation meta");
  fail_unless (bmeta != NULL);
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &mtd)) {
    GstAnalyticsODMtd *od = (GstAnalyticsODMtd *) & mtd;
    GstAnalyticsTrackingMtd trk;
    gint x, y, w, h, r;
    gfloat conf;

    fail_unless (gst_analytics_od_mtd_get_location (od, &x, &y, &w, &h, &conf));
    r = rect_of_box (x, y, w, h, dx);
    fail_unless (r >= 0 && !seen[r], "box %d,%d %dx%d: no rectangle", x, y, w,
        h);
    seen[r] = TRUE;
    fail_unless_equals_float (conf, 1.0f);
    fail_unless_equals_string (g_quark_to_string
        (gst_analytics_od_mtd_get_obj_type (od)), "blob");
    if (gst_analytics_relation_meta_get_direct_related (rmeta, od->id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO,
            gst_analytics_tracking_mtd_get_mtd_type (), NULL, &trk)) {
      GstClockTime last_seen;
      gboolean lost;

      fail_unless (tracked, "a tracking entry without track=true");
      fail_unless (gst_analytics_tracking_mtd_get_info (&trk, &track_of[r],
              &first_seen[r], &last_seen, &lost));
      fail_unless (track_of[r] != 0 && !lost);
      fail_unless_equals_uint64 (last_seen, GST_BUFFER_PTS (out));
      /* The same track id as the blob's in GstCclBlobMeta. */
      for (guint i = 0; i < bmeta->n_blobs; i++)
        if (bmeta->blobs[i].x0 == x && bmeta->blobs[i].y0 == y)
          fail_unless_equals_uint64 (track_of[r],
              gst_ccl_blob_meta_get_track_id (bmeta, i));
    } else {
      fail_unless (!tracked, "box %d,%d has no tracking entry", x, y);
    }
    n_od++;
  }
  return n_od;
}

GST_START_TEST (test_entries_and_tracks)
{
  GstHarness *h = harness ("track=true max-roi-metas=0", NULL);
  guint64 first_track[N_RECTS], track[N_RECTS];
  GstClockTime first_seen[N_RECTS];

  for (gint f = 0; f < 4; f++) {
    GstBuffer *out = element_push_pull (h, rgba_frame (2 * f, f * GST_SECOND));

    fail_unless_equals_int (check_entries (out, 2 * f, TRUE, track,
            first_seen), N_RECTS);
    for (gsize r = 0; r < N_RECTS; r++) {
      /* Each object keeps its track id, first seen at frame 0. */
      if (f == 0)
        first_track[r] = track[r];
      fail_unless_equals_uint64 (track[r], first_track[r]);
      fail_unless_equals_uint64 (first_seen[r], 0);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);

  /* Without tracking: detection entries only. */
  h = harness ("max-roi-metas=0", NULL);
  {
    GstBuffer *out = element_push_pull (h, rgba_frame (0, 0));
    fail_unless_equals_int (check_entries (out, 0, FALSE, track, first_seen),
        N_RECTS);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Entries follow max-roi-metas: the largest blobs only. */
GST_START_TEST (test_entries_capped)
{
  GstHarness *h = harness ("max-roi-metas=2", NULL);
  GstBuffer *out = element_push_pull (h, rgba_frame (0, 0));
  GstAnalyticsRelationMeta *rmeta = (GstAnalyticsRelationMeta *)
      gst_buffer_get_meta (out, GST_ANALYTICS_RELATION_META_API_TYPE);
  GstAnalyticsMtd mtd;
  gpointer state = NULL;
  guint n = 0;

  fail_unless (rmeta != NULL);
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &mtd)) {
    gint x, y, w, hh;
    gfloat conf;
    gint r;

    gst_analytics_od_mtd_get_location ((GstAnalyticsODMtd *) & mtd, &x, &y,
        &w, &hh, &conf);
    r = rect_of_box (x, y, w, hh, 0);
    /* The two largest: 50x40, then 30x20, which ties with 10x60 at 600
     * pixels and has the smaller id. */
    fail_unless (r == 0 || r == 2, "box %d,%d %dx%d listed", x, y, w, hh);
    n++;
  }
  fail_unless_equals_int (n, 2);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* objectdetectionoverlay draws the boxes: outline pixels turn to its
 * colour (opaque red here) around each rectangle, and the background far
 * from every box stays black. */
GST_START_TEST (test_overlay_draws_boxes)
{
  GstHarness *h = harness ("max-roi-metas=0",
      "objectdetectionoverlay draw-labels=false "
      "object-detection-outline-color=0xffff0000");
  GstBuffer *out = element_push_pull (h, rgba_frame (0, 0));
  GstMapInfo map;

  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (gsize r = 0; r < N_RECTS; r++) {
    gint x0 = rects[r][0], y0 = rects[r][1], x1 = rects[r][2], y1 = rects[r][3];
    guint red = 0, ring = 0;

    /* The box's edges, a pixel either side. */
    for (gint y = y0 - 1; y <= y1 + 1; y++)
      for (gint x = x0 - 1; x <= x1 + 1; x++) {
        const guint8 *p = map.data + ((gsize) y * W + x) * 4;
        if (x > x0 + 1 && x < x1 - 1 && y > y0 + 1 && y < y1 - 1)
          continue;
        ring++;
        red += p[0] > 160 && p[1] < 96 && p[2] < 96;
      }
    fail_unless (red * 2 > ring, "rectangle %u: %u of %u edge pixels red",
        (guint) r, red, ring);
  }
  /* Far from every box: untouched. */
  for (gint y = 35; y < 55; y++)
    for (gint x = 80; x < 95; x++)
      fail_unless (map.data[((gsize) y * W + x) * 4] == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
analytics_suite (void)
{
  Suite *s = suite_create ("gpucclblob-analytics");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_entries_and_tracks);
  tcase_add_test (tc, test_entries_capped);
  tcase_add_test (tc, test_overlay_draws_boxes);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, analytics_suite);
}
