/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Instances of a frame's (or a batch's) CUDA graph, kept for the last keys
 * they ran. A key holds everything the captured kernels depend on, the
 * images' addresses among them, so a pool of device frames taken in turn
 * (GstCudaMemory buffers) gives every address a key of its own: with an
 * instance each, a frame at a known address captures and updates nothing,
 * where one instance would be captured again and updated at every frame
 * (several µs of host time, more after an idle gap:
 * docs/gpu-host/host-path-h100.txt). */
#ifndef GPUCCL_GRAPH_INSTANCES_H
#define GPUCCL_GRAPH_INSTANCES_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

struct GraphInstance {
  cudaGraphExec_t exec = nullptr;
  std::vector<unsigned char> key; /* the bytes it was captured for */
  uint64_t used = 0;              /* when it last ran */

  /* The key, as the T[] it was made of. */
  template <typename T> const T *key_as() const
  {
    return reinterpret_cast<const T *>(key.data());
  }
  template <typename T> size_t key_count() const
  {
    return key.size() / sizeof(T);
  }
};

class GraphInstances {
public:
  static constexpr int KEPT = 16;

  GraphInstances() = default;
  GraphInstances(const GraphInstances &) = delete;
  GraphInstances &operator=(const GraphInstances &) = delete;
  ~GraphInstances() { clear(); }

  /* The instance that ran these key bytes, marked as used now; NULL when
   * none did. */
  GraphInstance *find(const void *key, size_t bytes)
  {
    for (GraphInstance &g : slots_)
      if (g.exec && g.key.size() == bytes &&
          memcmp(g.key.data(), key, bytes) == 0) {
        g.used = ++clock_;
        return &g;
      }
    return nullptr;
  }

  /* Where a new key goes: an empty slot, else the least recently used
   * instance (which the caller updates in place or replaces). */
  GraphInstance *spare()
  {
    GraphInstance *lru = &slots_[0];
    for (GraphInstance &g : slots_) {
      if (!g.exec)
        return &g;
      if (g.used < lru->used)
        lru = &g;
    }
    return lru;
  }

  /* g now runs these key bytes; false (g dropped) when out of memory:
   * nothing may throw through the C callers. */
  bool keep(GraphInstance *g, const void *key, size_t bytes)
  {
    const unsigned char *k = static_cast<const unsigned char *>(key);
    try {
      g->key.assign(k, k + bytes);
    } catch (...) {
      drop(g);
      return false;
    }
    g->used = ++clock_;
    return true;
  }

  /* g runs `graph` (the caller's), captured for these key bytes: updated
   * in place when the caller knows the shapes match, else instantiated
   * afresh (an update that fails is not an error: compute-sanitizer
   * would report a failed call, so only a likely one is tried). */
  cudaError_t install(GraphInstance *g, cudaGraph_t graph, bool same_shape,
                      const void *key, size_t bytes)
  {
    if (same_shape && g->exec) {
      cudaGraphExecUpdateResultInfo info;
      if (cudaGraphExecUpdate(g->exec, graph, &info) == cudaSuccess)
        return keep(g, key, bytes) ? cudaSuccess : cudaErrorMemoryAllocation;
      cudaGetLastError();
    }
    drop(g);
    const cudaError_t err = cudaGraphInstantiate(&g->exec, graph, 0);
    if (err != cudaSuccess) {
      g->exec = nullptr;
      return err;
    }
    return keep(g, key, bytes) ? cudaSuccess : cudaErrorMemoryAllocation;
  }

  static void drop(GraphInstance *g)
  {
    if (g->exec)
      cudaGraphExecDestroy(g->exec);
    g->exec = nullptr;
    g->key.clear();
  }

  void clear()
  {
    for (GraphInstance &g : slots_)
      drop(&g);
  }

private:
  GraphInstance slots_[KEPT];
  uint64_t clock_ = 0;
};

#endif /* GPUCCL_GRAPH_INSTANCES_H */
