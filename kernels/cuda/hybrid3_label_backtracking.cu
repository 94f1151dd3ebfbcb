/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HYBRID3's label backtracking iteration (LB; HYBRID3 after Soh et al., Sec.
 * 3.2): each foreground pixel follows LABEL(LABEL(...)) until a label is
 * its own, and takes that. Labels only ever point at smaller addresses of
 * the same component, so the walk ends. */
#include "block_mask.cuh"

__global__ void hybrid3_label_backtracking(Ha4Frame f, Forest g)
{
  int x, y;
  uint32_t k;
  if (!block_of_thread(g, &x, &y, &k) || !pixel_fg(f, x, y))
    return;
  const uint32_t own = __ldcg(g.parent + k);
  const uint32_t r = ha4_find(g.parent, own);
  if (r != own) {
    g.parent[k] = r;
    g.loop->moved = 1;
  }
}

cudaError_t hybrid3_launch_label_backtracking(const Ha4Frame &f,
                                              const Forest &g,
                                              cudaStream_t stream)
{
  hybrid3_label_backtracking<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(f,
                                                                         g);
  return cudaGetLastError();
}
