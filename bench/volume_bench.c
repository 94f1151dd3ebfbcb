/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-bench --volume: the volume API (kernels/gpuccl_volume.h, 3D,
 * 26-connectivity) on random volumes of YACCLAB's 3D kind (each voxel of
 * a granularity^3 cube foreground with the given density), one run for
 * every backend and algorithm so the figures compare:
 *   cpu-3d      the CPU implementation (union-find), the reference
 *   cuda-buf3d  BUF 3D on 2x2x2 blocks
 *   cuda-bke3d  BKE 3D on 2x2x2 blocks
 * Wall = gpuccl_volume_process from a pageable host volume to the blob
 * table on the host (upload, kernels, download: end to end); device = the
 * kernels alone (CUDA events inside the volume object, from its first
 * memset to its last kernel). Blob table only, no label volume. Every
 * backend's blob table must equal the CPU's (count, voxels, box, sums). */
#include "bench.h"

#include "gpuccl_volume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CUDA volume object's kernel time of its last call (libgpuccl's
 * kernels/cuda/volume_cuda.cu); absent from a build without CUDA. */
extern float gpuccl_volume_cuda_kernel_ms(GpucclVolume *vol)
    __attribute__((weak));

typedef struct {
  const char *name;
  GpucclBackend backend;
  GpucclVolumeAlgorithm algorithm;
} VolumeRunner;

static const VolumeRunner runners[] = {
    {"cpu-3d", GPUCCL_BACKEND_CPU, GPUCCL_VOLUME_DEFAULT},
    {"cuda-buf3d", GPUCCL_BACKEND_CUDA, GPUCCL_VOLUME_BUF},
    {"cuda-bke3d", GPUCCL_BACKEND_CUDA, GPUCCL_VOLUME_BKE},
};
#define N_RUNNERS (int)(sizeof runners / sizeof runners[0])

typedef struct {
  const VolumeRunner *runner;
  GpucclVolume *vol;
} Open;

typedef struct {
  double wall, best, device;
  long components;
} Timing;

/* splitmix64: a well-mixed hash of the cube's coordinates and the seed. */
static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static void random_volume(uint8_t *v, int w, int h, int d, int density,
                          int granularity, uint64_t seed)
{
  const uint64_t cut = (uint64_t)density * (UINT64_MAX / 100);
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        uint64_t cube = ((uint64_t)(z / granularity) << 42) ^
                        ((uint64_t)(y / granularity) << 21) ^
                        (uint64_t)(x / granularity);
        v[((size_t)z * h + y) * w + x] =
            density >= 100 || mix(cube ^ mix(seed)) < cut ? 255 : 0;
      }
}

static bool same_blob(const GpucclVolumeBlob *a, const GpucclVolumeBlob *b)
{
  return a->id == b->id && a->voxels == b->voxels && a->x0 == b->x0 &&
         a->y0 == b->y0 && a->z0 == b->z0 && a->x1 == b->x1 &&
         a->y1 == b->y1 && a->z1 == b->z1 && a->sum_x == b->sum_x &&
         a->sum_y == b->sum_y && a->sum_z == b->sum_z;
}

/* One runner on one volume: a warm-up call on CUDA (lazy kernel loading,
 * first allocations), then `reps` timed ones. None on the CPU: a run takes
 * seconds there and its one-off allocation is a few per cent of the first
 * volume of a size. The result of the last call stays in *result (owned
 * by the volume object). */
static bool time_volume(const Open *o, const GpucclVolumeImage *img, int reps,
                        Timing *t, GpucclVolumeResult *result)
{
  GpucclVolumeParams p;
  gpuccl_volume_params_init(&p);
  p.algorithm = o->runner->algorithm;
  double wall[1000], device[1000];
  GpucclError err = {0};
  const bool cuda = o->runner->backend == GPUCCL_BACKEND_CUDA;
  for (int k = cuda ? -1 : 0; k < reps; k++) {
    double t0 = bench_now_ms();
    if (gpuccl_volume_process(o->vol, img, &p, result, &err) != GPUCCL_OK) {
      fprintf(stderr, "%s failed: %s\n", o->runner->name, err.message);
      return false;
    }
    if (k < 0)
      continue; /* warm-up */
    wall[k] = bench_now_ms() - t0;
    device[k] = cuda && gpuccl_volume_cuda_kernel_ms
                    ? gpuccl_volume_cuda_kernel_ms(o->vol)
                    : -1;
  }
  t->best = wall[0];
  for (int k = 1; k < reps; k++)
    t->best = wall[k] < t->best ? wall[k] : t->best;
  t->wall = bench_median(wall, reps);
  t->device = bench_median(device, reps);
  t->components = (long)result->n_components;
  return true;
}

