/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Root flags, the first half of compaction to labels 1..N.
 *
 * With HA4 the root of every tree is its smallest segment-start address
 * (merges keep the smaller root), which is the component's first pixel in
 * raster order. So numbering the roots in address order numbers the
 * components in raster order of their first pixel, as the CPU backend
 * does. Here each 32-bit word gets its roots flagged (a bitmask and a
 * count per word); a CUB prefix sum over the counts then gives each word's
 * first id, and a root's id is that plus the roots before it in its word
 * (ha4_component_id). Every piece start also gets L pointed straight at its
 * root, so features and relabeling need a single load. */
#include "ha4_kernels.h"

#define ROOT_WARPS 8 /* warps per block */
#define ROOT_WORDS 4 /* consecutive words per warp */

/* A warp takes ROOT_WORDS words and issues each step's loads for all of
 * them before waiting (masks, then parents, then the parents' parents):
 * the kernel is a chain of dependent loads per word, and one word per
 * warp left most of its time waiting on one chain at a time. */
__global__ void __launch_bounds__(HA4_BLOCK_W *ROOT_WARPS)
    ha4_root_flags(const uint32_t *bits, const uint32_t *cuts, uint32_t *L,
                   size_t n_words, uint32_t *rootmask, uint32_t *count)
{
  const size_t w0 =
      ((size_t)blockIdx.x * ROOT_WARPS + threadIdx.y) * ROOT_WORDS;
  if (w0 >= n_words) /* warp-uniform */
    return;
  const int i = threadIdx.x;
  uint32_t mask[ROOT_WORDS];
#pragma unroll
  for (int j = 0; j < ROOT_WORDS; j++)
    mask[j] = w0 + j < n_words ? bits[w0 + j] : 0u;
  bool start[ROOT_WORDS];
  uint32_t parent[ROOT_WORDS];
#pragma unroll
  for (int j = 0; j < ROOT_WORDS; j++) {
    start[j] = mask[j] &&
               ((ha4_piece_starts(mask[j], cuts, w0 + j) >> i) & 1u);
    const uint32_t k = (uint32_t)((w0 + j) * 32 + i);
    parent[j] = start[j] ? __ldcg(L + k) : 0xffffffffu;
  }
  /* Pieces of a word mostly share their parent (their tile root, from
   * strip labeling), and every find of a large component ends on the same
   * few L2 lines: one lane per distinct parent walks, the others take its
   * answer. The first step of every walk is loaded before any walk goes
   * on. */
  int leader[ROOT_WORDS];
  uint32_t next[ROOT_WORDS];
#pragma unroll
  for (int j = 0; j < ROOT_WORDS; j++) {
    leader[j] = __ffs(__match_any_sync(HA4_FULL, parent[j])) - 1;
    next[j] = start[j] && i == leader[j] ? __ldcg(L + parent[j]) : parent[j];
  }
  uint32_t mine = 0, mine_count = 0;
#pragma unroll
  for (int j = 0; j < ROOT_WORDS; j++) {
    uint32_t r = parent[j];
    if (start[j] && i == leader[j] && next[j] != r)
      r = ha4_find(L, next[j]);
    r = __shfl_sync(HA4_FULL, r, leader[j]);
    const uint32_t k = (uint32_t)((w0 + j) * 32 + i);
    if (start[j] && r != k && parent[j] != r)
      L[k] = r; /* straight to the root for features and relabeling */
    const uint32_t roots = __ballot_sync(HA4_FULL, start[j] && r == k);
    if (i == j) {
      mine = roots;
      mine_count = __popc(roots);
    }
  }
  /* Lanes 0..ROOT_WORDS-1 write the words' flags: one store each. */
  if (i < ROOT_WORDS && w0 + i < n_words) {
    rootmask[w0 + i] = mine;
    count[w0 + i] = mine_count;
  }
}

cudaError_t ha4_launch_root_flags(const Ha4Frame &f, uint32_t *rootmask,
                                  uint32_t *count, cudaStream_t stream)
{
  const size_t n_words = (size_t)f.height * f.words;
  const size_t per_block = ROOT_WARPS * ROOT_WORDS;
  dim3 block(HA4_BLOCK_W, ROOT_WARPS);
  ha4_root_flags<<<(unsigned)((n_words + per_block - 1) / per_block), block,
                   0, stream>>>(f.bits, f.cuts, f.L, n_words, rootmask,
                                count);
  return cudaGetLastError();
}
