/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob on GstCudaMemory (needs a CUDA driver and device: exit 77
 * without a GstCudaContext). Frames are made on the host, copied into
 * GstCudaMemory (pitched by GStreamer's allocator) and pushed with CUDA
 * caps; the element must give the blobs and the pixels of the same frame
 * pushed in system memory, leave the frame in the memory it came in (the
 * same GstMemory goes downstream), copy no frame to the device (the
 * library's upload count), answer the CUDA context query with the context
 * it was given, and label memory of a context that is not the one it
 * shares, and memory of a second GPU on that GPU (device-id auto), also
 * when upstream moves to the other GPU at a renegotiation. */
#include "element_cuda.h"

#include "gpuccl.h"
#include "gstcclblobmeta.h"

/* The visible pixels of a system-memory frame and a device frame. */
static void
assert_same_as_device (GstBuffer * sys, GstBuffer * cuda,
    const GstVideoInfo * info, const gchar * what)
{
  GstBuffer *copy = element_from_cuda (cuda, info);

  element_assert_same_frames (sys, copy, info, what);
  gst_buffer_unref (copy);
}

/* How a CUDA frame reaches the element. */
typedef enum
{
  ARRIVES_ALONE,                /* with a GstVideoMeta, given away */
  ARRIVES_WITHOUT_META,         /* no GstVideoMeta: the memory's layout */
  ARRIVES_HELD,                 /* upstream keeps a ref (a tee's branch) */
} Arrival;

/* One frame of `format` through the element in system memory and in CUDA
 * memory of `memory_ctx`, the element sharing `shared_ctx`: the same blobs
 * and pixels, no frame copied to the device, and the frame leaves in the
 * memory it came in, unless upstream still holds it and it is drawn on
 * (then a copy on the device is drawn and upstream's frame is untouched). */
static void
compare_paths (GstVideoFormat format, const gchar * props,
    GstCudaContext * shared_ctx, GstCudaContext * memory_ctx,
    Arrival arrival, guint32 seed)
{
  gchar *what = g_strdup_printf ("%s, %s, arrival %d",
      gst_video_format_to_string (format), props, arrival);
  GstCaps *caps = element_caps (format, 97, 61);
  GstVideoInfo info;
  guint8 *levels = element_levels_random (97, 61, 0.45, 3, seed);
  GstBuffer *frame, *sys_out, *cuda_in, *cuda_out, *held = NULL;
  GstHarness *h;
  GstMemory *in_mem;
  guint64 uploads;
  guint draw;

  fail_unless (gst_video_info_from_caps (&info, caps));
  frame = element_make_frame (&info, levels, "luma", seed);
  g_free (levels);

  h = element_harness_new (props);
  gst_harness_set_caps (h, gst_caps_copy (caps), gst_caps_copy (caps));
  sys_out = element_push_pull (h, gst_buffer_copy_deep (frame));
  gst_harness_teardown (h);

  h = element_harness_new (props);
  g_object_get (h->element, "draw", &draw, NULL);
  if (shared_ctx) {
    GstContext *context = gst_context_new_cuda_context (shared_ctx);
    gst_element_set_context (h->element, context);
    gst_context_unref (context);
  }
  gst_harness_set_caps (h, element_cuda_caps (format, 97, 61),
      element_cuda_caps (format, 97, 61));
  cuda_in = element_to_cuda_full (frame, &info, memory_ctx,
      arrival != ARRIVES_WITHOUT_META);
  in_mem = gst_buffer_peek_memory (cuda_in, 0);
  if (arrival == ARRIVES_HELD)
    held = gst_buffer_ref (cuda_in);
  uploads = gpuccl_frame_uploads ();
  cuda_out = element_push_pull (h, cuda_in);
  if (strcmp (test_backend (), "cuda") == 0)
    fail_unless_equals_uint64 (gpuccl_frame_uploads () - uploads, 0);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (cuda_out, 0)),
      "%s: the frame left CUDA memory", what);
  if (held && draw) {
    fail_unless (gst_buffer_peek_memory (cuda_out, 0) != in_mem,
        "%s: drawn into the frame upstream holds", what);
    assert_same_as_device (frame, held, &info, what);
  } else {
    fail_unless (gst_buffer_peek_memory (cuda_out, 0) == in_mem,
        "%s: the frame left its GstCudaMemory", what);
  }
  gst_harness_teardown (h);

  element_assert_same_blobs (sys_out, cuda_out, what);
  assert_same_as_device (sys_out, cuda_out, &info, what);

  if (held)
    gst_buffer_unref (held);
  gst_buffer_unref (cuda_out);
  gst_buffer_unref (sys_out);
  gst_buffer_unref (frame);
  gst_caps_unref (caps);
  g_free (what);
}

