/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob-pipeline-bench: frames per second of a whole GStreamer
 * pipeline, appsrc → gpucclblob → fakesink, with the frames pre-generated
 * in the element's own buffer pool (pinned host memory with CUDA), and in
 * the same run an OpenCV CPU baseline doing what an application would do
 * per frame without gpucclblob (threshold + connectedComponentsWithStats).
 *
 * The scene: bright discs (a given number, moving a little from frame to
 * frame) on a dark background, 8 distinct frames cycled. The pool holds
 * exactly those 8 buffers: a buffer comes back to the pool when fakesink
 * drops it and is pushed again, with its content (and, when drawing, the
 * overlays of its earlier passes) intact — the source costs nothing, and
 * drawing never forces a copy because every pushed buffer is writable.
 *
 * --scene lattice: instead, exactly --blobs small discs (radius 4) on a
 * jittered lattice, each circling its home once every 8 frames, so no two
 * ever touch (the blob count is known: --blobs) and the cycled frames are
 * one continuous motion (a tracker sees no jump when the cycle restarts).
 *
 * The element's frame time: pad probes stamp each buffer as it enters
 * gpucclblob's sink pad and as it leaves its source pad (the element works
 * in place, in the streaming thread, between the two); the median over the
 * timed frames is element_us. --track-share runs every combination with
 * track=false and track=true, alternating, --repeat times each, and
 * reports the median run of each and what tracking adds as a share of the
 * element's frame time with tracking.
 *
 * Usage: gpucclblob-pipeline-bench [--backends cpu,cuda] [--sizes 1080p,4k]
 *   [--formats GRAY8,NV12,RGBA] [--draw none,boxes] [--seconds 1.0]
 *   [--blobs 64] [--scene discs|lattice] [--track-share] [--repeat 3]
 *   [--element-props "memory=mapped ..."] [--csv FILE]
 * A backend that cannot run (cuda without a GPU) is reported and skipped. */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuccl.h"
#include "gstcclblobmeta.h"
#include "pipeline_opencv.h"

#define N_FRAMES 8      /* distinct pre-generated frames = pool size */
#define WARMUP_FRAMES 24
#define THRESHOLD 127

typedef struct
{
  const char *name;
  int width, height;
} Size;

static const Size all_sizes[] = {
  {"1080p", 1920, 1080}, {"4k", 3840, 2160}, {"720p", 1280, 720},
  {"8k", 7680, 4320},
};

/* What one pipeline run measured. */
typedef struct
{
  double fps;
  double element_us;            /* median time in the element per frame */
  double label_us;              /* mean GstCclBlobMeta processing time */
  double track_us;              /* mean GstCclBlobMeta tracking time */
  double blobs;                 /* mean blobs per frame */
  int copied;                   /* timed frames copied on the host */
  gboolean ok;
} Result;

/* Counters updated by fakesink's handoff (streaming thread), read by the
 * main thread. */
typedef struct
{
  gint frames;
  gint copied;                  /* frames that left the element's memory */
  guint64 label_ns_sum;
  guint64 track_ns_sum;
  guint64 blobs_sum;
  /* Pad probes (streaming thread): when the buffer in the element entered
   * it, and the time each timed frame spent there. */
  GstClockTime entered;
  guint64 *element_ns;          /* NULL outside the timed run */
  gint n_element, cap_element;
} Counters;

/* ------------------------------------------------------------------ */
/* Scene                                                              */

typedef struct
{
  double x, y, vx, vy, r;
} Disc;

/* Disc i of the lattice scene at frame `index`: lattice cells of about
 * w * h / n pixels each, a home jittered by up to 8 px from the cell's
 * centre, a circle of radius 6 px around it, one turn per N_FRAMES. Discs
 * of radius 4 then stay apart as long as a cell is wider than 2 * (8 + 6
 * + 4) = 36 px (1 000 discs at 1080p: cells of 45 px). */
static void
lattice_disc (GRand * rand, int w, int h, int n_discs, int i, int index,
    Disc * d)
{
  int cols = MAX (1, (int) ceil (sqrt ((double) n_discs * w / h)));
  int rows = (n_discs + cols - 1) / cols;
  double cw = (double) w / cols, ch = (double) h / rows;
  double jx = g_rand_double_range (rand, -8, 8);
  double jy = g_rand_double_range (rand, -8, 8);
  double phase = g_rand_double_range (rand, 0, 2 * G_PI);
  double a = phase + 2 * G_PI * index / N_FRAMES;

  d->r = 4;
  d->x = (i % cols + 0.5) * cw + jx + 6 * cos (a);
  d->y = (i / cols + 0.5) * ch + jy + 6 * sin (a);
}

