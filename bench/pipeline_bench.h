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

/* Gray levels of frame `index`: discs at 220 on a background at 20. */
void scene_levels (guint8 * levels, int w, int h, int n_discs,
    gboolean lattice, int index);
/* Write the levels into a frame: the Y plane (NV12: neutral chroma) or
 * R = G = B (alpha opaque). */
void fill_frame (GstVideoFrame * f, const guint8 * levels);

/* n_streams pipelines of `p` in this process, each pushed from its own
 * thread, timed together for about `seconds`. */
Result run_streams (const StreamParams * p, int n_streams, double seconds);
/* Whether the memory mode can run here (CUDA memory: built with
 * gstreamer-cuda-1.0 and a CUDA driver); else why not in *why. */
gboolean memory_available (Memory memory, const char **why);

#endif /* GPUCCL_PIPELINE_BENCH_H */
