/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl — connected-component labeling and analysis of 2D images,
 * on NVIDIA GPUs (HA4 and other algorithms) or on the CPU.
 *
 * The library knows nothing of GStreamer. One context holds one backend,
 * its buffers (reused from frame to frame, grown only when the image grows)
 * and the results of the last call. A context is not thread-safe: use one
 * per thread.
 *
 * Correctness contract (every backend and algorithm, every image):
 *  - foreground: sample > threshold (sample <= threshold with invert);
 *    with a background model, the difference from the model instead of
 *    the sample (GpucclBackground);
 *    in GPUCCL_MODE_SEGMENTS: any non-zero sample, and neighbours connect
 *    only when their samples are equal (see GpucclMode);
 *  - labels 1..N in raster order of each component's first pixel, 0 for
 *    background;
 *  - per component: area, inclusive bounding box, 64-bit sums of x and y,
 *    centroid = sum / area.
 */
#ifndef GPUCCL_H
#define GPUCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only what this header declares is exported from libgpuccl (the library
 * is built with hidden visibility). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define GPUCCL_API __attribute__((visibility("default")))
#else
#define GPUCCL_API
#endif

/* The inline helpers below also work in CUDA device code. */
#ifdef __CUDACC__
#define GPUCCL_INLINE static inline __host__ __device__
#else
#define GPUCCL_INLINE static inline
#endif

/* The ABI version: libgpuccl.so.GPUCCL_ABI_VERSION. There is no ABI promise
 * before 1.0: every change of a public struct's layout or of a function's
 * signature bumps it, and with it the soname, so an application built
 * against an older header does not load a library it would misread
 * (docs/abi.md). tests/abi checks the layouts against a manifest. */
#define GPUCCL_ABI_VERSION 2

/* The ABI version of the library actually loaded. */
GPUCCL_API unsigned gpuccl_abi_version(void);

#define GPUCCL_MAX_SIDE 16384 /* largest width or height accepted */
/* Largest stride (bytes from one row to the next) accepted, of an image
 * or a frame plane: 256 times the widest row (16384 PACKED4 pixels), far
 * above any real frame's padding; a larger one is INVALID_ARGUMENT. */
#define GPUCCL_MAX_STRIDE ((size_t)1 << 24)

typedef enum {
  GPUCCL_OK = 0,
  GPUCCL_ERROR_INVALID_ARGUMENT, /* bad image, stride or parameter */
  GPUCCL_ERROR_UNSUPPORTED,      /* valid request this backend cannot do */
  GPUCCL_ERROR_NO_DEVICE,        /* no usable CUDA device or driver */
  GPUCCL_ERROR_OUT_OF_MEMORY,    /* host or device allocation failed */
  GPUCCL_ERROR_DEVICE,           /* a CUDA launch or copy failed */
  GPUCCL_ERROR_INTERNAL,
} GpucclStatus;

/* Filled by every call that can fail, when the caller passes one. */
typedef struct {
  GpucclStatus status;
  char message[256];
} GpucclError;

typedef enum {
  GPUCCL_BACKEND_AUTO = 0, /* CUDA when a device is usable, else CPU */
  GPUCCL_BACKEND_CUDA,
  GPUCCL_BACKEND_CPU,
} GpucclBackend;

