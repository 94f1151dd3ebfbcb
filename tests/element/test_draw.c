/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob overlays, pixel by pixel, for every format: box outlines,
 * centroid crosses and ids exactly where the geometry says (computed here
 * from the known rectangles and the digits as drawn in draw_common.h's
 * description, not by the element's code), every other byte of the frame
 * untouched; label colouring uniform per blob, filtered blobs and
 * background untouched; ids that follow the tracks. */
#include "element_common.h"

#include "gstcclblobmeta.h"

#include <math.h>
#include <string.h>

#define W 61
#define H 37

/* Solid rectangles (inclusive), far enough apart to be separate blobs
 * with 8-connectivity; one touches the right and bottom borders, one the
 * left border (its cross is clipped). */
static const gint rects[][4] = {
  {3, 2, 20, 15},               /* 18 x 14 */
  {30, 5, 32, 7},               /* 3 x 3: filled by any box of width >= 2 */
  {45, 20, 60, 36},             /* touches the right and bottom borders */
  {0, 30, 1, 36},               /* 2 x 7 on the left border */
};
#define N_RECTS G_N_ELEMENTS (rects)

typedef struct
{
  guint8 y, u, v;
} Yuv;

/* Full-range BT.601 from its definition, rounded and clamped. */
static Yuv
yuv_of (guint8 r, guint8 g, guint8 b)
{
  Yuv c;
  c.y = CLAMP (lround (0.299 * r + 0.587 * g + 0.114 * b), 0, 255);
  c.u = CLAMP (lround (128 - 0.168736 * r - 0.331264 * g + 0.5 * b), 0, 255);
  c.v = CLAMP (lround (128 + 0.5 * r - 0.418688 * g - 0.081312 * b), 0, 255);
  return c;
}

static GstBuffer *
rect_frame (const GstVideoInfo * info)
{
  guint8 *levels = g_malloc0 (W * H);
  GstBuffer *buf;

  for (gsize r = 0; r < N_RECTS; r++)
    for (gint y = rects[r][1]; y <= rects[r][3]; y++)
      memset (levels + y * W + rects[r][0], 255,
          rects[r][2] - rects[r][0] + 1);
  buf = element_make_frame (info, levels, "luma", 5);
  g_free (levels);
  return buf;
}

/* The pixels the overlays cover, from the rectangles' geometry. */
static void
expected_mask (gboolean boxes, gboolean crosses, gint lw, gboolean * mask)
{
  memset (mask, 0, sizeof (gboolean) * W * H);
  for (gsize r = 0; r < N_RECTS; r++) {
    gint x0 = rects[r][0], y0 = rects[r][1], x1 = rects[r][2],
        y1 = rects[r][3];
    /* Centroid of a solid rectangle: its centre; the cross sits on the
     * nearest pixel (halves round up). */
    gint px = (gint) floor ((x0 + x1) / 2.0 + 0.5);
    gint py = (gint) floor ((y0 + y1) / 2.0 + 0.5);
    gint arm = 3 * lw, lo = -((lw - 1) / 2), hi = lw / 2;

    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) {
        gboolean inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
        gboolean edge = x < x0 + lw || x > x1 - lw || y < y0 + lw
            || y > y1 - lw;
        gint dx = x - px, dy = y - py;
        gboolean cross = (ABS (dx) <= arm && dy >= lo && dy <= hi) ||
            (ABS (dy) <= arm && dx >= lo && dx <= hi);
        if ((boxes && inside && edge) || (crosses && cross))
          mask[y * W + x] = TRUE;
      }
  }
}

/* The digits of draw=ids as pictures: 3 x 5 cells. */
static const gchar *const digit_pictures[10][5] = {
  {"###", "#.#", "#.#", "#.#", "###"}, {".#.", "##.", ".#.", ".#.", ".#."},
  {"###", "..#", "###", "#..", "###"}, {"###", "..#", "###", "..#", "###"},
  {"#.#", "#.#", "###", "..#", "..#"}, {"###", "#..", "###", "..#", "###"},
  {"###", "#..", "###", "#.#", "###"}, {"###", "..#", "..#", "..#", "..#"},
  {"###", "#.#", "###", "#.#", "###"}, {"###", "#.#", "###", "..#", "###"},
};

