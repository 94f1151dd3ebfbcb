/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BKE Initialization (Allegretti et al. 2019, Sec. 5.2): each 2x2 block is
 * linked to its connected neighbour of smallest index (P < Q < R < S), so
 * trees exist before any union; the other connected neighbours are noted
 * in the information byte (Table 1: bits 0-3 the block's pixels, 5-7 Q, R,
 * S must undergo Union) for Reduction. Kept in its own byte array rather
 * than in the output image: here the output is the segment forest. */
#include "block_mask.cuh"

__global__ void bke_initialization(Ha4Frame f, Forest g)
{
  int bx, by;
  uint32_t b;
  if (!block_of_thread(g, &bx, &by, &b))
    return;
  const uint32_t sq = block_square(f, 2 * bx, 2 * by);
  const unsigned links = block_links(sq);
  unsigned info = ((sq >> 5) & 1u) | ((sq >> 6) & 1u) << 1 |
                  ((sq >> 9) & 1u) << 2 | ((sq >> 10) & 1u) << 3;
  uint32_t parent = b;
  if (links) {
    const int n = __ffs(links) - 1;
    parent = block_neighbour(g, b, n);
    info |= (links & ~(1u << n)) << 4; /* Q, R, S -> bits 5, 6, 7 */
  }
  g.parent[b] = parent;
  g.info[b] = (uint8_t)info;
}

cudaError_t bke_launch_initialization(const Ha4Frame &f, const Forest &g,
                                      cudaStream_t stream)
{
  bke_initialization<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(f, g);
  return cudaGetLastError();
}