typedef enum {
  GPUCCL_ALGORITHM_DEFAULT = 0, /* HA4 on CUDA (STAVA_BENES in segments
                                 * mode), run-based on the CPU */
  /* Hennequin et al. on 256 x 32 tiles labeled on chip: only components
   * that cross tiles meet in global memory (docs/architecture.md). */
  GPUCCL_ALGORITHM_HA4,
  /* Kept for old callers: runs HA4 (its strip pipeline with two pixels per
   * thread, Alg. 7, is retired). */
  GPUCCL_ALGORITHM_HA4_64,
  /* Allegretti et al. 2019 (2x2 blocks, so 8-connectivity only on CUDA:
   * 4-connectivity gives GPUCCL_ERROR_UNSUPPORTED there). */
  GPUCCL_ALGORITHM_BUF,    /* block-based union-find */
  GPUCCL_ALGORITHM_BUF_IC, /* BUF with inline compression */
  GPUCCL_ALGORITHM_BKE,    /* block-based Komura equivalence */
  GPUCCL_ALGORITHM_BKE_IC, /* BKE with inline compression */
  /* Pixel-based, 4- and 8-connectivity on CUDA: */
  GPUCCL_ALGORITHM_OUF,         /* optimized union-find (Chen et al. 2017) */
  GPUCCL_ALGORITHM_HYBRID3,     /* S4DLS + label backtracking, iterative
                                 * (the loop on the device, CUDA 12.4+) */
  GPUCCL_ALGORITHM_STAVA_BENES, /* shared-memory tiles, hierarchical merge;
                                 * also GPUCCL_MODE_SEGMENTS */
} GpucclAlgorithm;

/* The last valid GpucclAlgorithm value (the CPU backend accepts them all
 * and runs its one algorithm: results are identical by contract). */
#define GPUCCL_ALGORITHM_LAST GPUCCL_ALGORITHM_STAVA_BENES

/* What connects two neighbouring pixels (4- or 8-connectivity either way).
 *
 * BINARY: both are foreground (sample > threshold, or <= with invert).
 *
 * SEGMENTS, for label maps (class masks, segmentations; the multi-valued
 * mode of Stava and Benes): 0 is background, and two neighbours connect iff
 * both are non-zero and equal, so touching regions of different values are
 * different components. threshold, invert, auto_threshold and channel are
 * ignored (not even checked); GpucclResult.threshold is 0. Samples: U8 and
 * U16 as they are; PACKED4 compares the whole colour, value 0xRRGGBB, black
 * is background (alpha is ignored). GpucclResult.values holds each
 * blob's value. On CUDA only GPUCCL_ALGORITHM_STAVA_BENES does it (DEFAULT
 * picks it); the others give GPUCCL_ERROR_UNSUPPORTED. */
typedef enum {
  GPUCCL_MODE_BINARY = 0,
  GPUCCL_MODE_SEGMENTS,
} GpucclMode;

/* How host memory from gpuccl_host_alloc() reaches the device. */
typedef enum {
  GPUCCL_MEMORY_AUTO = 0, /* MAPPED on integrated GPUs, COPY elsewhere */
  GPUCCL_MEMORY_COPY,     /* pinned host memory, DMA copy per frame */
  GPUCCL_MEMORY_MAPPED,   /* pinned and mapped: kernels read it in place */
} GpucclMemory;

typedef enum {
  GPUCCL_PIXEL_U8 = 0,  /* one 8-bit sample per pixel */
  GPUCCL_PIXEL_U16,     /* one 16-bit sample per pixel, host byte order */
  GPUCCL_PIXEL_PACKED4, /* four 8-bit samples per pixel (RGBA, BGRx, ...) */
} GpucclPixelFormat;

/* Which sample of a PACKED4 pixel is thresholded. */
typedef enum {
  GPUCCL_CHANNEL_LUMA = 0, /* BT.601, see gpuccl_luma601() */
  GPUCCL_CHANNEL_RED,
  GPUCCL_CHANNEL_GREEN,
  GPUCCL_CHANNEL_BLUE,
} GpucclChannel;

typedef enum {
  GPUCCL_AUTO_THRESHOLD_NONE = 0,
  /* Otsu over a 256-bin histogram (U16: of sample >> 8; the threshold used
   * is then (t << 8) | 0xff). Ties go to the smallest t. */
  GPUCCL_AUTO_THRESHOLD_OTSU,
} GpucclAutoThreshold;

/* One plane, read only. data: host memory; on a CUDA context also device
 * memory of that context's CUDA context (see gpuccl_context_new_cuda), read
 * in place. */