/* Add the pixels of number `id` drawn beside the box (x0, y0)-(.., y1):
 * cells of lw + 1 pixels, one cell between digits, left-aligned with the
 * box, one cell above it, else one cell below it, else from its top row;
 * clipped to the frame. */
static void
add_id_mask (gint x0, gint y0, gint y1, guint id, gint lw, gboolean * mask)
{
  gint cell = lw + 1, top;
  gchar digits[16];
  gint n = g_snprintf (digits, sizeof digits, "%u", id);

  if (y0 - cell - 5 * cell >= 0)
    top = y0 - cell - 5 * cell;
  else if (y1 + cell + 5 * cell < H)
    top = y1 + 1 + cell;
  else
    top = y0;
  for (gint k = 0; k < n; k++)
    for (gint row = 0; row < 5; row++)
      for (gint col = 0; col < 3; col++) {
        if (digit_pictures[digits[k] - '0'][row][col] != '#')
          continue;
        for (gint dy = 0; dy < cell; dy++)
          for (gint dx = 0; dx < cell; dx++) {
            gint x = x0 + (4 * k + col) * cell + dx, y = top + row * cell + dy;
            if (x < W && y < H)
              mask[y * W + x] = TRUE;
          }
      }
}

static gboolean
chroma_covered (const gboolean * mask, gint cx, gint cy)
{
  for (gint i = 0; i < 4; i++) {
    gint x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
    if (x < W && y < H && mask[y * W + x])
      return TRUE;
  }
  return FALSE;
}

static const guint8 *
pixel (const GstVideoFrame * f, gint plane, gint x, gint y, gint size)
{
  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, plane) +
      (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (f, plane) + (gsize) x * size;
}

/* Chroma sample (cx, cy) of component comp (1: U, 2: V). */
static guint8
chroma_at (const GstVideoFrame * f, gint comp, gint cx, gint cy)
{
  return *((const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, comp) +
      cy * GST_VIDEO_FRAME_COMP_STRIDE (f, comp) +
      cx * GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp));
}

/* The rectangle covering (x, y), or -1. */
static gint
rect_at (gint x, gint y)
{
  for (gsize r = 0; r < N_RECTS; r++)
    if (x >= rects[r][0] && x <= rects[r][2] && y >= rects[r][1]
        && y <= rects[r][3])
      return (gint) r;
  return -1;
}

/* The colour of pixel (x, y) on the labeled plane: R, G, B of RGB
 * formats (not the fourth byte), else the luma sample. */
static guint32
colour_at (const GstVideoFrame * f, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = f->info.finfo;

  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    const guint8 *p = pixel (f, 0, x, y, 4);
    return p[GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R)] << 16 |
        p[GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G)] << 8 |
        p[GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B)];
  }
  if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 16)
    return GST_READ_UINT16_LE (pixel (f, 0, x, y, 2));
  return *pixel (f, 0, x, y, 1);
}

/* Compare out against in: covered pixels have the colour, all other
 * bytes of the visible frame are unchanged. */