/* The blob table of `r` against the reference's copy; prints the first
 * difference. */
static bool same_table(const char *who, const GpucclVolumeResult *r,
                       const char *ref_name, const GpucclVolumeBlob *ref,
                       uint32_t ref_n, const char *where)
{
  if (r->n_components != ref_n) {
    fprintf(stderr, "# %s counts %u components, %s %u (%s)\n", who,
            r->n_components, ref_name, ref_n, where);
    return false;
  }
  for (uint32_t i = 0; i < ref_n; i++)
    if (!same_blob(&r->blobs[i], &ref[i])) {
      fprintf(stderr, "# %s blob %u differs from %s's (%s)\n", who, i + 1,
              ref_name, where);
      return false;
    }
  return true;
}

/* The table of size s, printed as soon as its volumes are done so an
 * interrupted run still leaves what it measured. */
static void report_size(const BenchVolumeOptions *o, const Open *open,
                        int n_open, const Timing *t, int per_size, int s)
{
  int cpu = -1;
  for (int a = 0; a < n_open; a++)
    if (open[a].runner->backend == GPUCCL_BACKEND_CPU)
      cpu = a;
  printf("\n### %dx%dx%d\n\n| density | granularity | components |",
         o->sizes[s][0], o->sizes[s][1], o->sizes[s][2]);
  for (int a = 0; a < n_open; a++) {
    bool gpu = open[a].runner->backend == GPUCCL_BACKEND_CUDA;
    printf(" %s |%s", open[a].runner->name, gpu ? " (device) |" : "");
    if (gpu && cpu >= 0)
      printf(" CPU / %s | CPU / %s (device) |", open[a].runner->name,
             open[a].runner->name);
  }
  printf("\n|---:|---:|---:|");
  for (int a = 0; a < n_open; a++)
    printf(open[a].runner->backend == GPUCCL_BACKEND_CUDA
               ? (cpu >= 0 ? "---:|---:|---:|---:|" : "---:|---:|")
               : "---:|");
  printf("\n");
  for (int c = 0; c < per_size; c++) {
    const int dens = c / o->n_granularities, gran = c % o->n_granularities;
    const Timing *row = &t[((size_t)s * per_size + c) * n_open];
    printf("| %d%% | %d | %ld |", o->densities[dens],
           o->granularities[gran], row[0].components);
    for (int a = 0; a < n_open; a++) {
      printf(" %.3f |", row[a].wall);
      if (open[a].runner->backend == GPUCCL_BACKEND_CUDA) {
        printf(" %.3f |", row[a].device);
        if (cpu >= 0)
          printf(" %.1f | %.1f |", row[cpu].wall / row[a].wall,
                 row[cpu].wall / row[a].device);
      }
    }
    printf("\n");
  }
  fflush(stdout);
}