typedef struct {
  const void *data;
  int width;     /* pixels, 1..GPUCCL_MAX_SIDE */
  int height;    /* rows, 1..GPUCCL_MAX_SIDE */
  size_t stride; /* bytes from one row to the next, >= width * pixel size */
  GpucclPixelFormat format;
  /* PACKED4 only: byte offsets (0..3) of R, G and B inside a pixel. */
  uint8_t offset_r, offset_g, offset_b;
} GpucclImage;

/* The nearest blob of one query point: the blob whose centroid, rounded
 * to float, is nearest to the point, d2 the squared distance in single
 * precision ((bx - x)^2 + (by - y)^2, each step rounded, no fused
 * multiply-add). blob is GPUCCL_NO_BLOB when that does not settle it: two
 * blobs at exactly the nearest distance, or none at a finite one. */
typedef struct {
  float d2;
  uint32_t blob; /* index into GpucclResult.blobs */
} GpucclNearest;

#define GPUCCL_NO_BLOB UINT32_MAX

/* Query points (a tracker's predictions, gpuccl_track.h) whose nearest
 * blobs a backend that can (CUDA) finds beside the blob table. The caller
 * owns the request and points GpucclParams.nearest at it; gpuccl_process
 * sets `answers` (NULL first, so a failed or unanswered call leaves it
 * NULL). */
typedef struct {
  const float *x, *y; /* n points */
  size_t n;
  /* n answers, one per point, owned by the context and valid until its
   * next process call; NULL when not answered: the backend does not search
   * (CPU), max_blobs selected the blobs, or the search would be too large
   * (the caller then searches itself). */
  const GpucclNearest *answers;
} GpucclNearestRequest;

/* A background model (below): binarises by motion when GpucclParams
 * points at one. */
typedef struct GpucclBackground GpucclBackground;

/* A mask (below): pixels where it is 0 are never foreground. */
typedef struct GpucclMask GpucclMask;

typedef struct {
  int threshold; /* 0..255 (U8, PACKED4) or 0..65535 (U16) */
  bool invert;
  GpucclAutoThreshold auto_threshold;
  GpucclChannel channel; /* PACKED4 only */
  int connectivity;      /* 4 or 8 */
  /* Blobs with min_area <= area <= max_area are kept (max_area 0: no upper
   * limit). A crossed pair (min_area > max_area > 0) is an empty range, not
   * an error: no blob passes, so the two can be changed one at a time. */
  uint64_t min_area;
  uint64_t max_area;
  uint32_t max_blobs; /* 0: all; else the largest (ties: smaller id) */
  bool want_labels;   /* also return the label image */
  GpucclAlgorithm algorithm;
  GpucclMode mode;               /* BINARY unless set */
  GpucclNearestRequest *nearest; /* query points, or NULL */
  GpucclBackground *background; /* or NULL; appended in ABI 2 */
  const GpucclMask *mask;       /* or NULL; appended in ABI 2 */
  /* Also measure each blob's samples: gpuccl_blob_intensities(). */
  bool want_intensity; /* appended in ABI 2 */
} GpucclParams;

/* One blob: 32 bytes, the same record on the device and the host, so the
 * table is downloaded and handed out as it is. Sides are at most
 * GPUCCL_MAX_SIDE, so coordinates fit 16 bits and areas 32. */
typedef struct {
  uint32_t id;             /* the component's label, 1..n_components */
  uint32_t area;           /* pixels */
  uint16_t x0, y0, x1, y1; /* inclusive bounding box */
  uint64_t sum_x, sum_y;   /* sums of the pixels' coordinates */
} GpucclBlob;

#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(GpucclBlob) == 32 && offsetof(GpucclBlob, x0) == 8 &&
                  offsetof(GpucclBlob, sum_x) == 16,
              "GpucclBlob is the 32-byte record of the ABI");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(GpucclBlob) == 32 && offsetof(GpucclBlob, x0) == 8 &&
                   offsetof(GpucclBlob, sum_x) == 16,
               "GpucclBlob is the 32-byte record of the ABI");
#endif

