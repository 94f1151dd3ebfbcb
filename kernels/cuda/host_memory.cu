/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process-wide record of pinned host blocks: see host_memory.h. A few
 * blocks per buffer pool, so a list under one lock serves. */
#include "host_memory.h"

#include <atomic>
#include <mutex>
#include <new>

#include "cuda_context.h"
#include "cuda_internal.h"

namespace {

struct Block {
  const void *owner;
  uint8_t *ptr, *dev;
  size_t size;
  Block *next;
};

std::mutex lock;
Block *blocks;
std::atomic<uint64_t> frame_uploads(0);

} // namespace

bool gpuccl_host_block_add(const void *owner, uint8_t *ptr, size_t size,
                           uint8_t *dev)
{
  Block *b = new (std::nothrow) Block{owner, ptr, dev, size, nullptr};
  if (!b)
    return false;
  std::lock_guard<std::mutex> hold(lock);
  b->next = blocks;
  blocks = b;
  return true;
}

bool gpuccl_host_block_remove(const void *owner, const void *ptr)
{
  std::lock_guard<std::mutex> hold(lock);
  for (Block **pb = &blocks; *pb; pb = &(*pb)->next) {
    if ((*pb)->owner == owner && (*pb)->ptr == ptr) {
      Block *b = *pb;
      *pb = b->next;
      delete b;
      return true;
    }
  }
  return false;
}

void *gpuccl_host_block_take(const void *owner)
{
  std::lock_guard<std::mutex> hold(lock);
  for (Block **pb = &blocks; *pb; pb = &(*pb)->next) {
    if ((*pb)->owner == owner) {
      Block *b = *pb;
      void *ptr = b->ptr;
      *pb = b->next;
      delete b;
      return ptr;
    }
  }
  return nullptr;
}

bool gpuccl_host_block_find(const void *p, const uint8_t **dev)
{
  const uint8_t *q = static_cast<const uint8_t *>(p);
  std::lock_guard<std::mutex> hold(lock);
  for (const Block *b = blocks; b; b = b->next) {
    if (q >= b->ptr && q < b->ptr + b->size) {
      *dev = b->dev ? b->dev + (q - b->ptr) : nullptr;
      return true;
    }
  }
  return false;
}

void gpuccl_cuda_count_frame_upload(void)
{
  frame_uploads.fetch_add(1, std::memory_order_relaxed);
}

extern "C" uint64_t gpuccl_cuda_frame_uploads(void)
{
  return frame_uploads.load(std::memory_order_relaxed);
}

namespace {

/* The owner of blocks pinned without a context (gpuccl_host_alloc_on). */
const char no_context = 0;

/* Pin a block on the current CUDA context for `owner` and record it. */
void *pin_block(const void *owner, bool integrated, size_t size,
                GpucclMemory memory, GpucclError *error)
{
  if (memory == GPUCCL_MEMORY_AUTO)
    memory = integrated ? GPUCCL_MEMORY_MAPPED : GPUCCL_MEMORY_COPY;
  const bool mapped = memory == GPUCCL_MEMORY_MAPPED;
  uint8_t *ptr = nullptr, *dev = nullptr;
  cudaError_t err = pinned_alloc((void **)&ptr, size,
                                 cudaHostAllocPortable |
                                     (mapped ? cudaHostAllocMapped : 0u));
  if (err == cudaSuccess && mapped)
    err = cudaHostGetDevicePointer((void **)&dev, ptr, 0);
  if (err == cudaSuccess && !gpuccl_host_block_add(owner, ptr, size, dev))
    err = cudaErrorMemoryAllocation;
  if (err != cudaSuccess) {
    pinned_free(ptr);
    cuda_fail(nullptr, error, err, "pinned host allocation");
    return nullptr;
  }
  return ptr;
}

} // namespace

/* gpuccl_host_alloc / gpuccl_host_free on a CUDA context. */
/* Pinned portable, so that a context of another CUDA context (an
 * allocator's beside a labeling one) may read it too; recorded
 * process-wide (host_memory.h). */
void *cuda_host_alloc(GpucclContext *ctx, size_t size,
                      GpucclMemory memory, GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  if (scope.err != cudaSuccess) {
    cuda_fail(nullptr, error, scope.err, "pinned host allocation");
    return nullptr;
  }
  return pin_block(c, c->integrated, size, memory, error);
}

void cuda_host_free(GpucclContext *ctx, void *ptr)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  if (!gpuccl_host_block_remove(c, ptr))
    return;
  GpucclCudaScope scope(c->cu_context, c->device);
  /* A frame may still read it in place. */
  cudaStreamSynchronize(c->stream);
  pinned_free(ptr);
}

/* gpuccl_host_alloc_on: the device's primary context, no GpucclContext.
 * The blocks are portable, so any context reads them as it reads a
 * context's own. */
void *gpuccl_cuda_host_alloc_on(int device_id, size_t size,
                                GpucclMemory memory, GpucclError *error)
{
  GpucclCudaScope scope(nullptr, device_id);
  int integrated = 0;
  cudaError_t err = scope.err;
  if (err == cudaSuccess && memory == GPUCCL_MEMORY_AUTO)
    err = cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated,
                                 device_id);
  if (err != cudaSuccess) {
    cuda_fail(nullptr, error, err, "pinned host allocation");
    return nullptr;
  }
  return pin_block(&no_context, integrated != 0, size, memory, error);
}

bool gpuccl_cuda_host_release(void *ptr)
{
  if (!gpuccl_host_block_remove(&no_context, ptr))
    return false;
  /* The caller knows no call reads it any more (gpuccl.h); freeing pinned
   * memory waits for the device anyway. */
  pinned_free(ptr);
  return true;
}
