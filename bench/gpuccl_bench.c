/* gpuccl-bench: milliseconds per image of every runner (bench.h) over
 * YACCLAB's density x granularity grid of random images, all in one run so
 * the figures are comparable. Prints a markdown summary (mean over the
 * granularities per density, ratios to OpenCV) and optionally the full grid
 * as CSV.
 *
 *   gpuccl-bench [--size WxH] [--connectivity 4|8] [--reps N]
 *                [--suite cpu|gpu|all] [--runners a,b,...]
 *                [--densities 0,10,...] [--granularities 1,2,...]
 *                [--csv FILE] [--list] */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "corpus.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNNERS 32
#define MAX_STEPS 128

typedef struct {
  const BenchRunner *runner;
  void *state;
  double *wall;   /* per cell: median ms */
  double *device; /* per cell: median device ms, or < 0 */
  long *components;
} Active;

static double now_ms(void)
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

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

static bool in_list(const char *list, const char *name)
{
  if (!list)
    return true;
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
      return true;
  return false;
}

static void usage(FILE *out, const char *argv0)
{
  fprintf(out,
          "usage: %s [--size WxH] [--connectivity 4|8] [--reps N]\n"
          "          [--suite cpu|gpu|all] [--runners a,b,...]\n"
          "          [--densities 0:100:10] [--granularities 1:16:1]\n"
          "          [--csv FILE|-] [--list]\n",
          argv0);
}

