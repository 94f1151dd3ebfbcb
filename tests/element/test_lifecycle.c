/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob life cycle: negotiation, state changes, properties changed
 * while streaming, the buffer pool it offers, passthrough without copies,
 * GAP and short buffers, and backend errors. */
#include "element_common.h"

#include "gpuccl.h"
#include "gstcclblobmeta.h"

#include <gst/controller/controller.h>
#include <string.h>

static GstBuffer *
random_frame (const GstVideoInfo * info, guint32 seed)
{
  guint8 *levels = element_levels_random (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), 0.5, 2, seed);
  GstBuffer *buf = element_make_frame (info, levels, "luma", seed);

  g_free (levels);
  return buf;
}

/* The frame labeled right, checked against the oracle. */
static void
check_against_oracle (GstBuffer * out, const GstVideoInfo * info,
    guint32 seed)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), hgt = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *levels = element_levels_random (w, hgt, 0.5, 2, seed);
  Expected e;

  /* Levels are 8-bit whatever the format (GRAY16 runs at threshold
   * 32767, the same split). */
  expected_compute (&e, levels, w, hgt, 127, FALSE, 8);
  check_buffer_blobs (out, &e, NULL, 0);
  expected_clear (&e);
  g_free (levels);
}

GST_START_TEST (test_negotiation)
{
  for (gsize f = 0; f < n_element_formats; f++) {
    GstHarness *h = element_harness_new (
        element_formats[f] == GST_VIDEO_FORMAT_GRAY16_LE ?
        "threshold=32767" : NULL);
    GstCaps *caps = element_caps (element_formats[f], 40, 30);
    GstCaps *out_caps;
    GstVideoInfo info;
    GstBuffer *out;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    out = element_push_pull (h, random_frame (&info, 100 + f));
    out_caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (out_caps != NULL);
    fail_unless (gst_caps_is_equal (out_caps, caps), "%" GST_PTR_FORMAT
        " became %" GST_PTR_FORMAT, caps, out_caps);
    check_against_oracle (out, &info, 100 + f);
    gst_caps_unref (out_caps);
    gst_caps_unref (caps);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_unsupported_format)
{
  GstHarness *h = element_harness_new (NULL);
  GstBuffer *buf;

  gst_harness_set_src_caps (h, element_caps (GST_VIDEO_FORMAT_YUY2, 16, 16));
  buf = gst_buffer_new_allocate (NULL, 16 * 16 * 2, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Runs a pipeline to EOS; fails on an error message. */
static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 30 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    fail ("error: %s (%s)", err->message, dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

GST_START_TEST (test_state_cycles)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=5 pattern=ball ! "
      "video/x-raw,format=NV12,width=161,height=121 ! gpucclblob backend=%s "
      "draw=boxes+centroids name=ccl ! fakesink name=sink", test_backend ());
  GstElement *pipeline = gst_parse_launch (desc, NULL);

  fail_unless (pipeline != NULL);
  for (gint cycle = 0; cycle < 5; cycle++) {
    run_to_eos (pipeline);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
  }
  /* Up and down without data. */
  for (gint cycle = 0; cycle < 5; cycle++) {
    GstElement *ccl = gst_bin_get_by_name (GST_BIN (pipeline), "ccl");
    fail_unless (gst_element_set_state (ccl, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_set_state (ccl, GST_STATE_READY) ==
        GST_STATE_CHANGE_SUCCESS);
    fail_unless (gst_element_set_state (ccl, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
    gst_object_unref (ccl);
  }
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* Every property changed over and over from other threads while frames
 * stream through; then the element still labels correctly. */
GST_START_TEST (test_stress_properties)
{
  GstHarness *h = element_harness_new (NULL);
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo info;
  GstSegment segment;
  GstBuffer *buf, *out;
  GstHarnessThread *threads[32];
  guint n = 0;
  const gchar *other_backend =
      strcmp (test_backend (), "cpu") == 0 ? "auto" : "cpu";
  struct
  {
    const gchar *name, *value;
  } props[] = {
    {"threshold", "10"}, {"threshold", "200"},
    {"invert", "true"}, {"invert", "false"},
    {"draw", "boxes+centroids+labels"}, {"draw", "0"}, {"draw", "boxes"},
    {"min-area", "3"}, {"max-area", "50"}, {"max-area", "0"},
    {"max-blobs", "4"}, {"max-blobs", "0"},
    {"connectivity", "4"}, {"connectivity", "8"},
    {"auto-threshold", "otsu"}, {"auto-threshold", "none"},
    {"line-width", "5"}, {"box-color", "0xffff0000"},
    {"post-messages", "true"}, {"attach-meta", "false"},
    {"attach-meta", "true"},
    {"track", "true"}, {"track", "false"}, {"track-max-distance", "3.5"},
    {"track-max-lost", "0"},
    {"backend", other_backend}, {"backend", test_backend ()},
    {"memory", "mapped"}, {"memory", "copy"},
  };
  guint64 pushed;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_harness_set_drop_buffers (h, TRUE);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  buf = random_frame (&info, 7);

  threads[n++] = gst_harness_stress_push_buffer_start (h, caps, &segment, buf);
  for (gsize i = 0; i < G_N_ELEMENTS (props); i++) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
        (h->element), props[i].name);
    GValue v = G_VALUE_INIT;
    fail_unless (pspec != NULL, "no property %s", props[i].name);
    g_value_init (&v, pspec->value_type);
    fail_unless (gst_value_deserialize (&v, props[i].value),
        "%s=%s", props[i].name, props[i].value);
    threads[n++] = gst_harness_stress_property_start_full (h, props[i].name,
        &v, 1000);
    g_value_unset (&v);
  }
  g_usleep (G_USEC_PER_SEC * 2);
  pushed = gst_harness_stress_thread_stop (threads[0]);
  for (guint i = 1; i < n; i++)
    gst_harness_stress_thread_stop (threads[i]);
  fail_unless (pushed > 10, "only %" G_GUINT64_FORMAT " pushes", pushed);
  GST_INFO ("%" G_GUINT64_FORMAT " frames under property stress", pushed);

  /* Known settings again: still right. Tracking too, which the stress
   * threads leave on or off, whichever set it last: the oracle's ROI
   * parameters hold track-id 0, untracked. */
  gst_harness_set_drop_buffers (h, FALSE);
  g_object_set (h->element, "threshold", 127, "invert", FALSE, "draw", 0,
      "min-area", (guint64) 0, "max-area", (guint64) 0, "max-blobs", 0,
      "connectivity", 8, "auto-threshold", 0, "attach-meta", TRUE,
      "track", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", test_backend ());
  out = element_push_pull (h, random_frame (&info, 7));
  check_against_oracle (out, &info, 7);
  gst_buffer_unref (out);
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Controllable properties follow the buffers' stream time. */
GST_START_TEST (test_controller)
{
  GstHarness *h = element_harness_new (NULL);
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 32, 32);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tvcs = (GstTimedValueControlSource *) cs;
  GstVideoInfo info;

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "threshold", cs)));
  gst_timed_value_control_source_set (tvcs, 0, 127);
  gst_timed_value_control_source_set (tvcs, GST_SECOND, 200);

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  for (gint i = 0; i < 2; i++) {
    GstBuffer *in = random_frame (&info, 3), *out;
    GstCclBlobMeta *meta;
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    out = element_push_pull (h, in);
    meta = gst_buffer_get_ccl_blob_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->threshold, i ? 200 : 127);
    gst_buffer_unref (out);
  }
  gst_object_unref (cs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream gets a pool of the element's host memory (gpuccl_host_alloc:
 * pinned with CUDA), for each memory mode. With CUDA, the library counts
 * the frames it copies to the device: memory=mapped frames are read in
 * place although the pool's memory was pinned by the allocator's own
 * context (none copied), memory=copy frames go up once, and boxes and
 * crosses are drawn on the host (no second copy). */
GST_START_TEST (test_pool_offered)
{
  static const struct
  {
    const gchar *props;
    gint uploads;               /* per frame with CUDA; -1: not checked */
  } cases[] = {
    {"memory=auto", -1},
    {"memory=copy", 1},
    {"memory=mapped", 0},
    {"memory=copy draw=boxes+centroids", 1},
    {"memory=mapped draw=boxes+centroids", 0},
  };

  for (gsize m = 0; m < G_N_ELEMENTS (cases); m++) {
    gchar *props = g_strdup (cases[m].props);
    GstHarness *h = element_harness_new (props);
    GstCaps *caps = element_caps (GST_VIDEO_FORMAT_NV12, 385, 289);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstMemory *mem;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    in = gst_harness_create_buffer (h, GST_VIDEO_INFO_SIZE (&info));
    fail_unless (in != NULL);
    mem = gst_buffer_peek_memory (in, 0);
    fail_unless (gst_memory_is_type (mem, "GpucclHostMemory"),
        "upstream buffer memory is %s", mem->allocator->mem_type);
    /* Fill it through a map (as a source would) and label it. */
    {
      GstBuffer *ref = random_frame (&info, 11);
      GstMapInfo src, dst;
      fail_unless (gst_buffer_map (ref, &src, GST_MAP_READ));
      fail_unless (gst_buffer_map (in, &dst, GST_MAP_WRITE));
      memcpy (dst.data, src.data, src.size);
      gst_buffer_unmap (in, &dst);
      gst_buffer_unmap (ref, &src);
      gst_buffer_unref (ref);
    }
    guint64 uploads = gpuccl_frame_uploads ();
    out = element_push_pull (h, in);
    if (strcmp (test_backend (), "cuda") == 0 && cases[m].uploads >= 0)
      fail_unless_equals_uint64 (gpuccl_frame_uploads () - uploads,
          cases[m].uploads);
    check_against_oracle (out, &info, 11);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Buffers with a GstVideoMeta whose strides are wider than the defaults
 * (and planes at their own offsets) are labeled and drawn on right. */
GST_START_TEST (test_padded_strides)
{
  for (gsize f = 0; f < n_element_formats; f++) {
    GstHarness *h = element_harness_new (
        element_formats[f] == GST_VIDEO_FORMAT_GRAY16_LE ?
        "threshold=32767 draw=boxes" : "draw=boxes");
    GstCaps *caps = element_caps (element_formats[f], 50, 31);
    GstVideoInfo info, padded;
    gsize offset = 0;
    GstBuffer *in, *out;
    guint8 *levels = element_levels_random (50, 31, 0.5, 2, 130 + f);

    fail_unless (gst_video_info_from_caps (&info, caps));
    padded = info;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      gst_video_format_info_component (info.finfo, p, comp);
      padded.stride[p] = info.stride[p] + 72;
      padded.offset[p] = offset + 16;
      offset = padded.offset[p] + (gsize) padded.stride[p] *
          GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]);
    }
    padded.size = offset + 8;
    in = element_make_frame (&padded, levels, "luma", 130 + f);
    g_free (levels);
    gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), 50, 31, GST_VIDEO_INFO_N_PLANES (&info),
        padded.offset, padded.stride);
    gst_harness_set_src_caps (h, caps);
    out = element_push_pull (h, in);
    check_against_oracle (out, &info, 130 + f);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Without drawing, a buffer that upstream still holds comes out with the
 * metas on a new buffer sharing the same memory (no pixel copy), and the
 * input buffer is left as it was; with drawing, the shared input is
 * never written. */
GST_START_TEST (test_passthrough_no_copy)
{
  static const gchar *draws[] = { "0", "boxes+centroids+labels" };

  for (gsize d = 0; d < G_N_ELEMENTS (draws); d++) {
    gchar *props = g_strdup_printf ("draw=%s", draws[d]);
    GstHarness *h = element_harness_new (props);
    GstCaps *caps = element_caps (GST_VIDEO_FORMAT_I420, 64, 48);
    GstVideoInfo info;
    GstBuffer *in, *pristine, *out;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    in = random_frame (&info, 21);
    pristine = gst_buffer_copy_deep (in);
    out = element_push_pull (h, gst_buffer_ref (in));
    fail_unless (out != in);
    fail_unless (gst_buffer_get_ccl_blob_meta (out) != NULL);
    fail_unless (gst_buffer_get_ccl_blob_meta (in) == NULL);
    fail_unless (element_same_bytes (in, pristine),
        "the shared input was written");
    if (d == 0) {
      fail_unless (gst_buffer_peek_memory (out, 0) ==
          gst_buffer_peek_memory (in, 0), "frame copied without drawing");
    } else {
      fail_unless (!element_same_bytes (out, pristine), "nothing drawn");
    }
    gst_buffer_unref (pristine);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

GST_START_TEST (test_gap)
{
  static const gchar *draws[] = { "0", "boxes" };

  for (gsize d = 0; d < G_N_ELEMENTS (draws); d++) {
    gchar *props = g_strdup_printf ("draw=%s post-messages=true", draws[d]);
    GstHarness *h = element_harness_new (props);
    GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48);
    GstBus *bus = gst_bus_new ();
    GstVideoInfo info;
    GstBuffer *in, *pristine, *out, *empty;

    gst_element_set_bus (h->element, bus);
    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    in = random_frame (&info, 31);
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
    pristine = gst_buffer_copy_deep (in);
    out = element_push_pull (h, in);
    fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
    fail_unless (element_same_bytes (out, pristine), "GAP buffer was changed");
    fail_unless (gst_buffer_get_ccl_blob_meta (out) == NULL);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
    gst_buffer_unref (out);
    gst_buffer_unref (pristine);

    /* A GAP buffer without memory at all. */
    empty = gst_buffer_new ();
    GST_BUFFER_FLAG_SET (empty, GST_BUFFER_FLAG_GAP);
    out = element_push_pull (h, empty);
    fail_unless_equals_int (gst_buffer_get_size (out), 0);
    gst_buffer_unref (out);

    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* A buffer shorter than the caps say is an element error, not a crash. */
GST_START_TEST (test_short_buffer)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA
  };

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gint draw = 0; draw < 2; draw++) {
      GstHarness *h = element_harness_new (draw ? "draw=boxes" : NULL);
      GstCaps *caps = element_caps (formats[f], 64, 48);
      GstBus *bus = gst_bus_new ();
      GstVideoInfo info;
      GstMessage *msg;
      GError *err = NULL;

      gst_element_set_bus (h->element, bus);
      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_harness_set_src_caps (h, caps);
      /* Luma only (missing chroma), or one row short. */
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate
              (NULL, GST_VIDEO_INFO_SIZE (&info) - 64, NULL)),
          GST_FLOW_ERROR);
      /* A full-size buffer whose video meta puts the last plane past its
       * end. */
      {
        GstBuffer *b = gst_buffer_new_allocate (NULL,
            GST_VIDEO_INFO_SIZE (&info), NULL);
        gsize offset[GST_VIDEO_MAX_PLANES];
        gint stride[GST_VIDEO_MAX_PLANES];
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
          offset[p] = info.offset[p] + 64;
          stride[p] = info.stride[p];
        }
        gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
            GST_VIDEO_INFO_FORMAT (&info), 64, 48,
            GST_VIDEO_INFO_N_PLANES (&info), offset, stride);
        fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
      }
      fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
      for (gint i = 0; i < 2; i++) {
        msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
        fail_unless (msg != NULL, "no error message");
        gst_message_parse_error (msg, &err, NULL);
        fail_unless (strstr (err->message, i ? "past the buffer" :
                "too small") != NULL, "%s", err->message);
        g_error_free (err);
        gst_message_unref (msg);
      }
      gst_element_set_bus (h->element, NULL);
      gst_object_unref (bus);
      gst_harness_teardown (h);
    }
}

