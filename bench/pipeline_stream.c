/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pipelines the bench times: appsrc ! gpucclblob ! fakesink, one per
 * stream, the frames pre-generated in a pool of N_FRAMES buffers (the
 * element's own, pinned or mapped; plain system memory; or GstCudaMemory)
 * and pushed again as fakesink drops them. With several streams each has
 * its own pipeline, element and pushing thread, all in this process, and
 * the timed frames of all are counted over one wall-clock interval.
 *
 * The element's frame time: pad probes stamp each buffer as it enters
 * gpucclblob's sink pad and as it leaves its source pad (it works in
 * place, in the streaming thread, between the two). */
#include "pipeline_bench.h"

#include <gst/app/gstappsrc.h>
#include <stdio.h>
#include <string.h>

#include "gpuccl.h"
#include "gstcclblobmeta.h"

/* One stream. The counters are updated in its streaming thread and read
 * by the others once it is idle. */
typedef struct
{
  const StreamParams *p;
  GstElement *pipeline, *src, *ccl;
  GstCaps *caps;
  GstBufferPool *pool;
  const char *mem_type;         /* the pool's memory type */
  int device;                   /* its GPU (StreamParams devices), or -1 */
  guint64 pts;
  gint timed;                   /* frames to push in the timed run */
  gint64 finished;              /* when its timed frames were all out */
  gboolean ok;

  gint frames;
  gint copied;                  /* frames that left the pool's memory */
  guint64 label_ns_sum, track_ns_sum, blobs_sum;
  GstClockTime entered;
  guint64 *element_ns;          /* NULL outside the timed run */
  gint n_element, cap_element;
} Stream;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Stream *s = data;
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);

  if (meta) {
    s->label_ns_sum += meta->processing_ns;
    s->track_ns_sum += meta->tracking_ns;
    s->blobs_sum += meta->n_blobs;
  }
  /* A frame copied on the way (a non-writable buffer drawn on, a CUDA
   * frame downloaded) is in other memory here. */
  if (!s->mem_type || !gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          s->mem_type))
    s->copied++;
  g_atomic_int_inc (&s->frames);
}

static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Stream *) data)->entered = gst_util_get_timestamp ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  GstClockTime now = gst_util_get_timestamp ();

  if (s->element_ns && s->n_element < s->cap_element)
    s->element_ns[s->n_element++] = now - s->entered;
  return GST_PAD_PROBE_OK;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

static void
probe_element (GstElement * ccl, Stream * s)
{
  GstPad *sink = gst_element_get_static_pad (ccl, "sink");
  GstPad *src = gst_element_get_static_pad (ccl, "src");

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_enter, s, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_leave, s, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
}

static gboolean
check_bus (GstElement * pipeline, GstClockTime timeout, gboolean want_eos)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | (want_eos ? GST_MESSAGE_EOS : 0));
  gboolean ok = TRUE;

  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("  pipeline error: %s (%s)\n", err->message, dbg);
    g_error_free (err);
    g_free (dbg);
    ok = FALSE;
  } else if (want_eos && !msg) {
    g_printerr ("  no EOS in time\n");
    ok = FALSE;
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return ok;
}

/* The element's pool, from an allocation query on its sink pad (after the
 * caps went through). */
