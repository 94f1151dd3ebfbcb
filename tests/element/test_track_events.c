/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Track events of gpucclblob (issue 27): squares that appear and leave at
 * known frames; every "gpucclblob-track-appeared" / "-lost" message and
 * the per-frame message's "tracks-appeared" / "tracks-lost" follow from
 * the script below (ids in order of appearance, lost track-max-lost + 1
 * frames after the last frame seen). */
#include "element_common.h"

#define W 64
#define H 48
#define SIDE 5
#define MAX_LOST 2
#define FRAMES 20
#define FRAME_NS (GST_SECOND / 25)

/* Squares present from frame `from` to `to` (inclusive), top-left at
 * (x0 + vx * f, y). */
typedef struct
{
  gint from, to, x0, vx, y;
} Life;

static const Life script[] = {
  {0, 9, 5, 2, 5},
  {2, 19, 5, 1, 20},
  {4, 6, 30, 1, 34},
  {7, 19, 5, 1, 42},
};

#define N_OBJ G_N_ELEMENTS (script)

static gdouble
centre_x (const Life * o, gint f)
{
  return o->x0 + o->vx * f + (SIDE - 1) / 2.0;
}

static GstBuffer *
scene_frame (const GstVideoInfo * info, gint f)
{
  guint8 *levels = g_malloc0 (W * H);
  GstBuffer *buf;

  for (guint k = 0; k < N_OBJ; k++) {
    const Life *o = &script[k];
    if (f < o->from || f > o->to)
      continue;
    for (gint y = o->y; y < o->y + SIDE; y++)
      memset (levels + y * W + o->x0 + o->vx * f, 255, SIDE);
  }
  buf = element_make_frame (info, levels, "luma", f);
  GST_BUFFER_PTS (buf) = f * FRAME_NS;
  g_free (levels);
  return buf;
}

/* Track ids are 1, 2, ... in order of appearance (the script's order). */
static void
check_appeared (const GstStructure * s, gint f, guint k)
{
  guint id;
  guint64 frame, ts;
  gdouble cx, cy;

  fail_unless (gst_structure_get (s, "track-id", G_TYPE_UINT, &id,
          "frame", G_TYPE_UINT64, &frame, "timestamp", G_TYPE_UINT64, &ts,
          "centroid-x", G_TYPE_DOUBLE, &cx, "centroid-y", G_TYPE_DOUBLE, &cy,
          NULL), "%" GST_PTR_FORMAT, s);
  fail_unless_equals_int (id, k + 1);
  fail_unless_equals_uint64 (frame, f);
  fail_unless_equals_uint64 (ts, f * FRAME_NS);
  fail_unless (G_APPROX_VALUE (cx, centre_x (&script[k], f), 1e-9));
  fail_unless (G_APPROX_VALUE (cy, script[k].y + (SIDE - 1) / 2.0, 1e-9));
}

static void
check_lost (const GstStructure * s, gint f, guint k)
{
  const Life *o = &script[k];
  guint id;
  guint64 frame, first_frame, last_frame, age, seen;
  gdouble fx, lx, ly;

  fail_unless (gst_structure_get (s, "track-id", G_TYPE_UINT, &id,
          "frame", G_TYPE_UINT64, &frame, "first-frame", G_TYPE_UINT64,
          &first_frame, "last-frame", G_TYPE_UINT64, &last_frame, "age", G_TYPE_UINT64,
          &age, "frames-seen", G_TYPE_UINT64, &seen, "first-x",
          G_TYPE_DOUBLE, &fx, "last-x", G_TYPE_DOUBLE, &lx, "last-y",
          G_TYPE_DOUBLE, &ly, NULL), "%" GST_PTR_FORMAT, s);
  fail_unless_equals_int (id, k + 1);
  fail_unless_equals_uint64 (frame, f);
  fail_unless_equals_string (gst_structure_get_string (s, "reason"),
      "unseen");
  fail_unless_equals_uint64 (first_frame, o->from);
  fail_unless_equals_uint64 (last_frame, o->to);
  fail_unless_equals_uint64 (age, o->to - o->from + 1);
  fail_unless_equals_uint64 (seen, o->to - o->from + 1);
  fail_unless (G_APPROX_VALUE (fx, centre_x (o, o->from), 1e-9));
  fail_unless (G_APPROX_VALUE (lx, centre_x (o, o->to), 1e-9));
  fail_unless (G_APPROX_VALUE (ly, o->y + (SIDE - 1) / 2.0, 1e-9));
}

/* The per-frame message's array `field` holds exactly `ids`. */
static void
check_id_array (const GstStructure * s, const gchar * field,
    const guint * ids, guint n)
{
  const GValue *a = gst_structure_get_value (s, field);

  fail_unless (a && GST_VALUE_HOLDS_ARRAY (a), "no %s in %s", field,
      gst_structure_get_name (s));
  fail_unless_equals_int (gst_value_array_get_size (a), n);
  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value (a,
                i)), ids[i]);
}

static GstMessage *
pop_named (GstBus * bus, const gchar * name)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);

  fail_unless (msg != NULL, "no %s message", name);
  fail_unless (gst_structure_has_name (gst_message_get_structure (msg),
          name), "%s expected, got %s", name,
      gst_structure_get_name (gst_message_get_structure (msg)));
  return msg;
}

