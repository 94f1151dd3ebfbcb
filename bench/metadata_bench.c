/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob-metadata-bench: what the element's metadata costs next to its
 * labeling, on one frame pushed again and again through GstHarness.
 *
 * The frame: --scene noise, uniform random gray levels (seeded) labeled at
 * --threshold (1080p at 200: about 150 000 blobs, the snow frame),
 * or --scene dots, one isolated pixel every --step pixels each way.
 * Configurations, each in the same run on the same frame:
 *   none      attach-meta=false, no messages: the element without metadata
 *   table     max-roi-metas=1: GstCclBlobMeta and a single ROI meta
 *   default   the defaults: GstCclBlobMeta and ROI metas up to the cap
 *   all-rois  max-roi-metas=0: a ROI meta for every blob
 *   messages  the defaults plus post-messages=true
 *   all-msgs  post-messages=true max-roi-metas=0
 * For each: the median over --reps frames of the element's time (push,
 * pull and freeing the output buffer, whose metas die with it), the
 * labeling time the meta reports (processing_ns), and the metadata's time
 * = element - element of `none`. One CSV row per configuration.
 *
 * Usage: gpucclblob-metadata-bench [--width 1920] [--height 1080]
 *   [--scene noise|dots] [--threshold 200] [--step 3] [--reps 15]
 *   [--backend cpu] */
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstcclblobmeta.h"

typedef struct
{
  const char *name;
  const char *props;
} Config;

static const Config configs[] = {
  {"none", "attach-meta=false post-messages=false"},
  {"table", "max-roi-metas=1"},
  {"default", ""},
  {"all-rois", "max-roi-metas=0"},
  {"messages", "post-messages=true"},
  {"all-msgs", "post-messages=true max-roi-metas=0"},
};

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static guint8 *
make_frame (const char *scene, int w, int h, int step)
{
  guint8 *px = g_malloc0 ((gsize) w * h);

  if (strcmp (scene, "noise") == 0) {
    GRand *rand = g_rand_new_with_seed (2024);
    for (gsize i = 0; i < (gsize) w * h; i++)
      px[i] = (guint8) g_rand_int_range (rand, 0, 256);
    g_rand_free (rand);
  } else {
    for (int y = 0; y < h; y += step)
      for (int x = 0; x < w; x += step)
        px[(gsize) y * w + x] = 255;
  }
  return px;
}

typedef struct
{
  GstHarness *h;
  double *element, *labeling;   /* per timed frame, ms */
  double element_ms, labeling_ms;       /* medians */
  guint n_blobs, n_roi_metas;
} Run;

static GstHarness *
open_config (const Config * c, const char *backend, int threshold, int w,
    int h)
{
  gchar *desc = g_strdup_printf ("gpucclblob backend=%s threshold=%d %s",
      backend, threshold, c->props);
  GstHarness *hh = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (hh, g_strdup_printf ("video/x-raw,"
          "format=GRAY8,width=%d,height=%d,framerate=30/1", w, h));
  return hh;
}

/* One frame through one configuration; rep < 0: untimed (warm-up). */
static gboolean
time_frame (Run * r, const guint8 * px, gsize size, int rep)
{
  GstBuffer *in = gst_buffer_new_memdup (px, size), *out;
  GstCclBlobMeta *meta;
  gint64 t0 = g_get_monotonic_time ();

  out = gst_harness_push_and_pull (r->h, in);
  if (!out)
    return FALSE;
  meta = gst_buffer_get_ccl_blob_meta (out);
  if (rep >= 0) {
    r->labeling[rep] = meta ? meta->processing_ns / 1e6 : 0;
    r->n_blobs = meta ? meta->n_blobs : 0;
    r->n_roi_metas = meta ? meta->n_roi_metas : 0;
  }
  gst_buffer_unref (out);       /* the metas are freed here */
  if (rep >= 0)
    r->element[rep] = (g_get_monotonic_time () - t0) / 1e3;
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint width = 1920, height = 1080, threshold = 200, step = 3, reps = 15;
  gchar *scene = NULL, *backend = NULL;
  GOptionEntry entries[] = {
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Frame width", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Frame height", "H"},
    {"scene", 0, 0, G_OPTION_ARG_STRING, &scene, "noise or dots", "SCENE"},
    {"threshold", 0, 0, G_OPTION_ARG_INT, &threshold, "Threshold", "T"},
    {"step", 0, 0, G_OPTION_ARG_INT, &step, "Dots: pixels apart", "N"},
    {"reps", 0, 0, G_OPTION_ARG_INT, &reps, "Timed frames", "N"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu or cuda", "B"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- metadata cost");
  GError *err = NULL;
  guint8 *px;
  Run runs[G_N_ELEMENTS (configs)];
  const gsize n_configs = G_N_ELEMENTS (configs);

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (!scene)
    scene = g_strdup ("noise");
  if (!backend)
    backend = g_strdup ("cpu");
  if (width < 1 || height < 1 || reps < 1 || step < 2 ||
      (strcmp (scene, "noise") != 0 && strcmp (scene, "dots") != 0)) {
    g_printerr ("bad arguments (see --help)\n");
    return 2;
  }

  px = make_frame (scene, width, height, step);
  for (gsize c = 0; c < n_configs; c++) {
    runs[c].h = open_config (&configs[c], backend, threshold, width, height);
    runs[c].element = g_new (double, reps);
    runs[c].labeling = g_new (double, reps);
  }
  /* The configurations take turns, frame by frame, so that a machine
   * getting busier or quieter shifts them all alike; two untimed rounds
   * first warm contexts and pools up. */
  for (int rep = -2; rep < reps; rep++)
    for (gsize c = 0; c < n_configs; c++)
      if (!time_frame (&runs[c], px, (gsize) width * height, rep)) {
        g_printerr ("%s: no output (backend %s usable?)\n", configs[c].name,
            backend);
        return 1;
      }

  printf ("config,width,height,scene,blobs,roi_metas,element_ms,labeling_ms,"
      "metadata_ms,metadata_per_labeling\n");
  for (gsize c = 0; c < n_configs; c++) {
    Run *r = &runs[c];

    r->element_ms = median (r->element, reps);
    r->labeling_ms = median (r->labeling, reps);
    if (c == 0)                 /* "none" has no meta: no labeling time */
      printf ("%s,%d,%d,%s,,,%.3f,,,\n", configs[c].name, width, height,
          scene, r->element_ms);
    else
      printf ("%s,%d,%d,%s,%u,%u,%.3f,%.3f,%.3f,%.2f\n", configs[c].name,
          width, height, scene, r->n_blobs, r->n_roi_metas, r->element_ms,
          r->labeling_ms, r->element_ms - runs[0].element_ms,
          (r->element_ms - runs[0].element_ms) / r->labeling_ms);
  }
  for (gsize c = 0; c < n_configs; c++) {
    gst_harness_teardown (runs[c].h);
    g_free (runs[c].element);
    g_free (runs[c].labeling);
  }
  g_free (px);
  g_free (scene);
  g_free (backend);
  return 0;
}