int bench_volume(const BenchVolumeOptions *o)
{
  Open open[N_RUNNERS];
  int n_open = 0;
  for (int r = 0; r < N_RUNNERS; r++) {
    if (!bench_in_list(o->runner_list, runners[r].name))
      continue;
    GpucclError err = {0};
    GpucclVolume *vol = gpuccl_volume_new(runners[r].backend, 0, &err);
    if (!vol) {
      fprintf(stderr, "# %s skipped: %s\n", runners[r].name, err.message);
      continue;
    }
    open[n_open++] = (Open){&runners[r], vol};
  }
  if (n_open == 0) {
    fprintf(stderr, "no volume runner selected or usable\n");
    return 1;
  }
  const int per_size = o->n_densities * o->n_granularities;
  Timing *t = calloc((size_t)o->n_sizes * per_size * n_open, sizeof *t);
  size_t largest = 0;
  for (int s = 0; s < o->n_sizes; s++) {
    size_t n = (size_t)o->sizes[s][0] * o->sizes[s][1] * o->sizes[s][2];
    if (n > GPUCCL_VOLUME_MAX_VOXELS) {
      fprintf(stderr, "volume %dx%dx%d: more than %zu voxels\n",
              o->sizes[s][0], o->sizes[s][1], o->sizes[s][2],
              (size_t)GPUCCL_VOLUME_MAX_VOXELS);
      free(t);
      return 2;
    }
    largest = n > largest ? n : largest;
  }
  uint8_t *v = malloc(largest);
  GpucclVolumeBlob *ref = NULL;
  if (!t || !v) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  FILE *csv = NULL;
  if (o->csv_path) {
    csv = strcmp(o->csv_path, "-") ? fopen(o->csv_path, "w") : stdout;
    if (!csv) {
      perror(o->csv_path);
      return 1;
    }
    fprintf(csv, "runner,width,height,depth,density,granularity,components,"
                 "ms_median,ms_min,device_ms_median\n");
  }

  printf("\n## gpuccl-bench --volume: 26-connectivity, blob table only, "
         "median of %d runs (CPU %d), ms per volume\n\n%ld online CPUs. "
         "wall = end to end from a host volume; device = kernels alone.\n",
         o->reps, o->cpu_reps, sysconf(_SC_NPROCESSORS_ONLN));
  int mismatches = 0, failed = 0;
  for (int s = 0; s < o->n_sizes && !failed; s++) {
    const int w = o->sizes[s][0], h = o->sizes[s][1], d = o->sizes[s][2];
    GpucclVolumeImage img = {v, w, h, d, (size_t)w, (size_t)w * h};
    for (int c = 0; c < per_size && !failed; c++) {
      const int dens = o->densities[c / o->n_granularities];
      const int gran = o->granularities[c % o->n_granularities];
      char where[96];
      snprintf(where, sizeof where, "%dx%dx%d, density %d%%, granularity %d",
               w, h, d, dens, gran);
      random_volume(v, w, h, d, dens, gran, 9000u + 100u * s + c);
      Timing *row = &t[((size_t)s * per_size + c) * n_open];
      uint32_t ref_n = 0;
      for (int a = 0; a < n_open && !failed; a++) {
        GpucclVolumeResult res;
        int reps = open[a].runner->backend == GPUCCL_BACKEND_CPU
                       ? o->cpu_reps
                       : o->reps;
        if (!time_volume(&open[a], &img, reps, &row[a], &res)) {
          failed = 1;
          break;
        }
        if (a == 0) { /* the reference: keep a copy of its table */
          free(ref);
          ref_n = res.n_components;
          ref = malloc((ref_n ? ref_n : 1) * sizeof *ref);
          if (!ref) {
            failed = 1;
            break;
          }
          memcpy(ref, res.blobs, ref_n * sizeof *ref);
        } else if (!same_table(open[a].runner->name, &res,
                               open[0].runner->name, ref, ref_n, where)) {
          mismatches++;
        }
        if (csv)
          fprintf(csv, "%s,%d,%d,%d,%d,%d,%ld,%.4f,%.4f,%.4f\n",
                  open[a].runner->name, w, h, d, dens, gran,
                  row[a].components, row[a].wall, row[a].best,
                  row[a].device);
      }
      fprintf(stderr, "# %s done\n", where);
      if (csv)
        fflush(csv);
    }
    if (!failed)
      report_size(o, open, n_open, t, per_size, s);
  }
  if (csv && csv != stdout)
    fclose(csv);
  if (mismatches)
    printf("\nWARNING: %d volumes where a backend's blob table differs "
           "from %s's\n", mismatches, open[0].runner->name);
  for (int a = 0; a < n_open; a++)
    gpuccl_volume_free(open[a].vol);
  free(ref);
  free(v);
  free(t);
  return failed || mismatches ? 1 : 0;
}
