/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-track-bench — what tracking costs next to labeling.
 *
 * For each scene size (default ~100, ~1 000 and ~5 000 blobs), a 1080p
 * GRAY8 scene of N small squares bouncing around with random velocities is
 * rendered frame after frame; each frame is labeled (CPU backend unless
 * told otherwise) and its blob table given to the tracker. Both steps are
 * timed separately in the same run, per frame, and the tracker's share of
 * labeling + tracking is reported (the goal: < 5 % at 1 000 blobs).
 * Squares that touch merge into one blob and part again, so the tracker
 * also pays for merges, lost tracks and new tracks, as with real video.
 *
 * The "compare" lines put the tracking time next to a labeling time given
 * with --frame-us (default 170 us: the element's GRAY8 1080p rate on the
 * H100, ~5 900 fps), for hosts where the GPU labeling is measured apart.
 * With a CUDA build, --backend cpu,cuda measures both in the same run;
 * cuda-search labels on CUDA too and gives the tracker every track's
 * nearest blob found on the GPU beside the blob table (GpucclNearest:
 * gpuccl_tracker_predict before the labeling, update_nearest after). Its
 * tracking time is the host's part (predict + update); the GPU's part is
 * in its labeling time, so compare that with the cuda row of the same run.
 *
 * The "checksum" column hashes every id of every frame (FNV-1a): a change
 * to the tracker that must not change its results keeps it (the scene is
 * the same on every run and with every backend, blob for blob).
 *
 * Usage: gpuccl-track-bench [--blobs N[,N...]] [--frames F] [--side PIXELS]
 *                           [--gate PIXELS] [--width W] [--height H]
 *                           [--backend cpu|cuda|cuda-search|auto[,...]]
 *                           [--frame-us US] [--csv FILE|-]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "gpuccl.h"
#include "gpuccl_track.h"
#include "moving_squares.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int width, height, side, frames;
  double gate;
} Scene;

/* Medians of one (backend, size) run. */
typedef struct {
  double blobs;        /* mean blobs per frame */
  double label_us, track_us, track_p90_us;
  uint32_t ids;        /* track ids handed out */
  uint64_t checksum;   /* of every id of every frame */
} RunResult;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Small deterministic generator (xorshift): every run sees the same scene. */
static uint32_t rng;
static double rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng / 4294967296.0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (sorts v). */
static double quantile(double *v, int n, double q)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[(int)(q * (n - 1) + 0.5)];
}

/* One scene of n squares through one context: false on an error (said).
 * device_search: the tracker gets its nearest blobs from the backend. */