static GstBufferPool *
element_pool (GstElement * ccl, GstCaps * caps)
{
  GstPad *pad = gst_element_get_static_pad (ccl, "sink");
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint size, min, max;

  if (gst_pad_query (pad, query) &&
      gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  gst_query_unref (query);
  gst_object_unref (pad);
  return pool;
}

gboolean
memory_available (Memory memory, GstVideoFormat format, int device,
    const char **why)
{
  if (memory != MEMORY_CUDA)
    return TRUE;
  /* Its allocator asserts on formats it does not know (1.22 to 1.26). */
  if (format == GST_VIDEO_FORMAT_GRAY8) {
    *why = "GStreamer's CUDA memory has no GRAY8 (NV12's rows show it)";
    return FALSE;
  }
  return cuda_memory_ready (device, why);
}

/* A pool of exactly N_FRAMES buffers in the memory asked for. */
static GstBufferPool *
frame_pool (Stream * s)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstVideoInfo info;
  GstBuffer *probe;

  gst_video_info_from_caps (&info, s->caps);
  switch (s->p->memory) {
    case MEMORY_SYSTEM:
      pool = gst_video_buffer_pool_new ();
      break;
    case MEMORY_CUDA:
      pool = cuda_pool_new (MAX (s->device, 0));
      break;
    default:
      pool = element_pool (s->ccl, s->caps);
      break;
  }
  if (!pool)
    return NULL;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, s->caps, info.size, N_FRAMES,
      N_FRAMES);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (s->p->memory == MEMORY_CUDA && s->p->cuda_stream &&
      !cuda_pool_config_add_stream (config, MAX (s->device, 0))) {
    g_printerr ("  no GstCudaStream for the frames (GStreamer >= 1.24)\n");
    gst_structure_free (config);
    gst_object_unref (pool);
    return NULL;
  }
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE) ||
      gst_buffer_pool_acquire_buffer (pool, &probe, NULL) != GST_FLOW_OK) {
    gst_object_unref (pool);
    return NULL;
  }
  s->mem_type = gst_buffer_peek_memory (probe, 0)->allocator->mem_type;
  gst_buffer_unref (probe);
  return pool;
}

static const char *
memory_props (Memory m)
{
  return m == MEMORY_PINNED ? "memory=copy" : m == MEMORY_MAPPED ?
      "memory=mapped" : "";
}

/* The element's device-id for system-memory frames of a stream given a
 * GPU; CUDA memory is labeled where it lives (device-id auto). */
static gchar *
device_props (const Stream * s)
{
  if (s->device < 0 || s->p->memory == MEMORY_CUDA)
    return g_strdup ("");
  return g_strdup_printf ("device-id=%d", s->device);
}

/* The element's messages (post-messages, track events) are freed as they
 * are posted, as an application that reads them frees them: left on the
 * bus, which nobody pops during a run, a run's worth of them would pile
 * up there. Errors and EOS stay on the bus for check_bus. */
static GstBusSyncReply
drop_element_messages (GstBus * bus, GstMessage * msg, gpointer data)
{
  return GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT ? GST_BUS_DROP :
      GST_BUS_PASS;
}

