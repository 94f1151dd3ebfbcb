/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A piece of a frame's time in the pipeline bench, measured alone in the
 * same run, to name what the pipelines are waiting for: the host's share
 * of the overlays, gpuccl_draw into frames in host memory, as the element
 * draws boxes and crosses on system, pinned and mapped frames. The other
 * piece, the host-to-device link, is pipeline_cuda.c's link_probe. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE, posix_memalign */
#include "pipeline_bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gpuccl.h"

#define HUGE_PAGE ((size_t) 2 << 20)

/* GpucclDrawFlags of a --draw value ("boxes+centroids"); labels are left
 * out (they go through the device on a CUDA context). */
static unsigned
host_draw_flags (const char *draw)
{
  gchar **parts = g_strsplit (draw, "+", -1);
  unsigned flags = 0;

  for (gchar ** p = parts; *p; p++) {
    if (!strcmp (*p, "boxes"))
      flags |= GPUCCL_DRAW_BOXES;
    else if (!strcmp (*p, "centroids"))
      flags |= GPUCCL_DRAW_CENTROIDS;
  }
  g_strfreev (parts);
  return flags;
}

/* Frame i of `n` frames of `format` laid out one after the other in mem. */
static GpucclFrame
host_frame (GstVideoFormat format, const Size * size, guint8 * mem,
    size_t frame_bytes, int i)
{
  GpucclFrame f = { 0 };
  size_t plane = (size_t) size->width * size->height;

  f.width = size->width;
  f.height = size->height;
  f.data[0] = mem + i * frame_bytes;
  f.stride[0] = size->width;
  if (format == GST_VIDEO_FORMAT_NV12) {
    f.format = GPUCCL_FRAME_NV12;
    f.data[1] = (guint8 *) f.data[0] + plane;
    f.stride[1] = 2 * (size_t) ((size->width + 1) / 2);
  } else if (format == GST_VIDEO_FORMAT_RGBA) {
    f.format = GPUCCL_FRAME_PACKED4;
    f.stride[0] = 4 * (size_t) size->width;
    f.offset_g = 1;
    f.offset_b = 2;
  } else {
    f.format = GPUCCL_FRAME_GRAY8;
  }
  return f;
}

gboolean
host_draw_probe (GstVideoFormat format, const Size * size, int n_discs,
    gboolean lattice, const char *draw, HostDraw * out)
{
  const int w = size->width, h = size->height, rounds = 12;
  const size_t plane = (size_t) w * h;
  const size_t frame_bytes = format == GST_VIDEO_FORMAT_RGBA ? 4 * plane :
      format == GST_VIDEO_FORMAT_NV12 ? plane + plane / 2 + w : plane;
  GpucclError error = { 0 };
  GpucclContext *ctx = gpuccl_context_new (GPUCCL_BACKEND_CPU, 0, &error);
  GpucclParams params;
  GpucclResult result;
  GpucclImage image = { 0 };
  GpucclDrawParams pen = { 0 };
  guint8 *levels = g_malloc (plane), *mem[2] = { NULL, NULL };
  double cold[2][rounds * N_FRAMES], warm[rounds * N_FRAMES];
  int n = 0;
  gboolean ok = FALSE;

  pen.flags = host_draw_flags (draw);
  if (!ctx || !pen.flags)
    goto out;
  /* The element's defaults: green, 2 pixels wide. */
  pen.g = 255;
  pen.line_width = 2;
  /* The frames in 4 KiB pages, and in 2 MiB pages where the kernel gives
   * them (transparent huge pages): a box's rows are a stride apart, so
   * each may also cost a page walk. */
  for (int m = 0; m < 2; m++) {
    size_t bytes = N_FRAMES * frame_bytes;
    if (m == 0) {
      mem[m] = g_malloc (bytes);
    } else {
      bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
      if (posix_memalign ((void **) &mem[m], HUGE_PAGE, bytes))
        goto out;
      madvise (mem[m], bytes, MADV_HUGEPAGE);
    }
    memset (mem[m], 20, bytes);
  }
  scene_levels (levels, w, h, n_discs, lattice, 0);
  image.data = levels;
  image.width = w;
  image.height = h;
  image.stride = w;
  image.format = GPUCCL_PIXEL_U8;
  gpuccl_params_init (&params);
  params.threshold = THRESHOLD;
  if (gpuccl_process (ctx, &image, &params, &result, &error) != GPUCCL_OK)
    goto out;
  out->blobs = result.n_blobs;

  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < N_FRAMES; i++) {
      GpucclFrame f = host_frame (format, size, mem[0], frame_bytes, i);
      GpucclFrame huge = host_frame (format, size, mem[1], frame_bytes, i);
      gint64 t0 = g_get_monotonic_time (), t1, t2, t3;
      gpuccl_draw (ctx, &f, &pen, &error);
      t1 = g_get_monotonic_time ();
      gpuccl_draw (ctx, &f, &pen, &error);
      t2 = g_get_monotonic_time ();
      gpuccl_draw (ctx, &huge, &pen, &error);
      t3 = g_get_monotonic_time ();
      if (r == 0)
        continue;               /* first touch of the pages */
      cold[0][n] = (double) (t1 - t0);
      warm[n] = (double) (t2 - t1);
      cold[1][n++] = (double) (t3 - t2);
    }
  qsort (cold[0], n, sizeof (double), cmp_double);
  qsort (cold[1], n, sizeof (double), cmp_double);
  qsort (warm, n, sizeof *warm, cmp_double);
  out->cold_us = cold[0][n / 2];
  out->cold_huge_us = cold[1][n / 2];
  out->warm_us = warm[n / 2];
  ok = TRUE;
out:
  gpuccl_context_free (ctx);
  g_free (levels);
  g_free (mem[0]);
  free (mem[1]);
  return ok;
}