/* Every format, with each overlay, in CUDA memory of the context the
 * element shares. */
GST_START_TEST (test_same_as_system_memory)
{
  static const gchar *props[] = {
    "draw=0", "draw=boxes+centroids line-width=3",
    "draw=labels+boxes connectivity=4",
  };

  for (gsize f = 0; f < n_element_formats; f++)
    for (gsize p = 0; p < G_N_ELEMENTS (props); p++) {
      const gchar *pr = element_formats[f] == GST_VIDEO_FORMAT_GRAY16_LE ?
          g_strconcat (props[p], " threshold=32767", NULL) :
          g_strdup (props[p]);
      compare_paths (element_formats[f], pr, element_cuda_ctx, element_cuda_ctx,
          ARRIVES_ALONE, 700 + 10 * f + p);
      g_free ((gpointer) pr);
    }
}

GST_END_TEST;

/* region on CUDA memory: the window's pointers moved on the device, the
 * table moved back into the frame; blobs inside the region (cut by its
 * edges too), with the overlays and the intensities measured on the
 * device, as in system memory (itself checked against OpenCV by
 * element-region and python-mask). */
GST_START_TEST (test_region_in_cuda_memory)
{
  static const gchar *props[] = {
    "region=<13,7,50,40>",
    "region=<14,8,61,33> draw=boxes+centroids measure-intensity=true",
    "region=<0,20,97,41> connectivity=4 measure-intensity=true "
        "draw=labels",
  };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_BGRx
  };

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gsize p = 0; p < G_N_ELEMENTS (props); p++)
      compare_paths (formats[f], props[p], element_cuda_ctx,
          element_cuda_ctx, ARRIVES_ALONE, 900 + 10 * f + p);
}

GST_END_TEST;

/* Memory of another GstCudaContext than the one the element shares (an
 * upstream that did not share): labeled in its own context. */
GST_START_TEST (test_memory_of_another_context)
{
  GstCudaContext *other = gst_cuda_context_new (0);

  fail_unless (other != NULL);
  compare_paths (GST_VIDEO_FORMAT_NV12, "draw=boxes", element_cuda_ctx, other,
      ARRIVES_ALONE, 801);
  compare_paths (GST_VIDEO_FORMAT_GRAY8, "draw=boxes", NULL, other,
      ARRIVES_ALONE, 802);
  gst_object_unref (other);
}

GST_END_TEST;

/* Memory on the second GPU with device-id left at its default (auto), the
 * element given nothing or device 0's context: labeled on the GPU it lives
 * on, the same blobs and pixels as the system path (which runs on device
 * 0). Then frames that alternate between the GPUs in one stream, each
 * labeled on its own. Skipped with fewer than two devices. */