/* The centroid, sum / area. */
GPUCCL_INLINE double gpuccl_blob_cx(const GpucclBlob *blob)
{
  return (double)blob->sum_x / (double)blob->area;
}

GPUCCL_INLINE double gpuccl_blob_cy(const GpucclBlob *blob)
{
  return (double)blob->sum_y / (double)blob->area;
}

/* Owned by the context; valid until its next process call or destroy. */
typedef struct {
  int width, height;
  uint32_t n_components;   /* all components, before the filters */
  size_t n_blobs;          /* components that passed the filters */
  const GpucclBlob *blobs; /* n_blobs entries, in increasing id */
  /* GPUCCL_MODE_SEGMENTS: values[i] is the value of the pixels of
   * blobs[i] (PACKED4: 0xRRGGBB); NULL in GPUCCL_MODE_BINARY, where every
   * blob is foreground. */
  const uint32_t *values;
  int threshold; /* the threshold applied (Otsu's when asked;
                            * 0 in GPUCCL_MODE_SEGMENTS) */
  /* width * height labels, row after row (stride = width), 0 background,
   * every component numbered (filtered ones too); NULL unless asked for. */
  const uint32_t *labels;
} GpucclResult;

typedef struct GpucclContext GpucclContext;

/* Parameters with their defaults: threshold 127, 8-connectivity, no filter,
 * GPUCCL_MODE_BINARY, no query points. The macro passes the caller's size
 * of the struct, so a library newer than the caller's header never writes
 * past the caller's struct. */
GPUCCL_API void gpuccl_params_init_sized(GpucclParams *params, size_t size);
#define gpuccl_params_init(params)                                             \
  gpuccl_params_init_sized((params), sizeof *(params))

/* NULL on failure, with the reason in *error. */
GPUCCL_API GpucclContext *gpuccl_context_new(GpucclBackend backend,
                                             int device_id, GpucclError *error);
GPUCCL_API void gpuccl_context_free(GpucclContext *ctx);

/* The backend actually in use (never AUTO), and a human-readable name of
 * the device ("CPU", or the CUDA device's name). A NULL context gives
 * AUTO and "". */
GPUCCL_API GpucclBackend gpuccl_context_backend(const GpucclContext *ctx);
GPUCCL_API const char *gpuccl_context_device_name(const GpucclContext *ctx);

/* Binarize, label and measure one image. The macro passes the caller's
 * size of GpucclParams (docs/abi.md): a library newer than the caller's
 * header reads only the fields the caller has (those appended later take
 * their defaults); an older one refuses a struct that sets fields it does
 * not know (INVALID_ARGUMENT). The other calls that read a GpucclParams,
 * GpucclTrackerParams or GpucclVolumeParams take their size the same way. */
GPUCCL_API GpucclStatus gpuccl_process_sized(GpucclContext *ctx,
                                             const GpucclImage *image,
                                             const GpucclParams *params,
                                             size_t params_size,
                                             GpucclResult *result,
                                             GpucclError *error);
#define gpuccl_process(ctx, image, params, result, error)                      \
  gpuccl_process_sized((ctx), (image), (params), sizeof(GpucclParams),         \
                       (result), (error))

/* A batch: n images, each with its own context, parameters and result,
 * processed together. results[i] is exactly what gpuccl_process(contexts[i],
 * &images[i], params[i]) would return, and stays valid as long. On CUDA
 * the images' kernels run as one CUDA graph on contexts[0]'s stream, side
 * by side: one launch, one download kernel and one sync for the batch,
 * so N cameras pay a frame's fixed cost about once rather than N times
 * (docs/benchmarks.md). Frames that cannot join the graph (segments mode,
 * query points, intensities) are processed before it, each by itself;
 * HYBRID3's convergence loop joins it as a conditional (WHILE) node.
 * The contexts are distinct and of one backend; on CUDA they may be on
 * several GPUs (one graph each, all launched before the host waits).
 * params[i] are of params_size bytes each. An error names the
 * image; then no result is valid. Added in ABI 2. */
