/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta — the whole blob table of one frame, attached by the
 * gpucclblob element. C applications read it with
 * gst_buffer_get_ccl_blob_meta(); Python through GObject introspection
 * (namespace GpucclBlob, docs/metadata.md). The element also attaches a
 * GstVideoRegionOfInterestMeta (roi type "blob") per blob, up to its
 * max-roi-metas property, which needs no header. */
#ifndef __GST_CCL_BLOB_META_H__
#define __GST_CCL_BLOB_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Only what this header declares is exported from libgstcclblobmeta. */
#define GST_CCL_BLOB_META_EXPORT GST_API_EXPORT

/* The ABI version of GstCclBlob and GstCclBlobMeta: the library's soname
 * (libgstcclblobmeta.so.N) and part of the registered meta names, so an
 * application built against another layout finds no meta instead of
 * misreading it. Bumped with every layout change (docs/abi.md; tests/abi
 * fails when a layout changed and this did not). */
#define GST_CCL_BLOB_META_ABI_VERSION 5

/**
 * GstCclBlob:
 * @id: component label in this frame, 1..n_components
 * @area: number of pixels
 * @x0: left column of the inclusive bounding box, in pixels
 * @y0: top row of the bounding box
 * @x1: right column of the bounding box (inclusive)
 * @y1: bottom row of the bounding box (inclusive)
 * @sum_x: sum of the pixels' x coordinates (centroid: sum_x / area)
 * @sum_y: sum of the pixels' y coordinates (centroid: sum_y / area)
 *
 * One blob (connected component) of a frame: 32 bytes, the record libgpuccl
 * returns (GpucclBlob), so the element copies its table as it is.
 * gst_ccl_blob_get_centroid() gives the centroid.
 */
typedef struct {
  guint32 id;
  guint32 area;
  guint16 x0, y0, x1, y1;
  guint64 sum_x, sum_y;
} GstCclBlob;

/**
 * GstCclBlobIntensity:
 * @sum: sum of the blob's samples (the values the threshold was applied
 *   to: the luma, the gray level or the channel property's channel)
 * @min: the smallest of them
 * @max: the largest of them
 *
 * A blob's intensity, measured when the element's measure-intensity
 * property is on. Mean: @sum / area.
 */
typedef struct {
  guint64 sum;
  guint32 min, max;
} GstCclBlobIntensity;

/**
 * GstCclBlobMeta:
 * @meta: parent #GstMeta
 * @width: frame width the coordinates refer to
 * @height: frame height the coordinates refer to
 * @threshold: threshold applied to this frame
 * @n_components: components before the area and count filters
 * @n_blobs: number of entries of @blobs
 * @blobs: (array length=n_blobs): the blob table, in increasing id
 * @track_ids: (array length=n_blobs) (nullable): each blob's track id,
 *   stable across frames (track=true); %NULL without tracking
 * @values: (array length=n_blobs) (nullable): each blob's pixel value in
 *   mode=segments (RGB formats: 0xRRGGBB); %NULL in mode=binary, where
 *   every blob's value is 1
 * @processing_ns: labeling and analysis time for this frame (with the
 *   overlays of the draw property, which the labeling call draws)
 * @tracking_ns: the tracker's host time for this frame (track=true; else
 *   0). With backend=cuda its search for each track's nearest blob runs on
 *   the GPU during the labeling and counts in @processing_ns.
 * @n_roi_metas: how many of the blobs the element also attached as
 *   #GstVideoRegionOfInterestMeta (its max-roi-metas property: the
 *   largest blobs); @n_blobs when none was left out
 * @source: (nullable): the name of the element that attached the table
 *   (gst_ccl_blob_meta_get_source()), %NULL when not known
 * @intensity: (array length=n_blobs) (nullable): each blob's intensity
 *   (measure-intensity=true); %NULL when not measured
 *
 * The whole blob table of one frame. gst_ccl_blob_meta_get_track_id() and
 * gst_ccl_blob_meta_get_value() read the optional arrays. A buffer that
 * went through several gpucclblob elements has one table from each, in
 * the order they were attached (upstream first):
 * gst_buffer_get_nth_ccl_blob_meta() and
 * gst_buffer_get_ccl_blob_meta_by_source() reach each of them.
 */
