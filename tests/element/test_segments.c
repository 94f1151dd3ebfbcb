/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob mode=segments (label maps) through GstHarness: GRAY8 and
 * GRAY16_LE label maps, the blob meta, the ROI metas (with "value") and
 * the bus message against the OpenCV oracle of
 * tests/algorithms/segments_maps.h; the mode property as gst-inspect shows
 * it, switched while playing; overlays in segments mode. */
#include "element_common.h"

#include "gstcclblobmeta.h"
#include "segments_maps.h"

/* A GRAY8 or GRAY16_LE frame holding the map (rows padded as GstVideoInfo
 * lays them out, padding filled with junk). */
static GstBuffer *
map_frame (const SegMap * m, GstVideoFormat format, GstVideoInfo * info)
{
  GstBuffer *buf;
  GstVideoFrame frame;

  fail_unless (gst_video_info_set_format (info, format, m->width, m->height));
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (gint y = 0; y < m->height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    memset (row, 0x5a, GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0));
    for (gint x = 0; x < m->width; x++) {
      guint32 v = m->values[(gsize) y * m->width + x];
      if (format == GST_VIDEO_FORMAT_GRAY8) {
        row[x] = (guint8) v;
      } else {
        guint16 s = GUINT16_TO_LE ((guint16) v);
        memcpy (row + 2 * x, &s, 2);
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The blob meta and the ROI metas of `buf` against the oracle. */
static void
check_segments_buffer (GstBuffer * buf, const SegExpect * e)
{
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);
  gpointer state = NULL;
  GstMeta *m;
  guint n_roi = 0;

  fail_unless (meta != NULL, "no GstCclBlobMeta");
  fail_unless_equals_int (meta->threshold, 0);
  fail_unless_equals_int (meta->n_components, e->n);
  fail_unless_equals_int (meta->n_blobs, e->n);
  for (guint i = 0; i < e->n; i++) {
    const GstCclBlob *b = &meta->blobs[i];
    const GpucclBlob *x = &e->blobs[i];
    guint32 value = gst_ccl_blob_meta_get_value (meta, i);
    fail_unless (meta->values != NULL);
    fail_unless (b->id == x->id && value == e->values[i] &&
        b->x0 == x->x0 && b->y0 == x->y0 && b->x1 == x->x1 &&
        b->y1 == x->y1 && b->area == x->area && b->sum_x == x->sum_x &&
        b->sum_y == x->sum_y,
        "blob %u: id %u value %u box (%u,%u)-(%u,%u) area %u"
        "; oracle id %u value %u box (%u,%u)-(%u,%u) area %u",
        i, b->id, value, b->x0, b->y0, b->x1, b->y1, b->area, x->id,
        e->values[i], x->x0, x->y0, x->x1, x->y1, x->area);
  }
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    const GstStructure *p =
        gst_video_region_of_interest_meta_get_param (roi, "gpucclblob");
    const GpucclBlob *x;
    guint id, value;
    guint64 area;

    fail_unless (roi->id >= 1 && (guint) roi->id <= e->n);
    x = &e->blobs[roi->id - 1];
    fail_unless (roi->x == x->x0 && roi->y == x->y0 &&
        roi->w == (guint) (x->x1 - x->x0 + 1) &&
        roi->h == (guint) (x->y1 - x->y0 + 1));
    fail_unless (p != NULL && gst_structure_get (p, "id", G_TYPE_UINT, &id,
            "area", G_TYPE_UINT64, &area, "value", G_TYPE_UINT, &value,
            NULL), "roi param %" GST_PTR_FORMAT, p);
    fail_unless_equals_int (id, x->id);
    fail_unless_equals_uint64 (area, x->area);
    fail_unless_equals_int (value, e->values[roi->id - 1]);
    n_roi++;
  }
  fail_unless_equals_int (n_roi, e->n);
}

static void
run_map (SegMap * m, GstVideoFormat format, gint connectivity)
{
  gchar *props = g_strdup_printf ("mode=segments connectivity=%d "
      "threshold=200 invert=true", connectivity);
  GstHarness *h = element_harness_new (props);
  GstVideoInfo info;
  GstBuffer *in = map_frame (m, format, &info), *out;
  SegExpect e;

  GST_INFO ("%s %s conn %d", m->name, gst_video_format_to_string (format),
      connectivity);
  gst_harness_set_src_caps (h, element_caps (format, m->width, m->height));
  fail_unless (seg_oracle (m, connectivity, &e));
  out = element_push_pull (h, in);
  check_segments_buffer (out, &e);

  seg_expect_free (&e);
  gst_buffer_unref (out);
  g_free (props);
  gst_harness_teardown (h);
  seg_map_free (m);
}

GST_START_TEST (test_gray8_vs_oracle)
{
  for (gint conn = 4; conn <= 8; conn += 4) {
    run_map (seg_map_blocks (160, 120, 3, 12, 20, 255, 41),
        GST_VIDEO_FORMAT_GRAY8, conn);
    run_map (seg_map_blocks (101, 67, 1, 200, 5, 255, 42),
        GST_VIDEO_FORMAT_GRAY8, conn);
    run_map (seg_map_checker (35, 23, 1, 1, 2), GST_VIDEO_FORMAT_GRAY8, conn);
    run_map (seg_map_quads (17, 13, 255), GST_VIDEO_FORMAT_GRAY8, conn);
    run_map (seg_map_stripes (61, 19, 2, 3, TRUE, 255),
        GST_VIDEO_FORMAT_GRAY8, conn);
  }
}

GST_END_TEST;

GST_START_TEST (test_gray16_vs_oracle)
{
  for (gint conn = 4; conn <= 8; conn += 4) {
    run_map (seg_map_blocks (130, 97, 4, 500, 10, 65535, 43),
        GST_VIDEO_FORMAT_GRAY16_LE, conn);
    run_map (seg_map_checker (29, 31, 2, 300, 65535),
        GST_VIDEO_FORMAT_GRAY16_LE, conn);
  }
}

GST_END_TEST;

/* The bus message carries the value too. */
GST_START_TEST (test_message_value)
{
  SegMap *m = seg_map_stripes (40, 10, 8, 5, TRUE, 250);
  GstHarness *h = element_harness_new ("mode=segments post-messages=true");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstBuffer *out;
  GstMessage *msg;
  const GValue *blobs;
  SegExpect e;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, 40, 10));
  out = element_push_pull (h, map_frame (m, GST_VIDEO_FORMAT_GRAY8, &info));
  fail_unless (seg_oracle (m, 8, &e));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no element message");
  blobs = gst_structure_get_value (gst_message_get_structure (msg), "blobs");
  fail_unless (blobs && GST_VALUE_HOLDS_LIST (blobs));
  fail_unless_equals_int (gst_value_list_get_size (blobs), e.n);
  for (guint i = 0; i < e.n; i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_list_get_value (blobs, i));
    guint value = 0;
    fail_unless (gst_structure_get_uint (s, "value", &value));
    fail_unless_equals_int (value, e.values[i]);
  }
  gst_message_unref (msg);
  seg_expect_free (&e);
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  seg_map_free (m);
}