GPUCCL_API GpucclStatus gpuccl_process_batch_sized(
    GpucclContext *const *contexts, const GpucclImage *images,
    const GpucclParams *const *params, size_t params_size, size_t n,
    GpucclResult *results, GpucclError *error);
#define gpuccl_process_batch(contexts, images, params, n, results, error)      \
  gpuccl_process_batch_sized((contexts), (images), (params),                   \
                             sizeof(GpucclParams), (n), (results), (error))

/* CUDA interop: labeling and overlays on the caller's CUDA context and
 * stream, for images already on the device (a decoder's output, a
 * GstCudaMemory, a cudaMalloc'ed plane).
 *
 * A GpucclContext's device buffers, CUDA graphs and kernels all live in one
 * CUDA context, and device memory of another CUDA context cannot be read
 * there. gpuccl_context_new(CUDA) uses the device's primary context (the
 * CUDA runtime's). This one uses `cuda_context`, a CUcontext of the driver
 * API, which need not be a primary one (GstCudaContext's is made with
 * cuCtxCreate): each call makes it current on the calling thread and
 * restores the caller's current context before returning, so the caller
 * need not push it. `cuda_stream` (a CUstream / cudaStream_t of that
 * context) is where every copy and kernel is queued, so work the caller
 * queued on it before a call (filling the image) is ordered before the
 * labeling; NULL: a stream of the library's own (then the caller makes the
 * image ready first). Each call returns once its work on the stream is done
 * (the blob table is on the host, the overlays are in the frame). Both
 * must outlive the GpucclContext. Device pointers (CUdeviceptr) are passed
 * as void * in GpucclImage.data and GpucclFrame.data. */
GPUCCL_API GpucclContext *gpuccl_context_new_cuda(void *cuda_context,
                                                  void *cuda_stream,
                                                  GpucclError *error);

/* Stream ordering for a context of gpuccl_context_new_cuda: the context's
 * next calls run after all the work queued so far on `cuda_stream`, a
 * stream of the same CUDA context (e.g. the one a producer wrote the image
 * on and did not wait for). An event recorded there and waited on by the
 * context's stream: the host does not block, and the call that reads the
 * image still returns only once its own work is done. Nothing to do for
 * the context's own stream. NULL is the CUDA context's legacy default
 * stream, which a context's own non-blocking stream does not wait for by
 * itself. UNSUPPORTED on a context that is not a CUDA one. */
GPUCCL_API GpucclStatus gpuccl_context_wait_cuda_stream(GpucclContext *ctx,
                                                        void *cuda_stream,
                                                        GpucclError *error);

/* Diagnostics: how many times this process copied a frame's pixels from
 * the host to a CUDA device (labeling uploads and overlay uploads, all
 * contexts together; 0 without CUDA). A frame in device memory or in a
 * mapped block of gpuccl_host_alloc(), and boxes or crosses drawn into a
 * host frame, copy none: benchmarks and tests read it to show that. */
GPUCCL_API uint64_t gpuccl_frame_uploads(void);

/* Whether a CUDA device is usable (built with CUDA, driver and device
 * present); the reason in *error when it is not. */
GPUCCL_API bool gpuccl_cuda_available(int device_id, GpucclError *error);

/* Host memory that the context's backend reads fastest: pinned (and mapped,
 * per `memory`) with CUDA, plain aligned memory on the CPU backend. With
 * CUDA the block is known to every context of the process, so a frame in a
 * mapped block is read in place whichever CUDA context labels it (pinned
 * portable). Freed with the same context, which must outlive the block's
 * use. */
GPUCCL_API void *gpuccl_host_alloc(GpucclContext *ctx, size_t size,
                                   GpucclMemory memory, GpucclError *error);
GPUCCL_API void gpuccl_host_free(GpucclContext *ctx, void *ptr);

