/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-bench: milliseconds per image of every runner (bench.h), all in
 * one run so the figures are comparable, on
 *  - YACCLAB's density x granularity grid of random images (default): a
 *    markdown summary (mean over the granularities per density, ratios to
 *    OpenCV) and optionally the full grid as CSV;
 *  - real pictures (--real DIR, real_images.h): one row per picture;
 *  - random volumes (--volume, volume_bench.c): the 3D API.
 * Every runner must find the same number of components on every image:
 * a disagreement is printed and the exit status is 1.
 *
 *   gpuccl-bench [--size WxH] [--connectivity 4|8] [--reps N]
 *                [--suite cpu|gpu|all] [--runners a,b,...]
 *                [--densities 0,10,...] [--granularities 1,2,...]
 *                [--real DIR [--real-sides 0,2048]]
 *                [--volume [--volume-sizes 256x256x256,...] [--cpu-reps N]]
 *                [--csv FILE] [--list] */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "corpus.h"
#include "real_images.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNNERS 32
#define MAX_STEPS 128

/* One runner on one image. */
typedef struct {
  double wall;   /* median ms */
  double best;   /* fastest ms */
  double device; /* median device ms, or < 0 */
  long components;
} Cell;

typedef struct {
  const BenchRunner *runner;
  void *state;
  Cell *cells; /* one per image of the run */
} Active;

typedef struct {
  int width, height, connectivity, reps, cpu_reps;
  const char *suite, *runner_list, *csv_path, *real_dir;
  int densities[MAX_STEPS], n_dens;
  int granularities[MAX_STEPS], n_gran;
  int sides[MAX_STEPS], n_sides;
  int volume_sizes[MAX_STEPS][3], n_volume_sizes;
  bool list, volume, densities_given, granularities_given;
} Options;

double bench_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool bench_in_list(const char *list, const char *name)
{
  if (!list)
    return true;
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
      return true;
  return false;
}

/* "0,10,20" or "0:100:10" (first:last:step) into values[]. */
static int parse_list(const char *text, int *values, int max)
{
  int a, b, step, n = 0;
  if (sscanf(text, "%d:%d:%d", &a, &b, &step) == 3 && step > 0) {
    for (int v = a; v <= b && n < max; v += step)
      values[n++] = v;
    return n;
  }
  for (const char *p = text; *p && n < max;) {
    char *end;
    values[n++] = (int)strtol(p, &end, 10);
    if (end == p)
      return -1;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* "256x256x256,512x512x128" */
static int parse_volumes(const char *text, int (*sizes)[3], int max)
{
  int n = 0;
  for (const char *p = text; *p && n < max; n++) {
    int used = 0;
    if (sscanf(p, "%dx%dx%d%n", &sizes[n][0], &sizes[n][1], &sizes[n][2],
               &used) != 3 || sizes[n][0] < 1 || sizes[n][1] < 1 ||
        sizes[n][2] < 1)
      return -1;
    p += used;
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n;
}

static void usage(FILE *out, const char *argv0)
{
  fprintf(out,
          "usage: %s [--size WxH] [--connectivity 4|8] [--reps N]\n"
          "          [--suite cpu|gpu|all] [--runners a,b,...]\n"
          "          [--densities 0:100:10] [--granularities 1:16:1]\n"
          "          [--real DIR [--real-sides 0,2048]]\n"
          "          [--volume [--volume-sizes 256x256x256,512x512x128]\n"
          "                    [--cpu-reps N]]\n"
          "          [--csv FILE|-] [--list]\n"
          "  --real DIR     the pictures of DIR (bench/fetch_real_images.sh),\n"
          "                 Otsu-binarised, at each side of --real-sides\n"
          "                 (0: as they are, N: longer side scaled to N)\n"
          "  --volume       the volume API (3D, 26-connectivity): CPU, BUF\n"
          "                 and BKE 3D on random volumes (densities default\n"
          "                 10:90:10, granularity 1)\n",
          argv0);
}

static int parse_options(int argc, char **argv, Options *o)
{
  *o = (Options){.width = 2048, .height = 2048, .connectivity = 8,
                 .reps = 5, .cpu_reps = 2, .suite = "all"};
  o->n_dens = parse_list("0:100:10", o->densities, MAX_STEPS);
  o->n_gran = parse_list("1:16:1", o->granularities, MAX_STEPS);
  o->n_sides = parse_list("0,2048", o->sides, MAX_STEPS);
  o->n_volume_sizes =
      parse_volumes("256x256x256,512x512x128", o->volume_sizes, MAX_STEPS);
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(arg, "--list")) {
      o->list = true;
      continue;
    } else if (!strcmp(arg, "--volume")) {
      o->volume = true;
      continue;
    } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout, argv[0]);
      exit(0);
    } else if (!val) {
      ok = false;
    } else if (!strcmp(arg, "--size")) {
      ok = sscanf(val, "%dx%d", &o->width, &o->height) == 2 && o->width > 0 &&
           o->height > 0;
    } else if (!strcmp(arg, "--connectivity")) {
      o->connectivity = atoi(val);
      ok = o->connectivity == 4 || o->connectivity == 8;
    } else if (!strcmp(arg, "--reps")) {
      o->reps = atoi(val);
      ok = o->reps > 0 && o->reps <= 1000;
    } else if (!strcmp(arg, "--cpu-reps")) {
      o->cpu_reps = atoi(val);
      ok = o->cpu_reps > 0 && o->cpu_reps <= 1000;
    } else if (!strcmp(arg, "--suite")) {
      o->suite = val;
    } else if (!strcmp(arg, "--runners")) {
      o->runner_list = val;
    } else if (!strcmp(arg, "--densities")) {
      ok = (o->n_dens = parse_list(val, o->densities, MAX_STEPS)) > 0;
      o->densities_given = true;
    } else if (!strcmp(arg, "--granularities")) {
      ok = (o->n_gran = parse_list(val, o->granularities, MAX_STEPS)) > 0;
      o->granularities_given = true;
    } else if (!strcmp(arg, "--real")) {
      o->real_dir = val;
    } else if (!strcmp(arg, "--real-sides")) {
      ok = (o->n_sides = parse_list(val, o->sides, MAX_STEPS)) > 0;
      for (int s = 0; ok && s < o->n_sides; s++)
        ok = o->sides[s] >= 0 && o->sides[s] <= 16384;
    } else if (!strcmp(arg, "--volume-sizes")) {
      ok = (o->n_volume_sizes =
                parse_volumes(val, o->volume_sizes, MAX_STEPS)) > 0;
    } else if (!strcmp(arg, "--csv")) {
      o->csv_path = val;
    } else {
      ok = false;
    }
    if (!ok) {
      usage(stderr, argv[0]);
      return 2;
    }
    i++;
  }
  if (o->volume && o->real_dir) {
    fprintf(stderr, "--volume and --real are separate runs\n");
    return 2;
  }
  return 0;
}

