/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the gpucclblob element tests (see element_common.h). */
#include "element_common.h"

#include "corpus.h"
#include "gpuccl.h"
#include "gstcclblobmeta.h"

#include <stdlib.h>
#include <string.h>

const GstVideoFormat element_formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
};
const gsize n_element_formats = G_N_ELEMENTS (element_formats);

const gchar *
test_backend (void)
{
  const gchar *b = g_getenv ("GPUCCL_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

int
element_test_main (int argc, char **argv, Suite * (*make_suite) (void))
{
  gst_check_init (&argc, &argv);

  if (strcmp (test_backend (), "cuda") == 0) {
    GpucclError error = { 0 };
    if (!gpuccl_cuda_available (0, &error)) {
      g_print ("SKIP: GPUCCL_TEST_BACKEND=cuda but %s\n", error.message);
      return 77;
    }
    /* CUDA contexts do not survive fork(): run the tests in-process. */
    g_setenv ("CK_FORK", "no", TRUE);
  } else if (strcmp (test_backend (), "cpu") != 0) {
    g_printerr ("GPUCCL_TEST_BACKEND must be cpu or cuda, not %s\n",
        test_backend ());
    return 1;
  }
  return gst_check_run_suite (make_suite (), "gpucclblob", argv[0]);
}

void
element_require (void)
{
  GstElementFactory *factory = gst_element_factory_find ("gpucclblob");

  fail_unless (factory != NULL, "no gpucclblob element (GST_PLUGIN_PATH?)");
  gst_object_unref (factory);
}

GstHarness *
element_harness_new (const gchar * props)
{
  GstElement *element = gst_element_factory_make ("gpucclblob", NULL);
  GstHarness *h;
  gchar **pairs = g_strsplit (props ? props : "", " ", -1);

  fail_unless (element != NULL, "no gpucclblob element (GST_PLUGIN_PATH?)");
  /* Properties before the harness starts the element, so the context
   * opens once, on the right backend. */
  gst_util_set_object_arg (G_OBJECT (element), "backend", test_backend ());
  /* Every blob as a ROI meta, each checked against the oracle (the cap of
   * the default is tested in test_meta.c and tests/python). */
  gst_util_set_object_arg (G_OBJECT (element), "max-roi-metas", "0");
  for (gchar ** p = pairs; *p; p++) {
    gchar **kv = g_strsplit (*p, "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (element), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (pairs);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  return h;
}

GstCaps *
element_caps (GstVideoFormat format, gint width, gint height)
{
  return gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, gst_video_format_to_string (format),
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

guint8 *
element_levels_random (gint width, gint height, gdouble density,
    gint granularity, guint32 seed)
{
  guint8 *levels = g_malloc ((gsize) width * height);
  GRand *rand = g_rand_new_with_seed (seed ^ 0x9e3779b9u);

  corpus_random (levels, width, height, width, density, granularity, seed);
  for (gsize i = 0; i < (gsize) width * height; i++) {
    guint8 junk = g_rand_int_range (rand, 0, 128);
    levels[i] = levels[i] ? 128 + junk : junk;
  }
  g_rand_free (rand);
  return levels;
}

static void
fill_junk (guint8 * data, gsize size, GRand * rand)
{
  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_rand_int (rand);
}

GstBuffer *
element_make_frame (const GstVideoInfo * info, const guint8 * levels,
    const gchar * channel, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstVideoFrame frame;
  GRand *rand = g_rand_new_with_seed (seed);
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const GstVideoFormatInfo *finfo = info->finfo;
  GstMapInfo map;

  /* Every byte, the rows between planes too: 4:2:0 planes start after an
   * even number of luma rows, so an odd height leaves a padding row that
   * the planes' rows miss, and two frames compared byte for byte must not
   * differ in memory nobody wrote. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  fill_junk (map.data, map.size, rand);
  gst_buffer_unmap (buf, &map);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));

  for (gint y = 0; y < h; y++) {
    const guint8 *lrow = levels + (gsize) y * w;
    if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
      gint off[3] = { GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R),
        GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G),
        GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B)
      };
      gint only = !strcmp (channel, "red") ? 0 : !strcmp (channel, "green") ?
          1 : !strcmp (channel, "blue") ? 2 : -1;
      for (gint x = 0; x < w; x++) {
        if (only < 0) {
          for (gint c = 0; c < 3; c++)
            row[4 * x + off[c]] = lrow[x];
        } else {
          row[4 * x + off[only]] = lrow[x];
        }
      }
    } else if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 16) {
      guint16 *row = (guint16 *) ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
              0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0));
      for (gint x = 0; x < w; x++)
        row[x] = GUINT16_TO_LE ((guint16) (lrow[x] << 8 | (row[x] & 0xff)));
    } else {
      guint8 *row = GST_VIDEO_FRAME_COMP_DATA (&frame, GST_VIDEO_COMP_Y) +
          (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, GST_VIDEO_COMP_Y);
      memcpy (row, lrow, w);
    }
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);

  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

void
expected_compute (Expected * e, const guint8 * levels, gint width,
    gint height, gint threshold, gboolean invert, gint connectivity)
{
  gsize n_pixels = (gsize) width * height;
  guint8 *binary = g_malloc (n_pixels);
  guint32 *labels = g_malloc (n_pixels * sizeof (guint32));
  long n;

  for (gsize i = 0; i < n_pixels; i++)
    binary[i] = ((levels[i] > threshold) != invert) ? 255 : 0;
  n = oracle_opencv (binary, width, height, width, connectivity, labels,
      NULL, 0);
  fail_unless (n >= 0, "OpenCV failed");
  e->width = width;
  e->height = height;
  e->n = (guint32) n;
  e->stats = g_new0 (OracleStats, n + 1);
  oracle_stats_from_labels (labels, width, height, e->n, e->stats);
  g_free (labels);
  g_free (binary);
}

void
expected_clear (Expected * e)
{
  g_clear_pointer (&e->stats, g_free);
}

static const Expected *sort_expected;

/* Larger area first; equal areas: smaller id first. */
static int
by_area_desc (const void *a, const void *b)
{
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  guint64 aa = sort_expected->stats[ia].area, ab = sort_expected->stats[ib].area;

  if (aa != ab)
    return aa > ab ? -1 : 1;
  return ia < ib ? -1 : ia > ib;
}

static int
by_index (const void *a, const void *b)
{
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  return ia < ib ? -1 : ia > ib;
}

guint
expected_filter (const Expected * e, guint64 min_area, guint64 max_area,
    guint max_blobs, guint ** kept)
{
  guint *k = g_new (guint, e->n + 1), n = 0;

  for (guint i = 0; i < e->n; i++)
    if (e->stats[i].area >= min_area &&
        (max_area == 0 || e->stats[i].area <= max_area))
      k[n++] = i;
  if (max_blobs && n > max_blobs) {
    sort_expected = e;
    qsort (k, n, sizeof *k, by_area_desc);
    n = max_blobs;
    qsort (k, n, sizeof *k, by_index);
  }
  *kept = k;
  return n;
}

static void
check_blob (const GstCclBlob * b, const OracleStats * s, guint32 id)
{
  gdouble cx, cy;

  fail_unless_equals_int (b->id, id);
  fail_unless (b->x0 == s->x0 && b->y0 == s->y0 && b->x1 == s->x1 &&
      b->y1 == s->y1, "blob %u box (%u,%u)-(%u,%u), oracle (%u,%u)-(%u,%u)",
      id, b->x0, b->y0, b->x1, b->y1, s->x0, s->y0, s->x1, s->y1);
  fail_unless_equals_uint64 (b->area, s->area);
  fail_unless_equals_uint64 (b->sum_x, s->sum_x);
  fail_unless_equals_uint64 (b->sum_y, s->sum_y);
  gst_ccl_blob_get_centroid (b, &cx, &cy);
  fail_unless (G_APPROX_VALUE (cx, s->cx, 1e-9) &&
      G_APPROX_VALUE (cy, s->cy, 1e-9), "blob %u centroid %f,%f vs %f,%f",
      id, cx, cy, s->cx, s->cy);
}

/* The ROI parameters as docs/metadata.md lists them: these names, in this
 * order, of these types, and nothing else. */
static const struct
{
  const gchar *name;
  GType type;
} roi_fields[] = {
  {"id", G_TYPE_UINT}, {"track-id", G_TYPE_UINT}, {"area", G_TYPE_UINT64},
  {"centroid-x", G_TYPE_DOUBLE}, {"centroid-y", G_TYPE_DOUBLE},
  {"value", G_TYPE_UINT},
};

/* Field by field against the oracle: check_buffer_blobs' callers run
 * mode=binary (every value 1) without tracking (track-id 0). */
static void
check_roi_params (const GstStructure * p, const OracleStats * s, guint32 id)
{
  guint pid, track_id, value;
  guint64 area;
  gdouble cx, cy;

  fail_unless_equals_int (gst_structure_n_fields (p),
      G_N_ELEMENTS (roi_fields));
  for (guint i = 0; i < G_N_ELEMENTS (roi_fields); i++) {
    const GValue *v = gst_structure_get_value (p, roi_fields[i].name);

    fail_unless_equals_string (gst_structure_nth_field_name (p, i),
        roi_fields[i].name);
    fail_unless (G_VALUE_TYPE (v) == roi_fields[i].type,
        "roi %u: %s is a %s", id, roi_fields[i].name, G_VALUE_TYPE_NAME (v));
  }
  fail_unless (gst_structure_get (p, "id", G_TYPE_UINT, &pid,
          "track-id", G_TYPE_UINT, &track_id, "area", G_TYPE_UINT64, &area,
          "centroid-x", G_TYPE_DOUBLE, &cx, "centroid-y", G_TYPE_DOUBLE, &cy,
          "value", G_TYPE_UINT, &value, NULL), "roi param %" GST_PTR_FORMAT,
      p);
  fail_unless_equals_int (pid, id);
  fail_unless_equals_int (track_id, 0);
  fail_unless_equals_uint64 (area, s->area);
  fail_unless (G_APPROX_VALUE (cx, s->cx, 1e-9)
      && G_APPROX_VALUE (cy, s->cy, 1e-9), "roi %u centroid %f,%f vs %f,%f",
      id, cx, cy, s->cx, s->cy);
  fail_unless_equals_int (value, 1);
}

static void
check_roi (GstVideoRegionOfInterestMeta * roi, const OracleStats * s,
    guint32 id)
{
  const GstStructure *p;

  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "blob");
  fail_unless (roi->x == s->x0 && roi->y == s->y0 &&
      roi->w == s->x1 - s->x0 + 1 && roi->h == s->y1 - s->y0 + 1,
      "roi %u is %u,%u %ux%u", id, roi->x, roi->y, roi->w, roi->h);
  p = gst_video_region_of_interest_meta_get_param (roi, "gpucclblob");
  fail_unless (p != NULL, "roi %u has no gpucclblob param", id);
  check_roi_params (p, s, id);
}

void
check_buffer_blobs (GstBuffer * buf, const Expected * e, const guint * kept,
    guint n_kept)
{
  GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buf);
  guint n = kept ? n_kept : e->n;
  GHashTable *index_of = g_hash_table_new (NULL, NULL);
  gpointer state = NULL;
  GstMeta *m;
  guint n_roi = 0;

  fail_unless (meta != NULL, "no GstCclBlobMeta");
  fail_unless_equals_int (meta->width, e->width);
  fail_unless_equals_int (meta->height, e->height);
  fail_unless_equals_int (meta->n_components, e->n);
  fail_unless_equals_int (meta->n_blobs, n);
  for (guint i = 0; i < n; i++) {
    guint k = kept ? kept[i] : i;
    check_blob (&meta->blobs[i], &e->stats[k], k + 1);
    g_hash_table_insert (index_of, GUINT_TO_POINTER (k + 1),
        GUINT_TO_POINTER (k + 1));
  }

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    guint id = (guint) roi->id;
    fail_unless (g_hash_table_remove (index_of, GUINT_TO_POINTER (id)),
        "roi id %u unexpected or repeated", id);
    check_roi (roi, &e->stats[id - 1], id);
    n_roi++;
  }
  fail_unless_equals_int (n_roi, n);
  fail_unless_equals_int (meta->n_roi_metas, n);
  g_hash_table_unref (index_of);
}

GstBuffer *
element_push_pull (GstHarness * h, GstBuffer * in)
{
  GstFlowReturn ret = gst_harness_push (h, in);
  GstBuffer *out;

  fail_unless_equals_int (ret, GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  return out;
}

gboolean
element_same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean same;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  same = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (b, &mb);
  gst_buffer_unmap (a, &ma);
  return same;
}

gboolean
element_same_blob_tables (const GstCclBlob * a, const GstCclBlob * b, guint n)
{
  for (guint i = 0; i < n; i++)
    if (a[i].id != b[i].id || a[i].area != b[i].area ||
        a[i].x0 != b[i].x0 || a[i].y0 != b[i].y0 || a[i].x1 != b[i].x1 ||
        a[i].y1 != b[i].y1 || a[i].sum_x != b[i].sum_x ||
        a[i].sum_y != b[i].sum_y)
      return FALSE;
  return TRUE;
}

/* The visible pixels of two frames (any layouts) are equal. */
void
element_assert_same_frames (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, const gchar * what)
{
  GstVideoFrame fa, fb;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]);
    gsize bytes = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    for (gint y = 0; y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa,
          p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb,
          p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      gsize x = 0;
      while (x < bytes && ra[x] == rb[x])
        x++;
      fail_unless (x == bytes, "%s: plane %u row %d byte %" G_GSIZE_FORMAT
          " differs (%u, %u)", what, p, y, x, ra[x], rb[x]);
    }
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
}

void
element_assert_same_blobs (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  GstCclBlobMeta *ma = gst_buffer_get_ccl_blob_meta (a);
  GstCclBlobMeta *mb = gst_buffer_get_ccl_blob_meta (b);

  fail_unless (ma && mb, "%s: no blob meta", what);
  fail_unless_equals_int (ma->n_blobs, mb->n_blobs);
  fail_unless (ma->n_blobs > 0, "%s: no blobs", what);
  fail_unless_equals_int (ma->n_components, mb->n_components);
  fail_unless (element_same_blob_tables (ma->blobs, mb->blobs, ma->n_blobs),
      "%s: blobs differ", what);
  for (guint i = 0; i < ma->n_blobs; i++)
    fail_unless (gst_ccl_blob_meta_get_track_id (ma, i) ==
        gst_ccl_blob_meta_get_track_id (mb, i) &&
        gst_ccl_blob_meta_get_value (ma, i) ==
        gst_ccl_blob_meta_get_value (mb, i), "%s: blob %u's track id or "
        "value differs", what, i);
  fail_unless ((ma->intensity == NULL) == (mb->intensity == NULL) &&
      (!ma->intensity || memcmp (ma->intensity, mb->intensity,
              ma->n_blobs * sizeof *ma->intensity) == 0),
      "%s: intensities differ", what);
}
