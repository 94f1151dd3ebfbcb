/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process-wide record of pinned host blocks: see host_memory.h. A few
 * blocks per buffer pool, so a list under one lock serves. */
#include "host_memory.h"

#include <atomic>
#include <mutex>
#include <new>

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