/* Opens every selected runner (a runner that cannot open is skipped with
 * its reason) with room for n_cells results each. */
static int open_runners(const Options *o, const BenchSetup *setup,
                        size_t n_cells, Active *active)
{
  const BenchRunner *tables[] = {bench_cpu_runners, bench_gpu_runners,
                                 bench_algo_runners};
  int n = 0;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const BenchRunner *r = tables[t]; r && r->name; r++) {
      if (o->list) {
        printf("%-20s %-4s %s\n", r->name, r->suite, r->what);
        continue;
      }
      if ((strcmp(o->suite, "all") && strcmp(o->suite, r->suite)) ||
          !bench_in_list(o->runner_list, r->name) || n == MAX_RUNNERS)
        continue;
      char why[256] = "";
      void *state = r->open(setup, why, sizeof why);
      if (!state) {
        fprintf(stderr, "# %s skipped: %s\n", r->name, why);
        continue;
      }
      Cell *cells = calloc(n_cells, sizeof *cells);
      if (!cells) {
        r->close(state);
        continue;
      }
      active[n++] = (Active){r, state, cells};
    }
  return n;
}

static void close_runners(Active *active, int n)
{
  for (int a = 0; a < n; a++) {
    active[a].runner->close(active[a].state);
    free(active[a].cells);
  }
}

/* Every runner on one image, into cells[index]: prepare and one warm-up
 * run untimed, then `reps` timed runs. Returns false (said on stderr)
 * when a runner fails. */
static bool time_image(Active *active, int n_active, size_t index,
                       const uint8_t *image, int width, int height,
                       size_t stride, int reps, const char *where)
{
  double samples[1000], device[1000];
  for (int a = 0; a < n_active; a++) {
    const BenchRunner *r = active[a].runner;
    long n = -1;
    if (r->prepare(active[a].state, image, width, height, stride) == 0) {
      n = r->run(active[a].state);
      for (int k = 0; k < reps && n >= 0; k++) {
        double t0 = bench_now_ms();
        n = r->run(active[a].state);
        samples[k] = bench_now_ms() - t0;
        device[k] = r->device_ms ? r->device_ms(active[a].state) : -1;
      }
    }
    if (n < 0) {
      fprintf(stderr, "%s failed on %s\n", r->name, where);
      return false;
    }
    Cell *c = &active[a].cells[index];
    c->components = n;
    c->best = samples[0];
    for (int k = 1; k < reps; k++)
      c->best = samples[k] < c->best ? samples[k] : c->best;
    c->wall = bench_median(samples, reps);
    c->device = r->device_ms ? bench_median(device, reps) : -1;
  }
  return true;
}

