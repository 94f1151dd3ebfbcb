/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Compression of BUF and BKE (Allegretti et al. 2019, Alg. 1 Compress and
 * InlineCompress): every block points straight at its root. The IC
 * variant writes each ancestor it passes, so threads reading that block
 * meanwhile take the shortcut. Concurrent writers only ever replace a
 * parent by one of its ancestors, so the forest stays valid. */
#include "block_mask.cuh"

template <bool IC> __global__ void buf_compression(Forest g)
{
  int bx, by;
  uint32_t b;
  if (!block_of_thread(g, &bx, &by, &b))
    return;
  uint32_t a = __ldcg(g.parent + b);
  if (IC) {
    uint32_t n;
    while (a != (n = __ldcg(g.parent + a))) {
      a = n;
      g.parent[b] = a;
    }
  } else {
    const uint32_t r = ha4_find(g.parent, a);
    if (r != a)
      g.parent[b] = r;
  }
}

cudaError_t buf_launch_compression(const Forest &g, bool inline_compress,
                                   cudaStream_t stream)
{
  if (inline_compress)
    buf_compression<true><<<block_grid(g), BLOCK_THREADS, 0, stream>>>(g);
  else
    buf_compression<false><<<block_grid(g), BLOCK_THREADS, 0, stream>>>(g);
  return cudaGetLastError();
}