/* Gray levels of frame `index`: discs at 220 on a background at 20. */
static void
scene_levels (guint8 * levels, int w, int h, int n_discs, gboolean lattice,
    int index)
{
  GRand *rand = g_rand_new_with_seed (1234);
  double scale = h / 1080.0;

  memset (levels, 20, (size_t) w * h);
  for (int i = 0; i < n_discs; i++) {
    Disc d;
    if (lattice) {
      lattice_disc (rand, w, h, n_discs, i, index, &d);
    } else {
      d.r = g_rand_double_range (rand, 6, 40) * scale;
      d.x = g_rand_double_range (rand, d.r, w - d.r);
      d.y = g_rand_double_range (rand, d.r, h - d.r);
      d.vx = g_rand_double_range (rand, -4, 4) * scale;
      d.vy = g_rand_double_range (rand, -4, 4) * scale;
      d.x += d.vx * index;
      d.y += d.vy * index;
    }
    int y0 = MAX (0, (int) (d.y - d.r)), y1 = MIN (h - 1, (int) (d.y + d.r));
    for (int y = y0; y <= y1; y++) {
      double dy = y - d.y, half = sqrt (MAX (0.0, d.r * d.r - dy * dy));
      int x0 = MAX (0, (int) ceil (d.x - half));
      int x1 = MIN (w - 1, (int) floor (d.x + half));
      if (x1 >= x0)
        memset (levels + (size_t) y * w + x0, 220, x1 - x0 + 1);
    }
  }
  g_rand_free (rand);
}

/* Write the levels into a frame: the Y plane (NV12: neutral chroma) or
 * R = G = B (alpha opaque). */
static void
fill_frame (GstVideoFrame * f, const guint8 * levels)
{
  int w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  guint8 *p0 = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  int s0 = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);

  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_RGBA) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        guint8 *px = p0 + (size_t) y * s0 + 4 * x, v = levels[y * w + x];
        px[0] = px[1] = px[2] = v;
        px[3] = 255;
      }
    return;
  }
  for (int y = 0; y < h; y++)
    memcpy (p0 + (size_t) y * s0, levels + (size_t) y * w, w);
  if (GST_VIDEO_FRAME_FORMAT (f) == GST_VIDEO_FORMAT_NV12)
    memset (GST_VIDEO_FRAME_PLANE_DATA (f, 1), 128,
        (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (f, 1) *
        GST_VIDEO_FRAME_COMP_HEIGHT (f, 1));
}

/* ------------------------------------------------------------------ */
/* Pipeline run                                                       */

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Counters *c = data;
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);

  if (meta) {
    c->label_ns_sum += meta->processing_ns;
    c->track_ns_sum += meta->tracking_ns;
    c->blobs_sum += meta->n_blobs;
  }
  /* A frame copied on the way (a non-writable buffer drawn on) would be
   * in system memory here. */
  if (!gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          "GpucclHostMemory"))
    c->copied++;
  g_atomic_int_inc (&c->frames);
}

static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Counters *) data)->entered = gst_util_get_timestamp ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Counters *c = data;
  GstClockTime now = gst_util_get_timestamp ();

  if (c->element_ns && c->n_element < c->cap_element)
    c->element_ns[c->n_element++] = now - c->entered;
  return GST_PAD_PROBE_OK;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* Buffer probes on the element's pads: its time per frame. */
static void
probe_element (GstElement * ccl, Counters * c)
{
  GstPad *sink = gst_element_get_static_pad (ccl, "sink");
  GstPad *src = gst_element_get_static_pad (ccl, "src");

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_enter, c, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_leave, c, NULL);
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
 * caps went through), sized to hold exactly the N_FRAMES frames. */