/* Every runner's count against the first comparable runner's on image
 * `index` (a runner with own_count is left out, bench.h); the
 * disagreements are printed, their number returned. */
static int check_counts(const Active *active, int n_active, size_t index,
                        const char *where)
{
  int bad = 0, ref = -1;
  for (int a = 0; a < n_active; a++) {
    if (active[a].runner->own_count)
      continue;
    if (ref < 0) {
      ref = a;
      continue;
    }
    long mine = active[a].cells[index].components;
    long theirs = active[ref].cells[index].components;
    if (mine != theirs) {
      fprintf(stderr, "# %s counts %ld components, %s %ld (%s)\n",
              active[a].runner->name, mine, active[ref].runner->name, theirs,
              where);
      bad++;
    }
  }
  return bad;
}

static FILE *open_csv(const char *path, const char *header)
{
  if (!path)
    return NULL;
  FILE *csv = strcmp(path, "-") ? fopen(path, "w") : stdout;
  if (!csv) {
    perror(path);
    exit(1);
  }
  fprintf(csv, "%s\n", header);
  return csv;
}

static void close_csv(FILE *csv)
{
  if (csv && csv != stdout)
    fclose(csv);
}

/* The figure a table shows for a runner: device time where it has one. */
static double shown_ms(const Active *a, size_t index)
{
  const Cell *c = &a->cells[index];
  return a->runner->device_ms && c->device >= 0 ? c->device : c->wall;
}

static int find_runner(const Active *active, int n_active, const char *name)
{
  for (int a = 0; a < n_active; a++)
    if (!strcmp(active[a].runner->name, name))
      return a;
  return -1;
}

/* ---- the random grid ---- */
/* run_grid and run_real: the number of count disagreements, or -1 when a
 * runner failed. */

static void grid_report(const Options *o, const Active *active, int n_active)
{
  const int n_dens = o->n_dens, n_gran = o->n_gran;
  const size_t cells = (size_t)n_dens * n_gran;
  /* Means over the granularities per density, and ratios of every runner
   * to OpenCV's (single-threaded and default threads). */
  int base_1t = find_runner(active, n_active, "opencv-1t");
  int base_mt = find_runner(active, n_active, "opencv");
  printf("\n## gpuccl-bench: %dx%d, %d-connectivity, median of %d runs, "
         "ms per image (mean over %d granularities)\n\n",
         o->width, o->height, o->connectivity, o->reps, n_gran);
  printf("%ld online CPUs.\n\n| density |", sysconf(_SC_NPROCESSORS_ONLN));
  for (int a = 0; a < n_active; a++)
    printf(" %s |%s", active[a].runner->name,
           active[a].runner->device_ms ? " (device) |" : "");
  int bases[2] = {base_1t, base_mt};
  for (int b = 0; b < 2; b++)
    for (int a = 0; a < n_active; a++)
      if (bases[b] >= 0 && a != base_1t && a != base_mt)
        printf(" %s / %s |", active[a].runner->name,
               active[bases[b]].runner->name);
  printf("\n|---:|");
  for (int a = 0; a < n_active; a++)
    printf("---:|%s", active[a].runner->device_ms ? "---:|" : "");
  for (int b = 0; b < 2; b++)
    for (int a = 0; a < n_active; a++)
      if (bases[b] >= 0 && a != base_1t && a != base_mt)
        printf("---:|");
  printf("\n");

  for (int d = 0; d <= n_dens; d++) { /* the last row: all densities */
    int d0 = d < n_dens ? d : 0, d1 = d < n_dens ? d + 1 : n_dens;
    double mean[MAX_RUNNERS], mean_dev[MAX_RUNNERS];
    for (int a = 0; a < n_active; a++) {
      mean[a] = mean_dev[a] = 0;
      for (int i = d0; i < d1; i++)
        for (int g = 0; g < n_gran; g++) {
          mean[a] += active[a].cells[(size_t)i * n_gran + g].wall;
          mean_dev[a] += active[a].cells[(size_t)i * n_gran + g].device;
        }
      mean[a] /= (double)(d1 - d0) * n_gran;
      mean_dev[a] /= (double)(d1 - d0) * n_gran;
    }
    if (d < n_dens)
      printf("| %d%% |", o->densities[d]);
    else
      printf("| **all** |");
    for (int a = 0; a < n_active; a++) {
      printf(" %.3f |", mean[a]);
      if (active[a].runner->device_ms)
        printf(" %.3f |", mean_dev[a]);
    }
    for (int b = 0; b < 2; b++)
      for (int a = 0; a < n_active; a++)
        if (bases[b] >= 0 && a != base_1t && a != base_mt)
          printf(" %.2f |", mean[a] / mean[bases[b]]);
    printf("\n");
  }

  /* The worst single cell of each ratio: the goal is a bound, not a mean. */
  for (int b = 0; b < 2; b++)
    for (int a = 0; a < n_active; a++) {
      if (bases[b] < 0 || a == base_1t || a == base_mt)
        continue;
      double worst = 0;
      size_t at = 0;
      for (size_t c = 0; c < cells; c++) {
        double ratio = active[a].cells[c].wall / active[bases[b]].cells[c].wall;
        if (ratio > worst) {
          worst = ratio;
          at = c;
        }
      }
      printf("\nworst %s / %s: %.2f at density %d%%, granularity %d",
             active[a].runner->name, active[bases[b]].runner->name, worst,
             o->densities[at / n_gran], o->granularities[at % n_gran]);
    }
  printf("\n");
}

