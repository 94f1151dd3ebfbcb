/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob — binarize, label and measure every video frame with
 * libgpuccl; blobs go downstream as metadata (and optionally as bus
 * messages and overlays). */
#ifndef __GST_GPUCCL_BLOB_H__
#define __GST_GPUCCL_BLOB_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

#include "gpuccl.h"
#include "gpuccl_track.h"

G_BEGIN_DECLS

#define GST_TYPE_GPUCCL_BLOB (gst_gpuccl_blob_get_type ())
G_DECLARE_FINAL_TYPE (GstGpucclBlob, gst_gpuccl_blob, GST, GPUCCL_BLOB,
    GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (gpucclblob);

G_END_DECLS

#endif /* __GST_GPUCCL_BLOB_H__ */
