/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every device and pinned host allocation of the CUDA backend (contexts,
 * overlays, volumes) goes through these: counted for the tests
 * (gpuccl_cuda_alloc_calls, gpuccl_cuda_live_allocations in
 * cuda_internal.h) and failed on demand (GPUCCL_FAULT=alloc:N, fault.h).
 * The frees take NULL. */
#ifndef GPUCCL_DEVICE_ALLOC_H
#define GPUCCL_DEVICE_ALLOC_H

#include <cstddef>

#include <cuda_runtime.h>

cudaError_t dev_alloc(void **p, size_t bytes);
void dev_free(void *p);
cudaError_t pinned_alloc(void **p, size_t bytes, unsigned flags);
void pinned_free(void *p);

#endif /* GPUCCL_DEVICE_ALLOC_H */
