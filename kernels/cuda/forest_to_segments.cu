/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adapters from an algorithm's equivalence forest to what the tails
 * read (see forest_kernels.h): adapter 1 gives every root of a block
 * forest (BUF, BKE; binary frames, whose tail is forest_tiles.h) its
 * component's first pixel; adapters 2 and 3 serve segments mode, whose
 * forest (Stava-Benes') is a pixel forest.
 *
 * The tails number a component by its first pixel in raster order. Every
 * link points at a smaller address, so a pixel forest's root is that
 * pixel. A block forest's root (BUF/BKE) is the smallest block index, not
 * necessarily the block of the first pixel (that pixel may sit in a
 * block's bottom row, right of a block whose top row starts the component
 * lower). So adapter 1 finds the first pixel explicitly: only a pixel with
 * no foreground neighbour before it in raster order (left, and the row
 * above) can be first, and those few candidates take the minimum of their
 * addresses per forest root. In segments mode adapter 2 points every piece
 * start at its root, and the root at itself (it is a piece start).
 *
 * Segments mode: neighbours connect only with equal values
 * (forest_values.cuh), pieces also start at the cuts (ha4_common.cuh), and
 * Adapter 3 gives each component its value once the ids are known. */
#include "forest_values.cuh"

__device__ __forceinline__ uint32_t forest_root(const Forest &g, int x, int y)
{
  return ha4_find(g.parent,
                  (uint32_t)((y >> g.shift) * g.fpitch + (x >> g.shift)));
}

/* A candidate (x, y) for its component's first pixel. Blocks start in
 * raster order, so the candidates of a large component mostly find an
 * earlier pixel of it there already and leave the word alone: on dense
 * noise the giant component's candidates would queue 10^5 atomics on one
 * address. Values only fall, so a read no larger than `at` settles it. */
__device__ __forceinline__ void propose_first(const Ha4Frame &f,
                                              const Forest &g, int x, int y)
{
  uint32_t *first = g.first + forest_root(g, x, y);
  const uint32_t at = (uint32_t)y * f.pitch + x;
  if (*first > at) /* stale in L1 is larger: one atomic more, no harm */
    atomicMin(first, at);
}

/* Adapter 1: candidates for the first pixel from the bitmask, a word a
 * thread: set bits whose left neighbour (and above, and 8-connected above
 * left and right) is clear. Bits beyond the image are clear
 * (forest_bitmask). */
constexpr int FIRST_WORDS_THREADS = 256;

__global__ void __launch_bounds__(FIRST_WORDS_THREADS)
    forest_first_pixel_words(Ha4Frame f, Forest g)
{
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)f.height * f.words)
    return;
  const int y = (int)(i / f.words), k = (int)(i % f.words);
  const uint32_t *row = f.bits + (size_t)y * f.words;
  const uint32_t B = row[k];
  if (!B)
    return;
  const bool left = k > 0, right = k + 1 < f.words;
  uint32_t clear = ~(B << 1 | (left ? row[k - 1] >> 31 : 0u));
  if (y > 0) {
    const uint32_t *up = row - f.words, A = up[k];
    clear &= ~A;
    if (f.conn8)
      clear &= ~(A << 1 | (left ? up[k - 1] >> 31 : 0u)) &
               ~(A >> 1 | (right ? up[k + 1] << 31 : 0u));
  }
  for (uint32_t m = B & clear; m; m &= m - 1)
    propose_first(f, g, 32 * k + __ffs(m) - 1, y);
}

/* Adapter 2: L at every piece start (a set bit whose left neighbour in its
 * 32-bit word is clear, as HA4's strip labeling writes them, or a cut). */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_segment_links(Ha4Frame f, Forest g)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const size_t w = (size_t)y * f.words + word;
  if (!((ha4_piece_starts(f.bits[w], f.cuts, w) >> i) & 1u))
    return;
  const int x = word * 32 + i;
  f.L[(uint32_t)y * f.pitch + x] = forest_root(g, x, y);
}

/* Adapter 3 (segments mode, after the root flags and the id scan): each
 * root, the first pixel of its component, writes the component's value at
 * its dense id, for the blob table. One warp per bitmask word. */
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    forest_segment_values(Ha4Frame f, const uint32_t *offset,
                          const uint32_t *rootmask, uint32_t *value)
{
  const int word = blockIdx.x * blockDim.y + threadIdx.y;
  const int y = blockIdx.y, i = threadIdx.x;
  if (word >= f.words)
    return;
  const size_t w = (size_t)y * f.words + word;
  if (!((rootmask[w] >> i) & 1u))
    return;
  const uint32_t root = (uint32_t)(w * 32 + i);
  value[ha4_component_id(offset, rootmask, root)] =
      forest_sample_value(f, word * 32 + i, y);
}

static dim3 word_grid(const Ha4Frame &f)
{
  return dim3((f.words + 7) / 8, f.height);
}

cudaError_t forest_launch_first_pixel(const Ha4Frame &f, const Forest &g,
                                      cudaStream_t stream)
{
  const size_t words = (size_t)f.height * f.words;
  const unsigned blocks =
      (unsigned)((words + FIRST_WORDS_THREADS - 1) / FIRST_WORDS_THREADS);
  forest_first_pixel_words<<<blocks, FIRST_WORDS_THREADS, 0, stream>>>(f, g);
  return cudaGetLastError();
}

cudaError_t forest_launch_segment_links(const Ha4Frame &f, const Forest &g,
                                        cudaStream_t stream)
{
  forest_segment_links<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(f,
                                                                          g);
  return cudaGetLastError();
}

cudaError_t forest_launch_segment_values(const Ha4Frame &f,
                                         const uint32_t *offset,
                                         const uint32_t *rootmask,
                                         uint32_t *value, cudaStream_t stream)
{
  forest_segment_values<<<word_grid(f), dim3(HA4_BLOCK_W, 8), 0, stream>>>(
      f, offset, rootmask, value);
  return cudaGetLastError();
}
