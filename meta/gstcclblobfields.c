/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A blob's fields in a GstStructure (gstcclblobfields.h). */
#include "gstcclblobfields.h"

static const gchar *const names[GST_CCL_BLOB_N_NAMES] = {
  [GST_CCL_BLOB_NAME_BLOB] = "blob",
  [GST_CCL_BLOB_NAME_GPUCCLBLOB] = "gpucclblob",
  [GST_CCL_BLOB_FIELD_ID] = "id",
  [GST_CCL_BLOB_FIELD_TRACK_ID] = "track-id",
  [GST_CCL_BLOB_FIELD_X] = "x",
  [GST_CCL_BLOB_FIELD_Y] = "y",
  [GST_CCL_BLOB_FIELD_WIDTH] = "width",
  [GST_CCL_BLOB_FIELD_HEIGHT] = "height",
  [GST_CCL_BLOB_FIELD_AREA] = "area",
  [GST_CCL_BLOB_FIELD_CENTROID_X] = "centroid-x",
  [GST_CCL_BLOB_FIELD_CENTROID_Y] = "centroid-y",
  [GST_CCL_BLOB_FIELD_VALUE] = "value",
  [GST_CCL_BLOB_FIELD_INTENSITY_SUM] = "intensity-sum",
  [GST_CCL_BLOB_FIELD_INTENSITY_MIN] = "intensity-min",
  [GST_CCL_BLOB_FIELD_INTENSITY_MAX] = "intensity-max",
  [GST_CCL_BLOB_FIELD_INTENSITY_MEAN] = "intensity-mean",
};

/* Made once: by name, each field of each listed blob of each frame would
 * be looked up in GLib's quark table, under its global lock. */
static GQuark quarks[GST_CCL_BLOB_N_NAMES];

GQuark
gst_ccl_blob_quark (GstCclBlobName name)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    for (guint i = 0; i < GST_CCL_BLOB_N_NAMES; i++)
      quarks[i] = g_quark_from_static_string (names[i]);
    g_once_init_leave (&done, 1);
  }
  return quarks[name];
}

/* take_uint, take_uint64, take_double: one field appended. The value is
 * made here and handed over, which skips the varargs' collection and copy
 * of gst_structure_new_id. */
#define DEFINE_TAKE(type, TYPE, ctype)                                  \
  static void                                                           \
  take_##type (GstStructure * s, GstCclBlobName field, ctype v)         \
  {                                                                     \
    GValue value = G_VALUE_INIT;                                        \
                                                                        \
    g_value_init (&value, G_TYPE_##TYPE);                               \
    g_value_set_##type (&value, v);                                     \
    gst_structure_id_take_value (s, quarks[field], &value);             \
  }

DEFINE_TAKE (uint, UINT, guint)
DEFINE_TAKE (uint64, UINT64, guint64)
DEFINE_TAKE (double, DOUBLE, gdouble)
#undef DEFINE_TAKE

static void
take_box (GstStructure * s, const GstCclBlob * b)
{
  take_uint (s, GST_CCL_BLOB_FIELD_X, b->x0);
  take_uint (s, GST_CCL_BLOB_FIELD_Y, b->y0);
  take_uint (s, GST_CCL_BLOB_FIELD_WIDTH, (guint) (b->x1 - b->x0 + 1));
  take_uint (s, GST_CCL_BLOB_FIELD_HEIGHT, (guint) (b->y1 - b->y0 + 1));
}

static void
take_intensity (GstStructure * s, const GstCclBlob * b,
    const GstCclBlobIntensity * in)
{
  take_uint64 (s, GST_CCL_BLOB_FIELD_INTENSITY_SUM, in->sum);
  take_uint (s, GST_CCL_BLOB_FIELD_INTENSITY_MIN, in->min);
  take_uint (s, GST_CCL_BLOB_FIELD_INTENSITY_MAX, in->max);
  take_double (s, GST_CCL_BLOB_FIELD_INTENSITY_MEAN,
      b->area ? (gdouble) in->sum / (gdouble) b->area : 0.0);
}

/* One of these per listed blob per frame: by quark, no string lookups. */
GstStructure *
gst_ccl_blob_structure_new (GstCclBlobName name, const GstCclBlob * b,
    const GstCclBlobFieldsOf * of)
{
  GstStructure *s = gst_structure_new_id_empty (gst_ccl_blob_quark (name));
  gdouble cx, cy;

  gst_ccl_blob_get_centroid (b, &cx, &cy);
  take_uint (s, GST_CCL_BLOB_FIELD_ID, b->id);
  take_uint (s, GST_CCL_BLOB_FIELD_TRACK_ID, of->track_id);
  if (of->with_box)
    take_box (s, b);
  take_uint64 (s, GST_CCL_BLOB_FIELD_AREA, b->area);
  take_double (s, GST_CCL_BLOB_FIELD_CENTROID_X, cx);
  take_double (s, GST_CCL_BLOB_FIELD_CENTROID_Y, cy);
  take_uint (s, GST_CCL_BLOB_FIELD_VALUE, of->value);
  if (of->intensity)
    take_intensity (s, b, of->intensity);
  return s;
}