GST_END_TEST;

/* backend=cuda: without a usable GPU the element fails to start with a
 * clear error; with one, it starts and labels. */
GST_START_TEST (test_backend_cuda)
{
  GpucclError cuda_error = { 0 };
  GstElement *e = gst_element_factory_make ("gpucclblob", NULL);
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  if (!gpuccl_cuda_available (0, &cuda_error)) {
    GstMessage *msg;
    GError *err = NULL;
    gchar *dbg = NULL;

    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "no error message");
    gst_message_parse_error (msg, &err, &dbg);
    fail_unless (err->domain == GST_RESOURCE_ERROR);
    fail_unless (strstr (err->message, "CUDA") != NULL, "%s", err->message);
    fail_unless (dbg && strstr (dbg, cuda_error.message), "%s", dbg);
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (msg);
  } else {
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* What the element logs about itself while a test runs: lines at WARNING
 * or worse, and INFO lines about the backend. */
typedef struct {
  guint warnings;
  guint backend_infos;
} ElementLog;

static void
count_element_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  ElementLog *log = data;

  if (g_strcmp0 (gst_debug_category_get_name (category), "gpucclblob") != 0)
    return;
  if (level <= GST_LEVEL_WARNING)
    log->warnings++;
  else if (level == GST_LEVEL_INFO &&
      strstr (gst_debug_message_get (message), "backend=auto"))
    log->backend_infos++;
}

