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
 * --memory: where the frames are (element: the element's pool as its
 * memory property says; system: a plain system-memory pool; pinned and
 * mapped: the element's pool with memory=copy / mapped; cuda: GstCudaMemory,
 * frames already on the device, CUDA caps). --streams: N pipelines side by
 * side in this process (pipeline_stream.c), fps of all together.
 *
 * element_us is the median time a frame spends in gpucclblob (pad probes);
 * --track-share runs every combination with track=false and track=true,
 * alternating, --repeat times each, and reports the median run of each
 * and what tracking adds as a share of the element's frame time with
 * tracking.
 *
 * Usage: gpucclblob-pipeline-bench [--backends cpu,cuda] [--sizes 1080p,4k]
 *   [--formats GRAY8,NV12,RGBA] [--draw none,boxes] [--seconds 1.0]
 *   [--blobs 64] [--scene discs|lattice] [--track-share] [--repeat 3]
 *   [--element-props "algorithm=ha4-64 ..."]
 *   [--memory element,system,pinned,mapped,cuda] [--streams 1,4,8]
 *   [--host-draw] [--link] [--devices 0,1] [--cuda-stream]
 *   [--stream-wait-check] [--csv FILE]
 * --host-draw and --link add lines that time pieces alone
 * (pipeline_probes.c): the overlays drawn into host frames, and the
 * host-to-device link with as many copy streams as --streams lists. The
 * h2d column is what each row's frame uploads moved over that link.
 * --devices, --stream-wait-check: pipeline_devices.c; --cuda-stream: CUDA
 * memory frames carry a GstCudaStream (GStreamer >= 1.24).
 * A backend that cannot run (cuda without a GPU) is reported and skipped. */
#include "pipeline_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuccl.h"
#include "pipeline_opencv.h"

static const Size all_sizes[] = {
  {"1080p", 1920, 1080}, {"4k", 3840, 2160}, {"720p", 1280, 720},
  {"8k", 7680, 4320},
};

/* What one pipeline run measured. */
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

const char *const memory_names[] = {
  "element", "system", "pinned", "mapped", "cuda",
};

/* Bytes of the labeled plane (the one a frame upload copies). */
static size_t
labeled_plane_bytes (GstVideoFormat format, const Size * size)
{
  return (size_t) size->width * size->height *
      (format == GST_VIDEO_FORMAT_RGBA ? 4 : 1);
}

/* What the frames' uploads moved over the host-to-device link, GB/s. */
static double
h2d_gbps (const Combo * k, const Result * r)
{
  return r->fps * r->uploads * labeled_plane_bytes (k->format, k->size) /
      1e9;
}

/* The probes of pipeline_probes.c, one line each. */
static void
print_host_draw (GstVideoFormat format, const char *format_name,
    const Size * size, int n_discs, gboolean lattice, const char *draw)
{
  HostDraw d;

  if (!strcmp (draw, "none"))
    return;
  if (!host_draw_probe (format, size, n_discs, lattice, draw, &d)) {
    printf ("host  draw=%s %s %s: not measured (boxes and centroids "
        "only)\n", draw, format_name, size->name);
    return;
  }
  printf ("host  draw=%s %s %s, %zu blobs: gpuccl_draw into host frames "
      "%.0f us cold (frames the CPU has not touched), %.0f us cold in 2 MiB "
      "pages, %.0f us warm\n", draw, format_name, size->name, d.blobs,
      d.cold_us, d.cold_huge_us, d.warm_us);
}

static void
print_link (GstVideoFormat format, const char *format_name,
    const Size * size, int n_streams, double seconds)
{
  size_t row = (size_t) size->width * (format == GST_VIDEO_FORMAT_RGBA ? 4 :
      1);
  double gbps;

  if (!bench_cuda_built ()) {
    printf ("link  not measured (built without gstreamer-cuda-1.0)\n");
    return;
  }
  gbps = link_probe (n_streams, row, size->height, seconds);
  if (gbps < 0) {
    printf ("link  not measured (no CUDA)\n");
    return;
  }
  printf ("link  %s %s labeled plane (%.2f MB) pinned -> device, %d "
      "streams: %.1f GB/s = %.0f planes/s\n", format_name, size->name,
      labeled_plane_bytes (format, size) / 1e6, n_streams, gbps,
      gbps * 1e9 / labeled_plane_bytes (format, size));
}

