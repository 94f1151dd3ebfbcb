/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The element tests on GstCudaMemory (built with gstreamer-cuda-1.0):
 * GStreamer's CUDA library set up once with a GstCudaContext of device 0
 * (exit 77 without a CUDA driver or device), CUDA caps, and host frames
 * copied into and out of GstCudaMemory. */
#ifndef GPUCCL_ELEMENT_CUDA_H
#define GPUCCL_ELEMENT_CUDA_H

#include "element_common.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

G_BEGIN_DECLS

/* Device 0's context, for the suite's tests (set by element_cuda_main). */
extern GstCudaContext *element_cuda_ctx;

/* gst_init, GStreamer's CUDA library and allocator, element_cuda_ctx,
 * then the suite in this process (a GstCudaContext does not survive
 * fork). 77 when there is no CUDA driver or device. Checks (fail_unless)
 * belong in the tests and fixtures: outside a test, check has nowhere to
 * report them and exits with "No messaging setup" even when they hold. */
int element_cuda_main (int argc, char **argv, Suite * (*make_suite) (void));

/* element_caps with the CUDA memory feature. */
GstCaps *element_cuda_caps (GstVideoFormat format, gint width, gint height);

/* `frame` (system memory, layout `info`) copied into GstCudaMemory of
 * `context` (no stream); with `meta`, a GstVideoMeta of the device layout
 * (without, the memory's own layout is the only description). Gray
 * formats go into the first plane of an allocation of a format GStreamer's
 * allocator has (element_cuda.c). */
GstBuffer *element_to_cuda_full (GstBuffer * frame, const GstVideoInfo * info,
    GstCudaContext * context, gboolean meta);
GstBuffer *element_to_cuda (GstBuffer * frame, const GstVideoInfo * info,
    GstCudaContext * context);

/* The device frame of `buf` (its GstVideoMeta, or its memory's own layout)
 * copied into system memory of layout `info`. */
GstBuffer *element_from_cuda (GstBuffer * buf, const GstVideoInfo * info);

G_END_DECLS

#endif /* GPUCCL_ELEMENT_CUDA_H */
