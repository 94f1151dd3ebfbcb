/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pipeline bench's GstCudaMemory frames and the host-to-device link
 * probe: the only bench file built differently with and without
 * gstreamer-cuda-1.0 (HAVE_GST_CUDA), as gst/gstgpucclblobcuda.c is the
 * element's; without it the stubs at the end say CUDA memory is not there.
 *
 * One GstCudaContext per device for every stream, as an application shares
 * one per GPU (GStreamer's CUDA elements do). The link probe measures what
 * N streams of pinned-memory copies of the labeled plane reach together,
 * the ceiling of N pipelines whose frames all cross it (the driver's entry
 * points through GStreamer's loader, no CUDA library linked). */
#include "pipeline_bench.h"

#include <string.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

gboolean
bench_cuda_built (void)
{
  return TRUE;
}

/* The context of `device`, made at first use (from the main thread: the
 * streams are set up one after the other). GStreamer's CUDA allocator is
 * registered by whoever uses it first (the nvcodec plugin when it loads):
 * here, so that the pools find it. */
static GstCudaContext *
device_context (int device)
{
  static GstCudaContext *contexts[BENCH_MAX_DEVICES];

  if (device < 0 || device >= BENCH_MAX_DEVICES)
    return NULL;
  if (!contexts[device] && gst_cuda_load_library ()) {
    gst_cuda_memory_init_once ();
    contexts[device] = gst_cuda_context_new (device);
  }
  return contexts[device];
}

gboolean
cuda_memory_ready (int device, const char **why)
{
  if (device_context (device))
    return TRUE;
  *why = "no GstCudaContext (no CUDA driver, or no such device)";
  return FALSE;
}

gboolean
cuda_streams_built (void)
{
  return GST_CHECK_VERSION (1, 24, 0);
}

/* The caps in CUDA memory and the pipeline on device's context. */
void
cuda_use_device (GstElement * pipeline, GstCaps * caps, int device)
{
  GstContext *context = gst_context_new_cuda_context (device_context
      (device));

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);
}

GstBufferPool *
cuda_pool_new (int device)
{
  GstCudaContext *context = device_context (device);

  return context ? gst_cuda_buffer_pool_new (context) : NULL;
}

gboolean
cuda_pool_config_add_stream (GstStructure * config, int device)
{
#if GST_CHECK_VERSION(1, 24, 0)
  GstCudaStream *stream = gst_cuda_stream_new (device_context (device));

  if (!stream)
    return FALSE;
  gst_buffer_pool_config_set_cuda_stream (config, stream);
  gst_cuda_stream_unref (stream);
  return TRUE;
#else
  return FALSE;
#endif
}

typedef struct
{
  GstCudaContext *context;
  size_t width, height;
  gint *start;                  /* all threads copy at once */
  gint64 duration, deadline;
  long copies;
  gboolean ok;
} LinkStream;

static gpointer
link_stream (gpointer data)
{
  LinkStream *s = data;
  CUdeviceptr dev = 0;
  void *host = NULL;
  CUstream stream = NULL;
  CUDA_MEMCPY2D copy = { 0 };

  if (!gst_cuda_context_push (s->context))
    return NULL;
  s->ok = CuMemAllocHost (&host, s->width * s->height) == CUDA_SUCCESS &&
      CuMemAlloc (&dev, s->width * s->height) == CUDA_SUCCESS &&
      CuStreamCreate (&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
  if (s->ok)
    memset (host, 20, s->width * s->height);
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = host;
  copy.srcPitch = s->width;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dev;
  copy.dstPitch = s->width;
  copy.WidthInBytes = s->width;
  copy.Height = s->height;
  g_atomic_int_add (s->start, -1);
  while (g_atomic_int_get (s->start) > 0)
    g_thread_yield ();
  s->deadline = g_get_monotonic_time () + s->duration;
  while (s->ok && g_get_monotonic_time () < s->deadline) {
    s->ok = CuMemcpy2DAsync (&copy, stream) == CUDA_SUCCESS &&
        CuStreamSynchronize (stream) == CUDA_SUCCESS;
    s->copies++;
  }
  if (stream)
    CuStreamDestroy (stream);
  if (dev)
    CuMemFree (dev);
  if (host)
    CuMemFreeHost (host);
  gst_cuda_context_pop (NULL);
  return NULL;
}

double
link_probe (int n_streams, size_t width, size_t height, double seconds)
{
  GstCudaContext *context = device_context (0);
  LinkStream *s = g_new0 (LinkStream, n_streams);
  GThread **threads = g_new (GThread *, n_streams);
  gint start = n_streams;
  gint64 t0;
  long copies = 0;
  gboolean ok = TRUE;

  if (!context)
    return -1;
  /* Setting up (pinned and device blocks) counts in no stream's time:
   * they start together, once all are ready. */
  for (int i = 0; i < n_streams; i++) {
    s[i] = (LinkStream) {.context = context,.width = width,.height = height,
    .start = &start,.duration = (gint64) (seconds * 1e6)};
    threads[i] = g_thread_new ("link", link_stream, &s[i]);
  }
  while (g_atomic_int_get (&start) > 0)
    g_thread_yield ();
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < n_streams; i++) {
    g_thread_join (threads[i]);
    copies += s[i].copies;
    ok = ok && s[i].ok;
  }
  g_free (threads);
  g_free (s);
  if (!ok)
    return -1;
  return copies * (double) (width * height) /
      ((g_get_monotonic_time () - t0) / 1e6) / 1e9;
}
#else /* !HAVE_GST_CUDA */

gboolean
bench_cuda_built (void)
{
  return FALSE;
}

gboolean
cuda_memory_ready (int device, const char **why)
{
  *why = "built without gstreamer-cuda-1.0";
  return FALSE;
}

gboolean
cuda_streams_built (void)
{
  return FALSE;
}

void
cuda_use_device (GstElement * pipeline, GstCaps * caps, int device)
{
}

GstBufferPool *
cuda_pool_new (int device)
{
  return NULL;
}

gboolean
cuda_pool_config_add_stream (GstStructure * config, int device)
{
  return FALSE;
}

double
link_probe (int n_streams, size_t width, size_t height, double seconds)
{
  return -1;
}

#endif /* HAVE_GST_CUDA */