GST_START_TEST (test_memory_on_another_gpu)
{
  GstCudaContext *second;
  gint n_devices = 0;
  gint id;

  if (!gst_cuda_result (CuDeviceGetCount (&n_devices)) || n_devices < 2) {
    g_print ("test_memory_on_another_gpu: %d CUDA device(s), skipped\n",
        n_devices);
    return;
  }
  second = gst_cuda_context_new (1);
  fail_unless (second != NULL);
  g_object_get (second, "cuda-device-id", &id, NULL);
  fail_unless_equals_int (id, 1);
  compare_paths (GST_VIDEO_FORMAT_NV12, "draw=boxes", NULL, second,
      ARRIVES_ALONE, 811);
  compare_paths (GST_VIDEO_FORMAT_I420, "draw=boxes+centroids",
      element_cuda_ctx, second, ARRIVES_ALONE, 812);

  {
    GstHarness *h = element_harness_new ("draw=boxes");
    GstCaps *caps = element_caps (GST_VIDEO_FORMAT_NV12, 97, 61);
    GstVideoInfo info;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_caps (h, element_cuda_caps (GST_VIDEO_FORMAT_NV12, 97, 61),
        element_cuda_caps (GST_VIDEO_FORMAT_NV12, 97, 61));
    for (guint i = 0; i < 6; i++) {
      guint8 *levels = element_levels_random (97, 61, 0.45, 3, 820 + i);
      GstBuffer *frame = element_make_frame (&info, levels, "luma", 820 + i);
      GstBuffer *out = element_push_pull (h, element_to_cuda (frame, &info,
              i % 2 ? second : element_cuda_ctx));
      Expected e;

      expected_compute (&e, levels, 97, 61, 127, FALSE, 8);
      check_buffer_blobs (out, &e, NULL, 0);
      expected_clear (&e);
      gst_buffer_unref (out);
      gst_buffer_unref (frame);
      g_free (levels);
    }
    gst_harness_teardown (h);
    gst_caps_unref (caps);
  }
  gst_object_unref (second);
}

GST_END_TEST;

/* The gpucclblob INFO lines that say in which GstCudaContext the element
 * opened a library context ("labeling CUDA memory of <context> on ..."). */
static void
collect_lib_opens (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);

  if (!strcmp (gst_debug_category_get_name (category), "gpucclblob") && text
      && g_str_has_prefix (text, "labeling CUDA memory of "))
    g_ptr_array_add (user_data, g_strdup (text));
}

/* How many of `lines` name `context`. */
static guint
lines_naming (GPtrArray * lines, GstCudaContext * context)
{
  gchar *name = g_strdup_printf ("<%s>", GST_OBJECT_NAME (context));
  guint n = 0;

  for (guint i = 0; i < lines->len; i++)
    n += strstr (g_ptr_array_index (lines, i), name) != NULL;
  g_free (name);
  return n;
}

/* New caps of width x height in CUDA memory, then a frame made in
 * `context`'s memory: OpenCV's blobs, and the frame leaves in that
 * memory. */
static void
push_on_gpu (GstHarness * h, gint width, gint height,
    GstCudaContext * context, guint32 seed)
{
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_NV12, width, height);
  GstVideoInfo info;
  guint8 *levels = element_levels_random (width, height, 0.45, 3, seed);
  GstBuffer *frame, *out;
  Expected e;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_caps (h, element_cuda_caps (GST_VIDEO_FORMAT_NV12, width,
          height), element_cuda_caps (GST_VIDEO_FORMAT_NV12, width, height));
  frame = element_make_frame (&info, levels, "luma", seed);
  out = element_push_pull (h, element_to_cuda (frame, &info, context));
  expected_compute (&e, levels, width, height, 127, FALSE, 8);
  check_buffer_blobs (out, &e, NULL, 0);
  fail_unless (GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (out,
              0))->context == context, "%dx%d: the frame left the memory "
      "of %" GST_PTR_FORMAT, width, height, context);
  expected_clear (&e);
  gst_buffer_unref (out);
  gst_buffer_unref (frame);
  gst_caps_unref (caps);
  g_free (levels);
}