static bool run_scene(GpucclContext *ctx, const Scene *s, int n,
                      bool device_search, RunResult *out)
{
  GpucclTrackerParams tp;
  gpuccl_tracker_params_init(&tp);
  tp.max_distance = s->gate;
  GpucclTracker *tracker = gpuccl_tracker_new(&tp);
  uint8_t *img = malloc((size_t)s->width * s->height);
  MovingSquare *m = malloc((size_t)n * sizeof *m);
  uint32_t *ids = malloc((size_t)n * sizeof *ids); /* blobs <= squares */
  double *t_label = malloc((size_t)s->frames * sizeof *t_label);
  double *t_track = malloc((size_t)s->frames * sizeof *t_track);
  bool ok = tracker && img && m && ids && t_label && t_track;
  if (!ok)
    fprintf(stderr, "out of memory\n");

  rng = 2463534242u;
  for (int i = 0; ok && i < n; i++)
    m[i] = (MovingSquare){rnd() * (s->width - s->side), rnd() * (s->height - s->side),
                   (rnd() - 0.5) * 8, (rnd() - 0.5) * 8};
  GpucclParams params;
  gpuccl_params_init(&params);
  GpucclImage image = {.data = img, .width = s->width, .height = s->height,
                       .stride = (size_t)s->width, .format = GPUCCL_PIXEL_U8};
  double blobs_sum = 0;
  uint32_t max_id = 0;
  uint64_t checksum = 14695981039346656037ull; /* FNV-1a */
  for (int f = 0; ok && f < s->frames; f++) {
    moving_squares_step(img, s->width, s->height, s->side, m, n);
    GpucclResult res;
    GpucclError err = {0};
    double t0 = now_s();
    GpucclNearestRequest request = {0};
    if (device_search)
      gpuccl_tracker_predict(tracker, &request);
    params.nearest = device_search ? &request : NULL;
    double t1 = now_s();
    if (gpuccl_process(ctx, &image, &params, &res, &err) != GPUCCL_OK) {
      fprintf(stderr, "gpuccl_process: %s\n", err.message);
      ok = false;
      break;
    }
    double t2 = now_s();
    if (!gpuccl_tracker_update_nearest(tracker, res.blobs, res.n_blobs, &request,
                                       ids)) {
      fprintf(stderr, "tracker out of memory\n");
      ok = false;
      break;
    }
    double t3 = now_s();
    t_label[f] = t2 - t1;
    t_track[f] = (t1 - t0) + (t3 - t2);
    blobs_sum += (double)res.n_blobs;
    for (size_t i = 0; i < res.n_blobs; i++) {
      if (ids[i] > max_id)
        max_id = ids[i];
      checksum = (checksum ^ ids[i]) * 1099511628211ull;
    }
  }
  if (ok) {
    /* The first frame creates every track (allocation, no matching) and
     * warms the backend up: leave it out. */
    int k = s->frames - 1;
    out->blobs = blobs_sum / s->frames;
    out->label_us = 1e6 * quantile(t_label + 1, k, 0.5);
    out->track_p90_us = 1e6 * quantile(t_track + 1, k, 0.9);
    out->track_us = 1e6 * quantile(t_track + 1, k, 0.5);
    out->ids = max_id;
    out->checksum = checksum;
  }
  free(t_label); free(t_track); free(ids); free(m); free(img);
  gpuccl_tracker_free(tracker);
  return ok;
}

static bool parse_backend(const char *name, GpucclBackend *out, bool *device_search)
{
  *device_search = !strcmp(name, "cuda-search");
  if (!strcmp(name, "cpu")) *out = GPUCCL_BACKEND_CPU;
  else if (!strcmp(name, "cuda") || *device_search) *out = GPUCCL_BACKEND_CUDA;
  else if (!strcmp(name, "auto")) *out = GPUCCL_BACKEND_AUTO;
  else return false;
  return true;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: gpuccl-track-bench [--blobs N[,N...]] [--frames F] [--side PIXELS]\n"
          "                          [--gate PIXELS] [--width W] [--height H]\n"
          "                          [--backend cpu|cuda|cuda-search|auto[,...]]\n"
          "                          [--frame-us US]\n"
          "                          [--csv FILE|-]\n");
}

