/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two modes of gpucclblob-pipeline-bench that compare runs of one
 * combination:
 *   --devices 0,1: the streams on the first GPU alone, then spread over
 *     the GPUs in turn (CUDA memory made on each stream's GPU, the element
 *     at device-id auto; system memory labeled there with device-id), the
 *     frames per second of each GPU and of all, and all's against one;
 *   --stream-wait-check: one stream of CUDA memory whose frames carry a
 *     GstCudaStream, with the element's wait for that stream (the library
 *     orders its work after an event on it) and without
 *     (GPUCCL_CUDA_STREAM_WAIT=0), what the wait costs the pipeline. The
 *     library reads the variable once per process, so each run is this
 *     program again in a child process, the two alternating. */
#include "pipeline_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gpuccl.h"

/* --devices: distinct numbers below BENCH_MAX_DEVICES of devices the
 * library can use. */
gboolean
parse_devices (const gchar * list, int *devices, int *n)
{
  gchar **ids = g_strsplit (list, ",", -1);
  gboolean ok = TRUE;

  *n = 0;
  for (gchar ** id = ids; *id && ok; id++) {
    gchar *end;
    gint64 d = g_ascii_strtoll (*id, &end, 10);
    ok = *end == '\0' && end != *id && d >= 0 && d < BENCH_MAX_DEVICES &&
        *n < BENCH_MAX_DEVICES;
    for (int i = 0; ok && i < *n; i++)
      ok = devices[i] != d;
    if (ok)
      devices[(*n)++] = (int) d;
  }
  g_strfreev (ids);
  if (!ok || *n == 0) {
    g_printerr ("--devices: distinct device numbers below %d, e.g. 0,1\n",
        BENCH_MAX_DEVICES);
    return FALSE;
  }
  for (int i = 0; i < *n; i++) {
    GpucclError error = { 0 };
    if (!gpuccl_cuda_available (devices[i], &error)) {
      g_printerr ("--devices: device %d: %s\n", devices[i], error.message);
      return FALSE;
    }
  }
  return TRUE;
}

/* memory_available on each of the devices (device 0 without). */
gboolean
memory_on_devices (Memory memory, GstVideoFormat format, const int *devices,
    int n_devices, const char **why)
{
  if (n_devices == 0)
    return memory_available (memory, format, 0, why);
  for (int i = 0; i < n_devices; i++)
    if (!memory_available (memory, format, devices[i], why))
      return FALSE;
  return TRUE;
}

int
devices_scaling (const Combo * k)
{
  Combo one = *k;
  Result alone, spread;
  GString *per = g_string_new (NULL);
  int failures = 0;

  one.n_devices = 1;
  one.device = g_strdup_printf ("GPU %d", k->devices[0]);
  alone = run_combo (&one, NULL);
  failures += !report (&one, "default", &alone);
  spread = run_combo (k, NULL);
  failures += !report (k, "default", &spread);
  g_free ((gchar *) one.device);
  if (!alone.ok || !spread.ok) {
    g_string_free (per, TRUE);
    return failures;
  }
  for (int d = 0; d < k->n_devices; d++)
    g_string_append_printf (per, "%sGPU %d %.1f", d ? ", " : "",
        k->devices[d], spread.device_fps[d]);
  printf ("  devices: %s %s %s %s memory, %d streams: GPU %d alone %.1f fps; "
      "spread: %s fps each, %.1f fps together, %.2fx one GPU\n", k->backend,
      k->format_name, k->size->name, memory_names[k->memory], k->streams,
      k->devices[0], alone.fps, per->str, spread.fps, spread.fps / alone.fps);
  g_string_free (per, TRUE);
  return failures;
}

/* fps and element_us of the CSV row a child wrote (report's columns 6
 * and 13); FALSE without one. */
static gboolean
read_child_row (const char *path, double *fps, double *element_us)
{
  gchar *text = NULL, **lines, **cols;
  gboolean ok = FALSE;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", 3);
  if (lines[0] && lines[1] && *lines[1]) {
    cols = g_strsplit (lines[1], ",", -1);
    if (g_strv_length (cols) > 12) {
      *fps = g_ascii_strtod (cols[5], NULL);
      *element_us = g_ascii_strtod (cols[12], NULL);
      ok = *fps > 0;
    }
    g_strfreev (cols);
  }
  g_strfreev (lines);
  g_free (text);
  return ok;
}

