/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the meta library's files share (not installed). */
#ifndef __GST_CCL_BLOB_META_PRIVATE_H__
#define __GST_CCL_BLOB_META_PRIVATE_H__

#include "gstcclblobmeta.h"

G_BEGIN_DECLS

/* gstcclblobtable.c: the memory of a meta's table and arrays, recycled. */
G_GNUC_INTERNAL gpointer gst_ccl_blob_table_alloc (gsize size);
G_GNUC_INTERNAL void gst_ccl_blob_table_free (gpointer table);

/* gstcclblobroi.c: after a copy or scale of @meta onto @dest, the blobs'
 * ROI metas already on @dest get their box and parameters back. */
G_GNUC_INTERNAL void gst_ccl_blob_restore_roi_metas (GstBuffer * dest,
    const GstCclBlobMeta * meta);

G_END_DECLS

#endif /* __GST_CCL_BLOB_META_PRIVATE_H__ */