/* One row of the table (and of the CSV); track is "default", "false" or
 * "true". FALSE when the run failed (said). */
gboolean
report (const Combo * k, const char *track, const Result * r)
{
  const char *memory = memory_names[k->memory];

  if (!r->ok) {
    printf ("%-5s %-22s %-6s %-6s %-16s %-7s %3d FAILED\n", k->backend,
        k->device, k->format_name, k->size->name, k->draw_name, memory,
        k->streams);
    return FALSE;
  }
  printf ("%-5s %-22.22s %-6s %-6s %-16s %-7s %3d %-7s %10.1f %9.1f %9.1f "
      "%9.1f %7.1f %10.1f %7.1fx %7.2f %7.1f%s%s\n", k->backend, k->device,
      k->format_name, k->size->name, k->draw_name, memory, k->streams, track,
      r->fps, 1e6 / r->fps, r->element_us, r->label_us, r->blobs, k->cv_fps,
      r->fps / k->cv_fps, r->uploads, h2d_gbps (k, r),
      r->in_place ? "" : " (frames not in the element's memory)",
      r->copied ? " (frames copied on the way!)" : "");
  if (k->csv)
    fprintf (k->csv, "%s,%s,%s,%s,%s,%.1f,%.2f,%.2f,%.1f,%.1f,%.2f,%d,%.2f,"
        "%s,%s,%d,%.3f,%.2f\n", k->backend, k->device, k->format_name,
        k->size->name, k->draw_name, r->fps, 1e6 / r->fps, r->label_us,
        r->blobs, k->cv_fps, r->fps / k->cv_fps, r->in_place, r->element_us,
        track, memory, k->streams, r->uploads, h2d_gbps (k, r));
  return TRUE;
}

Result
run_combo (const Combo * k, const char *track)
{
  gchar *props = track ? g_strdup_printf ("%s track=%s",
      k->props ? k->props : "", track) : g_strdup (k->props);
  StreamParams p = {.backend = k->backend,.draw = k->draw,.props = props,
    .format = k->format,.size = k->size,.n_discs = k->n_discs,
    .lattice = k->lattice,.memory = k->memory,.devices = k->devices,
    .n_devices = k->n_devices,.cuda_stream = k->cuda_stream
  };
  Result r = run_streams (&p, k->streams, k->seconds);
  g_free (props);
  return r;
}

static int
cmp_result (const void *a, const void *b)
{
  double x = ((const Result *) a)->element_us, y = ((const Result *) b)->element_us;
  return (x > y) - (x < y);
}