static GstBufferPool *
element_pool (GstElement * ccl, GstCaps * caps, gboolean * pinned)
{
  GstPad *pad = gst_element_get_static_pad (ccl, "sink");
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint size = 0, min, max;
  GstStructure *config;
  GstBuffer *probe;

  if (!gst_pad_query (pad, query) ||
      gst_query_get_n_allocation_pools (query) == 0) {
    gst_query_unref (query);
    gst_object_unref (pad);
    return NULL;
  }
  gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  gst_query_unref (query);
  gst_object_unref (pad);
  if (!pool)
    return NULL;

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, N_FRAMES, N_FRAMES);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  if (gst_buffer_pool_acquire_buffer (pool, &probe, NULL) != GST_FLOW_OK) {
    gst_object_unref (pool);
    return NULL;
  }
  *pinned = gst_memory_is_type (gst_buffer_peek_memory (probe, 0),
      "GpucclHostMemory");
  gst_buffer_unref (probe);
  return pool;
}

/* Acquire from the pool and push until `count` frames went out. */
static gboolean
push_frames (GstAppSrc * src, GstBufferPool * pool, int count,
    guint64 * pts)
{
  for (int i = 0; i < count; i++) {
    GstBuffer *buf;
    if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK)
      return FALSE;
    GST_BUFFER_PTS (buf) = *pts;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    *pts += GST_SECOND / 30;
    if (gst_app_src_push_buffer (src, buf) != GST_FLOW_OK)
      return FALSE;
  }
  return TRUE;
}

static void
wait_frames (Counters * c, int n)
{
  while (g_atomic_int_get (&c->frames) < n)
    g_usleep (50);
}

static Result
run_pipeline (const char *backend, GstVideoFormat format, const Size * size,
    const char *draw, const char *props, int n_discs, gboolean lattice,
    double seconds, gboolean * pinned)
{
  Result r = { 0 };
  Counters c = { 0 };
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "gpucclblob name=ccl backend=%s draw=%s threshold=%d %s ! "
      "fakesink name=sink sync=false signal-handoffs=true", backend, draw,
      THRESHOLD, props ? props : "");
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *src, *ccl, *sink;
  GstVideoInfo info;
  GstCaps *caps;
  GstBufferPool *pool = NULL;
  GstBuffer *first, *frames[N_FRAMES];
  guint8 *levels;
  guint64 pts = 0;
  gint64 t0, t1;
  int timed;

  g_free (desc);
  if (!pipeline) {
    g_printerr ("  %s\n", err->message);
    g_error_free (err);
    return r;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  ccl = gst_bin_get_by_name (GST_BIN (pipeline), "ccl");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  probe_element (ccl, &c);

  gst_video_info_set_format (&info, format, size->width, size->height);
  caps = gst_video_info_to_caps (&info);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    check_bus (pipeline, 0, FALSE);
    goto out;
  }

  /* One ordinary buffer to get the caps through, then the pool. */
  first = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (first, 0, 0, GST_VIDEO_INFO_SIZE (&info));
  GST_BUFFER_PTS (first) = pts;
  pts += GST_SECOND / 30;
  gst_app_src_push_buffer (GST_APP_SRC (src), first);
  wait_frames (&c, 1);
  pool = element_pool (ccl, caps, pinned);
  if (!pool) {
    g_printerr ("  the element offered no buffer pool\n");
    goto out;
  }

  levels = g_malloc ((size_t) size->width * size->height);
  for (int i = 0; i < N_FRAMES; i++) {
    GstVideoFrame f;
    gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL);
    scene_levels (levels, size->width, size->height, n_discs, lattice, i);
    gst_video_frame_map (&f, &info, frames[i], GST_MAP_WRITE);
    fill_frame (&f, levels);
    gst_video_frame_unmap (&f);
  }
  g_free (levels);
  for (int i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (frames[i]);       /* back to the pool, content kept */

  /* Warm-up, which also sizes the timed run to about `seconds`. */
  t0 = g_get_monotonic_time ();
  if (!push_frames (GST_APP_SRC (src), pool, WARMUP_FRAMES, &pts))
    goto out;
  wait_frames (&c, 1 + WARMUP_FRAMES);
  t1 = g_get_monotonic_time ();
  timed = (int) CLAMP (seconds * WARMUP_FRAMES * 1e6 / MAX (t1 - t0, 1),
      50, 200000);

  c.label_ns_sum = c.track_ns_sum = c.blobs_sum = 0;
  c.copied = 0;
  /* The streaming thread is idle here: every pushed frame came out. */
  c.cap_element = timed;
  c.n_element = 0;
  c.element_ns = g_new (guint64, timed);
  g_atomic_int_set (&c.frames, 0);
  t0 = g_get_monotonic_time ();
  if (!push_frames (GST_APP_SRC (src), pool, timed, &pts))
    goto out;
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  if (!check_bus (pipeline, 600 * GST_SECOND, TRUE))
    goto out;
  t1 = g_get_monotonic_time ();

  r.fps = timed / ((t1 - t0) / 1e6);
  if (c.n_element > 0) {
    qsort (c.element_ns, c.n_element, sizeof *c.element_ns, cmp_u64);
    r.element_us = c.element_ns[c.n_element / 2] / 1e3;
  }
  r.label_us = c.label_ns_sum / 1e3 / MAX (c.frames, 1);
  r.track_us = c.track_ns_sum / 1e3 / MAX (c.frames, 1);
  r.blobs = (double) c.blobs_sum / MAX (c.frames, 1);
  r.copied = c.copied;
  r.ok = g_atomic_int_get (&c.frames) == timed;

out:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_free (c.element_ns);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_caps_unref (caps);
  gst_object_unref (src);
  gst_object_unref (ccl);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return r;
}