static void
check_drawn (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    const gboolean * mask, guint8 r, guint8 g, guint8 b)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  Yuv c = yuv_of (r, g, b);
  GstVideoFrame fi, fo;
  const gchar *name = GST_VIDEO_INFO_NAME (info);
  guint n_drawn = 0;

  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));

  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) {
      gboolean on = mask[y * W + x];
      n_drawn += on;
      if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
        const guint8 *po = pixel (&fo, 0, x, y, 4), *pi = pixel (&fi, 0, x, y,
            4);
        gint oR = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R);
        gint oG = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G);
        gint oB = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B);
        for (gint k = 0; k < 4; k++) {
          guint8 want = pi[k];
          if (on && k == oR)
            want = r;
          else if (on && k == oG)
            want = g;
          else if (on && k == oB)
            want = b;
          fail_unless (po[k] == want, "%s (%d,%d) byte %d is %u, want %u",
              name, x, y, k, po[k], want);
        }
      } else if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 16) {
        guint16 vo = GST_READ_UINT16_LE (pixel (&fo, 0, x, y, 2));
        guint16 vi = GST_READ_UINT16_LE (pixel (&fi, 0, x, y, 2));
        fail_unless (vo == (on ? c.y * 257 : vi), "%s (%d,%d) is %u", name, x,
            y, vo);
      } else {
        const guint8 *po = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fo,
            0) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fo, 0) + x;
        const guint8 *pi = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fi,
            0) + y * GST_VIDEO_FRAME_COMP_STRIDE (&fi, 0) + x;
        fail_unless (*po == (on ? c.y : *pi), "%s Y(%d,%d) is %u, want %u",
            name, x, y, *po, on ? c.y : *pi);
      }
    }
  fail_unless (n_drawn > 0);

  if (GST_VIDEO_INFO_N_PLANES (info) > 1) {
    for (gint cy = 0; cy < (H + 1) / 2; cy++)
      for (gint cx = 0; cx < (W + 1) / 2; cx++) {
        gboolean on = chroma_covered (mask, cx, cy);
        for (gint comp = 1; comp <= 2; comp++) {
          guint8 got = chroma_at (&fo, comp, cx, cy);
          guint8 want = on ? (comp == 1 ? c.u : c.v) :
              chroma_at (&fi, comp, cx, cy);
          fail_unless (got == want, "%s %c(%d,%d) is %u, want %u", name,
              comp == 1 ? 'U' : 'V', cx, cy, got, want);
        }
      }
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
}

/* Is `flag` one of the '+'-separated flags of `draw`? */
static gboolean
draws (const gchar * draw, const gchar * flag)
{
  gchar **flags = g_strsplit (draw, "+", -1);
  gboolean found = g_strv_contains ((const gchar * const *) flags, flag);

  g_strfreev (flags);
  return found;
}

static void
run_draw_case (GstVideoFormat format, const gchar * draw, gint lw,
    guint32 argb)
{
  gchar *props = g_strdup_printf ("draw=%s line-width=%d box-color=%u %s",
      draw, lw, argb, format == GST_VIDEO_FORMAT_GRAY16_LE ?
      "threshold=32767" : "");
  GstHarness *h = element_harness_new (props);
  GstCaps *caps = element_caps (format, W, H);
  gboolean *mask = g_new (gboolean, W * H);
  GstVideoInfo info;
  GstBuffer *in, *out;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  in = rect_frame (&info);
  /* The element writes in place: keep a pristine reference. */
  out = element_push_pull (h, gst_buffer_copy_deep (in));
  expected_mask (draws (draw, "boxes"), draws (draw, "centroids"), lw, mask);
  /* Untracked: the blob ids, 1.. in the rectangles' raster order. */
  if (draws (draw, "ids"))
    for (gsize r = 0; r < N_RECTS; r++)
      add_id_mask (rects[r][0], rects[r][1], rects[r][3], r + 1, lw, mask);
  check_drawn (in, out, &info, mask, (argb >> 16) & 0xff, (argb >> 8) & 0xff,
      argb & 0xff);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_free (mask);
  g_free (props);
  gst_harness_teardown (h);
}

GST_START_TEST (test_boxes)
{
  for (gsize f = 0; f < n_element_formats; f++)
    for (gint lw = 1; lw <= 3; lw++)
      run_draw_case (element_formats[f], "boxes", lw, 0xffff0000);
}

GST_END_TEST;

GST_START_TEST (test_centroids)
{
  for (gsize f = 0; f < n_element_formats; f++)
    for (gint lw = 1; lw <= 2; lw++)
      run_draw_case (element_formats[f], "centroids", lw, 0xff00ff00);
}

GST_END_TEST;