/* This program on the combination, one stream of CUDA memory with a
 * GstCudaStream, with (wait) or without the element's wait. */
static gboolean
run_child (const Combo * k, gboolean wait, const char *csv, double *fps,
    double *element_us)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *seconds = g_strdup_printf ("%g", k->seconds);
  gchar *blobs = g_strdup_printf ("%d", k->n_discs);
  gchar *device = g_strdup_printf ("%d", k->devices ? k->devices[0] : 0);
  const gchar *args[] = { self, "--backends", k->backend, "--memory", "cuda",
    "--streams", "1", "--sizes", k->size->name, "--formats", k->format_name,
    "--draw", k->draw_name, "--seconds", seconds, "--blobs", blobs,
    "--scene", k->lattice ? "lattice" : "discs", "--devices", device,
    "--cuda-stream", "--csv", csv
  };
  GPtrArray *argv = g_ptr_array_new ();
  gchar **env = g_get_environ ();
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  gboolean ok;

  for (gsize i = 0; i < G_N_ELEMENTS (args); i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  if (k->props) {
    g_ptr_array_add (argv, "--element-props");
    g_ptr_array_add (argv, (gpointer) k->props);
  }
  g_ptr_array_add (argv, NULL);
  env = wait ? g_environ_unsetenv (env, "GPUCCL_CUDA_STREAM_WAIT") :
      g_environ_setenv (env, "GPUCCL_CUDA_STREAM_WAIT", "0", TRUE);
  ok = self && g_spawn_sync (NULL, (gchar **) argv->pdata, env,
      G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL) &&
      g_spawn_check_wait_status (status, NULL) &&
      read_child_row (csv, fps, element_us);
  if (!ok)
    printf ("  stream wait %s: the run failed:\n%s%s\n", wait ? "on" : "off",
        out ? out : "(not started)", err ? err : "");
  g_ptr_array_unref (argv);
  g_strfreev (env);
  g_free (out);
  g_free (err);
  g_free (self);
  g_free (seconds);
  g_free (blobs);
  g_free (device);
  return ok;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

int
stream_wait_check (const Combo * k, int repeat)
{
  gchar *dir = g_dir_make_tmp ("pipeline-bench-XXXXXX", NULL);
  gchar *csv = dir ? g_build_filename (dir, "run.csv", NULL) : NULL;
  double *fps[2] = { g_new0 (double, repeat), g_new0 (double, repeat) };
  double *us[2] = { g_new0 (double, repeat), g_new0 (double, repeat) };
  int n = 0;

  /* Off first in odd rounds, on first in even ones: a drift over the
   * run (clocks, other load) weighs on both. */
  for (int i = 0; csv && i < repeat; i++) {
    gboolean ok = TRUE;
    for (int j = 0; j < 2; j++) {
      int on = (i + j) % 2 == 0;
      ok = ok && run_child (k, on, csv, &fps[on][n], &us[on][n]);
    }
    n += ok;
  }
  if (n > 0) {
    double on = median (fps[1], n), off = median (fps[0], n);
    double on_us = median (us[1], n), off_us = median (us[0], n);
    printf ("  stream wait: %s %s %s draw=%s, one stream of CUDA memory "
        "with a GstCudaStream, median of %d runs each: wait on %.1f fps "
        "(element %.1f us), off (GPUCCL_CUDA_STREAM_WAIT=0) %.1f fps "
        "(element %.1f us); fps on / off = %.4f: the wait costs %.2f %% "
        "(%s 2 %%); element time on / off = %.4f\n", k->backend,
        k->format_name, k->size->name, k->draw_name, n, on, on_us, off,
        off_us, on / off, 100.0 * (1 - on / off),
        on >= 0.98 * off ? "within" : "NOT within", on_us / off_us);
  }
  if (csv)
    g_unlink (csv);
  if (dir)
    g_rmdir (dir);
  g_free (csv);
  g_free (dir);
  for (int t = 0; t < 2; t++) {
    g_free (fps[t]);
    g_free (us[t]);
  }
  return n == repeat ? 0 : 1;
}