/* backend=auto on a machine without a usable GPU (or a build without
 * CUDA) runs on the CPU and says so at INFO level: no warning message on
 * the bus and no WARNING line in the log, however often it starts. */
GST_START_TEST (test_backend_auto)
{
  GstHarness *h = element_harness_new (NULL);
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 32, 24);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  guint warnings = 0;
  GstMessage *msg;
  ElementLog log = { 0 };
  gboolean cuda = gpuccl_cuda_available (0, NULL);

  gst_debug_set_threshold_for_name ("gpucclblob", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_element_log, &log, NULL);
  gst_element_set_bus (h->element, bus);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  for (gint i = 0; i < 3; i++) {
    GstBuffer *out;
    gst_util_set_object_arg (G_OBJECT (h->element), "backend",
        i % 2 ? test_backend () : "auto");
    out = element_push_pull (h, random_frame (&info, 41));
    check_against_oracle (out, &info, 41);
    gst_buffer_unref (out);
  }
  gst_debug_remove_log_function (count_element_log);
  gst_debug_unset_threshold_for_name ("gpucclblob");
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    warnings++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (warnings, 0);
  fail_unless_equals_int (log.warnings, 0);
  /* Without CUDA each start of backend=auto (frames 0 and 2) says why it
   * runs on the CPU. */
  fail_unless_equals_int (log.backend_infos, cuda ? 0 : 2);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
lifecycle_suite (void)
{
  Suite *s = suite_create ("gpucclblob-lifecycle");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_negotiation);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_stress_properties);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_pool_offered);
  tcase_add_test (tc, test_passthrough_no_copy);
  tcase_add_test (tc, test_padded_strides);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_short_buffer);
  tcase_add_test (tc, test_backend_cuda);
  tcase_add_test (tc, test_backend_auto);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, lifecycle_suite);
}