/* Upstream renegotiates and its frames move to the other GPU (a new size
 * each time, GPU 0, 1, 0, 1), device-id left at its default (-1): every
 * frame's blobs are OpenCV's, it leaves in the memory of its own GPU, and
 * the element says it opened one library context in each GPU's
 * GstCudaContext, the second GPU's included, kept across the changes.
 * Skipped with fewer than two devices. */
GST_START_TEST (test_gpu_changes_at_renegotiation)
{
  static const struct
  {
    gint width, height, gpu;
  } steps[] = { {97, 61, 0}, {80, 60, 1}, {64, 48, 0}, {101, 33, 1} };
  GstCudaContext *gpus[2] = { element_cuda_ctx, NULL };
  GPtrArray *opened = g_ptr_array_new_with_free_func (g_free);
  GstHarness *h;
  gint n_devices = 0, device_id;

  if (!gst_cuda_result (CuDeviceGetCount (&n_devices)) || n_devices < 2) {
    g_print ("test_gpu_changes_at_renegotiation: %d CUDA device(s), "
        "skipped\n", n_devices);
    g_ptr_array_unref (opened);
    return;
  }
  gpus[1] = gst_cuda_context_new (1);
  fail_unless (gpus[1] != NULL, "no GstCudaContext on device 1");
  h = element_harness_new ("draw=boxes");
  g_object_get (h->element, "device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);
  gst_debug_set_threshold_for_name ("gpucclblob", GST_LEVEL_INFO);
  gst_debug_add_log_function (collect_lib_opens, opened, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (steps); i++)
    push_on_gpu (h, steps[i].width, steps[i].height, gpus[steps[i].gpu],
        860 + i);
  gst_debug_remove_log_function (collect_lib_opens);
  gst_debug_unset_threshold_for_name ("gpucclblob");
  gst_harness_teardown (h);
  fail_unless_equals_int (lines_naming (opened, gpus[1]), 1);
  fail_unless_equals_int (lines_naming (opened, gpus[0]), 1);
  fail_unless_equals_int (opened->len, 2);
  g_ptr_array_unref (opened);
  gst_object_unref (gpus[1]);
}

GST_END_TEST;

/* Frames that carry no GstVideoMeta are read with their memory's own
 * (pitched) layout, in formats GStreamer's allocator makes. */
GST_START_TEST (test_without_video_meta)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
  };

  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++) {
    compare_paths (formats[f], "draw=0", element_cuda_ctx, element_cuda_ctx,
        ARRIVES_WITHOUT_META, 820 + f);
    compare_paths (formats[f], "draw=boxes+centroids", element_cuda_ctx,
        element_cuda_ctx, ARRIVES_WITHOUT_META, 830 + f);
  }
}

GST_END_TEST;

/* A frame upstream still holds (a tee's branch): the metas go on the
 * element's own buffer; without overlays the memory is shared as it is,
 * with them a device copy is drawn and upstream's frame stays as it was. */
GST_START_TEST (test_frame_held_upstream)
{
  compare_paths (GST_VIDEO_FORMAT_NV12, "draw=0", element_cuda_ctx,
      element_cuda_ctx, ARRIVES_HELD, 840);
  compare_paths (GST_VIDEO_FORMAT_NV12, "draw=boxes+centroids",
      element_cuda_ctx, element_cuda_ctx, ARRIVES_HELD, 841);
  compare_paths (GST_VIDEO_FORMAT_RGBA, "draw=labels+boxes", element_cuda_ctx,
      element_cuda_ctx, ARRIVES_HELD, 842);
}

GST_END_TEST;

/* CUDA memory of another format and no GstVideoMeta to say where the
 * frame is: an element error that says so, no guess. */
