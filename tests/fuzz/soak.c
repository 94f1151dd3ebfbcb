/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Soak: push many small frames through one gpucclblob (GstHarness) and
 * watch memory. Host RSS (and, with backend=cuda, the process's device
 * memory from nvidia-smi) is sampled at intervals; after a warm-up, its
 * growth must stay under a bound.
 *
 *   soak [--frames N] [--width W] [--height H] [--samples K]
 *        [--max-growth-kib B] [--backend cpu|cuda|auto]
 *
 * Defaults: 100 000 frames of 64x48 GRAY8 (the CI run); 10^6 frames with
 * --frames 1000000. Frames cycle through 16 pre-drawn ones with moving
 * rectangles; every 1 000 frames a property changes (threshold,
 * connectivity, draw, max-blobs, track), with messages posted and metas
 * attached throughout, so every per-frame allocation path runs. */
#include "frames.h"

#include <gst/check/gstharness.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_FRAMES 16

/* The process's device memory in MiB (nvidia-smi), -1 if unknown. */
static gint64
device_mib (void)
{
  gchar *out = NULL;
  gint64 mib = -1;
  pid_t pid = getpid ();
  const gchar *argv[] = { "nvidia-smi", "--query-compute-apps=pid,used_memory",
    "--format=csv,noheader,nounits", NULL
  };

  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, NULL, NULL))
    return -1;
  gchar **lines = g_strsplit (out, "\n", -1);
  for (gchar ** l = lines; *l; l++)
    if (strtol (*l, NULL, 10) == pid && strchr (*l, ','))
      mib = g_ascii_strtoll (strchr (*l, ',') + 1, NULL, 10);
  g_strfreev (lines);
  g_free (out);
  return mib;
}

int
main (int argc, char **argv)
{
  guint64 frames = 100000, max_growth_kib = 4096;
  gint width = 64, height = 48, samples = 20;
  const gchar *backend = NULL;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT64, &frames, "Frames to push", "N"},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Frame width", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Frame height", "H"},
    {"samples", 0, 0, G_OPTION_ARG_INT, &samples, "Memory samples", "K"},
    {"max-growth-kib", 0, 0, G_OPTION_ARG_INT64, &max_growth_kib,
        "Largest RSS growth after warm-up", "B"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu, cuda or auto",
        "B"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- gpucclblob soak");
  GError *err = NULL;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (backend)
    g_setenv ("GPUCCL_TEST_BACKEND", backend, TRUE);
  backend = rel_backend ();     /* exits 77 for cuda without a device */

  GstHarness *h = gst_harness_new ("gpucclblob");
  GstVideoInfo info;
  GstBuffer *pool[N_FRAMES];
  GRand *rand = g_rand_new_with_seed (42);
  guint8 *mask = g_malloc ((gsize) width * height);
  RelRect rects[16];

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  g_object_set (h->element, "post-messages", TRUE, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  for (guint i = 0; i < N_FRAMES; i++) {
    rel_mask_rects (mask, width, height, rand, rects, 16);
    pool[i] = rel_buffer_new (&info, mask);
  }
  gst_harness_set_src_caps (h, rel_caps_new (GST_VIDEO_FORMAT_GRAY8, width,
          height));

  /* RSS counts only after every property value of the schedule below has
   * been used once (draw first at frame 3000): first uses load code and
   * make buffers (CUDA loads kernels lazily) and are not leaks. */
  const guint64 schedule_seen = 4000;
  guint64 every = MAX (frames / samples, 1), warm = every;
  if (frames >= 2 * schedule_seen)
    warm = (schedule_seen + every - 1) / every * every;
  guint64 rss_warm = 0, rss_max = 0, rss_first = rel_rss_kib ();
  gint64 dev_warm = -1, dev_max = -1;
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = TRUE;

  g_print ("soak: %" G_GUINT64_FORMAT " frames of %dx%d GRAY8, backend %s "
      "(%s)\n", frames, width, height, backend, g_getenv ("GPUCCL_TEST_BACKEND")
      ? "asked" : "default");
  g_print ("%12s %10s %10s %10s\n", "frames", "RSS KiB", "dev MiB", "fps");
  for (guint64 f = 1; f <= frames && ok; f++) {
    GstBuffer *in = gst_buffer_copy (pool[f % N_FRAMES]), *out;

    GST_BUFFER_PTS (in) = f * GST_SECOND / 30;
    if (gst_harness_push (h, in) != GST_FLOW_OK) {
      g_printerr ("frame %" G_GUINT64_FORMAT ": push failed\n", f);
      ok = FALSE;
      break;
    }
    out = gst_harness_pull (h);
    gst_buffer_unref (out);
    if (f % 1000 == 0) {
      guint k = (guint) (f / 1000);
      g_object_set (h->element, "threshold", 100 + (gint) (k % 50),
          "max-blobs", k % 3 ? 0u : 5u, "track", (gboolean) (k % 4 == 1),
          "draw", (guint) (k % 7 == 3 ? 3 : 0), NULL);
      gst_util_set_object_arg (G_OBJECT (h->element), "connectivity",
          k % 2 ? "4" : "8");
    }
    if (f % every == 0) {
      guint64 rss = rel_rss_kib ();
      gint64 dev = g_str_equal (backend, "cpu") ? -1 : device_mib ();
      gdouble fps = f / ((g_get_monotonic_time () - t0) / 1e6);
      g_print ("%12" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
          G_GINT64_FORMAT " %10.0f\n", f, rss, dev, fps);
      if (f == warm) {
        rss_warm = rss;
        dev_warm = dev;
      }
      rss_max = MAX (rss_max, rss);
      dev_max = MAX (dev_max, dev);
    }
  }
  gdouble secs = (g_get_monotonic_time () - t0) / 1e6;

  for (guint i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (pool[i]);
  gst_harness_teardown (h);
  g_rand_free (rand);
  g_free (mask);

  g_print ("soak: %" G_GUINT64_FORMAT " frames in %.1f s (%.0f fps); RSS "
      "start %" G_GUINT64_FORMAT " KiB, after warm-up %" G_GUINT64_FORMAT
      " KiB, max %" G_GUINT64_FORMAT " KiB (growth %" G_GINT64_FORMAT
      " KiB, bound %" G_GUINT64_FORMAT "), peak %" G_GUINT64_FORMAT
      " KiB; device memory after warm-up %" G_GINT64_FORMAT " MiB, max %"
      G_GINT64_FORMAT " MiB\n", frames, secs, frames / secs, rss_first,
      rss_warm, rss_max, (gint64) (rss_max - rss_warm), max_growth_kib,
      rel_peak_rss_kib (), dev_warm, dev_max);
  if (ok && rss_max - rss_warm > max_growth_kib) {
    g_printerr ("FAIL: RSS grew by %" G_GUINT64_FORMAT " KiB after warm-up\n",
        rss_max - rss_warm);
    ok = FALSE;
  }
  if (ok && dev_warm >= 0 && dev_max > dev_warm) {
    g_printerr ("FAIL: device memory grew from %" G_GINT64_FORMAT " to %"
        G_GINT64_FORMAT " MiB\n", dev_warm, dev_max);
    ok = FALSE;
  }
  return ok ? 0 : 1;
}
