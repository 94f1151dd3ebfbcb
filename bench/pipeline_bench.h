/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob-pipeline-bench, shared between its files: the scene
 * (pipeline_scene.c), the pipelines it times (pipeline_stream.c) and the
 * table (pipeline_bench.c). */
#ifndef GPUCCL_PIPELINE_BENCH_H
#define GPUCCL_PIPELINE_BENCH_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>

#define N_FRAMES 8      /* distinct pre-generated frames = pool size */
#define WARMUP_FRAMES 24
#define THRESHOLD 127
#define BENCH_MAX_DEVICES 8     /* --devices */

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
  /* The streams' GPUs, given out in turn (--devices): CUDA memory frames
   * are made on it (the element's device-id left at auto), the element
   * labels system-memory ones there (device-id). NULL: device 0's CUDA
   * memory, the element's device-id as props say. */
  const int *devices;
  int n_devices;
  gboolean cuda_stream;         /* CUDA memory carries a GstCudaStream */
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
  /* Per entry of devices: its streams' frames over the time until the
   * last of them was done. */
  double device_fps[BENCH_MAX_DEVICES];
  gboolean ok;
} Result;

/* What one combination of the table runs (pipeline_bench.c). */
typedef struct
{
  const char *backend, *device, *format_name, *draw_name, *draw;
  GstVideoFormat format;
  const Size *size;
  const char *props;
  int n_discs;
  gboolean lattice;
  Memory memory;
  int streams;
  const int *devices;           /* --devices, or NULL */
  int n_devices;
  gboolean cuda_stream;         /* --cuda-stream */
  double seconds, cv_fps;
  FILE *csv;
} Combo;

extern const char *const memory_names[];
/* The combination's pipelines; track NULL or "false"/"true". */
Result run_combo (const Combo * k, const char *track);
/* One row of the table (and of the CSV); FALSE when the run failed. */
gboolean report (const Combo * k, const char *track, const Result * r);

/* pipeline_devices.c: --devices LIST into devices (distinct, below
 * BENCH_MAX_DEVICES, usable by the library); FALSE after saying why. */
gboolean parse_devices (const gchar * list, int *devices, int *n);
/* memory_available on each of the devices (device 0 without). */
gboolean memory_on_devices (Memory memory, GstVideoFormat format,
    const int *devices, int n_devices, const char **why);
/* pipeline_devices.c: with several --devices, the streams on the first
 * device alone and then spread over all, per device and together, and
 * the ratio; returns the failures. */
int devices_scaling (const Combo * k);
/* pipeline_devices.c, --stream-wait-check: this program again in child
 * processes (the library reads GPUCCL_CUDA_STREAM_WAIT once), with the
 * element's wait for the frames' stream and with
 * GPUCCL_CUDA_STREAM_WAIT=0, alternating `repeat` times, one stream of
 * CUDA memory carrying a GstCudaStream; the medians and their ratio. */
int stream_wait_check (const Combo * k, int repeat);

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
/* Whether the memory mode can run here with frames of `format` on
 * `device` (CUDA memory: built with gstreamer-cuda-1.0, a CUDA driver and
 * that device, a format GStreamer's CUDA allocator makes); else why not in
 * *why. */
gboolean memory_available (Memory memory, GstVideoFormat format,
    int device, const char **why);

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

/* GstCudaMemory frames (pipeline_cuda.c; stubs without
 * gstreamer-cuda-1.0). One GstCudaContext per device, shared by every
 * stream on it. */
gboolean bench_cuda_built (void);
/* Whether CUDA memory of `device` can be made here; else why not. */
gboolean cuda_memory_ready (int device, const char **why);
/* Whether frames can carry a GstCudaStream (GStreamer >= 1.24). */
gboolean cuda_streams_built (void);
/* `caps` get the CUDA memory feature, `pipeline` device's context. */
void cuda_use_device (GstElement * pipeline, GstCaps * caps, int device);
/* A GstCudaBufferPool of device's context, NULL without one. */
GstBufferPool *cuda_pool_new (int device);
/* Its memory then carries a GstCudaStream of its own, as the frames of
 * GStreamer 1.24's decoders and converters do (the element orders its
 * work after that stream's); FALSE where that cannot be. */
gboolean cuda_pool_config_add_stream (GstStructure * config, int device);
/* Gigabytes per second that n_streams threads reach together copying a
 * width x height plane from pinned memory to device 0, each on its own
 * stream and waiting for each copy (as labeling a pinned frame does), for
 * about `seconds`; negative when CUDA is not there. */
double link_probe (int n_streams, size_t width, size_t height,
    double seconds);

#endif /* GPUCCL_PIPELINE_BENCH_H */
