/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GTypes of the gpucclblob properties' enums and flags. Their values are
 * the gpuccl library's own (gpuccl.h), so the element passes them through
 * without translation. */
#ifndef __GST_GPUCCL_BLOB_ENUMS_H__
#define __GST_GPUCCL_BLOB_ENUMS_H__

#include <glib-object.h>

G_BEGIN_DECLS

#define GST_TYPE_GPUCCL_BLOB_BACKEND (gst_gpuccl_blob_backend_get_type ())
GType gst_gpuccl_blob_backend_get_type (void);

#define GST_TYPE_GPUCCL_BLOB_ALGORITHM (gst_gpuccl_blob_algorithm_get_type ())
GType gst_gpuccl_blob_algorithm_get_type (void);

#define GST_TYPE_GPUCCL_BLOB_AUTO_THRESHOLD \
  (gst_gpuccl_blob_auto_threshold_get_type ())
GType gst_gpuccl_blob_auto_threshold_get_type (void);

/* Values 4 and 8. */
#define GST_TYPE_GPUCCL_BLOB_CONNECTIVITY \
  (gst_gpuccl_blob_connectivity_get_type ())
GType gst_gpuccl_blob_connectivity_get_type (void);

#define GST_TYPE_GPUCCL_BLOB_CHANNEL (gst_gpuccl_blob_channel_get_type ())
GType gst_gpuccl_blob_channel_get_type (void);

#define GST_TYPE_GPUCCL_BLOB_MEMORY (gst_gpuccl_blob_memory_get_type ())
GType gst_gpuccl_blob_memory_get_type (void);

/* GpucclMode: binary (threshold) or segments (label maps). */
#define GST_TYPE_GPUCCL_BLOB_MODE (gst_gpuccl_blob_mode_get_type ())
GType gst_gpuccl_blob_mode_get_type (void);

/* What binarize=... compares with threshold: the element's own values
 * (threshold: the sample; the others: its difference from a background
 * model, GpucclBackgroundMode). */
typedef enum
{
  GST_GPUCCL_BLOB_BINARIZE_THRESHOLD = 0,
  GST_GPUCCL_BLOB_BINARIZE_DIFFERENCE,
  GST_GPUCCL_BLOB_BINARIZE_BACKGROUND,
} GstGpucclBlobBinarize;
#define GST_TYPE_GPUCCL_BLOB_BINARIZE (gst_gpuccl_blob_binarize_get_type ())
GType gst_gpuccl_blob_binarize_get_type (void);

/* GpucclDrawFlags, and the element's own: ids (gpuccl_draw_ids). */
#define GST_GPUCCL_BLOB_DRAW_IDS (1u << 3)
#define GST_TYPE_GPUCCL_BLOB_DRAW_FLAGS (gst_gpuccl_blob_draw_flags_get_type ())
GType gst_gpuccl_blob_draw_flags_get_type (void);

G_END_DECLS

#endif /* __GST_GPUCCL_BLOB_ENUMS_H__ */
