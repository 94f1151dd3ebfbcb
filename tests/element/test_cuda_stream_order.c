/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stream ordering on GstCudaMemory (GStreamer >= 1.24, a CUDA device;
 * exit 77 otherwise). Since 1.24 a GstCudaMemory carries a GstCudaStream,
 * and a producer may queue its writes there and push the frame without
 * waiting, marking it GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (nvcodec's decoders
 * do). Here, after a first frame written and waited for, the producer zeroes
 * a 1080p frame, then queues a 300 ms kernel and the write of a white
 * rectangle on its own stream and pushes at once: an element that labels on
 * a stream of its own without waiting for the memory's reads the zeros (no
 * blob). The element must find the rectangle, draw its box after the
 * producer's write (the box's pixels on the rectangle's edge, not
 * overwritten by it), and leave the memory it drew into marked as
 * synchronized for the next reader. GPUCCL_CUDA_STREAM_WAIT=0 (the library
 * skips the wait) shows the race instead: then both tests check that the
 * element read the stale frame (no blob), and fail if it did not (something
 * else ordered the reads).
 *
 * The producer's stream is made in a checked fixture, so that a failure
 * there is reported with its CUDA error like any check. */
#include "element_cuda.h"

#include "gstcclblobmeta.h"
#include "stream_order_kernels.h"

#if GST_CHECK_VERSION(1, 24, 0)

#include <gst/cuda/gstcudastream.h>

#define WIDTH 1920
#define HEIGHT 1080
#define DELAY_MS 300
/* The rectangle the producer writes, inclusive: 600 x 400 pixels. */
#define X0 600
#define Y0 300
#define X1 1199
#define Y1 699

static GstCudaStream *producer_stream;

/* GPUCCL_CUDA_STREAM_WAIT=0: the library does not wait for the memory's
 * stream, and the element must read the frame before it was written. */
static gboolean
expect_stale (void)
{
  return g_strcmp0 (g_getenv ("GPUCCL_CUDA_STREAM_WAIT"), "0") == 0;
}

/* The CUDA driver's name of what cuStreamCreate gives in the context (to
 * say why gst_cuda_stream_new, which logs it only, returned NULL). */
static const gchar *
stream_create_error (void)
{
  CUstream stream = NULL;
  CUresult r;
  const gchar *name = NULL;

  if (!gst_cuda_context_push (element_cuda_ctx))
    return "the context could not be made current (cuCtxPushCurrent)";
  r = CuStreamCreate (&stream, CU_STREAM_DEFAULT);
  if (r == CUDA_SUCCESS)
    CuStreamDestroy (stream);
  gst_cuda_context_pop (NULL);
  if (r == CUDA_SUCCESS)
    return "none again now (cuStreamCreate succeeded on a second try)";
  return CuGetErrorName (r, &name) == CUDA_SUCCESS && name ? name :
      "an unknown CUresult";
}

static void
producer_setup (void)
{
  producer_stream = gst_cuda_stream_new (element_cuda_ctx);
  fail_unless (producer_stream != NULL, "gst_cuda_stream_new failed on "
      "device 0's GstCudaContext; CUDA error: %s", stream_create_error ());
}

static void
producer_teardown (void)
{
  gst_clear_cuda_stream (&producer_stream);
}

/* A producer step that returned a CUDA error's name. */
static void
assert_cuda_ok (const gchar * error, const gchar * step)
{
  fail_unless (error == NULL, "producer: %s failed: %s", step, error);
}

static GstCaps *
cuda_caps (void)
{
  return element_cuda_caps (GST_VIDEO_FORMAT_NV12, WIDTH, HEIGHT);
}

/* An NV12 frame in GstCudaMemory of the producer's stream, its luma
 * zeroed and waited for (what a stale read sees); then the delay and the
 * rectangle queued on the stream, and not waited for when `late`. */
static GstBuffer *
produce (gboolean late)
{
  GstVideoInfo info;
  GstMemory *mem;
  GstCudaMemory *cmem;
  GstBuffer *buf = gst_buffer_new ();
  GstMapInfo map;
  gpointer stream = gst_cuda_stream_get_handle (producer_stream);

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12,
          WIDTH, HEIGHT));
  mem = gst_cuda_allocator_alloc (NULL, element_cuda_ctx, producer_stream,
      &info);
  fail_unless (mem != NULL, "no GstCudaMemory");
  cmem = GST_CUDA_MEMORY_CAST (mem);
  fail_unless (gst_cuda_memory_get_stream (cmem) == producer_stream);
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_NV12, WIDTH, HEIGHT, 2, cmem->info.offset,
      cmem->info.stride);

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (element_cuda_ctx));
  assert_cuda_ok (producer_fill (stream, map.data, cmem->info.stride[0],
          WIDTH, HEIGHT, 0, 0, -1, -1), "zeroing the frame");
  assert_cuda_ok (producer_sync (stream), "waiting for the zeroed frame");
  assert_cuda_ok (producer_spin (stream, DELAY_MS), "the delay kernel");
  assert_cuda_ok (producer_fill (stream, map.data, cmem->info.stride[0],
          WIDTH, HEIGHT, X0, Y0, X1, Y1), "writing the rectangle");
  if (!late)
    assert_cuda_ok (producer_sync (stream), "waiting for the rectangle");
  fail_unless (gst_cuda_context_pop (NULL));
  gst_memory_unmap (mem, &map);
  /* As GStreamer's producers leave memory written on its stream. */
  GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  return buf;
}

