/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstGpucclAllocator — host memory from gpuccl_host_alloc_on(): page-locked
 * (pinned, optionally mapped into the GPU's address space) with the CUDA
 * backend, so the per-frame upload is a DMA; plain aligned memory on the
 * CPU backend. Offered upstream by gpucclblob in its buffer pool. */
#ifndef __GST_GPUCCL_ALLOCATOR_H__
#define __GST_GPUCCL_ALLOCATOR_H__

#include <gst/gst.h>
#include "gpuccl.h"

G_BEGIN_DECLS

#define GST_GPUCCL_MEMORY_TYPE "GpucclHostMemory"

#define GST_TYPE_GPUCCL_ALLOCATOR (gst_gpuccl_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstGpucclAllocator, gst_gpuccl_allocator, GST,
    GPUCCL_ALLOCATOR, GstAllocator)

/* An allocator of host blocks for `backend` on `device_id`, without a
 * library context (the blocks are process-wide, and buffers outlive the
 * element's context). NULL with *error filled when backend=cuda and that
 * device is not usable. */
GstAllocator *gst_gpuccl_allocator_new (GpucclBackend backend, gint device_id,
    GpucclMemory memory, GpucclError * error);

GpucclMemory gst_gpuccl_allocator_get_memory_mode (GstGpucclAllocator * self);

gboolean gst_is_gpuccl_memory (GstMemory * mem);

G_END_DECLS

#endif /* __GST_GPUCCL_ALLOCATOR_H__ */
