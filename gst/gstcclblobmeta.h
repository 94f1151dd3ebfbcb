/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta — the whole blob table of one frame, attached by the
 * gpucclblob element. Applications read it with
 * gst_buffer_get_ccl_blob_meta(); each blob is also attached as a
 * GstVideoRegionOfInterestMeta (roi type "blob"), which needs no header. */
#ifndef __GST_CCL_BLOB_META_H__
#define __GST_CCL_BLOB_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Only what this header declares is exported from libgstcclblobmeta. */
#define GST_CCL_BLOB_META_EXPORT GST_API_EXPORT

/* The ABI version of GstCclBlob and GstCclBlobMeta: the library's soname
 * (libgstcclblobmeta.so.N) and part of the registered meta names, so an
 * application built against another layout finds no meta instead of
 * misreading it. Bumped with every layout change (docs/abi.md; tests/abi
 * fails when a layout changed and this did not). */
#define GST_CCL_BLOB_META_ABI_VERSION 1

typedef struct {
  guint32 id;       /* component label in this frame, 1..n_components */
  guint32 track_id; /* stable id across frames with track=true, else 0 */
  guint32 x0, y0, x1, y1; /* inclusive bounding box, in pixels */
  guint64 area;
  guint64 sum_x, sum_y;
  gdouble cx, cy;   /* centroid */
  /* The value of the blob's pixels with mode=segments (RGB formats:
   * 0xRRGGBB), 1 with mode=binary. Last, so the fields above keep their
   * offsets. */
  guint32 value;
} GstCclBlob;

typedef struct {
  GstMeta meta;

  guint width, height;  /* frame size the coordinates refer to */
  guint threshold;      /* threshold applied to this frame */
  guint n_components;   /* before the area and count filters */
  guint n_blobs;
  GstCclBlob *blobs;    /* n_blobs entries, owned by the meta */
  guint64 processing_ns; /* labeling and analysis time for this frame */
  /* The tracker's time on the host for this frame (track=true; else 0).
   * With backend=cuda its search for each track's nearest blob runs on
   * the GPU during the labeling and counts in processing_ns. Last, so the
   * fields above keep their offsets. */
  guint64 tracking_ns;
} GstCclBlobMeta;

GST_CCL_BLOB_META_EXPORT
GType gst_ccl_blob_meta_api_get_type (void);
#define GST_CCL_BLOB_META_API_TYPE (gst_ccl_blob_meta_api_get_type ())

GST_CCL_BLOB_META_EXPORT
const GstMetaInfo *gst_ccl_blob_meta_get_info (void);
#define GST_CCL_BLOB_META_INFO (gst_ccl_blob_meta_get_info ())

#define gst_buffer_get_ccl_blob_meta(b) \
  ((GstCclBlobMeta *) gst_buffer_get_meta ((b), GST_CCL_BLOB_META_API_TYPE))

/* Copies n_blobs entries of blobs. */
GST_CCL_BLOB_META_EXPORT
GstCclBlobMeta *gst_buffer_add_ccl_blob_meta (GstBuffer * buffer,
    guint width, guint height, const GstCclBlob * blobs, guint n_blobs);

G_END_DECLS

#endif /* __GST_CCL_BLOB_META_H__ */