static GstHarness *
harness_new (const gchar * props)
{
  GstHarness *h = element_harness_new (props);
  GstContext *context = gst_context_new_cuda_context (element_cuda_ctx);

  gst_element_set_context (h->element, context);
  gst_context_unref (context);
  gst_harness_set_caps (h, cuda_caps (), cuda_caps ());
  return h;
}

/* The frame before the producer's write: no blob. */
static void
assert_stale (GstBuffer * out)
{
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (out);
  guint n_blobs = meta ? meta->n_blobs : 0;

  fail_unless (n_blobs == 0, "GPUCCL_CUDA_STREAM_WAIT=0 but the element "
      "found %u blob(s): the race did not show (its read was ordered after "
      "the producer's write some other way)", n_blobs);
  g_print ("GPUCCL_CUDA_STREAM_WAIT=0: the element read the frame before "
      "the producer wrote it (no blob), as expected without the wait\n");
}

/* The one blob the producer wrote. */
static void
assert_rectangle_found (GstBuffer * out)
{
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (out);
  const GstCclBlob *b;

  fail_unless (meta != NULL, "no blob meta");
  fail_unless_equals_int (meta->n_blobs, 1);
  b = &meta->blobs[0];
  fail_unless_equals_int (b->area, (X1 - X0 + 1) * (Y1 - Y0 + 1));
  fail_unless (b->x0 == X0 && b->y0 == Y0 && b->x1 == X1 && b->y1 == Y1,
      "box %u,%u-%u,%u", b->x0, b->y0, b->x1, b->y1);
}

/* The late frame's rectangle (or, without the wait, no blob). */
static void
assert_rectangle (GstBuffer * out)
{
  if (expect_stale ())
    assert_stale (out);
  else
    assert_rectangle_found (out);
}

/* Luma at (x, y), through GstCudaMemory's host map (a download on the
 * memory's stream, waited for). */
static guint8
luma_at (GstBuffer * buf, gint x, gint y)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  guint8 v;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  v = map.data[(gsize) y * GST_CUDA_MEMORY_CAST (mem)->info.stride[0] + x];
  gst_memory_unmap (mem, &map);
  return v;
}

/* The box drawn on the rectangle's edge after the producer's write, and
 * the memory left marked as synchronized. */
static void
assert_drawn_after (GstBuffer * out)
{
  GstMemory *mem = gst_buffer_peek_memory (out, 0);

  fail_unless (gst_is_cuda_memory (mem), "the frame left CUDA memory");
  fail_if (GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC),
      "drawn memory still says its stream has work in flight");
  /* The black box on the rectangle's edge, drawn after the producer's
   * white: a box drawn first would be overwritten. */
  fail_unless_equals_int (luma_at (out, X0, Y0 + 100), 0);
  fail_unless_equals_int (luma_at (out, X1 - 1, Y0 + 100), 0);
  fail_unless_equals_int (luma_at (out, X0 + 100, Y0 + 100), 255);
  fail_unless_equals_int (luma_at (out, X0 - 10, Y0 + 100), 0);
}

/* What the element does behind the producer, one run each: labeling
 * only, then labeling and boxes drawn into the frame. */
static const struct
{
  const gchar *props;
  gboolean draws;
} after_producer[] = {
  {"", FALSE},
  {"draw=boxes box-color=0 line-width=2", TRUE},
};

GST_START_TEST (test_after_the_producer)
{
  GstHarness *h = harness_new (after_producer[__i__].props);
  GstBuffer *out;

  /* A frame written before it is pushed, first: the element allocates its
   * buffers on it, and an allocation (or anything on CUDA's legacy default
   * stream) waits for every blocking stream, the producer's too, which
   * would order the late frame's read without the element's doing. */
  fail_unless_equals_int (gst_harness_push (h, produce (FALSE)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  assert_rectangle_found (out);
  gst_buffer_unref (out);

  fail_unless_equals_int (gst_harness_push (h, produce (TRUE)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  assert_rectangle (out);
  if (after_producer[__i__].draws && !expect_stale ())
    assert_drawn_after (out);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
stream_order_suite (void)
{
  Suite *s = suite_create ("gpucclblob-cuda-stream-order");
  TCase *tc = tcase_create ("cuda-stream-order");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, producer_setup, producer_teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_after_the_producer, 0,
      G_N_ELEMENTS (after_producer));
  return s;
}

int
main (int argc, char **argv)
{
  /* The element on the device: the CPU backend would download the frame
   * (a host map waits for the stream by itself). */
  g_setenv ("GPUCCL_TEST_BACKEND", "cuda", TRUE);
  return element_cuda_main (argc, argv, stream_order_suite);
}

#else /* GStreamer 1.22: GstCudaMemory has no stream */

int
main (int argc, char **argv)
{
  g_print ("SKIP: GStreamer %d.%d: GstCudaMemory carries no stream before "
      "1.24\n", GST_VERSION_MAJOR, GST_VERSION_MINOR);
  return 77;
}

#endif