GST_START_TEST (test_memory_of_another_layout)
{
  GstHarness *h = element_harness_new ("");
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48);
  GstVideoInfo info;
  guint8 *levels = element_levels_random (64, 48, 0.4, 2, 850);
  GstBuffer *frame;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  fail_unless (gst_video_info_from_caps (&info, caps));
  frame = element_make_frame (&info, levels, "luma", 850);
  g_free (levels);
  gst_harness_set_caps (h, element_cuda_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48),
      element_cuda_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48));
  /* GRAY8 in an NV12 allocation (allocated_format), meta removed. */
  fail_unless_equals_int (gst_harness_push (h,
          element_to_cuda_full (frame, &info, element_cuda_ctx, FALSE)),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, "no GstVideoMeta") != NULL, "%s",
        err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (frame);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A GstCudaContext set on the element answers its neighbours' context
 * queries, on both pads. */
GST_START_TEST (test_context_query)
{
  GstElement *e = gst_element_factory_make ("gpucclblob", NULL);
  GstContext *context = gst_context_new_cuda_context (element_cuda_ctx);

  gst_element_set_context (e, context);
  gst_context_unref (context);
  for (gint p = 0; p < 2; p++) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstPad *pad = gst_element_get_static_pad (e, p ? "src" : "sink");
    GstCudaContext *answered = NULL;

    fail_unless (gst_pad_query (pad, query), "context query not answered");
    gst_query_parse_context (query, &context);
    fail_unless (gst_structure_get (gst_context_get_structure (context),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &answered, NULL));
    fail_unless (answered == element_cuda_ctx);
    gst_object_unref (answered);
    gst_query_unref (query);
    gst_object_unref (pad);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* Frames in CUDA memory, then system memory, then CUDA memory again on
 * one element, with state changes between: each path gives the blobs of
 * the other. */
GST_START_TEST (test_renegotiate_and_restart)
{
  GstHarness *h = element_harness_new ("draw=boxes");
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_NV12, 80, 60);
  GstVideoInfo info;
  guint8 *levels = element_levels_random (80, 60, 0.5, 2, 901);
  GstBuffer *frame, *first = NULL;

  fail_unless (gst_video_info_from_caps (&info, caps));
  frame = element_make_frame (&info, levels, "luma", 901);
  g_free (levels);
  for (gint round = 0; round < 4; round++) {
    gboolean cuda = round % 2 == 0;
    GstBuffer *out;

    if (round == 2) {
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
      gst_harness_play (h);     /* PLAYING and a new stream-start */
    }
    if (cuda)
      gst_harness_set_caps (h,
          element_cuda_caps (GST_VIDEO_FORMAT_NV12, 80, 60),
          element_cuda_caps (GST_VIDEO_FORMAT_NV12, 80, 60));
    else
      gst_harness_set_caps (h, gst_caps_copy (caps), gst_caps_copy (caps));
    out = element_push_pull (h, cuda ?
        element_to_cuda (frame, &info, element_cuda_ctx) :
        gst_buffer_copy_deep (frame));
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ==
        cuda);
    if (!first) {
      first = out;
    } else {
      element_assert_same_blobs (first, out,
          cuda ? "CUDA memory" : "system memory");
      element_assert_same_frames (first, out, &info, "renegotiated");
      gst_buffer_unref (out);
    }
  }
  gst_buffer_unref (first);
  gst_buffer_unref (frame);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
cuda_memory_suite (void)
{
  Suite *s = suite_create ("gpucclblob-cuda-memory");
  TCase *tc = tcase_create ("cuda-memory");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_same_as_system_memory);
  tcase_add_test (tc, test_memory_of_another_context);
  tcase_add_test (tc, test_region_in_cuda_memory);
  tcase_add_test (tc, test_memory_on_another_gpu);
  tcase_add_test (tc, test_gpu_changes_at_renegotiation);
  tcase_add_test (tc, test_without_video_meta);
  tcase_add_test (tc, test_frame_held_upstream);
  tcase_add_test (tc, test_memory_of_another_layout);
  tcase_add_test (tc, test_context_query);
  tcase_add_test (tc, test_renegotiate_and_restart);
  return s;
}

int
main (int argc, char **argv)
{
  return element_cuda_main (argc, argv, cuda_memory_suite);
}
