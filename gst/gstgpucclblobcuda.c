/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob on CUDA memory (video/x-raw(memory:CUDAMemory)): the frame
 * stays on the device. The element shares its neighbours' GstCudaContext
 * (context query and message, gst_cuda_ensure_element_context), labels the
 * device planes in place on a library context made in the CUDA context of
 * the frame's memory, draws the overlays into them there and pushes the
 * same memory on. This file decides where a buffer is labeled and how its
 * frame lies in its memory; gst_gpuccl_blob_transform_buffer maps it
 * (GST_MAP_CUDA: device pointers, and a device write makes GstCudaMemory
 * download before a later host map).
 *
 * Stream ordering (GStreamer >= 1.24, where a GstCudaMemory carries a
 * GstCudaStream): a producer may queue its writes on the memory's stream
 * and push without waiting (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC), and so
 * does GstCudaMemory itself when a GST_MAP_CUDA map uploads. The library
 * labels on a stream of its own, so before it reads the frame its stream
 * waits for the memory's (an event: the host does not block). The
 * library's call returns once its work is done, which includes that wait:
 * a frame we drew into has nothing left in flight, and its memory says so
 * to the next reader, as GStreamer's CUDA converters do after their sync.
 * GStreamer 1.22's memory has no stream and its producers sync before
 * pushing: nothing to order there.
 *
 * The only file built differently with and without gstreamer-cuda-1.0
 * (HAVE_GST_CUDA): without it, the stubs at the end keep every frame on
 * the host path. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstgpucclblobenums.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <string.h>

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

typedef struct _GpucclBlobCuda GpucclBlobCuda;
/* Library contexts kept at once: one per GstCudaContext that frames came
 * from (one per GPU, as GStreamer's elements share one per device), so
 * frames that move between GPUs do not reopen one each time. */
#define MAX_LIBS 8

typedef struct
{
  GstCudaContext *of;           /* a ref */
  GpucclContext *lib;           /* made in of's CUcontext */
} Lib;

struct _GpucclBlobCuda
{
  /* Shared with the neighbours (context query, set_context). */
  GstCudaContext *context;
  /* streaming thread only: the library contexts that label CUDA memory,
   * the most recently used last */
  Lib libs[MAX_LIBS];
  guint n_libs;
};

gboolean
gst_gpuccl_blob_cuda_built (void)
{
  return TRUE;
}

void
gst_gpuccl_blob_cuda_init (GstGpucclBlob * self)
{
  self->cuda = g_new0 (GpucclBlobCuda, 1);
}

void
gst_gpuccl_blob_cuda_free (GstGpucclBlob * self)
{
  if (!self->cuda)
    return;
  gst_gpuccl_blob_cuda_stop (self);
  g_clear_pointer (&self->cuda, g_free);
}

/* device-id -1 (auto) takes a context of any device, as GStreamer's own
 * elements read -1. */
void
gst_gpuccl_blob_cuda_set_context (GstGpucclBlob * self, GstContext * context)
{
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      &self->cuda->context);
}

/* TRUE when the query was a CUDA context query that we answered. */
gboolean
gst_gpuccl_blob_cuda_query (GstGpucclBlob * self, GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      self->cuda->context);
}

/* With CUDA memory negotiated: find the neighbours' context (or make one
 * and tell them), so that what upstream allocates and what we answer is
 * on one context; with device-id auto (-1) that of any device (the
 * neighbours' first, as gst_cuda_ensure_element_context reads -1). The
 * frames are labeled in their memory's own context whatever this
 * finds. */
gboolean
gst_gpuccl_blob_cuda_negotiated (GstGpucclBlob * self, GstCaps * caps)
{
  gint device_id;

  if (!gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return FALSE;
  /* Without a CUDA driver GStreamer's CUDA library cannot make one (and
   * aborts if asked): the frames then take the host path. */
  if (!gst_cuda_load_library ()) {
    GST_WARNING_OBJECT (self, "CUDA memory caps but no CUDA driver");
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          &self->cuda->context))
    GST_WARNING_OBJECT (self, "no CUDA context for device %d", device_id);
  return TRUE;
}

/* A library context, before the GstCudaContext it lives in. */
static void
close_lib (GstGpucclBlob * self, Lib * l)
{
  /* A background model made in it goes first. */
  if (l->lib && self->background_ctx == l->lib)
    gst_gpuccl_blob_motion_free (self);
  if (l->lib)
    gst_gpuccl_blob_mask_forget (self, l->lib);
  gpuccl_context_free (l->lib);
  l->lib = NULL;
  gst_clear_object (&l->of);
}

void
gst_gpuccl_blob_cuda_stop (GstGpucclBlob * self)
{
  GpucclBlobCuda *cuda = self->cuda;

  for (guint i = 0; i < cuda->n_libs; i++)
    close_lib (self, &cuda->libs[i]);
  cuda->n_libs = 0;
  gst_clear_object (&cuda->context);
}

/* The library context for frames of `context` (so on its GPU, whatever
 * device-id says: device memory of one CUDA context cannot be read in
 * another), the one kept for it or a new one; the least recently used
 * goes when MAX_LIBS are open. NULL after an element error. */