/* The same blocks without a context, for a buffer pool that outlives the
 * contexts that read its blocks (and need not open one of its own): the
 * memory `backend` reads fastest on device `device_id` (AUTO: CUDA when
 * that device is usable, else the CPU's). Pinned blocks are known to
 * every context of the process, as above. Freed with gpuccl_host_release,
 * from any thread; the caller makes sure no call still reads the block
 * (each call returns once its work is done). */
GPUCCL_API void *gpuccl_host_alloc_on(GpucclBackend backend, int device_id,
                                      size_t size, GpucclMemory memory,
                                      GpucclError *error);
GPUCCL_API void gpuccl_host_release(void *ptr);

/* Overlays: draw the blobs of the last gpuccl_process() result into a frame
 * of the same size, in place. On a CUDA context: a frame in device memory
 * is drawn on the device; a host frame gets boxes and crosses drawn on the
 * host (a few pixels each: no plane crosses the bus), and with labels all
 * overlays on the device (the planes go up once and come down once). The
 * bytes written are the same on every backend and path. */
typedef enum {
  GPUCCL_DRAW_BOXES = 1 << 0,     /* bounding box outlines */
  GPUCCL_DRAW_CENTROIDS = 1 << 1, /* a cross on each centroid */
  GPUCCL_DRAW_LABELS = 1 << 2,    /* each blob's pixels in a colour of its id
                                   * (needs want_labels in that call) */
} GpucclDrawFlags;

typedef enum {
  GPUCCL_FRAME_GRAY8 = 0,
  GPUCCL_FRAME_GRAY16,  /* host byte order */
  GPUCCL_FRAME_NV12,    /* plane 0 Y, plane 1 interleaved UV at half size */
  GPUCCL_FRAME_I420,    /* planes Y, U, V at half size (YV12 too: the planes
                        * are given by meaning, not by memory order) */
  GPUCCL_FRAME_PACKED4, /* one plane, offsets as in GpucclImage */
} GpucclFrameFormat;

typedef struct {
  GpucclFrameFormat format;
  int width, height;
  /* Planes by meaning: Y (or packed), U (or UV), V. Host memory, or on a
   * CUDA context all in device memory of its CUDA context. */
  void *data[3];
  size_t stride[3];
  uint8_t offset_r, offset_g, offset_b; /* PACKED4 only */
} GpucclFrame;

typedef struct {
  unsigned flags;  /* GpucclDrawFlags */
  uint8_t r, g, b; /* box and cross colour; converted to BT.601 YUV
                            * (full range) on YUV and gray frames */
  int line_width;  /* pixels, >= 1, boxes grow inwards */
} GpucclDrawParams;

GPUCCL_API GpucclStatus gpuccl_draw(GpucclContext *ctx,
                                    const GpucclFrame *frame,
                                    const GpucclDrawParams *params,
                                    GpucclError *error);

/* gpuccl_process() and then gpuccl_draw() of its result into `frame` (the
 * image's size), as one call with the same result and bytes. On a CUDA
 * context, boxes and crosses into a device frame are queued behind the
 * labeling and drawn from the blob table where it is made, so the drawing
 * shares the labeling's one wait instead of adding its own (with labels
 * drawn, or max_blobs set, the overlays follow the labeling as
 * gpuccl_draw() does). A failure of either part returns its status and an
 * empty result. */
GPUCCL_API GpucclStatus gpuccl_process_draw_sized(
    GpucclContext *ctx, const GpucclImage *image, const GpucclParams *params,
    size_t params_size, const GpucclFrame *frame, const GpucclDrawParams *draw,
    GpucclResult *result, GpucclError *error);
#define gpuccl_process_draw(ctx, image, params, frame, draw, result, error)    \
  gpuccl_process_draw_sized((ctx), (image), (params), sizeof(GpucclParams),    \
                            (frame), (draw), (result), (error))

/* A number beside each blob's box of the last gpuccl_process() result, on
 * top of what gpuccl_draw() drew: ids[i] for blob i (e.g. the tracker's id
 * of that blob; 0 draws nothing), n_blobs entries, or the blob ids when
 * ids is NULL. Digits and placement in draw_common.h, in the colour and
 * line width of params (its flags are not used). Drawn on the host,
 * whatever the backend: the frame must be in host memory (not a device
 * frame of gpuccl_context_new_cuda). */