/* ------------------------------------------------------------------ */
/* OpenCV baseline                                                    */

static double
run_opencv (GstVideoFormat format, const Size * size, int n_discs,
    gboolean lattice, double seconds, double *blobs)
{
  int w = size->width, h = size->height;
  int channels = format == GST_VIDEO_FORMAT_RGBA ? 4 : 1;
  size_t stride = (size_t) w * channels;
  guint8 *data[N_FRAMES];
  guint8 *levels = g_malloc ((size_t) w * h);
  long n_sum = 0;
  int frames = 0;
  gint64 t0, deadline;

  for (int i = 0; i < N_FRAMES; i++) {
    scene_levels (levels, w, h, n_discs, lattice, i);
    data[i] = g_malloc (stride * h);
    if (channels == 1) {
      memcpy (data[i], levels, (size_t) w * h);
    } else {
      for (size_t p = 0; p < (size_t) w * h; p++) {
        data[i][4 * p] = data[i][4 * p + 1] = data[i][4 * p + 2] = levels[p];
        data[i][4 * p + 3] = 255;
      }
    }
  }
  g_free (levels);

  for (int i = 0; i < 3; i++)   /* warm-up: scratch matrices, threads */
    pipeline_opencv_frame (data[i], w, h, stride, channels, THRESHOLD, 8);
  t0 = g_get_monotonic_time ();
  deadline = t0 + (gint64) (seconds * 1e6);
  do {
    long n = pipeline_opencv_frame (data[frames % N_FRAMES], w, h, stride,
        channels, THRESHOLD, 8);
    if (n < 0)
      return 0;
    n_sum += n;
    frames++;
  } while (g_get_monotonic_time () < deadline || frames < 10);
  *blobs = (double) n_sum / frames;
  for (int i = 0; i < N_FRAMES; i++)
    g_free (data[i]);
  return frames / ((g_get_monotonic_time () - t0) / 1e6);
}

/* ------------------------------------------------------------------ */

static gchar **
split (const gchar * s)
{
  return g_strsplit (s, ",", -1);
}

/* What one combination of the table runs. */
typedef struct
{
  const char *backend, *device, *format_name, *draw_name, *draw;
  GstVideoFormat format;
  const Size *size;
  const char *props;
  int n_discs;
  gboolean lattice;
  double seconds, cv_fps;
  FILE *csv;
} Combo;

/* One row of the table (and of the CSV); track is "default", "false" or
 * "true". FALSE when the run failed (said). */
static gboolean
report (const Combo * k, const char *track, const Result * r, gboolean pinned)
{
  if (!r->ok) {
    printf ("%-5s %-22s %-6s %-6s %-16s FAILED\n", k->backend, k->device,
        k->format_name, k->size->name, k->draw_name);
    return FALSE;
  }
  printf ("%-5s %-22.22s %-6s %-6s %-16s %-7s %10.1f %9.1f %9.1f %9.1f %7.1f "
      "%10.1f %7.1fx%s%s\n", k->backend, k->device, k->format_name,
      k->size->name, k->draw_name, track, r->fps, 1e6 / r->fps, r->element_us,
      r->label_us, r->blobs, k->cv_fps, r->fps / k->cv_fps,
      pinned ? "" : " (frames not in the element's memory)",
      r->copied ? " (frames copied on the host!)" : "");
  if (k->csv)
    fprintf (k->csv, "%s,%s,%s,%s,%s,%.1f,%.2f,%.2f,%.1f,%.1f,%.2f,%d,%.2f,%s\n",
        k->backend, k->device, k->format_name, k->size->name, k->draw_name,
        r->fps, 1e6 / r->fps, r->label_us, r->blobs, k->cv_fps,
        r->fps / k->cv_fps, pinned, r->element_us, track);
  return TRUE;
}

