/* The adapter from any algorithm's equivalence forest to HA4's segment
 * forest (see forest_kernels.h), in two kernels of one warp per bitmask
 * word.
 *
 * HA4's root flags number a component by its root, which must be its first
 * pixel in raster order. A forest root of BUF/BKE is the smallest block
 * index, not necessarily the block of the first pixel (that pixel may sit
 * in a block's bottom row, right of a block whose top row starts the
 * component lower). So the first pixel is found explicitly: only a pixel
 * with no foreground neighbour before it in raster order (left, and the
 * row above) can be first, and those few candidates take the minimum of
 * their addresses per forest root. Then every piece start points at it,
 * and it at itself (it is a piece start: its left neighbour is clear). */
#include "forest_kernels.h"

__device__ __forceinline__ uint32_t forest_root(const Forest &g, int x, int y)
{
  return ha4_find(g.parent,
                  (uint32_t)((y >> g.shift) * g.fpitch + (x >> g.shift)));
}

/* Adapter 1: candidates for the first pixel. */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_first_pixel(Ha4Frame f, Forest g)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const size_t w = (size_t)y * f.words + word;
  const uint32_t m = f.bits[w];
  if (!((m >> i) & 1u))
    return;
  const bool left = i > 0 ? (m >> (i - 1)) & 1u
                          : word > 0 && (f.bits[w - 1] >> 31);
  if (left)
    return;
  if (y > 0) {
    const uint32_t u = f.bits[w - f.words];
    if ((u >> i) & 1u)
      return;
    if (f.conn8) {
      const bool ul = i > 0 ? (u >> (i - 1)) & 1u
                            : word > 0 && (f.bits[w - f.words - 1] >> 31);
      const bool ur = i < 31 ? (u >> (i + 1)) & 1u
                             : word + 1 < f.words &&
                                   (f.bits[w - f.words + 1] & 1u);
      if (ul || ur)
        return;
    }
  }
  const int x = word * 32 + i;
  atomicMin(g.first + forest_root(g, x, y), (uint32_t)y * f.pitch + x);
}

/* Adapter 2: L at every piece start (a set bit whose left neighbour in its
 * 32-bit word is clear, as HA4's strip labeling writes them). */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_segment_links(Ha4Frame f, Forest g)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const uint32_t m = f.bits[(size_t)y * f.words + word];
  if (!((m >> i) & 1u) || (i > 0 && ((m >> (i - 1)) & 1u)))
    return;
  const int x = word * 32 + i;
  f.L[(uint32_t)y * f.pitch + x] = g.first[forest_root(g, x, y)];
}

static dim3 word_grid(const Ha4Frame &f)
{
  return dim3((f.words + 7) / 8, f.height);
}

cudaError_t forest_launch_first_pixel(const Ha4Frame &f, const Forest &g,
                                      cudaStream_t stream)
{
  forest_first_pixel<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(f, g);
  return cudaGetLastError();
}

cudaError_t forest_launch_segment_links(const Ha4Frame &f, const Forest &g,
                                        cudaStream_t stream)
{
  forest_segment_links<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(f,
                                                                          g);
  return cudaGetLastError();
}
