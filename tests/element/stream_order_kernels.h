/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A CUDA producer for test_cuda_stream_order.c (stream_order_kernels.cu):
 * kernels queued on the caller's stream (a CUstream of the current CUDA
 * context) and not waited for, as a decoder or converter with a stream of
 * its own queues them. Each returns NULL, or the name of the CUDA error
 * (cudaGetErrorName) when the launch or the wait failed. */
#ifndef STREAM_ORDER_KERNELS_H
#define STREAM_ORDER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel that occupies the stream for `ms` milliseconds of device
 * time. */
const char *producer_spin (void *stream, unsigned ms);

/* One 8-bit plane: 255 inside the rectangle [x0, x1] x [y0, y1]
 * (inclusive; empty when x1 < x0), 0 elsewhere. */
const char *producer_fill (void *stream, void *plane, size_t pitch,
    int width, int height, int x0, int y0, int x1, int y1);

/* Wait for the stream (the producer's setup, not its frames). */
const char *producer_sync (void *stream);

#ifdef __cplusplus
}
#endif

#endif /* STREAM_ORDER_KERNELS_H */