GST_START_TEST (test_boxes_and_centroids)
{
  for (gsize f = 0; f < n_element_formats; f++)
    run_draw_case (element_formats[f], "boxes+centroids", 2, 0x80123456);
}

GST_END_TEST;

/* Ids at every line width's cell size, each of the three placements
 * (above the box, below it, over its top edge at lw 3), clipped. */
GST_START_TEST (test_ids)
{
  for (gsize f = 0; f < n_element_formats; f++)
    for (gint lw = 1; lw <= 3; lw++)
      run_draw_case (element_formats[f], lw == 2 ? "boxes+ids" : "ids", lw,
          0xff20c0ff);
}

GST_END_TEST;

/* Two squares that swap raster order between two frames: their blob ids
 * swap, their track ids stay, and the numbers drawn are the track ids. */
GST_START_TEST (test_ids_follow_tracks)
{
  static const gint squares[2][2][2] = {        /* [frame][square] x, y */
    {{5, 10}, {30, 12}}, {{6, 14}, {31, 12}},
  };
  const gint side = 6;
  GstHarness *h = element_harness_new ("draw=ids track=true line-width=1 "
      "box-color=0xffffffff");
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_GRAY8, W, H);
  gboolean *mask = g_new (gboolean, W * H);
  guint track_of[2] = { 0, 0 };
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  for (gint k = 0; k < 2; k++) {
    guint8 *levels = g_malloc0 (W * H);
    GstBuffer *in, *out;
    GstCclBlobMeta *meta;

    for (gint s = 0; s < 2; s++)
      for (gint y = 0; y < side; y++)
        memset (levels + (squares[k][s][1] + y) * W + squares[k][s][0], 255,
            side);
    in = element_make_frame (&info, levels, "luma", 9 + k);
    out = element_push_pull (h, gst_buffer_copy_deep (in));
    meta = gst_buffer_get_ccl_blob_meta (out);
    fail_unless (meta && meta->n_blobs == 2);
    memset (mask, 0, sizeof (gboolean) * W * H);
    for (guint i = 0; i < 2; i++) {
      const GstCclBlob *b = &meta->blobs[i];
      guint32 track_id = gst_ccl_blob_meta_get_track_id (meta, i);
      gint s = b->x0 == (guint) squares[k][1][0];   /* which square */
      /* Raster order: square 0 first in frame 0, second in frame 1. */
      fail_unless_equals_int (b->id, k == 0 ? s + 1 : 2 - s);
      if (k == 0)
        track_of[s] = track_id;
      fail_unless_equals_int (track_id, track_of[s]);
      add_id_mask (b->x0, b->y0, b->y1, track_id, 1, mask);
    }
    fail_unless (track_of[0] != track_of[1] && track_of[0] && track_of[1]);
    check_drawn (in, out, &info, mask, 255, 255, 255);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    g_free (levels);
  }
  g_free (mask);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Label colouring: every pixel of a kept blob gets one colour (the same
 * across the blob), distinct blobs are told apart where the palette
 * allows, and background and filtered blobs are untouched. */