int main(int argc, char **argv)
{
  Scene s = {.width = 1920, .height = 1080, .side = 6, .frames = 200, .gate = 50};
  const char *blobs_arg = "100,1000,5000", *backend_arg = "cpu", *csv_path = NULL;
  double frame_us = 170;
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); return 0; }
    if (!v) { fprintf(stderr, "missing value for %s\n", a); usage(); return 2; }
    if (!strcmp(a, "--blobs")) blobs_arg = v;
    else if (!strcmp(a, "--frames")) s.frames = atoi(v);
    else if (!strcmp(a, "--side")) s.side = atoi(v);
    else if (!strcmp(a, "--gate")) s.gate = atof(v);
    else if (!strcmp(a, "--width")) s.width = atoi(v);
    else if (!strcmp(a, "--height")) s.height = atoi(v);
    else if (!strcmp(a, "--backend")) backend_arg = v;
    else if (!strcmp(a, "--frame-us")) frame_us = atof(v);
    else if (!strcmp(a, "--csv")) csv_path = v;
    else { fprintf(stderr, "unknown option %s\n", a); usage(); return 2; }
  }
  if (s.frames < 2 || s.side < 1 || s.width < 2 * s.side || s.height < 2 * s.side ||
      !(frame_us > 0)) {
    fprintf(stderr, "bad sizes\n");
    return 2;
  }
  int sizes[16], n_sizes = 0;
  for (const char *p = blobs_arg; *p && n_sizes < 16;) {
    char *end;
    long n = strtol(p, &end, 10);
    if (end == p || n < 1 || n > 1000000) {
      fprintf(stderr, "bad --blobs %s\n", blobs_arg);
      return 2;
    }
    sizes[n_sizes++] = (int)n;
    p = *end == ',' ? end + 1 : end;
  }

  FILE *csv = NULL;
  if (csv_path) {
    csv = strcmp(csv_path, "-") ? fopen(csv_path, "w") : stdout;
    if (!csv) {
      perror(csv_path);
      return 1;
    }
    fprintf(csv, "backend,device,width,height,squares,side,gate,frames,blobs,"
                 "labeling_us,tracking_us,tracking_p90_us,tracking_ns_per_blob,"
                 "share_pct,track_ids,ids_checksum\n");
  }
  FILE *txt = csv == stdout ? stderr : stdout;
  fprintf(txt, "gpuccl-track-bench: %dx%d GRAY8, moving %dx%d squares, gate %.0f px, "
               "%d frames, medians per frame (first frame left out)\n",
          s.width, s.height, s.side, s.side, s.gate, s.frames);
  fprintf(txt, "%-11s %8s %8s %12s %12s %12s %10s %8s %16s\n", "back", "squares", "blobs",
          "labeling us", "tracking us", "ns per blob", "share %", "ids", "checksum");

  int ran = 0, failed = 0;
  RunResult last[16];
  bool have[16] = {false};
  char list[256];
  snprintf(list, sizeof list, "%s", backend_arg);
  for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
       name = strtok_r(NULL, ",", &save)) {
    GpucclBackend backend;
    bool device_search;
    if (!parse_backend(name, &backend, &device_search)) {
      fprintf(stderr, "unknown backend %s (cpu, cuda, cuda-search, auto)\n", name);
      return 2;
    }
    GpucclError err = {0};
    GpucclContext *ctx = gpuccl_context_new(backend, 0, &err);
    if (!ctx) {
      fprintf(txt, "%-11s skipped: %s\n", name, err.message);
      continue;
    }
    const char *bname = device_search ? "cuda-search"
                                      : gpuccl_backend_name(gpuccl_context_backend(ctx));
    for (int k = 0; k < n_sizes; k++) {
      RunResult r;
      if (!run_scene(ctx, &s, sizes[k], device_search, &r)) {
        failed = 1;
        continue;
      }
      double per_blob = r.blobs > 0 ? r.track_us * 1e3 / r.blobs : 0;
      double share = 100.0 * r.track_us / (r.label_us + r.track_us);
      fprintf(txt, "%-11s %8d %8.0f %12.1f %12.2f %12.1f %10.2f %8u %016" PRIx64 "\n",
              bname, sizes[k], r.blobs, r.label_us, r.track_us, per_blob, share, r.ids,
              r.checksum);
      if (csv)
        fprintf(csv, "%s,\"%s\",%d,%d,%d,%d,%g,%d,%.1f,%.2f,%.3f,%.3f,%.2f,%.3f,%u,"
                     "%016" PRIx64 "\n",
                bname, gpuccl_context_device_name(ctx), s.width, s.height, sizes[k],
                s.side, s.gate, s.frames, r.blobs, r.label_us, r.track_us,
                r.track_p90_us, per_blob, share, r.ids, r.checksum);
      last[k] = r;
      have[k] = true;
      ran++;
    }
    gpuccl_context_free(ctx);
  }
  /* Tracking does not depend on the labeling backend (same blobs): the
   * last run's figures against the given labeling time. */
  for (int k = 0; k < n_sizes; k++)
    if (have[k])
      fprintf(txt, "compare: %d squares (%.0f blobs): tracking %.2f us per frame = %.2f %% "
                 "of labeling + tracking with labeling at %.0f us (--frame-us)\n",
            sizes[k], last[k].blobs, last[k].track_us,
            100.0 * last[k].track_us / (frame_us + last[k].track_us), frame_us);
  if (csv && csv != stdout)
    fclose(csv);
  if (!ran)
    return 77; /* no backend could run */
  return failed;
}
