/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgstcclblobmeta's public layout against gstcclblobmeta.layout, and
 * its soname against GST_CCL_BLOB_META_ABI_VERSION. Usage:
 * abi-gstcclblobmeta MANIFEST | --print */
#include "gstcclblobmeta.h"
#include "layout_check.h"

static void fill(Layout *l)
{
  LAYOUT_STRUCT(l, GstCclBlob);
  LAYOUT_FIELD(l, GstCclBlob, id);
  LAYOUT_FIELD(l, GstCclBlob, area);
  LAYOUT_FIELD(l, GstCclBlob, x0);
  LAYOUT_FIELD(l, GstCclBlob, y0);
  LAYOUT_FIELD(l, GstCclBlob, x1);
  LAYOUT_FIELD(l, GstCclBlob, y1);
  LAYOUT_FIELD(l, GstCclBlob, sum_x);
  LAYOUT_FIELD(l, GstCclBlob, sum_y);

  LAYOUT_STRUCT(l, GstCclBlobMeta);
  LAYOUT_FIELD(l, GstCclBlobMeta, meta);
  LAYOUT_FIELD(l, GstCclBlobMeta, width);
  LAYOUT_FIELD(l, GstCclBlobMeta, height);
  LAYOUT_FIELD(l, GstCclBlobMeta, threshold);
  LAYOUT_FIELD(l, GstCclBlobMeta, n_components);
  LAYOUT_FIELD(l, GstCclBlobMeta, n_blobs);
  LAYOUT_FIELD(l, GstCclBlobMeta, blobs);
  LAYOUT_FIELD(l, GstCclBlobMeta, track_ids);
  LAYOUT_FIELD(l, GstCclBlobMeta, values);
  LAYOUT_FIELD(l, GstCclBlobMeta, processing_ns);
  LAYOUT_FIELD(l, GstCclBlobMeta, tracking_ns);
  LAYOUT_FIELD(l, GstCclBlobMeta, n_roi_metas);
  LAYOUT_FIELD(l, GstCclBlobMeta, source);
  LAYOUT_FIELD(l, GstCclBlobMeta, intensity);

  LAYOUT_STRUCT(l, GstCclBlobIntensity);
  LAYOUT_FIELD(l, GstCclBlobIntensity, sum);
  LAYOUT_FIELD(l, GstCclBlobIntensity, min);
  LAYOUT_FIELD(l, GstCclBlobIntensity, max);
}

int main(int argc, char **argv)
{
  if (GST_CCL_BLOB_META_SOVERSION != GST_CCL_BLOB_META_ABI_VERSION) {
    printf("FAIL: GST_CCL_BLOB_META_ABI_VERSION %d, soname version %d "
           "(meta/meson.build): they must agree\n",
           GST_CCL_BLOB_META_ABI_VERSION, GST_CCL_BLOB_META_SOVERSION);
    return 1;
  }
  return layout_main(argc, argv, "gstcclblobmeta",
                     GST_CCL_BLOB_META_ABI_VERSION, fill);
}
