/* gpuccl-track-bench — what tracking costs next to labeling.
 *
 * A 1080p GRAY8 scene of N small squares (default 1 000) bouncing around
 * with random velocities is rendered frame after frame; each frame is
 * labeled by the CPU backend and its blob table given to the tracker. Both
 * steps are timed separately in the same run, and the tracker's share of
 * the frame time (labeling + tracking) is reported; the goal is < 5 %.
 *
 * Usage: gpuccl-track-bench [--blobs N] [--side PIXELS] [--frames F]
 *                           [--gate PIXELS] [--width W] [--height H]
 *                           [--backend cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "gpuccl.h"
#include "gpuccl_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


typedef struct {
  double x, y, vx, vy;
} Mover;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t rng = 2463534242u;
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

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void render(uint8_t *img, int w, int h, Mover *m, int n, int side)
{
  memset(img, 0, (size_t)w * h);
  for (int i = 0; i < n; i++) {
    Mover *o = &m[i];
    o->x += o->vx;
    o->y += o->vy;
    if (o->x < 0 || o->x > w - side) { o->vx = -o->vx; o->x += 2 * o->vx; }
    if (o->y < 0 || o->y > h - side) { o->vy = -o->vy; o->y += 2 * o->vy; }
    int x0 = (int)o->x, y0 = (int)o->y;
    for (int y = y0; y < y0 + side && y < h; y++)
      memset(img + (size_t)y * w + x0, 255, (size_t)(x0 + side <= w ? side : w - x0));
  }
}

int main(int argc, char **argv)
{
  int n = 1000, frames = 300, w = 1920, h = 1080, side = 6;
  double gate = 50;
  GpucclBackend backend = GPUCCL_BACKEND_CPU;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) { fprintf(stderr, "missing value for %s\n", a); return 2; }
    if (!strcmp(a, "--blobs")) n = atoi(v);
    else if (!strcmp(a, "--frames")) frames = atoi(v);
    else if (!strcmp(a, "--side")) side = atoi(v);
    else if (!strcmp(a, "--gate")) gate = atof(v);
    else if (!strcmp(a, "--width")) w = atoi(v);
    else if (!strcmp(a, "--height")) h = atoi(v);
    else if (!strcmp(a, "--backend"))
      backend = !strcmp(v, "cuda") ? GPUCCL_BACKEND_CUDA
              : !strcmp(v, "auto") ? GPUCCL_BACKEND_AUTO : GPUCCL_BACKEND_CPU;
    else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    i++;
  }
  if (n < 1 || frames < 2 || side < 1 || w < 2 * side || h < 2 * side) {
    fprintf(stderr, "bad sizes\n");
    return 2;
  }

  GpucclError err = {0};
  GpucclContext *ctx = gpuccl_context_new(backend, 0, &err);
  if (!ctx) {
    fprintf(stderr, "gpuccl_context_new: %s\n", err.message);
    return 1;
  }
  GpucclTrackerParams tp;
  gpuccl_tracker_params_init(&tp);
  tp.max_distance = gate;
  GpucclTracker *tracker = gpuccl_tracker_new(&tp);
  uint8_t *img = malloc((size_t)w * h);
  Mover *m = malloc((size_t)n * sizeof *m);
  uint32_t *ids = malloc((size_t)n * 2 * sizeof *ids); /* blobs <= movers */
  double *t_label = malloc(frames * sizeof *t_label);
  double *t_track = malloc(frames * sizeof *t_track);
  if (!tracker || !img || !m || !ids || !t_label || !t_track) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (int i = 0; i < n; i++)
    m[i] = (Mover){rnd() * (w - side), rnd() * (h - side),
                   (rnd() - 0.5) * 8, (rnd() - 0.5) * 8};

  GpucclParams params;
  gpuccl_params_init(&params);
  GpucclImage image = {.data = img, .width = w, .height = h,
                       .stride = (size_t)w, .format = GPUCCL_PIXEL_U8};
  double blobs_sum = 0;
  uint32_t max_id = 0;
  for (int f = 0; f < frames; f++) {
    render(img, w, h, m, n, side);
    GpucclResult res;
    double t0 = now_s();
    if (gpuccl_process(ctx, &image, &params, &res, &err) != GPUCCL_OK) {
      fprintf(stderr, "gpuccl_process: %s\n", err.message);
      return 1;
    }
    double t1 = now_s();
    if (!gpuccl_tracker_update(tracker, res.blobs, res.n_blobs, ids)) {
      fprintf(stderr, "tracker out of memory\n");
      return 1;
    }
    double t2 = now_s();
    t_label[f] = t1 - t0;
    t_track[f] = t2 - t1;
    blobs_sum += (double)res.n_blobs;
    for (size_t i = 0; i < res.n_blobs; i++)
      if (ids[i] > max_id)
        max_id = ids[i];
  }

  /* The first frame creates every track (allocation, no matching): leave
   * it out of the figures. */
  double ml = median(t_label + 1, frames - 1), mt = median(t_track + 1, frames - 1);
  printf("gpuccl-track-bench: %dx%d GRAY8, %d moving %dx%d squares, %d frames, gate %.0f px\n",
         w, h, n, side, side, frames, gate);
  printf("per blob           %9.1f ns tracking\n", mt * 1e9 / (blobs_sum / frames));
  printf("backend            %s (%s)\n", gpuccl_backend_name(gpuccl_context_backend(ctx)),
         gpuccl_context_device_name(ctx));
  printf("blobs per frame    %.1f (mean; touching squares merge)\n", blobs_sum / frames);
  printf("track ids issued   %u (new tracks from merges and splits)\n", max_id);
  printf("labeling           %9.1f us per frame (median)\n", ml * 1e6);
  printf("tracking           %9.1f us per frame (median)\n", mt * 1e6);
  printf("tracking share     %9.2f %% of labeling + tracking (goal < 5 %%)\n",
         100.0 * mt / (ml + mt));

  free(t_label); free(t_track); free(ids); free(m); free(img);
  gpuccl_tracker_free(tracker);
  gpuccl_context_free(ctx);
  return 0;
}
