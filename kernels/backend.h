/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The private interface between the gpuccl front (gpuccl.c) and its
 * backends. gpuccl.c validates every argument before a backend sees it. */
#ifndef GPUCCL_BACKEND_H
#define GPUCCL_BACKEND_H

#include "gpuccl.h"
#include "motion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The overlay of gpuccl_process_draw: a checked frame of the image's size
 * and draw parameters with the line width clamped. */
typedef struct {
  const GpucclFrame *frame;
  GpucclDrawParams params;
} GpucclOverlay;

typedef struct GpucclBackendOps {
  GpucclBackend kind;
  /* Allocate ctx->priv and fill ctx->device_name. */
  GpucclStatus (*open)(GpucclContext *ctx, int device_id, GpucclError *error);
  void (*close)(GpucclContext *ctx);
  GpucclStatus (*process)(GpucclContext *ctx, const GpucclImage *image,
                          const GpucclParams *params, GpucclResult *result,
                          GpucclError *error);
  GpucclStatus (*draw)(GpucclContext *ctx, const GpucclFrame *frame,
                       const GpucclDrawParams *params, GpucclError *error);
  /* Optional: process and draw the overlay in one frame (the backend
   * places the drawing); without it the front calls process, then draw. */
  GpucclStatus (*process_draw)(GpucclContext *ctx, const GpucclImage *image,
                               const GpucclParams *params,
                               const GpucclOverlay *overlay,
                               GpucclResult *result, GpucclError *error);
  /* Optional: n checked images, each into contexts[i]->last (distinct
   * contexts of this backend), as one batch; on an error *failed is the
   * image it is about. Without it the front calls process for each. */
  GpucclStatus (*process_batch)(GpucclContext *const *contexts,
                                const GpucclImage *images,
                                const GpucclParams *const *params, size_t n,
                                size_t *failed, GpucclError *error);
  void *(*host_alloc)(GpucclContext *ctx, size_t size, GpucclMemory memory,
                      GpucclError *error);
  void (*host_free)(GpucclContext *ctx, void *ptr);
  /* A background model's (or a mask's) memory, `bytes` zeroed bytes where
   * the backend's kernels read it (host memory, or device memory of the
   * context). */
  void *(*model_alloc)(GpucclContext *ctx, size_t bytes, GpucclError *error);
  void (*model_free)(GpucclContext *ctx, void *model);
  /* A mask's rows (picture: checked U8) into memory of model_alloc,
   * picture->width bytes a row, no padding. */
  GpucclStatus (*mask_copy)(GpucclContext *ctx, void *dst,
                            const GpucclImage *picture, GpucclError *error);
} GpucclBackendOps;

struct GpucclContext {
  const GpucclBackendOps *ops;
  void *priv;
  /* gpuccl_context_new_cuda's CUcontext and stream (else NULL), for the
   * CUDA backend's open. */
  void *cuda_context, *cuda_stream;
  char device_name[128];
  GpucclResult last; /* what the last process call returned */
  /* want_intensity: the last result's intensities (intensity.c); while a
   * backend measures, one entry per component. */
  GpucclBlobIntensity *intensity;
  size_t intensity_cap;
  bool intensity_valid;
};

/* A mask (gpuccl.h): width * height bytes, row after row, in the memory
 * of its context's backend. */
struct GpucclMask {
  GpucclContext *ctx;
  int width, height;
  uint8_t *data;
};

/* Before a backend labels with params->mask or params->want_intensity:
 * the mask's context and size, the mode (intensity.c). */
GpucclStatus gpuccl_mask_check(const GpucclContext *ctx,
                               const GpucclImage *image,
                               const GpucclParams *params,
                               GpucclError *error);

/* For a backend measuring intensities: ctx->intensity holds n entries
 * (n >= 1), each {0, UINT32_MAX, 0}; NULL when out of memory (error
 * set). */
GpucclBlobIntensity *gpuccl_intensity_reserve(GpucclContext *ctx, size_t n,
                                              GpucclError *error);

/* Per-component entries (component id - 1) into per-blob ones, in place:
 * entry i becomes that of blobs[i] (ids increase, so no entry is read
 * after it was overwritten). */
void gpuccl_intensity_select(GpucclBlobIntensity *intensity,
                             const GpucclBlob *blobs, size_t n_blobs);

/* A background model (gpuccl.h): the caller's parameters, the model's
 * memory and shape, and what the current frame does with it. */
struct GpucclBackground {
  GpucclContext *ctx; /* the owner: the model is in its memory */
  GpucclBackgroundParams params;
  uint32_t rate;   /* params.learning_rate in Q16 */
  uint64_t frames; /* learned since the last reset */
  void *model;
  size_t model_bytes;
  /* What the model was learned from: another size, format or channel
   * resets it. */
  int width, height;
  GpucclPixelFormat format;
  GpucclChannel channel;
  GpucclMotion step; /* this frame's, for the backend */
};

/* Before a backend labels with params->background: checks it against the
 * context and the image, resets and sizes its model as needed, and fills
 * its step. After every call with a model: gpuccl_background_done (a
 * failed call may have learned part of the image: the model resets). */
GpucclStatus gpuccl_background_prepare(GpucclContext *ctx,
                                       const GpucclImage *image,
                                       const GpucclParams *params,
                                       GpucclError *error);
void gpuccl_background_done(GpucclBackground *background, bool ok);

/* The frame's motion step of params (NULL without a model). */
static inline const GpucclMotion *gpuccl_motion_of(const GpucclParams *params)
{
  return params->background ? &params->background->step : NULL;
}

extern const GpucclBackendOps gpuccl_cpu_ops;
#ifdef GPUCCL_HAVE_CUDA
extern const GpucclBackendOps gpuccl_cuda_ops;
bool gpuccl_cuda_probe(int device_id, GpucclError *error);
/* gpuccl_context_wait_cuda_stream on a CUDA context (stream_order.cu). */
GpucclStatus gpuccl_cuda_wait_stream(GpucclContext *ctx, void *cuda_stream,
                                     GpucclError *error);
/* gpuccl_host_alloc_on with CUDA, and its release: false when ptr is not
 * such a block (host_memory.cu). */
void *gpuccl_cuda_host_alloc_on(int device_id, size_t size,
                                GpucclMemory memory, GpucclError *error);
bool gpuccl_cuda_host_release(void *ptr);
#endif

/* Query points x blobs above which a backend does not search
 * (GpucclNearestRequest.answers stays NULL): the tracker's own grid search
 * is then the faster one. */
#define GPUCCL_NEAREST_MAX_PAIRS (1ull << 26)

/* Every entry point starts with this: an error left from an earlier call
 * never survives a success. */
void gpuccl_clear_error(GpucclError *error);

/* The *_params_init_sized functions: dst (dst_size bytes, the caller's
 * idea of the struct) gets the first bytes of defaults (size bytes),
 * zeros past them, and nothing past dst_size. */
void gpuccl_init_sized(void *dst, size_t dst_size, const void *defaults,
                       size_t size);

/* The reading side: src (src_size bytes, the caller's struct) over dst
 * (dst_size bytes, the library's, holding its defaults): the bytes both
 * have are copied, dst keeps its defaults past src_size. false (dst
 * untouched) when src is larger and sets a byte past dst_size: a field of
 * a newer header that this library would ignore. */
bool gpuccl_read_sized(void *dst, size_t dst_size, const void *src,
                       size_t src_size);

/* Fill *error (when not NULL) and return status. printf-style message. */
GpucclStatus gpuccl_set_error(GpucclError *error, GpucclStatus status,
                              const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_BACKEND_H */
