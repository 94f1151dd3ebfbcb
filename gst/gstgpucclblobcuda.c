/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob on CUDA memory (video/x-raw(memory:CUDAMemory)): the frame
 * stays on the device. The element shares its neighbours' GstCudaContext
 * (context query and message, gst_cuda_ensure_element_context), labels the
 * device planes in place on a library context made in the CUDA context of
 * the frame's memory, draws the overlays into them there and pushes the
 * same memory on. This file decides where a buffer is labeled and how its
 * frame lies in its memory; gst_gpuccl_blob_transform_buffer maps it
 * (GST_MAP_CUDA: device pointers, and a device write makes GstCudaMemory
 * download before a later host map). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstgpucclblobenums.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

void
gst_gpuccl_blob_cuda_set_context (GstGpucclBlob * self, GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      &self->cuda_context);
}

/* TRUE when the query was a CUDA context query that we answered. */
gboolean
gst_gpuccl_blob_cuda_query (GstGpucclBlob * self, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      self->cuda_context);
}

/* CUDA memory was negotiated: find the neighbours' context (or make one
 * and tell them), so that what upstream allocates and what we answer is
 * on one context. The frames are labeled in their memory's own context
 * whatever this finds. */
void
gst_gpuccl_blob_cuda_negotiated (GstGpucclBlob * self)
{
  gint device_id;

  /* Without a CUDA driver GStreamer's CUDA library cannot make one (and
   * aborts if asked): the frames then take the host path. */
  if (!gst_cuda_load_library ()) {
    GST_WARNING_OBJECT (self, "CUDA memory caps but no CUDA driver");
    return;
  }
  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          &self->cuda_context))
    GST_WARNING_OBJECT (self, "no CUDA context for device %d", device_id);
}

void
gst_gpuccl_blob_cuda_close (GstGpucclBlob * self)
{
  if (self->cuda_ctx && self->background_ctx == self->cuda_ctx)
    gst_gpuccl_blob_motion_free (self); /* before its context */
  gpuccl_context_free (self->cuda_ctx);
  self->cuda_ctx = NULL;
  gst_clear_object (&self->cuda_ctx_of);
}

/* The library context for frames of `context`, made again when the memory
 * comes from another context (renegotiation, another upstream). */
static gboolean
ensure_cuda_ctx (GstGpucclBlob * self, GstCudaContext * context)
{
  GpucclError error = { 0 };

  if (self->cuda_ctx && self->cuda_ctx_of == context)
    return TRUE;
  gst_gpuccl_blob_cuda_close (self);
  self->cuda_ctx = gpuccl_context_new_cuda (gst_cuda_context_get_handle
      (context), NULL, &error);
  if (!self->cuda_ctx) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot label CUDA memory: %s", error.message),
        ("gpuccl status: %s; with backend=cpu the frames are downloaded "
            "and labeled on the host", gpuccl_status_name (error.status)));
    return FALSE;
  }
  self->cuda_ctx_of = gst_object_ref (context);
  GST_INFO_OBJECT (self, "labeling CUDA memory of %" GST_PTR_FORMAT
      " on %s", context, gpuccl_context_device_name (self->cuda_ctx));
  return TRUE;
}

/* The frame's layout in its GstCudaMemory. With a GstVideoMeta the planes
 * are mapped through the meta; without one GstVideoFrame would take them
 * from the caps, but GStreamer's CUDA memory is pitched (on the device and
 * in its host copy): its own layout then (strides, offsets, size), when it
 * holds the negotiated format and size. FALSE after an element error. */
static gboolean
memory_layout (GstGpucclBlob * self, GstBuffer * buf,
    const GstCudaMemory * mem, GstVideoInfo * info)
{
  const GstVideoInfo *own = &mem->info;

  if (gst_buffer_get_video_meta (buf))
    return TRUE;
  if (GST_VIDEO_INFO_FORMAT (own) != GST_VIDEO_INFO_FORMAT (info) ||
      GST_VIDEO_INFO_WIDTH (own) != GST_VIDEO_INFO_WIDTH (info) ||
      GST_VIDEO_INFO_HEIGHT (own) != GST_VIDEO_INFO_HEIGHT (info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Invalid CUDA frame from upstream: no GstVideoMeta, and its memory "
            "holds %s %dx%d where the caps say %s %dx%d",
            GST_VIDEO_INFO_NAME (own), GST_VIDEO_INFO_WIDTH (own),
            GST_VIDEO_INFO_HEIGHT (own), GST_VIDEO_INFO_NAME (info),
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info)),
        (NULL));
    return FALSE;
  }
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    info->stride[p] = own->stride[p];
    info->offset[p] = own->offset[p];
  }
  info->size = own->size;
  return TRUE;
}

/* Where this buffer is labeled: on the device when the negotiated caps
 * carry CUDA memory, the buffer holds one GstCudaMemory and the backend
 * is not the CPU; then the library context of its memory's CUDA context
 * is ready (self->cuda_ctx). Otherwise on the host path, which maps the
 * frame to system memory (GstCudaMemory downloads it); so also with
 * draw=ids, whose digits the host draws (gpuccl_draw_ids). *info (the
 * caps') gets the layout of any GstCudaMemory frame. */
FramePlace
gst_gpuccl_blob_cuda_place (GstGpucclBlob * self, const Settings * s,
    const FormatDesc * f, GstBuffer * buf, GstVideoInfo * info)
{
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;

  if (!mem || !gst_is_cuda_memory (mem)) {
    if (f->cuda_memory)
      GST_LOG_OBJECT (self, "CUDA caps without CUDA memory: host path");
    return FRAME_IN_HOST_MEMORY;
  }
  if (!memory_layout (self, buf, GST_CUDA_MEMORY_CAST (mem), info))
    return FRAME_REFUSED;
  if (!f->cuda_memory || s->backend == GPUCCL_BACKEND_CPU ||
      (s->draw & GST_GPUCCL_BLOB_DRAW_IDS))
    return FRAME_IN_HOST_MEMORY;
  if (!ensure_cuda_ctx (self, GST_CUDA_MEMORY_CAST (mem)->context))
    return FRAME_REFUSED;
  return FRAME_IN_CUDA_MEMORY;
}