static int run_grid(const Options *o, Active *active, int n_active)
{
  const size_t stride = (size_t)o->width;
  uint8_t *image = malloc(stride * (size_t)o->height);
  if (!image) {
    fprintf(stderr, "out of memory\n");
    return -1;
  }
  FILE *csv = open_csv(o->csv_path,
                       "runner,width,height,connectivity,density,granularity,"
                       "components,ms_median,ms_min,device_ms_median");
  int mismatches = 0;
  for (int d = 0; d < o->n_dens; d++) {
    for (int g = 0; g < o->n_gran; g++) {
      size_t cell = (size_t)d * o->n_gran + g;
      char where[64];
      snprintf(where, sizeof where, "density %d, granularity %d",
               o->densities[d], o->granularities[g]);
      corpus_random(image, o->width, o->height, stride,
                    o->densities[d] / 100.0, o->granularities[g],
                    7000u + 100u * (uint32_t)d + (uint32_t)g);
      if (!time_image(active, n_active, cell, image, o->width, o->height,
                      stride, o->reps, where)) {
        free(image);
        return -1;
      }
      mismatches += check_counts(active, n_active, cell, where);
      for (int a = 0; csv && a < n_active; a++) {
        const Cell *c = &active[a].cells[cell];
        fprintf(csv, "%s,%d,%d,%d,%d,%d,%ld,%.4f,%.4f,%.4f\n",
                active[a].runner->name, o->width, o->height, o->connectivity,
                o->densities[d], o->granularities[g], c->components, c->wall,
                c->best, c->device);
      }
    }
    fprintf(stderr, "# density %d%% done\n", o->densities[d]);
  }
  close_csv(csv);
  free(image);
  grid_report(o, active, n_active);
  return mismatches;
}

/* ---- real pictures ---- */

/* The table is printed a row at a time, as each picture is done, so an
 * interrupted run still leaves what it measured. */
static void real_header(const Options *o, const Active *active, int n_active)
{
  printf("\n## gpuccl-bench: real pictures (%s), Otsu-binarised, "
         "%d-connectivity, median of %d runs, ms per image (device time "
         "where the runner has one, else wall)\n\n%ld online CPUs.\n\n"
         "| picture | size | fg %% | components |",
         o->real_dir, o->connectivity, o->reps,
         sysconf(_SC_NPROCESSORS_ONLN));
  for (int a = 0; a < n_active; a++)
    printf(" %s%s |", active[a].runner->name,
           active[a].runner->device_ms ? " (device)" : "");
  printf("\n|---|---:|---:|---:|");
  for (int a = 0; a < n_active; a++)
    printf("---:|");
  printf("\n");
  fflush(stdout);
}

static void real_row(const Active *active, int n_active, const RealImage *im,
                     size_t i)
{
  printf("| %s | %dx%d | %.1f | %ld |", im->name, im->width, im->height,
         100 * im->density, active[0].cells[i].components);
  double fastest = INFINITY;
  for (int a = 0; a < n_active; a++)
    fastest = fmin(fastest, shown_ms(&active[a], i));
  for (int a = 0; a < n_active; a++) {
    double ms = shown_ms(&active[a], i);
    printf(ms == fastest ? " **%.3f** |" : " %.3f |", ms);
  }
  printf("\n");
  fflush(stdout);
}