typedef struct {
  GstMeta meta;

  guint width, height;
  guint threshold;
  guint n_components;
  guint n_blobs;
  GstCclBlob *blobs;
  guint32 *track_ids;
  guint32 *values;
  guint64 processing_ns;
  guint64 tracking_ns;
  guint n_roi_metas;
  gchar *source;
  GstCclBlobIntensity *intensity;
} GstCclBlobMeta;

GST_CCL_BLOB_META_EXPORT
GType gst_ccl_blob_meta_api_get_type (void);
#define GST_CCL_BLOB_META_API_TYPE (gst_ccl_blob_meta_api_get_type ())

GST_CCL_BLOB_META_EXPORT
const GstMetaInfo *gst_ccl_blob_meta_get_info (void);
#define GST_CCL_BLOB_META_INFO (gst_ccl_blob_meta_get_info ())

GST_CCL_BLOB_META_EXPORT
GstCclBlobMeta *gst_buffer_get_ccl_blob_meta (GstBuffer * buffer);

GST_CCL_BLOB_META_EXPORT
guint gst_buffer_get_n_ccl_blob_metas (GstBuffer * buffer);

GST_CCL_BLOB_META_EXPORT
GstCclBlobMeta *gst_buffer_get_nth_ccl_blob_meta (GstBuffer * buffer,
    guint index);

GST_CCL_BLOB_META_EXPORT
GstCclBlobMeta *gst_buffer_get_ccl_blob_meta_by_source (GstBuffer * buffer,
    const gchar * source);

GST_CCL_BLOB_META_EXPORT
const gchar *gst_ccl_blob_meta_get_source (const GstCclBlobMeta * meta);

GST_CCL_BLOB_META_EXPORT
void gst_ccl_blob_meta_set_source (GstCclBlobMeta * meta,
    const gchar * source);

/* Copies the table (and the arrays given); NULL when that copy cannot be
 * allocated. */
GST_CCL_BLOB_META_EXPORT
GstCclBlobMeta *gst_buffer_add_ccl_blob_meta (GstBuffer * buffer,
    guint width, guint height, const GstCclBlob * blobs,
    const guint32 * track_ids, const guint32 * values, guint n_blobs);

GST_CCL_BLOB_META_EXPORT
gboolean gst_ccl_blob_meta_set_intensity (GstCclBlobMeta * meta,
    const GstCclBlobIntensity * intensity);

GST_CCL_BLOB_META_EXPORT
const GstCclBlobIntensity *gst_ccl_blob_meta_get_intensity (
    const GstCclBlobMeta * meta, guint index);

GST_CCL_BLOB_META_EXPORT
const guint8 *gst_ccl_blob_meta_get_intensity_bytes (
    const GstCclBlobMeta * meta, gsize * n_bytes);

GST_CCL_BLOB_META_EXPORT
const GstCclBlob *gst_ccl_blob_meta_get_blob (const GstCclBlobMeta * meta,
    guint index);

GST_CCL_BLOB_META_EXPORT
guint32 gst_ccl_blob_meta_get_track_id (const GstCclBlobMeta * meta,
    guint index);

GST_CCL_BLOB_META_EXPORT
guint32 gst_ccl_blob_meta_get_value (const GstCclBlobMeta * meta,
    guint index);

GST_CCL_BLOB_META_EXPORT
void gst_ccl_blob_get_centroid (const GstCclBlob * blob, gdouble * cx,
    gdouble * cy);

GST_CCL_BLOB_META_EXPORT
const guint8 *gst_ccl_blob_meta_get_table_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes);

GST_CCL_BLOB_META_EXPORT
const guint8 *gst_ccl_blob_meta_get_track_id_bytes (
    const GstCclBlobMeta * meta, gsize * n_bytes);

GST_CCL_BLOB_META_EXPORT
const guint8 *gst_ccl_blob_meta_get_value_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes);

GST_CCL_BLOB_META_EXPORT
GstVideoRegionOfInterestMeta *gst_buffer_add_ccl_blob_roi_meta (
    GstBuffer * buffer, const GstCclBlob * blob, guint32 track_id,
    guint32 value);

G_END_DECLS

#endif /* __GST_CCL_BLOB_META_H__ */