int
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
  Result mid[2];
  int n[2] = { 0, 0 }, failures = 0;

  for (int i = 0; i < repeat; i++)
    for (int t = 0; t < 2; t++) {
      Result r = run_combo (k, track[t]);
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
    if (!report (k, track[t], &mid[t]))
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
      *opt_props = NULL, *opt_memory = g_strdup ("element"),
      *opt_streams = g_strdup ("1");
  gdouble opt_seconds = 1.0;
  gint opt_blobs = 64, opt_repeat = 3;
  gchar *opt_scene = g_strdup ("discs");
  gboolean opt_track_share = FALSE, opt_host_draw = FALSE, opt_link = FALSE,
      opt_cuda_stream = FALSE, opt_wait_check = FALSE;
  gchar *opt_devices = NULL, *devices_label = NULL;
  int devices[BENCH_MAX_DEVICES], n_devices = 0;
  GOptionEntry entries[] = {
    {"backends", 0, 0, G_OPTION_ARG_STRING, &opt_backends,
        "Element backends, comma-separated (cpu, cuda)", "LIST"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &opt_sizes,
        "Frame sizes (720p, 1080p, 4k, 8k, or WxH, sides of 16 or more)",
        "LIST"},
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
    {"memory", 0, 0, G_OPTION_ARG_STRING, &opt_memory,
        "Where the frames are: element (its pool, memory property), system, "
        "pinned, mapped, cuda (GstCudaMemory)", "LIST"},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &opt_streams,
        "Pipelines side by side in this process, e.g. 1,4,8", "LIST"},
    {"host-draw", 0, 0, G_OPTION_ARG_NONE, &opt_host_draw,
        "Also time the overlays alone, drawn into host frames", NULL},
    {"link", 0, 0, G_OPTION_ARG_NONE, &opt_link,
        "Also measure the host-to-device link with as many copy streams "
        "as --streams lists", NULL},
    {"devices", 0, 0, G_OPTION_ARG_STRING, &opt_devices,
        "GPUs to spread the streams over, e.g. 0,1: each combination runs "
        "on the first alone, then spread (CUDA memory made on each "
        "stream's GPU, system memory labeled there)", "LIST"},
    {"cuda-stream", 0, 0, G_OPTION_ARG_NONE, &opt_cuda_stream,
        "CUDA memory frames carry a GstCudaStream (GStreamer >= 1.24)",
        NULL},
    {"stream-wait-check", 0, 0, G_OPTION_ARG_NONE, &opt_wait_check,
        "One stream of CUDA memory with a GstCudaStream, the element's "
        "wait for it on and off (GPUCCL_CUDA_STREAM_WAIT=0), --repeat "
        "times each in child processes: what the wait costs", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
        "Also write the results to this CSV file", "FILE"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- gpucclblob pipeline fps");
  GError *err = NULL;
  gchar **backends, **sizes, **formats, **draws, **memories, **streams;
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
  if (opt_wait_check) {
    /* The path it is about: one stream of CUDA memory on the device. */
    g_free (opt_backends);
    g_free (opt_memory);
    g_free (opt_streams);
    opt_backends = g_strdup ("cuda");
    opt_memory = g_strdup ("cuda");
    opt_streams = g_strdup ("1");
  }
  backends = split (opt_backends);
  sizes = split (opt_sizes);
  formats = split (opt_formats);
  draws = split (opt_draw);
  memories = split (opt_memory);
  streams = split (opt_streams);
  for (gchar ** m = memories; *m; m++) {
    gboolean known = FALSE;
    for (gsize i = 0; i < G_N_ELEMENTS (memory_names); i++)
      known |= !strcmp (*m, memory_names[i]);
    if (!known) {
      g_printerr ("--memory: element, system, pinned, mapped or cuda\n");
      return 2;
    }
  }
  for (gchar ** n = streams; *n; n++)
    if (atoi (*n) < 1) {
      g_printerr ("--streams: numbers of 1 or more\n");
      return 2;
    }
  if (opt_devices && !parse_devices (opt_devices, devices, &n_devices))
    return 2;
  if (opt_wait_check && (n_devices > 1 || !cuda_streams_built ())) {
    g_printerr ("--stream-wait-check: one device, and GStreamer >= 1.24 "
        "with gstreamer-cuda-1.0 (frames with a GstCudaStream)\n");
    return 2;
  }
  lattice = !strcmp (opt_scene, "lattice");
  if (n_devices > 1) {
    /* "GPUs 0+1": the table's device column (no comma: a CSV field). */
    gchar **ids = g_strsplit (opt_devices, ",", -1);
    gchar *joined = g_strjoinv ("+", ids);
    devices_label = g_strdup_printf ("GPUs %s", joined);
    g_free (joined);
    g_strfreev (ids);
  }
  if (opt_csv && !(csv = fopen (opt_csv, "w"))) {
    g_printerr ("cannot write %s\n", opt_csv);
    return 2;
  }
  if (csv)
    fprintf (csv, "backend,device,format,size,draw,fps,frame_us,label_us,"
        "blobs,opencv_fps,speedup,in_place,element_us,track,memory,streams,"
        "uploads_per_frame,h2d_gbps\n");

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
  printf ("fps: all streams together; frame_us: 1 / fps; element_us: the "
      "median over all streams' frames; uploads: frame copies to the GPU "
      "per frame (gpuccl_frame_uploads); h2d: GB/s those uploads moved\n");
  printf ("%-5s %-22s %-6s %-6s %-16s %-7s %3s %-7s %10s %9s %9s %9s %7s %10s "
      "%8s %7s %7s\n", "back", "device", "format", "size", "draw", "memory",
      "n", "track", "fps", "frame_us", "element_us", "label_us", "blobs",
      "opencv_fps", "speedup", "uploads", "h2d");

  for (gchar ** s = sizes; *s; s++) {
    const Size *size = NULL;
    Size custom = { *s, 0, 0 };
    for (gsize i = 0; i < G_N_ELEMENTS (all_sizes); i++)
      if (!g_ascii_strcasecmp (*s, all_sizes[i].name))
        size = &all_sizes[i];
    /* WxH: a tiny frame shows the element's own per-frame cost, which
     * labeling a large one hides. */
    if (!size && sscanf (*s, "%dx%d", &custom.width, &custom.height) == 2 &&
        custom.width >= 16 && custom.height >= 16)
      size = &custom;
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
      printf ("%-5s %-22s %-6s %-6s %-16s %-7s %3d %-7s %10.1f %9.1f %9s %9s "
          "%7.1f %10s %8s\n", "cv", "OpenCV", *f, size->name, "-", "-", 1,
          "-", cv_fps, 1e6 / cv_fps, "-", "-", cv_blobs, "-", "-");
      for (gchar ** d = draws; *d && opt_host_draw; d++)
        print_host_draw (format, *f, size, opt_blobs, lattice, *d);
      for (gchar ** n = streams; *n && opt_link; n++)
        print_link (format, *f, size, atoi (*n), opt_seconds);
      for (gchar ** b = backends; *b; b++) {
        GpucclError gerr = { 0 };
        char device[128] = "CPU";
        int first = n_devices ? devices[0] : 0;
        if (!strcmp (*b, "cuda")) {
          GpucclContext *ctx;
          if (!gpuccl_cuda_available (first, &gerr)) {
            printf ("%-5s skipped: %s\n", *b, gerr.message);
            continue;
          }
          ctx = gpuccl_context_new (GPUCCL_BACKEND_CUDA, first, &gerr);
          if (ctx) {
            g_strlcpy (device, gpuccl_context_device_name (ctx),
                sizeof device);
            gpuccl_context_free (ctx);
          }
        }
        for (gchar ** m = memories; *m; m++) {
          Memory memory = MEMORY_ELEMENT;
          const char *why = NULL;
          for (gsize i = 0; i < G_N_ELEMENTS (memory_names); i++)
            if (!strcmp (*m, memory_names[i]))
              memory = (Memory) i;
          if (!memory_on_devices (memory, format, devices, n_devices,
                  &why)) {
            printf ("%-5s %s memory skipped: %s\n", *b, *m, why);
            continue;
          }
          for (gchar ** d = draws; *d; d++)
            for (gchar ** n = streams; *n; n++) {
              Combo k = {.backend = *b,.device = device,.format_name = *f,
                .draw_name = *d,.draw = !strcmp (*d, "none") ? "0" : *d,
                .format = format,.size = size,.props = opt_props,
                .n_discs = opt_blobs,.lattice = lattice,.memory = memory,
                .streams = atoi (*n),.seconds = opt_seconds,.cv_fps = cv_fps,
                .csv = csv,.devices = n_devices ? devices : NULL,
                .n_devices = n_devices,.cuda_stream = opt_cuda_stream
              };
              if (n_devices > 1)
                k.device = devices_label;
              if (opt_wait_check) {
                failures += stream_wait_check (&k, opt_repeat);
              } else if (n_devices > 1) {
                failures += devices_scaling (&k);
              } else if (opt_track_share) {
                failures += track_share (&k, opt_repeat);
              } else {
                Result r = run_combo (&k, NULL);
                if (!report (&k, "default", &r))
                  failures++;
              }
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
  g_strfreev (memories);
  g_strfreev (streams);
  g_free (devices_label);
  return failures ? 1 : 0;
}