static GpucclContext *
ensure_lib (GstGpucclBlob * self, GstCudaContext * context)
{
  GpucclBlobCuda *cuda = self->cuda;
  GpucclError error = { 0 };
  Lib found = { NULL, NULL };

  for (guint i = 0; i < cuda->n_libs; i++) {
    if (cuda->libs[i].of == context) {
      found = cuda->libs[i];
      memmove (&cuda->libs[i], &cuda->libs[i + 1],
          (cuda->n_libs - i - 1) * sizeof (Lib));
      cuda->n_libs--;
      break;
    }
  }
  if (!found.lib) {
    found.lib = gpuccl_context_new_cuda (gst_cuda_context_get_handle
        (context), NULL, &error);
    if (!found.lib) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot label CUDA memory: %s", error.message),
          ("gpuccl status: %s; with backend=cpu the frames are downloaded "
              "and labeled on the host", gpuccl_status_name (error.status)));
      return NULL;
    }
    found.of = gst_object_ref (context);
    GST_INFO_OBJECT (self, "labeling CUDA memory of %" GST_PTR_FORMAT
        " on %s", context, gpuccl_context_device_name (found.lib));
    if (cuda->n_libs == MAX_LIBS) {
      close_lib (self, &cuda->libs[0]);
      memmove (&cuda->libs[0], &cuda->libs[1], (MAX_LIBS - 1) * sizeof (Lib));
      cuda->n_libs--;
    }
  }
  cuda->libs[cuda->n_libs++] = found;
  return found.lib;
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
 * is not the CPU; then *ctx is the library context of its memory's CUDA
 * context. Otherwise on the host path, which maps the frame to system
 * memory (GstCudaMemory downloads it, after its stream's pending work);
 * so also with draw=ids, whose digits the host draws (gpuccl_draw_ids).
 * *info (the caps') gets the layout of any GstCudaMemory frame. */
FramePlace
gst_gpuccl_blob_cuda_place (GstGpucclBlob * self, const Settings * s,
    const FormatDesc * f, GstBuffer * buf, GstVideoInfo * info,
    GstMapFlags * flags, GpucclContext ** ctx)
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
  *ctx = ensure_lib (self, GST_CUDA_MEMORY_CAST (mem)->context);
  if (!*ctx)
    return FRAME_REFUSED;
  *flags |= GST_MAP_CUDA;
  return FRAME_IN_CUDA_MEMORY;
}

/* The frame is mapped with GST_MAP_CUDA, which may itself have queued an
 * upload on the memory's stream: from here the library's stream waits for
 * everything on it. */
gboolean
gst_gpuccl_blob_cuda_begin (GstGpucclBlob * self, GpucclContext * ctx,
    GstVideoFrame * vframe)
{
#if GST_CHECK_VERSION(1, 24, 0)
  GstCudaMemory *mem =
      GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (vframe->buffer, 0));
  GstCudaStream *stream = gst_cuda_memory_get_stream (mem);
  GpucclError error = { 0 };

  /* No stream: the default one, which GStreamer's producers sync before
   * pushing (GstCudaMemory syncs what it queues there itself). */
  if (!stream)
    return TRUE;
  if (gpuccl_context_wait_cuda_stream (ctx,
          gst_cuda_stream_get_handle (stream), &error) != GPUCCL_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot order the labeling after upstream's CUDA stream: %s",
            error.message),
        ("gpuccl status: %s; with backend=cpu the frames are downloaded "
            "and labeled on the host", gpuccl_status_name (error.status)));
    return FALSE;
  }
#endif
  return TRUE;
}

/* The frame was labeled (and drawn into, with a writable map): the
 * library's call returned after its stream's work, which waited for the
 * memory's stream, so nothing is in flight on this memory any more. A
 * reader after us then need not sync (GstCudaMemory's host map and
 * GStreamer's CUDA elements look at the flag); the map already marked a
 * device write for download. A read-only frame keeps its flags: another
 * branch (tee) may have queued work on the stream since. */
void
gst_gpuccl_blob_cuda_end (GstGpucclBlob * self, GstVideoFrame * vframe)
{
#if GST_CHECK_VERSION(1, 24, 0)
  GstMemory *mem = gst_buffer_peek_memory (vframe->buffer, 0);

  if ((vframe->map[0].flags & GST_MAP_WRITE) &&
      gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem)))
    GST_MEMORY_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
}

#else /* !HAVE_GST_CUDA: no CUDA memory in the caps, every frame on the
       * host path. */

gboolean
gst_gpuccl_blob_cuda_built (void)
{
  return FALSE;
}

void
gst_gpuccl_blob_cuda_init (GstGpucclBlob * self)
{
}

void
gst_gpuccl_blob_cuda_free (GstGpucclBlob * self)
{
}

void
gst_gpuccl_blob_cuda_set_context (GstGpucclBlob * self, GstContext * context)
{
}

gboolean
gst_gpuccl_blob_cuda_query (GstGpucclBlob * self, GstQuery * query)
{
  return FALSE;
}

gboolean
gst_gpuccl_blob_cuda_negotiated (GstGpucclBlob * self, GstCaps * caps)
{
  return FALSE;
}

FramePlace
gst_gpuccl_blob_cuda_place (GstGpucclBlob * self, const Settings * s,
    const FormatDesc * f, GstBuffer * buf, GstVideoInfo * info,
    GstMapFlags * flags, GpucclContext ** ctx)
{
  return FRAME_IN_HOST_MEMORY;
}

gboolean
gst_gpuccl_blob_cuda_begin (GstGpucclBlob * self, GpucclContext * ctx,
    GstVideoFrame * vframe)
{
  return TRUE;
}

void
gst_gpuccl_blob_cuda_end (GstGpucclBlob * self, GstVideoFrame * vframe)
{
}

void
gst_gpuccl_blob_cuda_stop (GstGpucclBlob * self)
{
}

#endif /* HAVE_GST_CUDA */
