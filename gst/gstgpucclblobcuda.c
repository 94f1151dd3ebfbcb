/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob on CUDA memory (video/x-raw(memory:CUDAMemory)): the frame
 * stays on the device. The element shares its neighbours' GstCudaContext
 * (context query and message, gst_cuda_ensure_element_context), labels the
 * device planes in place on a library context made in the CUDA context of
 * the frame's memory, draws the overlays into them there and pushes the
 * same memory on. Mapping with GST_MAP_CUDA gives device pointers and
 * makes GstCudaMemory note a device write, so a later host map downloads
 * the drawn frame. */
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

/* The CUDA path, when the negotiated caps carry CUDA memory, the buffer
 * holds one GstCudaMemory and the backend is not the CPU: *ret is the
 * frame's result and TRUE is returned. FALSE (also with draw=ids): the
 * host path takes the buffer (GstVideoFilter maps it to system memory,
 * which downloads it). */
gboolean
gst_gpuccl_blob_cuda_transform_ip (GstGpucclBlob * self, GstBuffer * buf,
    GstFlowReturn * ret)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstMemory *mem;
  GstMapFlags flags = GST_MAP_READ | GST_MAP_CUDA;
  GstVideoFrame vframe;
  Settings s;
  FormatDesc f;

  gst_gpuccl_blob_snapshot (self, &s, &f);
  /* The ids' digits are drawn by the host (gpuccl_draw_ids): with them
   * the frame takes the host path. */
  if (!f.cuda_memory || s.backend == GPUCCL_BACKEND_CPU ||
      (s.draw & GST_GPUCCL_BLOB_DRAW_IDS))
    return FALSE;
  mem = gst_buffer_n_memory (buf) == 1 ? gst_buffer_peek_memory (buf, 0) :
      NULL;
  if (!mem || !gst_is_cuda_memory (mem)) {
    GST_LOG_OBJECT (self, "CUDA caps without CUDA memory: host path");
    return FALSE;
  }

  if (!ensure_cuda_ctx (self, GST_CUDA_MEMORY_CAST (mem)->context)) {
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  /* As GstVideoFilter maps: read-only in passthrough (no overlays). */
  if (!gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (self)))
    flags |= GST_MAP_WRITE;
  if (!gst_video_frame_map (&vframe, &filter->in_info, buf, flags)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the CUDA frame on the device"), (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  *ret = gst_gpuccl_blob_process_frame (self, self->cuda_ctx, &s, &f,
      &vframe);
  gst_video_frame_unmap (&vframe);
  return TRUE;
}
