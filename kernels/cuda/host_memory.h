/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host memory that frames arrive in, seen from the device.
 *
 * The pinned blocks of gpuccl_host_alloc() are known process-wide, not
 * only to the context that pinned them: an application (or the element's
 * buffer pool) allocates with one context and labels with another, and a
 * frame in a mapped block must still be read in place. Blocks are pinned
 * portable, so every CUDA context of the process may read them, and with
 * unified addressing a mapped block's device view is the same in each. */
#ifndef GPUCCL_HOST_MEMORY_H
#define GPUCCL_HOST_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Record a block pinned for `owner` (dev: its device view when mapped, else
 * NULL). false: out of memory for the record. */
bool gpuccl_host_block_add(const void *owner, uint8_t *ptr, size_t size,
                           uint8_t *dev);
/* Forget owner's block at ptr: true when it was one (the caller frees it). */
bool gpuccl_host_block_remove(const void *owner, const void *ptr);
/* Forget one of owner's blocks and return it, NULL when none is left. */
void *gpuccl_host_block_take(const void *owner);
/* Whether p lies in a recorded block; *dev: the device view of p when the
 * block is mapped, else NULL. */
bool gpuccl_host_block_find(const void *p, const uint8_t **dev);

/* Test hook (cuda_internal.h): a frame's host-to-device copy, counted. */
void gpuccl_cuda_count_frame_upload(void);

#endif /* GPUCCL_HOST_MEMORY_H */
