/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See real_images.h. */
#define _DEFAULT_SOURCE /* DT_* and strdup */
#include "real_images.h"

#include "gpuccl.h"

#include <leptonica/allheaders.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_picture(const char *name)
{
  static const char *const ext[] = {".png", ".jpg", ".jpeg", ".pgm", ".pnm",
                                    ".ppm", ".pbm", ".tif", ".tiff", ".bmp",
                                    ".gif"};
  const char *dot = strrchr(name, '.');
  for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
    if (!strcasecmp(dot, ext[i]))
      return true;
  return false;
}

static int cmp_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The picture names of dir, sorted, their count in *n (-1: no such
 * directory, said on stderr). */
static char **list_pictures(const char *dir, int *n)
{
  DIR *d = opendir(dir);
  *n = -1;
  if (!d) {
    perror(dir);
    return NULL;
  }
  char **names = NULL;
  int count = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !is_picture(e->d_name))
      continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 32;
      char **grown = realloc(names, (size_t)cap * sizeof *names);
      if (!grown)
        break;
      names = grown;
    }
    if (!(names[count] = strdup(e->d_name)))
      break;
    count++;
  }
  closedir(d);
  if (names)
    qsort(names, (size_t)count, sizeof *names, cmp_name);
  *n = count;
  return names;
}

/* Grey, scaled to `side` on the longer side (0: as is), binarised. */
static int make_image(const char *dir, const char *file, int side,
                      GpucclContext *cpu, RealImage *out)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  PIX *pix = pixRead(path);
  PIX *gray = pix ? pixConvertTo8(pix, 0) : NULL;
  pixDestroy(&pix);
  if (gray && side > 0) {
    int w = pixGetWidth(gray), h = pixGetHeight(gray);
    double f = (double)side / (w > h ? w : h);
    int sw = w > h ? side : (int)(w * f + 0.5);
    int sh = w > h ? (int)(h * f + 0.5) : side;
    PIX *scaled = pixScaleToSize(gray, sw < 1 ? 1 : sw, sh < 1 ? 1 : sh);
    pixDestroy(&gray);
    gray = scaled;
  }
  if (!gray) {
    fprintf(stderr, "%s: Leptonica cannot read it as a picture\n", path);
    return -1;
  }
  const int w = pixGetWidth(gray), h = pixGetHeight(gray);
  const size_t n = (size_t)w * h;
  uint8_t *data = malloc(n);
  if (!data) {
    pixDestroy(&gray);
    return -1;
  }
  const l_uint32 *words = pixGetData(gray);
  const int wpl = pixGetWpl(gray);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      data[(size_t)y * w + x] = (uint8_t)GET_DATA_BYTE(words + y * wpl, x);
  pixDestroy(&gray);

  GpucclImage img = {data, w, h, (size_t)w, GPUCCL_PIXEL_U8, 0, 0, 0};
  GpucclParams p;
  gpuccl_params_init(&p);
  p.auto_threshold = GPUCCL_AUTO_THRESHOLD_OTSU;
  GpucclResult r;
  GpucclError err = {0};
  if (gpuccl_process(cpu, &img, &p, &r, &err) != GPUCCL_OK) {
    fprintf(stderr, "%s: Otsu: %s\n", path, err.message);
    free(data);
    return -1;
  }
  size_t above = 0;
  for (size_t i = 0; i < n; i++)
    above += data[i] > r.threshold;
  out->dark = 2 * above > n;
  for (size_t i = 0; i < n; i++)
    data[i] = (data[i] > r.threshold) != out->dark ? 255 : 0;
  out->data = data;
  out->width = w;
  out->height = h;
  out->threshold = r.threshold;
  out->density = (double)(out->dark ? n - above : above) / (double)n;
  const char *dot = strrchr(file, '.');
  int stem = (int)(dot ? dot - file : (long)strlen(file));
  if (side > 0)
    snprintf(out->name, sizeof out->name, "%.*s@%d", stem, file, side);
  else
    snprintf(out->name, sizeof out->name, "%.*s", stem, file);
  return 0;
}

int real_images_load(const char *dir, const int *sides, int n_sides,
                     RealImage **images)
{
  int n_files = 0;
  char **files = list_pictures(dir, &n_files);
  if (n_files <= 0) {
    if (n_files == 0)
      fprintf(stderr, "%s: no picture (.png, .jpg, .pgm, .tif, ...)\n", dir);
    free(files);
    return -1;
  }
  GpucclError err = {0};
  GpucclContext *cpu = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &err);
  RealImage *list = calloc((size_t)n_files * n_sides, sizeof *list);
  int n = 0, rc = 0;
  if (!cpu || !list) {
    fprintf(stderr, "real images: %s\n", cpu ? "out of memory" : err.message);
    rc = -1;
  }
  /* Sizes outer, names inner: the table lists every picture at one size,
   * then the next size. */
  for (int s = 0; s < n_sides && rc == 0; s++)
    for (int f = 0; f < n_files && rc == 0; f++)
      if ((rc = make_image(dir, files[f], sides[s], cpu, &list[n])) == 0)
        n++;
  for (int f = 0; f < n_files; f++)
    free(files[f]);
  free(files);
  gpuccl_context_free(cpu);
  if (rc) {
    real_images_free(list, n);
    return -1;
  }
  *images = list;
  return n;
}

void real_images_free(RealImage *images, int n)
{
  for (int i = 0; images && i < n; i++)
    free(images[i].data);
  free(images);
}
