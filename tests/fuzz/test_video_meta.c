/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstVideoMeta from upstream against the caps, on every format with every
 * overlay drawn: layouts that are legal (padded strides, planes in any
 * order) are labeled and drawn; a meta that lies is an element error that
 * names the field and its values, and a good frame works afterwards.
 *
 * Regressions of issue 19: a chroma stride below the chroma row passed the
 * old size check (offset + stride x rows inside the buffer) and the
 * overlays wrote past the buffer; offsets that wrap, and a meta whose size
 * differs from the caps, went through to GStreamer's "internal error" (or,
 * larger than the caps, to ROIs outside the frame). Every buffer here is
 * exactly as large as its meta says, so a write past it is an ASan or
 * valgrind error. */
#include "frames.h"
#include "harness_bus.h"

#include <gst/check/gstcheck.h>

#define DRAW_ALL "draw=boxes+centroids+labels"
#define W 64
#define H 48

/* A layout of `format` at W x H: every stride `pad` bytes wider than the
 * caps' own, planes stored in reverse order. */
static void
padded_layout (GstVideoFormat format, guint pad, GstVideoInfo * info)
{
  gsize at = 0;

  gst_video_info_set_format (info, format, W, H);
  for (gint p = GST_VIDEO_INFO_N_PLANES (info) - 1; p >= 0; p--) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows;

    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, comp[0], H);
    info->stride[p] += pad;
    info->offset[p] = at;
    at += (gsize) info->stride[p] * rows;
  }
  info->size = at;
}

/* buf (taken) with a GstVideoMeta of `format` giving this size, these
 * offsets and strides (the buffer's layout, or a lie). */
static GstBuffer *
with_meta (GstBuffer * buf, GstVideoFormat format, guint meta_w,
    guint meta_h, const gsize * offset, const gint * stride)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);

  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      meta_w, meta_h, GST_VIDEO_FORMAT_INFO_N_PLANES (finfo),
      (gsize *) offset, (gint *) stride);
  return buf;
}

/* Legal layouts: labeled, drawn, ROIs exactly the rectangles. */
GST_START_TEST (test_legal_layouts)
{
  static const guint pads[] = { 0, 4, 60 };
  guint8 mask[W * H];
  RelRect rects[8];
  GRand *rand = g_rand_new_with_seed (19);

  for (guint f = 0; f < rel_n_formats; f++)
    for (guint k = 0; k < G_N_ELEMENTS (pads); k++) {
      GstBus *bus;
      GstHarness *h = rel_harness_with_bus (DRAW_ALL, &bus);
      GstVideoInfo layout;
      guint n = rel_mask_rects (mask, W, H, rand, rects, 8);
      GstBuffer *out;
      gchar *why = NULL;

      padded_layout (rel_formats[f], pads[k], &layout);
      gst_harness_set_src_caps (h, rel_caps_new (rel_formats[f], W, H));
      fail_unless_equals_int (gst_harness_push (h,
              with_meta (rel_buffer_new (&layout, mask), rel_formats[f], W, H,
                  layout.offset, layout.stride)), GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (rel_rois_match (out, rects, n, &why), "%s pad %u: %s",
          gst_video_format_to_string (rel_formats[f]), pads[k], why);
      gst_buffer_unref (out);
      rel_teardown_with_bus (h, bus);
    }
  g_rand_free (rand);
}

GST_END_TEST;

/* Push a lying meta over a buffer of `size` bytes (all 0xff): an element
 * error containing `word`, nothing downstream, then a good frame. */
static void
expect_refused (GstVideoFormat format, guint meta_w, guint meta_h,
    const gsize * offset, const gint * stride, gsize size,
    const gchar * word, const gchar * what)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus (DRAW_ALL, &bus);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstFlowReturn ret;
  gchar *text;

  gst_buffer_memset (buf, 0, 0xff, size);
  gst_harness_set_src_caps (h, rel_caps_new (format, W, H));
  ret = gst_harness_push (h, with_meta (buf, format, meta_w, meta_h, offset,
          stride));
  fail_unless (ret == GST_FLOW_ERROR, "%s: %s", what, gst_flow_get_name (ret));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  text = rel_expect_error (bus, what);
  fail_unless (strstr (text, "GstVideoMeta") && strstr (text, word),
      "%s: \"%s\" does not name GstVideoMeta and the %s", what, text, word);
  GST_INFO ("%s: %s", what, text);
  g_free (text);
  rel_expect_good_frame (h, format, W, H);
  rel_teardown_with_bus (h, bus);
}