/* Build, negotiate, fill the pool with the scene. */
static gboolean
stream_setup (Stream * s)
{
  const StreamParams *p = s->p;
  gchar *device = device_props (s);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "gpucclblob name=ccl backend=%s draw=%s threshold=%d %s %s %s ! "
      "fakesink name=sink sync=false signal-handoffs=true", p->backend,
      p->draw, THRESHOLD, p->props ? p->props : "", memory_props (p->memory),
      device);
  GError *err = NULL;
  GstElement *sink;
  GstBus *bus;
  GstVideoInfo info;
  GstBuffer *first, *frames[N_FRAMES];
  guint8 *levels;

  s->pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  g_free (device);
  if (!s->pipeline) {
    g_printerr ("  %s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  s->src = gst_bin_get_by_name (GST_BIN (s->pipeline), "src");
  s->ccl = gst_bin_get_by_name (GST_BIN (s->pipeline), "ccl");
  sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), s);
  gst_object_unref (sink);
  probe_element (s->ccl, s);
  bus = gst_element_get_bus (s->pipeline);
  gst_bus_set_sync_handler (bus, drop_element_messages, NULL, NULL);
  gst_object_unref (bus);

  gst_video_info_set_format (&info, p->format, p->size->width,
      p->size->height);
  s->caps = gst_video_info_to_caps (&info);
  if (p->memory == MEMORY_CUDA)
    cuda_use_device (s->pipeline, s->caps, MAX (s->device, 0));
  gst_app_src_set_caps (GST_APP_SRC (s->src), s->caps);
  if (gst_element_set_state (s->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    check_bus (s->pipeline, 0, FALSE);
    return FALSE;
  }

  /* One ordinary buffer to get the caps through, then the pool. */
  first = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (first, 0, 0, GST_VIDEO_INFO_SIZE (&info));
  GST_BUFFER_PTS (first) = s->pts;
  s->pts += GST_SECOND / 30;
  gst_app_src_push_buffer (GST_APP_SRC (s->src), first);
  for (int t = 0; g_atomic_int_get (&s->frames) < 1; t++) {
    if (t == 200000 || !check_bus (s->pipeline, 0, FALSE))
      return FALSE;             /* 10 s, or an error */
    g_usleep (50);
  }
  s->pool = frame_pool (s);
  if (!s->pool) {
    g_printerr ("  no buffer pool for these frames\n");
    return FALSE;
  }
  levels = g_malloc ((size_t) p->size->width * p->size->height);
  for (int i = 0; i < N_FRAMES; i++) {
    GstVideoFrame f;
    gst_buffer_pool_acquire_buffer (s->pool, &frames[i], NULL);
    scene_levels (levels, p->size->width, p->size->height, p->n_discs,
        p->lattice, i);
    gst_video_frame_map (&f, &info, frames[i], GST_MAP_WRITE);
    fill_frame (&f, levels);
    gst_video_frame_unmap (&f);
  }
  g_free (levels);
  for (int i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (frames[i]);       /* back to the pool, content kept */
  return TRUE;
}

/* Acquire from the pool and push `count` frames, wait until they came out
 * (the streaming thread is then idle). */
static gboolean
push_frames (Stream * s, int count, gboolean eos)
{
  gint target = g_atomic_int_get (&s->frames) + count;

  for (int i = 0; i < count; i++) {
    GstBuffer *buf;
    if (gst_buffer_pool_acquire_buffer (s->pool, &buf, NULL) != GST_FLOW_OK)
      return FALSE;
    GST_BUFFER_PTS (buf) = s->pts;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    s->pts += GST_SECOND / 30;
    if (gst_app_src_push_buffer (GST_APP_SRC (s->src), buf) != GST_FLOW_OK)
      return FALSE;
  }
  if (eos) {
    gst_app_src_end_of_stream (GST_APP_SRC (s->src));
    return check_bus (s->pipeline, 600 * GST_SECOND, TRUE);
  }
  while (g_atomic_int_get (&s->frames) < target)
    g_usleep (50);
  return TRUE;
}

static gpointer
warm_up (gpointer data)
{
  Stream *s = data;
  s->ok = push_frames (s, WARMUP_FRAMES, FALSE);
  return NULL;
}

static gpointer
timed_run (gpointer data)
{
  Stream *s = data;
  s->ok = push_frames (s, s->timed, TRUE);
  s->finished = g_get_monotonic_time ();
  return NULL;
}

/* Every stream's `fn` in a thread of its own; the wall time. */
static gint64
run_all (Stream * streams, int n, GThreadFunc fn)
{
  GThread **threads = g_new (GThread *, n);
  gint64 t0 = g_get_monotonic_time ();

  for (int i = 0; i < n; i++)
    threads[i] = g_thread_new ("stream", fn, &streams[i]);
  for (int i = 0; i < n; i++)
    g_thread_join (threads[i]);
  g_free (threads);
  return g_get_monotonic_time () - t0;
}

static void
stream_free (Stream * s)
{
  if (s->pipeline)
    gst_element_set_state (s->pipeline, GST_STATE_NULL);
  if (s->pool) {
    gst_buffer_pool_set_active (s->pool, FALSE);
    gst_object_unref (s->pool);
  }
  g_free (s->element_ns);
  if (s->caps)
    gst_caps_unref (s->caps);
  gst_clear_object (&s->src);
  gst_clear_object (&s->ccl);
  gst_clear_object (&s->pipeline);
}

/* Each device's frames per second: its streams' frames over the time
 * until the last of them was done (a faster GPU's streams end first). */
static void
devices_fps (const Stream * streams, int n_streams, gint64 start, Result * r)
{
  const StreamParams *p = streams[0].p;

  for (int d = 0; d < p->n_devices; d++) {
    gint64 end = start;
    int frames = 0;
    for (int i = d; i < n_streams; i += p->n_devices) {
      end = MAX (end, streams[i].finished);
      frames += streams[i].timed;
    }
    r->device_fps[d] = frames / (MAX (end - start, 1) / 1e6);
  }
}

Result
run_streams (const StreamParams * p, int n_streams, double seconds)
{
  Stream *streams = g_new0 (Stream, n_streams);
  Result r = { 0 };
  gint64 wall, start;
  int timed, total = 0, all_frames = 0, n_times = 0;
  guint64 *times, uploads;
  gboolean ok = TRUE;

  for (int i = 0; i < n_streams && ok; i++) {
    streams[i].p = p;
    streams[i].device = p->devices ? p->devices[i % p->n_devices] : -1;
    ok = stream_setup (&streams[i]);
  }
  if (!ok)
    goto out;

  /* Warm-up, all streams at once; it also sizes the timed run to about
   * `seconds` at the rate they reach together. */
  wall = run_all (streams, n_streams, warm_up);
  for (int i = 0; i < n_streams; i++)
    ok = ok && streams[i].ok;
  if (!ok)
    goto out;
  timed = (int) CLAMP (seconds * WARMUP_FRAMES * 1e6 / MAX (wall, 1), 50,
      200000);
  for (int i = 0; i < n_streams; i++) {
    Stream *s = &streams[i];
    s->label_ns_sum = s->track_ns_sum = s->blobs_sum = 0;
    s->copied = 0;
    s->timed = timed;
    s->cap_element = timed;
    s->n_element = 0;
    s->element_ns = g_new (guint64, timed);
    g_atomic_int_set (&s->frames, 0);
  }
  uploads = gpuccl_frame_uploads ();
  start = g_get_monotonic_time ();
  wall = run_all (streams, n_streams, timed_run);
  uploads = gpuccl_frame_uploads () - uploads;
  if (p->devices)
    devices_fps (streams, n_streams, start, &r);

  times = g_new (guint64, (gsize) timed * n_streams);
  for (int i = 0; i < n_streams; i++) {
    Stream *s = &streams[i];
    ok = ok && s->ok && g_atomic_int_get (&s->frames) == timed;
    memcpy (times + n_times, s->element_ns, s->n_element * sizeof *times);
    n_times += s->n_element;
    r.label_us += s->label_ns_sum / 1e3;
    r.track_us += s->track_ns_sum / 1e3;
    r.blobs += s->blobs_sum;
    r.copied += s->copied;
    all_frames += s->frames;
    total += timed;
  }
  if (n_times > 0) {
    qsort (times, n_times, sizeof *times, cmp_u64);
    r.element_us = times[n_times / 2] / 1e3;
  }
  g_free (times);
  r.fps = total / (wall / 1e6);
  r.uploads = (double) uploads / MAX (total, 1);
  r.label_us /= MAX (all_frames, 1);
  r.track_us /= MAX (all_frames, 1);
  r.blobs /= MAX (all_frames, 1);
  r.in_place = p->memory == MEMORY_SYSTEM || p->memory == MEMORY_CUDA ||
      !g_strcmp0 (streams[0].mem_type, "GpucclHostMemory");
  r.ok = ok;

out:
  for (int i = 0; i < n_streams; i++)
    stream_free (&streams[i]);
  g_free (streams);
  return r;
}