int main(int argc, char **argv)
{
  int width = 2048, height = 2048, connectivity = 8, reps = 5;
  const char *suite = "all", *runner_list = NULL, *csv_path = NULL;
  int densities[MAX_STEPS], granularities[MAX_STEPS];
  int n_dens = parse_list("0:100:10", densities, MAX_STEPS);
  int n_gran = parse_list("1:16:1", granularities, MAX_STEPS);
  bool list = false;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(arg, "--list")) {
      list = true;
      continue;
    } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout, argv[0]);
      return 0;
    } else if (!val) {
      ok = false;
    } else if (!strcmp(arg, "--size")) {
      ok = sscanf(val, "%dx%d", &width, &height) == 2 && width > 0 && height > 0;
    } else if (!strcmp(arg, "--connectivity")) {
      connectivity = atoi(val);
      ok = connectivity == 4 || connectivity == 8;
    } else if (!strcmp(arg, "--reps")) {
      reps = atoi(val);
      ok = reps > 0 && reps <= 1000;
    } else if (!strcmp(arg, "--suite")) {
      suite = val;
    } else if (!strcmp(arg, "--runners")) {
      runner_list = val;
    } else if (!strcmp(arg, "--densities")) {
      ok = (n_dens = parse_list(val, densities, MAX_STEPS)) > 0;
    } else if (!strcmp(arg, "--granularities")) {
      ok = (n_gran = parse_list(val, granularities, MAX_STEPS)) > 0;
    } else if (!strcmp(arg, "--csv")) {
      csv_path = val;
    } else {
      ok = false;
    }
    if (!ok) {
      usage(stderr, argv[0]);
      return 2;
    }
    i++;
  }

  const BenchRunner *tables[] = {bench_cpu_runners, bench_gpu_runners,
                                 bench_algo_runners};
  Active active[MAX_RUNNERS];
  int n_active = 0;
  size_t cells = (size_t)n_dens * n_gran;
  BenchSetup setup = {width, height, connectivity};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
    for (const BenchRunner *r = tables[t]; r && r->name; r++) {
      if (list) {
        printf("%-14s %-4s %s\n", r->name, r->suite, r->what);
        continue;
      }
      if ((strcmp(suite, "all") && strcmp(suite, r->suite)) ||
          !in_list(runner_list, r->name) || n_active == MAX_RUNNERS)
        continue;
      char why[256] = "";
      void *state = r->open(&setup, why, sizeof why);
      if (!state) {
        fprintf(stderr, "# %s skipped: %s\n", r->name, why);
        continue;
      }
      active[n_active++] = (Active){r, state, calloc(cells, sizeof(double)),
                                    calloc(cells, sizeof(double)),
                                    calloc(cells, sizeof(long))};
    }
  }
  if (list)
    return 0;
  if (n_active == 0) {
    fprintf(stderr, "no runner selected or usable\n");
    return 1;
  }

  size_t stride = (size_t)width;
  uint8_t *image = malloc(stride * (size_t)height);
  double *samples = malloc((size_t)reps * sizeof *samples);
  double *device = malloc((size_t)reps * sizeof *device);
  if (!image || !samples || !device) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  FILE *csv = NULL;
  if (csv_path) {
    csv = strcmp(csv_path, "-") ? fopen(csv_path, "w") : stdout;
    if (!csv) {
      perror(csv_path);
      return 1;
    }
    fprintf(csv, "runner,width,height,connectivity,density,granularity,"
                 "components,ms_median,ms_min,device_ms_median\n");
  }

  int mismatches = 0;
  for (int d = 0; d < n_dens; d++) {
    for (int g = 0; g < n_gran; g++) {
      size_t cell = (size_t)d * n_gran + g;
      corpus_random(image, width, height, stride, densities[d] / 100.0,
                    granularities[g], 7000u + 100u * (uint32_t)d + (uint32_t)g);
      for (int a = 0; a < n_active; a++) {
        const BenchRunner *r = active[a].runner;
        long n = -1;
        if (r->prepare(active[a].state, image, width, height, stride) == 0) {
          n = r->run(active[a].state); /* warm-up, untimed */
          for (int k = 0; k < reps && n >= 0; k++) {
            double t0 = now_ms();
            n = r->run(active[a].state);
            samples[k] = now_ms() - t0;
            device[k] = r->device_ms ? r->device_ms(active[a].state) : -1;
          }
        }
        if (n < 0) {
          fprintf(stderr, "%s failed at density %d granularity %d\n", r->name,
                  densities[d], granularities[g]);
          return 1;
        }
        active[a].components[cell] = n;
        double best = samples[0];
        for (int k = 1; k < reps; k++)
          best = samples[k] < best ? samples[k] : best;
        active[a].wall[cell] = median(samples, reps);
        active[a].device[cell] = r->device_ms ? median(device, reps) : -1;
        if (n != active[0].components[cell]) {
          fprintf(stderr, "# %s counts %ld components, %s %ld (density %d, "
                          "granularity %d)\n",
                  r->name, n, active[0].runner->name,
                  active[0].components[cell], densities[d], granularities[g]);
          mismatches++;
        }
        if (csv)
          fprintf(csv, "%s,%d,%d,%d,%d,%d,%ld,%.4f,%.4f,%.4f\n", r->name, width,
                  height, connectivity, densities[d], granularities[g], n,
                  active[a].wall[cell], best, active[a].device[cell]);
      }
    }
    fprintf(stderr, "# density %d%% done\n", densities[d]);
  }
  if (csv && csv != stdout)
    fclose(csv);

  /* Markdown: mean over the granularities for each density, and ratios of
   * every runner to OpenCV's (single-threaded and default threads). */
  int base_1t = -1, base_mt = -1;
  for (int a = 0; a < n_active; a++) {
    if (!strcmp(active[a].runner->name, "opencv-1t"))
      base_1t = a;
    if (!strcmp(active[a].runner->name, "opencv"))
      base_mt = a;
  }
  printf("\n## gpuccl-bench: %dx%d, %d-connectivity, median of %d runs, "
         "ms per image (mean over %d granularities)\n\n",
         width, height, connectivity, reps, n_gran);
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
          mean[a] += active[a].wall[(size_t)i * n_gran + g];
          mean_dev[a] += active[a].device[(size_t)i * n_gran + g];
        }
      mean[a] /= (double)(d1 - d0) * n_gran;
      mean_dev[a] /= (double)(d1 - d0) * n_gran;
    }
    if (d < n_dens)
      printf("| %d%% |", densities[d]);
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
        double ratio = active[a].wall[c] / active[bases[b]].wall[c];
        if (ratio > worst) {
          worst = ratio;
          at = c;
        }
      }
      printf("\nworst %s / %s: %.2f at density %d%%, granularity %d",
             active[a].runner->name, active[bases[b]].runner->name, worst,
             densities[at / n_gran], granularities[at % n_gran]);
    }
  printf("\n");
  if (mismatches)
    printf("\nWARNING: %d cells where runners disagree on the component "
           "count\n", mismatches);

  for (int a = 0; a < n_active; a++) {
    active[a].runner->close(active[a].state);
    free(active[a].wall);
    free(active[a].device);
    free(active[a].components);
  }
  free(image);
  free(samples);
  free(device);
  return mismatches ? 1 : 0;
}