GPUCCL_API GpucclStatus gpuccl_draw_ids(GpucclContext *ctx,
                                        const GpucclFrame *frame,
                                        const GpucclDrawParams *params,
                                        const uint32_t *ids,
                                        GpucclError *error);

/* Background models: binarisation by motion.
 *
 * With params.background set, the thresholded value of a pixel is not its
 * sample S (U8, U16, or the PACKED4 channel of params.channel) but the
 * difference D = |S - round(B)| from the model's value B at that pixel:
 * foreground is D > threshold (D <= threshold with invert), and Otsu's
 * threshold is computed over D. The same call updates the model:
 *
 *   B <- B + rate * (S - B)
 *
 * in fixed point, identical on every backend: B has 8 fraction bits for
 * 8-bit samples (a uint16_t per pixel) and 16 for U16 samples (a uint32_t),
 * rate is round(learning_rate * 65536) / 65536, and each step is
 * (d * rate + 32768) >> 16 of the difference d in fixed point (an
 * arithmetic shift: rounded half up). round(B) is (B + half) >> fraction
 * bits. Steps smaller than half a unit of B are lost, so a rate far below
 * 1/256 (8-bit) stops a fraction of a level short of a still scene.
 *
 *  - GPUCCL_BACKGROUND_DIFFERENCE: the model is the previous frame (rate 1
 *    on every frame); a frame's foreground is what changed since the last;
 *  - GPUCCL_BACKGROUND_AVERAGE: a running average with the learning rate;
 *    with `selective`, updated only where D <= threshold (the pixel
 *    matches the model, whatever invert says), so objects that stop are
 *    not learned into the background.
 *
 * Frame k after a reset (k = 0, 1, ...) with k < max(1, warmup_frames) is
 * warm-up: it is learned with rate max(learning_rate, 1 / (k + 1)) (the
 * first frame is copied, then the mean of the warm-up frames builds up),
 * everywhere (not selective), and has no foreground (no blobs). In frame
 * 0 the model holds nothing yet: D is 0 there (in Otsu's histogram too).
 * The model resets on its own when the image's size, pixel format or
 * channel changes, and after a failed call.
 *
 * A model belongs to the context it was made with: it lives in that
 * context's memory (device memory on CUDA), is used only with it, and is
 * freed before it. On CUDA, only the tiled HA4 pipeline (algorithm DEFAULT,
 * HA4 or its alias HA4_64) binarises by motion; the others give
 * GPUCCL_ERROR_UNSUPPORTED.
 * GPUCCL_MODE_SEGMENTS with a model is INVALID_ARGUMENT. */
typedef enum {
  GPUCCL_BACKGROUND_AVERAGE = 0, /* running average */
  GPUCCL_BACKGROUND_DIFFERENCE,  /* the previous frame */
} GpucclBackgroundMode;

typedef struct {
  GpucclBackgroundMode mode; /* AVERAGE */
  double learning_rate;      /* 0..1, 0.05; AVERAGE only */
  bool selective;            /* false; AVERAGE only */
  uint32_t warmup_frames;    /* 0 (the first frame only) */
} GpucclBackgroundParams;

GPUCCL_API void
gpuccl_background_params_init_sized(GpucclBackgroundParams *params,
                                    size_t size);
#define gpuccl_background_params_init(params)                                  \
  gpuccl_background_params_init_sized((params), sizeof *(params))

/* params NULL: the defaults. NULL on failure, with the reason in *error. */
GPUCCL_API GpucclBackground *
gpuccl_background_new_sized(GpucclContext *ctx,
                            const GpucclBackgroundParams *params, size_t size,
                            GpucclError *error);
#define gpuccl_background_new(ctx, params, error)                              \
  gpuccl_background_new_sized((ctx), (params),                                 \
                              sizeof(GpucclBackgroundParams), (error))