/* Strides below their plane's row: every plane of every format, the
 * buffer exactly offset + stride x rows long (so the old check passed). */
GST_START_TEST (test_short_strides)
{
  for (guint f = 0; f < rel_n_formats; f++) {
    GstVideoInfo caps_info;

    gst_video_info_set_format (&caps_info, rel_formats[f], W, H);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&caps_info); p++) {
      const GstVideoInfo layout = caps_info;
      gint stride[GST_VIDEO_MAX_PLANES];
      gsize offset[GST_VIDEO_MAX_PLANES], at = 0;
      gchar what[64];

      /* Plane p's stride one byte short (chroma: half its row, the case
       * of the heap overflow); the planes packed by those strides. */
      for (guint q = 0; q < GST_VIDEO_INFO_N_PLANES (&layout); q++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component (layout.finfo, q, comp);
        stride[q] = layout.stride[q];
        if (q == p)
          stride[q] = p ? stride[q] / 2 : stride[q] - 1;
        offset[q] = at;
        at += (gsize) stride[q] *
            GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (layout.finfo, comp[0], H);
      }
      g_snprintf (what, sizeof what, "%s plane %u stride %d",
          gst_video_format_to_string (rel_formats[f]), p, stride[p]);
      expect_refused (rel_formats[f], W, H, offset, stride, at, "stride",
          what);
      stride[p] = -stride[p];
      g_snprintf (what, sizeof what, "%s plane %u stride %d",
          gst_video_format_to_string (rel_formats[f]), p, stride[p]);
      expect_refused (rel_formats[f], W, H, offset, stride, at, "stride",
          what);
    }
  }
}

GST_END_TEST;

/* Offsets past the buffer, and offsets so large that offset + rows wraps
 * to a small number. */
GST_START_TEST (test_wrapping_offsets)
{
  const gsize bad[] = { G_MAXSIZE - 100, G_MAXSIZE / 2 + 1, 1 << 20 };

  for (guint f = 0; f < rel_n_formats; f++) {
    GstVideoInfo info;

    gst_video_info_set_format (&info, rel_formats[f], W, H);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
      for (guint b = 0; b < G_N_ELEMENTS (bad); b++) {
        gsize offset[GST_VIDEO_MAX_PLANES];
        gchar what[64];

        memcpy (offset, info.offset, sizeof offset);
        offset[p] = bad[b];
        g_snprintf (what, sizeof what, "%s plane %u offset %" G_GSIZE_FORMAT,
            gst_video_format_to_string (rel_formats[f]), p, bad[b]);
        expect_refused (rel_formats[f], W, H, offset, info.stride, info.size,
            "past the buffer", what);
      }
  }
}

GST_END_TEST;

/* A meta larger or smaller than the caps, in a buffer large enough for
 * the larger one. */
GST_START_TEST (test_size_not_the_caps)
{
  static const gint dw[] = { 16, 0, -8, 0 }, dh[] = { 0, 8, 0, -2 };

  for (guint f = 0; f < rel_n_formats; f++)
    for (guint k = 0; k < G_N_ELEMENTS (dw); k++) {
      GstVideoInfo big;
      gchar what[64];

      gst_video_info_set_format (&big, rel_formats[f], W + 16, H + 8);
      g_snprintf (what, sizeof what, "%s meta %dx%d in %dx%d caps",
          gst_video_format_to_string (rel_formats[f]), W + dw[k], H + dh[k],
          W, H);
      expect_refused (rel_formats[f], W + dw[k], H + dh[k], big.offset,
          big.stride, big.size, "size", what);
    }
}

GST_END_TEST;

/* whole's bytes in memories cut at `cut`, each memory exactly as large as
 * its part, with whole's GstVideoMeta. whole is taken. */
