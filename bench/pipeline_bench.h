/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob-pipeline-bench, shared between its files: the scene
 * (pipeline_scene.c), the pipelines it times (pipeline_stream.c) and the
 * table (pipeline_bench.c). */
#ifndef GPUCCL_PIPELINE_BENCH_H
#define GPUCCL_PIPELINE_BENCH_H

#include <gst/gst.h>
#include <gst/video/video.h>

#define N_FRAMES 8      /* distinct pre-generated frames = pool size */
#define WARMUP_FRAMES 24
#define THRESHOLD 127

typedef struct
{
  const char *name;
  int width, height;
} Size;

/* Where the frames are when they reach the element. */
typedef enum
{
  MEMORY_ELEMENT,               /* the element's pool, its memory property */
  MEMORY_SYSTEM,                /* a plain system-memory pool */
  MEMORY_PINNED,                /* the element's pool, memory=copy */
  MEMORY_MAPPED,                /* the element's pool, memory=mapped */
  MEMORY_CUDA,                  /* GstCudaMemory (frames on the device) */
} Memory;

/* One pipeline configuration: N streams of appsrc ! gpucclblob ! fakesink
 * run it side by side. */
typedef struct
{
  const char *backend, *draw, *props;
  GstVideoFormat format;
  const Size *size;
  int n_discs;
  gboolean lattice;
  Memory memory;
} StreamParams;

/* What one run measured, all streams together. */
typedef struct
{
  double fps;                   /* frames per second, all streams */
  double element_us;            /* median time in the element per frame */
  double label_us;              /* mean GstCclBlobMeta processing time */
  double track_us;              /* mean GstCclBlobMeta tracking time */
  double blobs;                 /* mean blobs per frame */
  int copied;                   /* timed frames that left their memory */
  double uploads;               /* frame copies to the device per frame */
  gboolean in_place;            /* frames in the memory asked for */
  gboolean ok;
} Result;

/* qsort order of doubles (pipeline_bench.c). */
int cmp_double (const void *a, const void *b);

/* Gray levels of frame `index`: discs at 220 on a background at 20. */
void scene_levels (guint8 * levels, int w, int h, int n_discs,
    gboolean lattice, int index);
/* Write the levels into a frame: the Y plane (NV12: neutral chroma) or
 * R = G = B (alpha opaque). */
void fill_frame (GstVideoFrame * f, const guint8 * levels);

/* n_streams pipelines of `p` in this process, each pushed from its own
 * thread, timed together for about `seconds`. */
Result run_streams (const StreamParams * p, int n_streams, double seconds);
/* Whether the memory mode can run here with frames of `format` (CUDA
 * memory: built with gstreamer-cuda-1.0, a CUDA driver, a format
 * GStreamer's CUDA allocator makes); else why not in *why. */
gboolean memory_available (Memory memory, GstVideoFormat format,
    const char **why);

/* The host's share of an overlay (gpuccl_draw into host frames): median
 * microseconds per frame on frames the CPU has not touched since the
 * round before (cold, as pool frames read by DMA or the GPU; in 4 KiB and
 * in transparent 2 MiB pages) and drawn again at once (warm).
 * pipeline_probes.c */
typedef struct
{
  double cold_us, cold_huge_us, warm_us;
  size_t blobs;
} HostDraw;
gboolean host_draw_probe (GstVideoFormat format, const Size * size,
    int n_discs, gboolean lattice, const char *draw, HostDraw * out);

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
/* One GstCudaContext for every stream (pipeline_stream.c). */
GstCudaContext *shared_cuda_context (void);
/* Gigabytes per second that n_streams threads reach together copying a
 * width x height plane from pinned memory to the device, each on its own
 * stream and waiting for each copy (as labeling a pinned frame does), for
 * about `seconds`; negative when CUDA is not there. */
double link_probe (int n_streams, size_t width, size_t height,
    double seconds);
#endif

#endif /* GPUCCL_PIPELINE_BENCH_H */
