/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A blob's fields as users see them in a GstStructure: the entries of the
 * element's messages ("blob") and the parameters of its ROI metas
 * ("gpucclblob"), with one table of their names and one way to fill them
 * in. Compiled into both the meta library and the plugin (not installed,
 * not exported): each keeps its own copy, the quarks are GLib's. */
#ifndef __GST_CCL_BLOB_FIELDS_H__
#define __GST_CCL_BLOB_FIELDS_H__

#include "gstcclblobmeta.h"

G_BEGIN_DECLS

typedef enum {
  GST_CCL_BLOB_NAME_BLOB,       /* a message entry's name; the roi type */
  GST_CCL_BLOB_NAME_GPUCCLBLOB, /* the ROI parameters' name */
  GST_CCL_BLOB_FIELD_ID,
  GST_CCL_BLOB_FIELD_TRACK_ID,
  GST_CCL_BLOB_FIELD_X,
  GST_CCL_BLOB_FIELD_Y,
  GST_CCL_BLOB_FIELD_WIDTH,
  GST_CCL_BLOB_FIELD_HEIGHT,
  GST_CCL_BLOB_FIELD_AREA,
  GST_CCL_BLOB_FIELD_CENTROID_X,
  GST_CCL_BLOB_FIELD_CENTROID_Y,
  GST_CCL_BLOB_FIELD_VALUE,
  GST_CCL_BLOB_FIELD_INTENSITY_SUM,
  GST_CCL_BLOB_FIELD_INTENSITY_MIN,
  GST_CCL_BLOB_FIELD_INTENSITY_MAX,
  GST_CCL_BLOB_FIELD_INTENSITY_MEAN,
  GST_CCL_BLOB_N_NAMES
} GstCclBlobName;

/* The name's quark (made once, for all names). */
G_GNUC_INTERNAL GQuark gst_ccl_blob_quark (GstCclBlobName name);

/* What a structure holds besides the blob's own record. */
typedef struct {
  guint32 track_id;  /* 0: none */
  guint32 value;     /* 1 in mode=binary */
  gboolean with_box; /* x, y, width, height (the messages'; an ROI meta
                      * has its box of its own) */
  const GstCclBlobIntensity *intensity; /* NULL: not measured */
} GstCclBlobFieldsOf;

/* A structure named @name with the blob's fields in the order documented
 * (docs/element.md, docs/metadata.md): id, track-id, [x, y, width,
 * height], area, centroid-x, centroid-y, value, [intensity-sum,
 * intensity-min, intensity-max, intensity-mean]. */
G_GNUC_INTERNAL GstStructure *gst_ccl_blob_structure_new (GstCclBlobName name,
    const GstCclBlob * blob, const GstCclBlobFieldsOf * of);

G_END_DECLS

#endif /* __GST_CCL_BLOB_FIELDS_H__ */