/* Run the script; with events, the exact messages of every frame: the
 * appeared ones, the lost ones, then the per-frame message. */
static void
run_script (gboolean events)
{
  GstHarness *h = element_harness_new (events ?
      "track=true track-max-lost=2 track-max-distance=10 post-messages=true "
      "post-track-events=true" :
      "track=true track-max-lost=2 track-max-distance=10 post-messages=true");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  guint n_events = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  for (gint f = 0; f < FRAMES; f++) {
    guint appeared[N_OBJ], lost[N_OBJ], n_app = 0, n_lost = 0;
    GstMessage *msg;

    gst_buffer_unref (element_push_pull (h, scene_frame (&info, f)));
    for (guint k = 0; k < N_OBJ; k++) {
      if (script[k].from == f)
        appeared[n_app++] = k + 1;
      if (script[k].to + MAX_LOST + 1 == f)
        lost[n_lost++] = k + 1;
    }
    for (guint i = 0; events && i < n_app; i++, n_events++) {
      msg = pop_named (bus, "gpucclblob-track-appeared");
      check_appeared (gst_message_get_structure (msg), f, appeared[i] - 1);
      gst_message_unref (msg);
    }
    for (guint i = 0; events && i < n_lost; i++, n_events++) {
      msg = pop_named (bus, "gpucclblob-track-lost");
      check_lost (gst_message_get_structure (msg), f, lost[i] - 1);
      gst_message_unref (msg);
    }
    msg = pop_named (bus, "gpucclblob");
    check_id_array (gst_message_get_structure (msg), "tracks-appeared",
        appeared, n_app);
    check_id_array (gst_message_get_structure (msg), "tracks-lost", lost,
        n_lost);
    gst_message_unref (msg);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL,
        "frame %d: more messages than expected", f);
  }
  /* 4 appeared; objects 0 and 2 lost at frames 12 and 9. */
  fail_unless_equals_int (n_events, events ? 6 : 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_events_posted)
{
  run_script (TRUE);
}

GST_END_TEST;

/* Off by default: only the per-frame message, which still lists the ids. */
GST_START_TEST (test_events_off_by_default)
{
  run_script (FALSE);
}

GST_END_TEST;

/* Without tracking neither the events nor the per-frame fields. */
GST_START_TEST (test_no_tracking_no_fields)
{
  GstHarness *h = element_harness_new ("post-messages=true "
      "post-track-events=true");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstMessage *msg;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_GRAY8, W, H));
  gst_buffer_unref (element_push_pull (h, scene_frame (&info, 0)));
  msg = pop_named (bus, "gpucclblob");
  fail_if (gst_structure_has_field (gst_message_get_structure (msg),
          "tracks-appeared"));
  fail_if (gst_structure_has_field (gst_message_get_structure (msg),
          "tracks-lost"));
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A source that ends by itself (videotestsrc num-buffers, a ball that
 * is always in the picture): at EOS the ball's track gets its lost
 * message, reason "end-of-stream", without a frame's times, before the
 * pipeline's EOS; every track that appeared is lost exactly once. */
GST_START_TEST (test_lost_at_eos)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=12 pattern=ball "
      "! video/x-raw,format=GRAY8,width=96,height=72 ! gpucclblob "
      "backend=%s threshold=100 track=true post-track-events=true "
      "! fakesink", test_backend ());
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GHashTable *alive = g_hash_table_new (NULL, NULL);
  guint at_eos = 0;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", desc);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint id = 0;
    guint64 frame = 0, last = 0;

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    gst_structure_get_uint (s, "track-id", &id);
    if (gst_structure_has_name (s, "gpucclblob-track-appeared")) {
      fail_unless (g_hash_table_add (alive, GUINT_TO_POINTER (id)));
    } else if (gst_structure_has_name (s, "gpucclblob-track-lost")) {
      fail_unless (g_hash_table_remove (alive, GUINT_TO_POINTER (id)),
          "track %u lost twice or never appeared", id);
      if (g_strcmp0 (gst_structure_get_string (s, "reason"),
              "end-of-stream") == 0) {
        at_eos++;
        fail_unless (gst_structure_get_uint64 (s, "frame", &frame) &&
            gst_structure_get_uint64 (s, "last-frame", &last));
        fail_unless_equals_uint64 (frame, 11);
        fail_unless_equals_uint64 (last, 11);
        fail_if (gst_structure_has_field (s, "timestamp"));
      }
    }
    gst_message_unref (msg);
  }
  fail_unless (msg != NULL, "no EOS");
  fail_unless (at_eos >= 1, "no track lost at the end of the stream");
  fail_unless_equals_int (g_hash_table_size (alive), 0);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_hash_table_unref (alive);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

static Suite *
track_events_suite (void)
{
  Suite *s = suite_create ("gpucclblob-track-events");
  TCase *tc = tcase_create ("events");

  tcase_add_test (tc, test_events_posted);
  tcase_add_test (tc, test_events_off_by_default);
  tcase_add_test (tc, test_no_tracking_no_fields);
  tcase_add_test (tc, test_lost_at_eos);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, track_events_suite);
}
