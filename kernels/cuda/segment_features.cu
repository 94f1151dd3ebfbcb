/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HA4 features (Alg. 6 of Hennequin et al. 2018): connected component
 * analysis without a label image, for the segment tail (segments mode). A
 * warp takes one bitmask word (32 pixels) at a time, FEAT_ROUNDS of them in
 * turn; only the
 * thread at the start of each segment piece works:
 * it finds the component's dense id and adds the whole piece at once —
 * area = run length, sum of x = phi(x1) - phi(x0 - 1), sum of y = y * area,
 * bounding box by atomic max — into component-sized arrays, through a
 * per-block table in shared memory; the pieces of one component in a word
 * are summed in the warp first. The top row is the root's row, stored by
 * the root itself without an atomic. */
#include "ha4_kernels.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

struct PieceSums {
  uint32_t area, max_x, inv_min_x, max_y;
  unsigned long long sum_x, sum_y;
};

/* Sums into entry i of a set of accumulator arrays (global or shared). */
__device__ __forceinline__ void add_sums(uint32_t *area,
                                         unsigned long long *sum_x,
                                         unsigned long long *sum_y,
                                         uint32_t *max_x, uint32_t *inv_min_x,
                                         uint32_t *max_y, uint32_t i,
                                         const PieceSums &s)
{
  atomicAdd(area + i, s.area);
  atomicAdd(sum_x + i, s.sum_x);
  atomicAdd(sum_y + i, s.sum_y);
  atomicMax(max_x + i, s.max_x);
  atomicMax(inv_min_x + i, s.inv_min_x);
  atomicMax(max_y + i, s.max_y);
}

__device__ __forceinline__ void add_features(const Ha4Features &feat,
                                             uint32_t id, const PieceSums &s)
{
  add_sums(feat.area, feat.sum_x, feat.sum_y, feat.max_x, feat.inv_min_x,
           feat.max_y, id, s);
}

/* Per-block table of the components met in its words (shared memory, open
 * addressing on the dense id): a block adds each piece here and flushes
 * each component once, so the giant component of dense noise takes one set
 * of global atomics per block instead of one per warp. */
#define FEAT_WARPS 8     /* warps per block */
#define FEAT_ROUNDS 16   /* words per warp */
#define FEAT_SLOTS 256   /* table entries; a power of two */
#define FEAT_PROBES 8    /* then the piece goes straight to global memory */
#define FEAT_EMPTY 0xffffffffu

struct FeatTable {
  uint32_t id[FEAT_SLOTS];
  uint32_t area[FEAT_SLOTS], max_x[FEAT_SLOTS], inv_min_x[FEAT_SLOTS],
      max_y[FEAT_SLOTS];
  unsigned long long sum_x[FEAT_SLOTS], sum_y[FEAT_SLOTS];
};

/* Adds s to component id in the table; false when its probes are taken. */
__device__ __forceinline__ bool table_add(FeatTable &t, uint32_t id,
                                          const PieceSums &s)
{
  static_assert(FEAT_SLOTS == 256, "the hash gives 8 bits");
  const uint32_t h = (id * 2654435761u) >> 24; /* Fibonacci hash */
  for (int probe = 0; probe < FEAT_PROBES; probe++) {
    const uint32_t slot = (h + probe) & (FEAT_SLOTS - 1);
    /* Claims an empty slot or finds ours (an atomic: racecheck-clean). */
    const uint32_t key = atomicCAS(t.id + slot, FEAT_EMPTY, id);
    if (key == FEAT_EMPTY || key == id) {
      add_sums(t.area, t.sum_x, t.sum_y, t.max_x, t.inv_min_x, t.max_y, slot,
               s);
      return true;
    }
  }
  return false;
}

__device__ __forceinline__ void piece_add(FeatTable &t, const Ha4Features &feat,
                                          uint32_t id, const PieceSums &s)
{
  if (!table_add(t, id, s))
    add_features(feat, id, s);
}