static Result
run_combo (const Combo * k, const char *track, gboolean * pinned)
{
  gchar *props = track ? g_strdup_printf ("%s track=%s",
      k->props ? k->props : "", track) : g_strdup (k->props);
  Result r = run_pipeline (k->backend, k->format, k->size, k->draw, props,
      k->n_discs, k->lattice, k->seconds, pinned);
  g_free (props);
  return r;
}

static int
cmp_result (const void *a, const void *b)
{
  double x = ((const Result *) a)->element_us, y = ((const Result *) b)->element_us;
  return (x > y) - (x < y);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median over runs of the double at `offset` in Result. */
static double
median_field (const Result * runs, int n, gsize offset)
{
  double *v = g_new (double, n), m;

  for (int i = 0; i < n; i++)
    v[i] = G_STRUCT_MEMBER (double, &runs[i], offset);
  qsort (v, n, sizeof *v, cmp_double);
  m = v[n / 2];
  g_free (v);
  return m;
}

/* track=false and track=true, alternating, `repeat` times each; of each,
 * the run with the median element time (runs on a busy machine differ
 * more than tracking costs, and alternating spreads the disturbance over
 * both). Returns the failures. */
static int
track_share (const Combo * k, int repeat)
{
  static const char *const track[2] = { "false", "true" };
  Result *runs[2] = { g_new0 (Result, repeat), g_new0 (Result, repeat) };
  gboolean pinned[2] = { FALSE, FALSE };
  Result mid[2];
  int n[2] = { 0, 0 }, failures = 0;

  for (int i = 0; i < repeat; i++)
    for (int t = 0; t < 2; t++) {
      Result r = run_combo (k, track[t], &pinned[t]);
      if (r.ok)
        runs[t][n[t]++] = r;
      else
        failures++;
    }
  for (int t = 0; t < 2; t++) {
    memset (&mid[t], 0, sizeof mid[t]);
    if (n[t]) {
      qsort (runs[t], n[t], sizeof *runs[t], cmp_result);
      mid[t] = runs[t][n[t] / 2];
    }
    if (!report (k, track[t], &mid[t], pinned[t]))
      failures++;
  }
  if (n[0] && n[1]) {
    double add = mid[1].element_us - mid[0].element_us;
    /* Without metas (attach-meta=false) the count is the scene's. */
    double blobs = mid[1].blobs > 0 ? mid[1].blobs : k->lattice ? k->n_discs : 0;
    printf ("  tracking share: %s %s %s %s, %.0f blobs, median of %d runs each "
        "(range %.1f-%.1f / %.1f-%.1f us): element %.1f -> %.1f us per frame, "
        "tracking adds %.1f us (%.0f ns per blob) = %.2f %% of the element's "
        "frame time with tracking (%s 5 %%); whole pipeline %.1f -> %.1f us "
        "per frame\n", k->backend, k->format_name, k->size->name,
        k->draw_name, blobs, MIN (n[0], n[1]), runs[0][0].element_us,
        runs[0][n[0] - 1].element_us, runs[1][0].element_us,
        runs[1][n[1] - 1].element_us, mid[0].element_us, mid[1].element_us,
        add, blobs > 0 ? add * 1e3 / blobs : 0,
        100.0 * add / mid[1].element_us,
        add < 0.05 * mid[1].element_us ? "below" : "NOT below",
        1e6 / mid[0].fps, 1e6 / mid[1].fps);
    /* The same from the inside, which the spread between runs does not
     * blur: the tracker's host time the element measures itself (meta
     * tracking_ns), plus what the labeling gained with tracking (with
     * CUDA, the GPU's search for each track's nearest blob). */
    double host = median_field (runs[1], n[1], G_STRUCT_OFFSET (Result, track_us));
    double label[2];
    for (int t = 0; t < 2; t++)
      label[t] = median_field (runs[t], n[t], G_STRUCT_OFFSET (Result, label_us));
    double cost = host + label[1] - label[0];
    double frame = mid[0].element_us + cost;
    printf ("  tracking share, measured inside: %s %s %s %s: the tracker "
        "%.1f us on the host + labeling %.1f -> %.1f us = %.1f us per frame "
        "= %.2f %% of the element's frame time with tracking (%.1f + %.1f "
        "us; %s 5 %%)\n", k->backend, k->format_name, k->size->name,
        k->draw_name, host, label[0], label[1], cost, 100.0 * cost / frame,
        mid[0].element_us, cost, cost < 0.05 * frame ? "below" : "NOT below");
  }
  g_free (runs[0]);
  g_free (runs[1]);
  return failures;
}

int
main (int argc, char **argv)
{
  gchar *opt_backends = g_strdup ("cpu,cuda"), *opt_sizes =
      g_strdup ("1080p,4k"), *opt_formats = g_strdup ("GRAY8,NV12,RGBA"),
      *opt_draw = g_strdup ("none,boxes"), *opt_csv = NULL,
      *opt_props = NULL;
  gdouble opt_seconds = 1.0;
  gint opt_blobs = 64, opt_repeat = 3;
  gchar *opt_scene = g_strdup ("discs");
  gboolean opt_track_share = FALSE;
  GOptionEntry entries[] = {
    {"backends", 0, 0, G_OPTION_ARG_STRING, &opt_backends,
        "Element backends, comma-separated (cpu, cuda)", "LIST"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &opt_sizes,
        "Frame sizes (720p, 1080p, 4k, 8k)", "LIST"},
    {"formats", 0, 0, G_OPTION_ARG_STRING, &opt_formats,
        "Video formats (GRAY8, NV12, RGBA)", "LIST"},
    {"draw", 0, 0, G_OPTION_ARG_STRING, &opt_draw,
        "Draw settings (none, boxes, boxes+centroids, ...)", "LIST"},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt_seconds,
        "Approximate duration of each measurement", "S"},
    {"blobs", 0, 0, G_OPTION_ARG_INT, &opt_blobs,
        "Discs in the scene", "N"},
    {"scene", 0, 0, G_OPTION_ARG_STRING, &opt_scene,
        "discs (random sizes, may touch) or lattice (radius 4, never touch: "
        "the blob count is --blobs)", "SCENE"},
    {"track-share", 0, 0, G_OPTION_ARG_NONE, &opt_track_share,
        "Run each combination with track=false and track=true and report "
        "what tracking adds to the element's frame time", NULL},
    {"repeat", 0, 0, G_OPTION_ARG_INT, &opt_repeat,
        "Runs of each with --track-share (the median run is kept)", "N"},
    {"element-props", 0, 0, G_OPTION_ARG_STRING, &opt_props,
        "More gpucclblob properties, e.g. \"memory=mapped algorithm=ha4-64\"",
        "PROPS"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
        "Also write the results to this CSV file", "FILE"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- gpucclblob pipeline fps");
  GError *err = NULL;
  gchar **backends, **sizes, **formats, **draws;
  FILE *csv = NULL;
  gboolean lattice;
  int failures = 0;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
#ifdef GPUCCL_PLUGIN_DIR
  /* Without GST_PLUGIN_PATH, the plugin built next to this program. */
  if (!gst_registry_find_plugin (gst_registry_get (), "gpucclblob"))
    gst_registry_scan_path (gst_registry_get (), GPUCCL_PLUGIN_DIR);
#endif
  if (!gst_registry_find_feature (gst_registry_get (), "gpucclblob",
          GST_TYPE_ELEMENT_FACTORY)) {
    g_printerr ("gpucclblob not found: set GST_PLUGIN_PATH\n");
    return 2;
  }

  if (strcmp (opt_scene, "discs") && strcmp (opt_scene, "lattice")) {
    g_printerr ("--scene: discs or lattice\n");
    return 2;
  }
  if (opt_blobs < 1 || opt_repeat < 1) {
    g_printerr ("--blobs and --repeat: 1 or more\n");
    return 2;
  }
  backends = split (opt_backends);
  sizes = split (opt_sizes);
  formats = split (opt_formats);
  draws = split (opt_draw);
  lattice = !strcmp (opt_scene, "lattice");
  if (opt_csv && !(csv = fopen (opt_csv, "w"))) {
    g_printerr ("cannot write %s\n", opt_csv);
    return 2;
  }
  if (csv)
    fprintf (csv, "backend,device,format,size,draw,fps,frame_us,label_us,"
        "blobs,opencv_fps,speedup,pinned,element_us,track\n");

  printf ("gpucclblob pipeline bench: appsrc (%d frames in the element's "
      "pool) ! gpucclblob ! fakesink sync=false; %d discs (%s scene); "
      "threshold %d, 8-connectivity%s%s\n", N_FRAMES, opt_blobs, opt_scene,
      THRESHOLD, opt_props ? "; element: " : "", opt_props ? opt_props : "");
  printf ("frame_us: 1 / fps of the whole pipeline; element_us: median time "
      "a frame spends in gpucclblob (sink pad to source pad); label_us: mean "
      "labeling time from the blob meta\n");
  printf ("CPU threads: %u; OpenCV baseline (threshold + "
      "connectedComponentsWithStats, RGBA: + cvtColor) with %d threads\n\n",
      g_get_num_processors (), pipeline_opencv_threads ());
  printf ("%-5s %-22s %-6s %-6s %-16s %-7s %10s %9s %9s %9s %7s %10s %8s\n",
      "back", "device", "format", "size", "draw", "track", "fps", "frame_us",
      "element_us", "label_us", "blobs", "opencv_fps", "speedup");

  for (gchar ** s = sizes; *s; s++) {
    const Size *size = NULL;
    for (gsize i = 0; i < G_N_ELEMENTS (all_sizes); i++)
      if (!g_ascii_strcasecmp (*s, all_sizes[i].name))
        size = &all_sizes[i];
    if (!size) {
      g_printerr ("unknown size %s\n", *s);
      return 2;
    }
    for (gchar ** f = formats; *f; f++) {
      GstVideoFormat format = gst_video_format_from_string (*f);
      double cv_blobs = 0, cv_fps;
      if (format != GST_VIDEO_FORMAT_GRAY8 && format != GST_VIDEO_FORMAT_NV12
          && format != GST_VIDEO_FORMAT_RGBA) {
        g_printerr ("format %s: use GRAY8, NV12 or RGBA\n", *f);
        return 2;
      }
      cv_fps = run_opencv (format, size, opt_blobs, lattice, opt_seconds,
          &cv_blobs);
      printf ("%-5s %-22s %-6s %-6s %-16s %-7s %10.1f %9.1f %9s %9s %7.1f "
          "%10s %8s\n", "cv", "OpenCV", *f, size->name, "-", "-", cv_fps,
          1e6 / cv_fps, "-", "-", cv_blobs, "-", "-");
      for (gchar ** b = backends; *b; b++) {
        GpucclError gerr = { 0 };
        char device[128] = "CPU";
        if (!strcmp (*b, "cuda")) {
          GpucclContext *ctx;
          if (!gpuccl_cuda_available (0, &gerr)) {
            printf ("%-5s skipped: %s\n", *b, gerr.message);
            continue;
          }
          ctx = gpuccl_context_new (GPUCCL_BACKEND_CUDA, 0, &gerr);
          if (ctx) {
            g_strlcpy (device, gpuccl_context_device_name (ctx),
                sizeof device);
            gpuccl_context_free (ctx);
          }
        }
        for (gchar ** d = draws; *d; d++) {
          Combo k = {.backend = *b, .device = device, .format_name = *f,
            .draw_name = *d, .draw = !strcmp (*d, "none") ? "0" : *d,
            .format = format, .size = size, .props = opt_props,
            .n_discs = opt_blobs, .lattice = lattice,
            .seconds = opt_seconds, .cv_fps = cv_fps, .csv = csv
          };
          if (opt_track_share) {
            failures += track_share (&k, opt_repeat);
          } else {
            gboolean pinned = FALSE;
            Result r = run_combo (&k, NULL, &pinned);
            if (!report (&k, "default", &r, pinned))
              failures++;
          }
        }
      }
    }
  }
  if (csv)
    fclose (csv);
  g_strfreev (backends);
  g_strfreev (sizes);
  g_strfreev (formats);
  g_strfreev (draws);
  return failures ? 1 : 0;
}