GST_START_TEST (test_labels)
{
  for (gsize f = 0; f < n_element_formats; f++) {
    GstVideoFormat format = element_formats[f];
    /* The 3x3 blob (area 9) is filtered out. */
    gchar *props = g_strdup_printf ("draw=labels min-area=10 %s",
        format == GST_VIDEO_FORMAT_GRAY16_LE ? "threshold=32767" : "");
    GstHarness *h = element_harness_new (props);
    GstCaps *caps = element_caps (format, W, H);
    GstVideoInfo info;
    GstVideoFrame fi, fo;
    GstBuffer *in, *out;
    gint bpp;

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_harness_set_src_caps (h, caps);
    in = rect_frame (&info);
    out = element_push_pull (h, gst_buffer_copy_deep (in));
    fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
    bpp = GST_VIDEO_FORMAT_INFO_IS_RGB (info.finfo) ? 4 :
        GST_VIDEO_FORMAT_INFO_DEPTH (info.finfo, 0) / 8;

    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) {
        gint which = rect_at (x, y);
        const guint8 *po = pixel (&fo, 0, x, y, bpp);
        const guint8 *pi = pixel (&fi, 0, x, y, bpp);
        if (which < 0 || which == 1) {
          fail_unless (memcmp (po, pi, bpp) == 0,
              "%s (%d,%d) changed outside kept blobs", info.finfo->name, x, y);
        } else {
          /* Same colour as the blob's first pixel, and not the input's. */
          guint32 c = colour_at (&fo, x, y);
          fail_unless (c == colour_at (&fo, rects[which][0], rects[which][1]),
              "%s (%d,%d) not uniform", info.finfo->name, x, y);
          fail_unless (c != colour_at (&fi, x, y), "%s (%d,%d) not coloured",
              info.finfo->name, x, y);
        }
      }

    /* 4:2:0 chroma: samples whose four pixels are all background stay;
     * those inside one kept blob all share one value. */
    if (GST_VIDEO_INFO_N_PLANES (&info) > 1) {
      for (gint cy = 0; cy < (H + 1) / 2; cy++)
        for (gint cx = 0; cx < (W + 1) / 2; cx++) {
          gboolean any = FALSE;
          for (gint i = 0; i < 4; i++) {
            gint x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
            gint r = x < W && y < H ? rect_at (x, y) : -1;
            if (r >= 0 && r != 1)
              any = TRUE;
          }
          if (any)
            continue;
          for (gint comp = 1; comp <= 2; comp++)
            fail_unless (chroma_at (&fo, comp, cx, cy) ==
                chroma_at (&fi, comp, cx, cy), "%s chroma (%d,%d) changed",
                info.finfo->name, cx, cy);
        }
      /* The big blob's inner chroma (x 4..19, y 2..15 → samples 2..9,
       * 1..7) is uniform. */
      for (gint comp = 1; comp <= 2; comp++)
        for (gint cy = 1; cy <= 7; cy++)
          for (gint cx = 2; cx <= 9; cx++)
            fail_unless (chroma_at (&fo, comp, cx, cy) ==
                chroma_at (&fo, comp, 2, 1), "%s chroma (%d,%d) not uniform",
                info.finfo->name, cx, cy);
    }
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fi);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Labels under boxes: the outline keeps the box colour. */
GST_START_TEST (test_labels_under_boxes)
{
  GstHarness *h = element_harness_new ("draw=labels+boxes line-width=1 "
      "box-color=0xff0000ff");
  GstCaps *caps = element_caps (GST_VIDEO_FORMAT_RGBA, W, H);
  GstVideoInfo info;
  GstVideoFrame fo;
  GstBuffer *out;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (h, caps);
  out = element_push_pull (h, rect_frame (&info));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  for (gsize r = 0; r < N_RECTS; r++) {
    const guint8 *corner = pixel (&fo, 0, rects[r][0], rects[r][1], 4);
    fail_unless (corner[0] == 0 && corner[1] == 0 && corner[2] == 255,
        "rect %zu corner is %u,%u,%u", r, corner[0], corner[1], corner[2]);
  }
  /* Inside the big blob: a label colour, not the box colour. */
  {
    const guint8 *inner = pixel (&fo, 0, 10, 8, 4);
    fail_unless (!(inner[0] == 0 && inner[1] == 0 && inner[2] == 255));
    fail_unless (!(inner[0] == 255 && inner[1] == 255 && inner[2] == 255));
  }
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
draw_suite (void)
{
  Suite *s = suite_create ("gpucclblob-draw");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_boxes);
  tcase_add_test (tc, test_centroids);
  tcase_add_test (tc, test_boxes_and_centroids);
  tcase_add_test (tc, test_labels);
  tcase_add_test (tc, test_labels_under_boxes);
  tcase_add_test (tc, test_ids);
  tcase_add_test (tc, test_ids_follow_tracks);
  return s;
}

int
main (int argc, char **argv)
{
  return element_test_main (argc, argv, draw_suite);
}