__global__ void __launch_bounds__(HA4_BLOCK_W * FEAT_WARPS)
    ha4_features(Ha4Frame f, const uint32_t *offset, const uint32_t *rootmask,
                 Ha4Features feat)
{
  static_assert(FEAT_SLOTS == HA4_BLOCK_W * FEAT_WARPS, "one slot a thread");
  __shared__ FeatTable table;
  const int lane = threadIdx.x;
  const int slot = threadIdx.y * HA4_BLOCK_W + lane;
  table.id[slot] = FEAT_EMPTY;
  table.area[slot] = table.max_x[slot] = table.inv_min_x[slot] =
      table.max_y[slot] = 0;
  table.sum_x[slot] = table.sum_y[slot] = 0;
  __syncthreads();

  const int words_per_row = f.words;
  const size_t n_words = (size_t)words_per_row * f.height;
  const size_t first = (size_t)blockIdx.x * FEAT_WARPS * FEAT_ROUNDS;
  const cg::thread_block_tile<32> warp =
      cg::tiled_partition<32>(cg::this_thread_block());
  for (int round = 0; round < FEAT_ROUNDS; round++) {
    const size_t w = first + (size_t)round * FEAT_WARPS + threadIdx.y;
    if (w >= n_words)
      break; /* warp-uniform */
    const uint32_t mask = f.bits[w];
    if (mask == 0)
      continue; /* warp-uniform */
    const int b = lane;
    /* Only the start of each segment piece works. */
    const uint32_t starts = ha4_piece_starts(mask, f.cuts, w);
    const bool start = ha4_bit(starts, b);
    const uint32_t k = (uint32_t)(w * 32 + b);
    const uint32_t y = (uint32_t)(w / words_per_row);
    /* L is compressed by root flags. Pieces of one component in this warp
     * share a root: they form one group (labeled_partition; the idle lanes
     * form one more), whose first lane reads the id (offset and rootmask of
     * a large component are the same few L2 lines for every warp) and adds
     * the group's total to the table — one giant component owns most
     * pieces on dense noise, so this is one table add per warp, not one per
     * piece. */
    const uint32_t root = start ? f.L[k] : 0xffffffffu;
    const cg::coalesced_group same = cg::labeled_partition(warp, root);
    const bool first_lane = same.thread_rank() == 0;
    uint32_t id = 0;
    if (start && first_lane)
      id = ha4_component_id(offset, rootmask, root);
    id = same.shfl(id, 0);
    if (start && root == k)
      feat.first_y[id] = y;
    /* A word is part of one row, so y and the word's first x are shared
     * by its pieces: the group's sums are 32-bit reductions of bit
     * offsets in the word (at most 31, sums at most 496), one warp
     * instruction each on sm_80+ (REDUX), where 64-bit sums of x took
     * a shuffle tree per value and group. */
    const uint32_t x0 = (uint32_t)(w * 32 - (size_t)y * f.pitch);
    const uint32_t count =
        start ? gpuccl_end_distance32(mask & ~starts, b) : 0u;
    const uint32_t area = cg::reduce(same, count, cg::plus<uint32_t>());
    const uint32_t offsets = cg::reduce(
        same, (uint32_t)gpuccl_run_sum((uint32_t)b, count),
        cg::plus<uint32_t>());
    const uint32_t last = cg::reduce(same, start ? b + count - 1 : 0u,
                                     cg::greater<uint32_t>());
    const uint32_t lowest = cg::reduce(same, start ? (uint32_t)b : 0u,
                                       cg::less<uint32_t>());
    if (start && first_lane) {
      PieceSums g;
      g.area = area;
      g.sum_x = (unsigned long long)x0 * area + offsets;
      g.sum_y = (unsigned long long)y * area;
      g.max_x = x0 + last;
      g.inv_min_x = (uint32_t)f.width - 1 - (x0 + lowest);
      g.max_y = y;
      piece_add(table, feat, id, g);
    }
  }

  /* Each component met once: its block totals to global memory. */
  __syncthreads();
  const uint32_t id = table.id[slot];
  if (id != FEAT_EMPTY) {
    PieceSums s;
    s.area = table.area[slot];
    s.sum_x = table.sum_x[slot];
    s.sum_y = table.sum_y[slot];
    s.max_x = table.max_x[slot];
    s.inv_min_x = table.inv_min_x[slot];
    s.max_y = table.max_y[slot];
    add_features(feat, id, s);
  }
}

cudaError_t ha4_launch_features(const Ha4Frame &f, const uint32_t *offset,
                                const uint32_t *rootmask,
                                const Ha4Features &feat, cudaStream_t stream)
{
  const size_t n = (size_t)f.height * f.words;
  const size_t per_block = FEAT_WARPS * FEAT_ROUNDS;
  dim3 block(HA4_BLOCK_W, FEAT_WARPS);
  const unsigned grid = (unsigned)((n + per_block - 1) / per_block);
  ha4_features<<<grid, block, 0, stream>>>(f, offset, rootmask, feat);
  return cudaGetLastError();
}