static GstBuffer *
split_buffer (GstBuffer * whole, gsize cut)
{
  GstBuffer *out = gst_buffer_new ();
  GstVideoMeta *vm = gst_buffer_get_video_meta (whole);
  const gsize part[2] = { cut, gst_buffer_get_size (whole) - cut };

  for (guint i = 0; i < 2; i++) {
    GstMemory *mem = gst_allocator_alloc (NULL, part[i], NULL);
    GstMapInfo map;

    gst_memory_map (mem, &map, GST_MAP_WRITE);
    gst_buffer_extract (whole, i ? cut : 0, map.data, part[i]);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (out, mem);
  }
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE, vm->format,
      vm->width, vm->height, vm->n_planes, vm->offset, vm->stride);
  gst_buffer_unref (whole);
  return out;
}

/* One frame through a fresh element with `props`: the output's bytes. */
static guint8 *
push_one (const gchar * props, GstVideoFormat format, GstBuffer * buf,
    const RelRect * rects, guint n, gsize * size)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus (props, &bus);
  GstBuffer *out;
  gchar *why = NULL;
  gpointer bytes;

  gst_harness_set_src_caps (h, rel_caps_new (format, W, H));
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (rel_rois_match (out, rects, n, &why), "%s %s: %s",
      gst_video_format_to_string (format), props, why);
  gst_buffer_extract_dup (out, 0, G_MAXSIZE, &bytes, size);
  gst_buffer_unref (out);
  rel_teardown_with_bus (h, bus);
  return bytes;
}

/* A GstVideoMeta whose plane crosses from one GstMemory into the next
 * (issue 28: the default meta map maps only the memory of a plane's first
 * byte, so labeling read and drawing wrote past it). The blobs must be the
 * rectangles, and the frame byte for byte the one drawn in one memory. */
static void
check_split (GstVideoFormat format, gsize cut, const gchar * props)
{
  GstVideoInfo info;
  guint8 mask[W * H];
  RelRect rects[8];
  GRand *rand = g_rand_new_with_seed (28);
  guint n = rel_mask_rects (mask, W, H, rand, rects, 8);
  GstBuffer *one;
  guint8 *bytes_one, *bytes_split;
  gsize size_one, size_split;

  gst_video_info_set_format (&info, format, W, H);
  one = with_meta (rel_buffer_new (&info, mask), format, W, H, info.offset,
      info.stride);
  bytes_split = push_one (props, format,
      split_buffer (gst_buffer_copy_deep (one), cut), rects, n, &size_split);
  bytes_one = push_one (props, format, one, rects, n, &size_one);
  fail_unless (size_one == size_split && !memcmp (bytes_one, bytes_split,
          size_one), "%s cut at %" G_GSIZE_FORMAT " (%s): the frame differs "
      "from the one in a single memory", gst_video_format_to_string (format),
      cut, props);
  g_free (bytes_one);
  g_free (bytes_split);
  g_rand_free (rand);
}

GST_START_TEST (test_plane_across_memories)
{
  static const gchar *const props[] = { "", "draw=boxes+centroids",
    DRAW_ALL
  };

  for (guint k = 0; k < G_N_ELEMENTS (props); k++) {
    /* 64x48 GRAY8 in two memories of 1536 bytes: the plane crosses. */
    check_split (GST_VIDEO_FORMAT_GRAY8, W * H / 2, props[k]);
    /* I420: the U plane split in its middle (Y 3072, U 768 bytes). */
    check_split (GST_VIDEO_FORMAT_I420, W * H + W * H / 8, props[k]);
    /* RGBA and NV12 for good measure: the packed plane, the UV plane. */
    check_split (GST_VIDEO_FORMAT_RGBA, W * H * 2 + 3, props[k]);
    check_split (GST_VIDEO_FORMAT_NV12, W * H + 100, props[k]);
  }
}

GST_END_TEST;

static Suite *
video_meta_suite (void)
{
  Suite *s = suite_create ("gpucclblob-video-meta");
  TCase *tc = tcase_create ("video-meta");

  tcase_set_timeout (tc, 0);
  tcase_add_test (tc, test_legal_layouts);
  tcase_add_test (tc, test_short_strides);
  tcase_add_test (tc, test_wrapping_offsets);
  tcase_add_test (tc, test_size_not_the_caps);
  tcase_add_test (tc, test_plane_across_memories);
  suite_add_tcase (s, tc);
  return s;
}

REL_CHECK_MAIN (video_meta);