/* New parameters for the next frames; the model is kept unless the mode
 * changes (then it resets). */
GPUCCL_API GpucclStatus gpuccl_background_set_params_sized(
    GpucclBackground *background, const GpucclBackgroundParams *params,
    size_t size, GpucclError *error);
#define gpuccl_background_set_params(background, params, error)                \
  gpuccl_background_set_params_sized((background), (params),                  \
                                     sizeof(GpucclBackgroundParams), (error))

/* Forget the model: the next frame is frame 0 of a warm-up. */
GPUCCL_API void gpuccl_background_reset(GpucclBackground *background);

/* Frames learned since the last reset (0 for NULL): the frames from
 * max(1, warmup_frames) on have foreground. */
GPUCCL_API uint64_t
gpuccl_background_frames(const GpucclBackground *background);

/* Frees the model (NULL is fine); before its context. */
GPUCCL_API void gpuccl_background_free(GpucclBackground *background);

/* Masks: where to look. A mask is an 8-bit picture of the image's size;
 * a pixel whose mask value is 0 is never foreground (it is background
 * whatever its sample, invert included), any other value leaves the pixel
 * to the binarisation. It applies after the threshold: Otsu's threshold
 * is still computed over the whole image, and a background model still
 * learns masked pixels.
 *
 * gpuccl_mask_new copies `picture` (GPUCCL_PIXEL_U8, host memory; on a
 * CUDA context device memory of its CUDA context too) into the context's
 * memory (device memory on CUDA), once: later frames read that copy, so
 * a mask costs no transfer per frame. GpucclParams.mask points at it; an
 * image of another size than the mask is INVALID_ARGUMENT, naming both.
 * A mask belongs to the context it was made with, is used only with it,
 * and is freed before it. On CUDA, only the tiled HA4 pipeline (algorithm
 * DEFAULT, HA4 or its alias HA4_64) applies a mask; the others give
 * GPUCCL_ERROR_UNSUPPORTED. GPUCCL_MODE_SEGMENTS with a mask is
 * INVALID_ARGUMENT. */
GPUCCL_API GpucclMask *gpuccl_mask_new(GpucclContext *ctx,
                                       const GpucclImage *picture,
                                       GpucclError *error);
GPUCCL_API void gpuccl_mask_free(GpucclMask *mask); /* NULL is fine */

/* Intensity of one blob: its pixels' samples, the values the threshold
 * was applied to (U8 and U16 as they are; PACKED4 the channel of
 * GpucclParams.channel, BT.601 luma by default; with a background model
 * still the sample, not its difference from the model). Mean: sum /
 * area. */
typedef struct {
  uint64_t sum;
  uint32_t min, max;
} GpucclBlobIntensity;

/* The intensities of the last process call's blobs: n_blobs entries,
 * entry i for GpucclResult.blobs[i]; owned by the context and valid until
 * its next process call. NULL unless that call succeeded with
 * want_intensity (binary mode only: GPUCCL_MODE_SEGMENTS with
 * want_intensity is INVALID_ARGUMENT), or for a NULL context. On CUDA,
 * only the tiled HA4 pipeline measures it (UNSUPPORTED otherwise): one
 * more kernel over the label image the labeling writes on the device (not
 * downloaded unless want_labels), and one more download. */
GPUCCL_API const GpucclBlobIntensity *
gpuccl_blob_intensities(const GpucclContext *ctx);

GPUCCL_API const char *gpuccl_status_name(GpucclStatus status);
GPUCCL_API const char *gpuccl_backend_name(GpucclBackend backend);

/* The integer BT.601 luma used for GPUCCL_CHANNEL_LUMA, full range. */
GPUCCL_INLINE uint8_t gpuccl_luma601(uint8_t r, uint8_t g, uint8_t b)
{
  return (uint8_t)((19595u * r + 38470u * g + 7471u * b + 32768u) >> 16);
}

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_H */
