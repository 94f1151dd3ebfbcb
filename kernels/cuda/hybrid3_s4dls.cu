/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HYBRID3's S4DLS iteration (HYBRID3 after Soh et al., Alg. 1): each
 * foreground pixel searches its upper group of directions (W, NW, N, NE;
 * W and N when 4-connected) for the smallest label, walking each direction
 * until background; only when that finds nothing smaller than its own label
 * does it search the lower group (E, SE, S, SW). We read "no minimum found"
 * as "no smaller label": read as "no upper neighbour", a fixed point can
 * keep two labels in one component (an arm hanging below a pixel that
 * never looks down). Walks stop after H3_REACH pixels (the paper walks to
 * the background: on a solid 2048-wide image that is ~10^10 loads per
 * iteration); any reach >= 1 keeps the fixed point exact. */
#include "block_mask.cuh"

#define H3_REACH 16

__device__ __forceinline__ uint32_t h3_walk(const Ha4Frame &f,
                                            const uint32_t *label, int x,
                                            int y, int dx, int dy, uint32_t m)
{
  for (int s = 0; s < H3_REACH; s++) {
    x += dx;
    y += dy;
    if (!pixel_fg(f, x, y))
      break;
    m = min(m, __ldcg(label + pixel_node(f, x, y)));
  }
  return m;
}

__global__ void hybrid3_s4dls(Ha4Frame f, Forest g)
{
  int x, y;
  uint32_t k;
  if (!block_of_thread(g, &x, &y, &k) || !pixel_fg(f, x, y))
    return;
  const uint32_t own = __ldcg(g.parent + k);
  uint32_t m = h3_walk(f, g.parent, x, y, -1, 0, own);
  m = h3_walk(f, g.parent, x, y, 0, -1, m);
  if (f.conn8) {
    m = h3_walk(f, g.parent, x, y, -1, -1, m);
    m = h3_walk(f, g.parent, x, y, 1, -1, m);
  }
  if (m >= own) {
    m = h3_walk(f, g.parent, x, y, 1, 0, m);
    m = h3_walk(f, g.parent, x, y, 0, 1, m);
    if (f.conn8) {
      m = h3_walk(f, g.parent, x, y, 1, 1, m);
      m = h3_walk(f, g.parent, x, y, -1, 1, m);
    }
  }
  if (m < own) {
    g.parent[k] = m;
    g.loop->moved = 1;
  }
}

cudaError_t hybrid3_launch_s4dls(const Ha4Frame &f, const Forest &g,
                                 cudaStream_t stream)
{
  hybrid3_s4dls<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(f, g);
  return cudaGetLastError();
}
