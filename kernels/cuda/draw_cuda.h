/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA overlays (gpuccl_draw on a CUDA context): the blobs of the last
 * result drawn into a frame. A device frame is drawn in place by kernels
 * following ../draw_common.h; a host frame gets boxes and crosses on the
 * host, and with labels goes up once into persistent buffers (grown only
 * when a frame outgrows them), is drawn there and comes down once. One
 * sync. */
#ifndef GPUCCL_DRAW_CUDA_H
#define GPUCCL_DRAW_CUDA_H

#include <cuda_runtime.h>

#include "../gpuccl.h"

/* The overlay's device buffers; owned by the backend's context. */
struct GpucclCudaDraw;

/* What the overlays borrow from the backend's context. */
struct GpucclCudaDrawEnv {
  cudaStream_t stream;
  int sm_count; /* the device's multiprocessors: the kernels' grid */
  /* The labels of the last process call with want_labels, on the device
   * (row pitch = width); only read when labels are drawn. */
  const uint32_t *labels_d;
  /* The backend's counted, fault-injectable allocator and its free. */
  cudaError_t (*alloc)(void **p, size_t bytes);
  void (*release)(void *p);
};

/* Whether the frame's planes are in device memory (all of them: a frame
 * split between host and device is refused). */
GpucclStatus gpuccl_cuda_frame_on_device(const GpucclFrame *frame,
                                         bool *on_device, GpucclError *error);

/* Draw `last` into `frame` (in device memory when on_device) per `params`
 * (validated by the front), and wait. The state is created at first use
 * in *state. Every CUDA error becomes a status with a message. */
GpucclStatus gpuccl_cuda_draw(GpucclCudaDraw **state,
                              const GpucclCudaDrawEnv *env,
                              const GpucclResult *last,
                              const GpucclFrame *frame, bool on_device,
                              const GpucclDrawParams *params,
                              GpucclError *error);

/* Boxes and crosses (params->flags has no labels) of the blob table the
 * frame is making on the device (table, *count entries, at most capacity)
 * into a frame in device memory, queued on env->stream behind it; nothing
 * waits. */
GpucclStatus gpuccl_cuda_draw_queue(const GpucclCudaDrawEnv *env,
                                    const GpucclBlob *table,
                                    const uint32_t *count, size_t capacity,
                                    const GpucclFrame *frame,
                                    const GpucclDrawParams *params,
                                    GpucclError *error);

/* Free the state (NULL is fine); the stream must be idle. */
void gpuccl_cuda_draw_free(GpucclCudaDraw *state, void (*release)(void *p));

#endif /* GPUCCL_DRAW_CUDA_H */
