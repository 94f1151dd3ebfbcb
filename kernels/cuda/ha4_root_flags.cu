/* Root flags, the first half of compaction to labels 1..N.
 *
 * With HA4 the root of every tree is its smallest segment-start address
 * (merges keep the smaller root), which is the component's first pixel in
 * raster order. So numbering the roots in address order numbers the
 * components in raster order of their first pixel, as the CPU backend
 * does. Here one warp per 32-bit word flags its roots (a bitmask and a
 * count per word); a CUB prefix sum over the counts then gives each word's
 * first id, and a root's id is that plus the roots before it in its word
 * (ha4_component_id). Every piece start also gets L pointed straight at its
 * root, so features and relabeling need a single load. */
#include "ha4_kernels.h"

__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    ha4_root_flags(const uint32_t *bits, const uint32_t *cuts, uint32_t *L,
                   size_t n_words, uint32_t *rootmask, uint32_t *count)
{
  const size_t w = (size_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (w >= n_words) /* warp-uniform */
    return;
  const int i = threadIdx.x;
  const uint32_t mask = bits[w];
  const bool start = (ha4_piece_starts<1>(mask, cuts, w) >> i) & 1u;
  const uint32_t k = (uint32_t)(w * 32 + i);
  /* Pieces of a word mostly share their parent (their tile root, from
   * strip labeling), and every find of a large component ends on the same
   * few L2 lines: one lane per distinct parent walks, the others take its
   * answer. */
  const uint32_t parent = start ? __ldcg(L + k) : 0xffffffffu;
  const unsigned same = __match_any_sync(HA4_FULL, parent);
  const int leader = __ffs(same) - 1;
  uint32_t r = 0;
  if (start && i == leader)
    r = ha4_find(L, parent);
  r = __shfl_sync(HA4_FULL, r, leader);
  if (start && r != k && parent != r)
    L[k] = r; /* straight to the root for features and relabeling */
  const bool root = start && r == k;
  const uint32_t roots = __ballot_sync(HA4_FULL, root);
  if (i == 0) {
    rootmask[w] = roots;
    count[w] = __popc(roots);
  }
}

cudaError_t ha4_launch_root_flags(const Ha4Frame &f, uint32_t *rootmask,
                                  uint32_t *count, cudaStream_t stream)
{
  const size_t n_words = (size_t)f.height * f.words;
  dim3 block(HA4_BLOCK_W, 8);
  ha4_root_flags<<<(unsigned)((n_words + 7) / 8), block, 0, stream>>>(
      f.bits, f.cuts, f.L, n_words, rootmask, count);
  return cudaGetLastError();
}