static void real_summary(const Active *active, int n_active, int n_images)
{
  printf("| **geometric mean** | | | |");
  for (int a = 0; a < n_active; a++) {
    double s = 0;
    for (int i = 0; i < n_images; i++)
      s += log(fmax(shown_ms(&active[a], (size_t)i), 1e-6));
    printf(" %.3f |", exp(s / n_images));
  }
  printf("\n");
  /* Speed-up over OpenCV (all threads), geometric mean over the pictures,
   * wall time against wall time: what a user of either library waits. */
  int base = find_runner(active, n_active, "opencv");
  if (base >= 0) {
    printf("\nOpenCV (all threads) wall / runner wall, geometric mean over "
           "the pictures:");
    for (int a = 0, first = 1; a < n_active; a++) {
      if (a == base)
        continue;
      double s = 0;
      for (int i = 0; i < n_images; i++)
        s += log(active[base].cells[i].wall / active[a].cells[i].wall);
      printf("%s %s %.2fx", first ? "" : ",", active[a].runner->name,
             exp(s / n_images));
      first = 0;
    }
    printf("\n");
  }
}

static int run_real(const Options *o, Active *active, int n_active,
                    const RealImage *images, int n_images)
{
  FILE *csv = open_csv(o->csv_path,
                       "runner,picture,width,height,connectivity,threshold,"
                       "foreground,density,components,ms_median,ms_min,"
                       "device_ms_median");
  int mismatches = 0;
  real_header(o, active, n_active);
  for (int i = 0; i < n_images; i++) {
    const RealImage *im = &images[i];
    if (!time_image(active, n_active, (size_t)i, im->data, im->width,
                    im->height, (size_t)im->width, o->reps, im->name)) {
      close_csv(csv);
      return -1;
    }
    mismatches += check_counts(active, n_active, (size_t)i, im->name);
    for (int a = 0; csv && a < n_active; a++) {
      const Cell *c = &active[a].cells[i];
      fprintf(csv, "%s,%s,%d,%d,%d,%d,%s,%.4f,%ld,%.4f,%.4f,%.4f\n",
              active[a].runner->name, im->name, im->width, im->height,
              o->connectivity, im->threshold, im->dark ? "dark" : "bright",
              im->density, c->components, c->wall, c->best, c->device);
    }
    if (csv)
      fflush(csv);
    real_row(active, n_active, im, (size_t)i);
  }
  close_csv(csv);
  real_summary(active, n_active, n_images);
  return mismatches;
}

int main(int argc, char **argv)
{
  Options o;
  int rc = parse_options(argc, argv, &o);
  if (rc)
    return rc;

  if (o.volume && !o.list) {
    int vol_densities[] = {10, 20, 30, 40, 50, 60, 70, 80, 90}, one[] = {1};
    BenchVolumeOptions v = {
        o.volume_sizes, o.n_volume_sizes,
        o.densities_given ? o.densities : vol_densities,
        o.densities_given ? o.n_dens : 9,
        o.granularities_given ? o.granularities : one,
        o.granularities_given ? o.n_gran : 1,
        o.reps, o.cpu_reps, o.runner_list, o.csv_path};
    return bench_volume(&v);
  }

  RealImage *images = NULL;
  int n_images = 0;
  BenchSetup setup = {o.width, o.height, o.connectivity};
  if (o.real_dir && !o.list) {
    n_images = real_images_load(o.real_dir, o.sides, o.n_sides, &images);
    if (n_images < 0)
      return 1;
    setup.width = setup.height = 1; /* room for the largest picture */
    for (int i = 0; i < n_images; i++) {
      setup.width = images[i].width > setup.width ? images[i].width
                                                   : setup.width;
      setup.height = images[i].height > setup.height ? images[i].height
                                                      : setup.height;
    }
  }

  Active active[MAX_RUNNERS];
  size_t n_cells = o.real_dir ? (size_t)n_images : (size_t)o.n_dens * o.n_gran;
  int n_active = open_runners(&o, &setup, n_cells, active);
  if (o.list)
    return 0;
  if (n_active == 0) {
    fprintf(stderr, "no runner selected or usable\n");
    real_images_free(images, n_images);
    return 1;
  }
  int mismatches = o.real_dir
                       ? run_real(&o, active, n_active, images, n_images)
                       : run_grid(&o, active, n_active);
  if (mismatches > 0)
    printf("\nWARNING: %d results where runners disagree on the component "
           "count\n", mismatches);
  close_runners(active, n_active);
  real_images_free(images, n_images);
  return mismatches != 0;
}
