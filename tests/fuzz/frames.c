/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See frames.h. */
#include "frames.h"

#include <gpuccl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const GstVideoFormat rel_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
};
const guint rel_n_formats = G_N_ELEMENTS (rel_formats);

guint
rel_mask_rects (guint8 * mask, guint width, guint height, GRand * rand,
    RelRect * rects, guint max_rects)
{
  /* Cells of at least 3x3 so a 1x1 rectangle and its 1-pixel moat fit. */
  guint cw = MAX (3, width / 4), ch = MAX (3, height / 4);
  guint n = 0;

  memset (mask, 0, (gsize) width * height);
  for (guint cy = 0; cy + 1 < height && n < max_rects; cy += ch) {
    for (guint cx = 0; cx + 1 < width && n < max_rects; cx += cw) {
      /* usable: the cell less its last row and column (the moat) */
      guint uw = MIN (cw, width - cx) - 1, uh = MIN (ch, height - cy) - 1;
      if (uw == 0 || uh == 0 || g_rand_int_range (rand, 0, 3) == 0)
        continue;
      RelRect r;
      r.w = g_rand_int_range (rand, 1, uw + 1);
      r.h = g_rand_int_range (rand, 1, uh + 1);
      r.x = cx + g_rand_int_range (rand, 0, uw - r.w + 1);
      r.y = cy + g_rand_int_range (rand, 0, uh - r.h + 1);
      for (guint y = r.y; y < r.y + r.h; y++)
        memset (mask + (gsize) y * width + r.x, 1, r.w);
      rects[n++] = r;
    }
  }
  return n;
}

/* The value of component c for a foreground or background pixel. */
static guint
component_value (const GstVideoFormatInfo * finfo, guint c, gboolean fg)
{
  guint max = (1u << GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c)) - 1;
  if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo) && c == GST_VIDEO_COMP_A)
    return max;
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) && c != GST_VIDEO_COMP_Y)
    return (max + 1) / 2;
  return fg ? max : 0;
}

GstBuffer *
rel_buffer_new (const GstVideoInfo * info, const guint8 * mask)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;
  const GstVideoFormatInfo *finfo = info->finfo;

  if (!gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE))
    g_error ("cannot map a new %s buffer", GST_VIDEO_INFO_NAME (info));
  /* x-padding (the RGBx "x") is left as it is: unused by definition. */
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&frame); c++) {
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    guint cw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    guint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    gboolean wide = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8;
    gboolean full = cw == (guint) GST_VIDEO_INFO_WIDTH (info);

    for (guint y = 0; y < ch; y++) {
      for (guint x = 0; x < cw; x++) {
        gboolean fg = full && mask
            && mask[(gsize) y * GST_VIDEO_INFO_WIDTH (info) + x];
        guint v = component_value (finfo, c, fg);
        guint8 *p = data + (gsize) y * stride + (gsize) x * pstride;
        if (wide)
          GST_WRITE_UINT16_LE (p, v);
        else
          *p = (guint8) v;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

GstCaps *
rel_caps_new (GstVideoFormat format, guint width, guint height)
{
  return gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, gst_video_format_to_string (format),
      "width", G_TYPE_INT, (gint) width, "height", G_TYPE_INT, (gint) height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

gboolean
rel_rois_match (GstBuffer * buf, const RelRect * rects, guint n, gchar ** why)
{
  guint found = 0;
  gpointer state = NULL;
  GstMeta *meta;
  gboolean *used = g_new0 (gboolean, MAX (n, 1));
  gboolean ok = TRUE;

  *why = NULL;
  while (ok && (meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    guint i;
    found++;
    if (roi->roi_type != g_quark_from_static_string ("blob")) {
      *why = g_strdup_printf ("ROI of type %s", g_quark_to_string (roi->roi_type));
      ok = FALSE;
      break;
    }
    for (i = 0; i < n; i++)
      if (!used[i] && rects[i].x == roi->x && rects[i].y == roi->y
          && rects[i].w == roi->w && rects[i].h == roi->h)
        break;
    if (i == n) {
      *why = g_strdup_printf ("ROI %u,%u %ux%u is none of the %u rectangles",
          roi->x, roi->y, roi->w, roi->h, n);
      ok = FALSE;
    } else {
      used[i] = TRUE;
    }
  }
  if (ok && found != n) {
    *why = g_strdup_printf ("%u ROIs for %u rectangles", found, n);
    ok = FALSE;
  }
  g_free (used);
  return ok;
}

static guint64
status_kib (const gchar * key)
{
  FILE *f = fopen ("/proc/self/status", "r");
  gchar line[256];
  guint64 kib = 0;
  gsize len = strlen (key);

  if (!f)
    return 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, key, len) == 0 && line[len] == ':') {
      kib = g_ascii_strtoull (line + len + 1, NULL, 10);
      break;
    }
  fclose (f);
  return kib;
}

guint64
rel_rss_kib (void)
{
  return status_kib ("VmRSS");
}

guint64
rel_peak_rss_kib (void)
{
  return status_kib ("VmHWM");
}

const gchar *
rel_backend (void)
{
  const gchar *backend = g_getenv ("GPUCCL_TEST_BACKEND");
  GpucclError err;

  if (!backend || !*backend)
    return "cpu";
  if (g_str_equal (backend, "cuda") && !gpuccl_cuda_available (0, &err)) {
    g_print ("SKIP: backend cuda asked for but %s\n", err.message);
    exit (77);
  }
  return backend;
}