GST_END_TEST;

/* As gst-inspect shows it: an enum of GstGpucclBlobMode, binary by
 * default, documented, changeable while playing. */
GST_START_TEST (test_mode_property)
{
  GstElement *el = gst_element_factory_make ("gpucclblob", NULL);
  GParamSpec *ps;
  GEnumClass *ec;
  gint mode = -1;

  fail_unless (el != NULL);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), "mode");
  fail_unless (ps != NULL, "no mode property");
  fail_unless (G_IS_PARAM_SPEC_ENUM (ps));
  fail_unless_equals_string (g_type_name (ps->value_type),
      "GstGpucclBlobMode");
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (ps->flags & G_PARAM_READWRITE);
  fail_unless (strstr (g_param_spec_get_blurb (ps), "label map") != NULL);
  ec = g_type_class_ref (ps->value_type);
  fail_unless (g_enum_get_value_by_nick (ec, "binary")->value ==
      GPUCCL_MODE_BINARY);
  fail_unless (g_enum_get_value_by_nick (ec, "segments")->value ==
      GPUCCL_MODE_SEGMENTS);
  fail_unless (gst_type_is_plugin_api (ps->value_type, NULL));
  g_type_class_unref (ec);
  g_object_get (el, "mode", &mode, NULL);
  fail_unless_equals_int (mode, GPUCCL_MODE_BINARY);
  gst_util_set_object_arg (G_OBJECT (el), "mode", "segments");
  g_object_get (el, "mode", &mode, NULL);
  fail_unless_equals_int (mode, GPUCCL_MODE_SEGMENTS);
  gst_object_unref (el);
}

GST_END_TEST;

/* Switched while playing: applies from the next frame. Two touching
 * classes are one blob in binary mode (threshold 0), many in segments. */
GST_START_TEST (test_mode_switch_playing)
{
  SegMap *m = seg_map_stripes (48, 16, 4, 2, TRUE, 200);
  GstHarness *h = element_harness_new ("threshold=0");
  GstVideoInfo info;
  GstBuffer *out;
  GstCclBlobMeta *meta;
  SegExpect e;

  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, 48, 16));
  out = element_push_pull (h, map_frame (m, GST_VIDEO_FORMAT_GRAY8, &info));
  meta = gst_buffer_get_ccl_blob_meta (out);
  fail_unless (meta && meta->n_blobs == 1 && meta->values == NULL &&
      gst_ccl_blob_meta_get_value (meta, 0) == 1);
  gst_buffer_unref (out);

  gst_util_set_object_arg (G_OBJECT (h->element), "mode", "segments");
  out = element_push_pull (h, map_frame (m, GST_VIDEO_FORMAT_GRAY8, &info));
  fail_unless (seg_oracle (m, 8, &e));
  fail_unless_equals_int (e.n, 12);
  check_segments_buffer (out, &e);
  gst_buffer_unref (out);

  seg_expect_free (&e);
  gst_harness_teardown (h);
  seg_map_free (m);
}

GST_END_TEST;

/* Overlays still work: each blob's box is drawn (GRAY8: the box colour's
 * luma on its outline), the blobs themselves are those of the input. */
GST_START_TEST (test_segments_draw_boxes)
{
  SegMap *m = seg_map_blocks (64, 48, 16, 3, 30, 100, 44);
  GstHarness *h = element_harness_new ("mode=segments draw=boxes "
      "line-width=1 box-color=0xffffffff");
  GstVideoInfo info;
  GstBuffer *out;
  GstVideoFrame frame;
  SegExpect e;

  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48));
  out = element_push_pull (h, map_frame (m, GST_VIDEO_FORMAT_GRAY8, &info));
  fail_unless (seg_oracle (m, 8, &e));
  fail_unless (e.n > 0);
  check_segments_buffer (out, &e);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (guint i = 0; i < e.n; i++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + (gsize) e.blobs[i].y0 * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    fail_unless_equals_int (row[e.blobs[i].x0], 255);
  }
  gst_video_frame_unmap (&frame);
  seg_expect_free (&e);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  seg_map_free (m);
}

GST_END_TEST;

/* On CUDA only Stava-Benes does segments: another algorithm is an element
 * error with the library's message, not a wrong table. (The CPU backend
 * runs its own algorithm whatever is chosen.) */
GST_START_TEST (test_segments_algorithm)
{
  SegMap *m = seg_map_checker (16, 16, 4, 1, 2);
  GstHarness *h = element_harness_new ("mode=segments algorithm=ha4 "
      "connectivity=4");
  GstVideoInfo info;
  GstFlowReturn ret;

  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, 16, 16));
  ret = gst_harness_push (h, map_frame (m, GST_VIDEO_FORMAT_GRAY8, &info));
  if (strcmp (test_backend (), "cuda") == 0) {
    fail_unless_equals_int (ret, GST_FLOW_ERROR);
  } else {
    GstBuffer *out;
    fail_unless_equals_int (ret, GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_get_ccl_blob_meta (out)->n_blobs, 16);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  seg_map_free (m);
}

GST_END_TEST;

static Suite *
segments_suite (void)
{
  Suite *s = suite_create ("gpucclblob-segments");
  TCase *tc = tcase_create ("segments");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gray8_vs_oracle);
  tcase_add_test (tc, test_gray16_vs_oracle);
  tcase_add_test (tc, test_message_value);
  tcase_add_test (tc, test_mode_property);
  tcase_add_test (tc, test_mode_switch_playing);
  tcase_add_test (tc, test_segments_draw_boxes);
  tcase_add_test (tc, test_segments_algorithm);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, segments_suite);
}
