/* HA4 features (Alg. 6 of Hennequin et al. 2018): connected component
 * analysis without a label image. A warp takes one bitmask word (32 pixels,
 * or 64 with Alg. 7) at a time, FEAT_ROUNDS of them in turn; only the
 * thread at the start of each segment piece works:
 * it finds the component's dense id and adds the whole piece at once —
 * area = run length, sum of x = phi(x1) - phi(x0 - 1), sum of y = y * area,
 * bounding box by atomic max — into component-sized arrays, through a
 * per-block table in shared memory. The top row is the root's row, stored by
 * the root itself without an atomic. */
#include "ha4_kernels.h"

/* Warp sums and maxima over the lanes that pass a value (others pass 0). */
__device__ __forceinline__ uint32_t warp_sum(uint32_t v)
{
  for (int o = 16; o; o >>= 1)
    v += __shfl_xor_sync(HA4_FULL, v, o);
  return v;
}
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
  for (int o = 16; o; o >>= 1)
    v += __shfl_xor_sync(HA4_FULL, v, o);
  return v;
}
__device__ __forceinline__ uint32_t warp_max(uint32_t v)
{
  for (int o = 16; o; o >>= 1)
    v = max(v, __shfl_xor_sync(HA4_FULL, v, o));
  return v;
}

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

template <int P>
__global__ void __launch_bounds__(HA4_BLOCK_W * FEAT_WARPS)
    ha4_features(Ha4Frame f, const uint32_t *offset, const uint32_t *rootmask,
                 Ha4Features feat)
{
  typedef typename Ha4Mask<P>::type Mask;
  static_assert(FEAT_SLOTS == HA4_BLOCK_W * FEAT_WARPS, "one slot a thread");
  __shared__ FeatTable table;
  const int lane = threadIdx.x;
  const int slot = threadIdx.y * HA4_BLOCK_W + lane;
  table.id[slot] = FEAT_EMPTY;
  table.area[slot] = table.max_x[slot] = table.inv_min_x[slot] =
      table.max_y[slot] = 0;
  table.sum_x[slot] = table.sum_y[slot] = 0;
  __syncthreads();

  const int words_per_row = f.words / P;
  const size_t n_words = (size_t)words_per_row * f.height;
  const size_t first = (size_t)blockIdx.x * FEAT_WARPS * FEAT_ROUNDS;
  for (int round = 0; round < FEAT_ROUNDS; round++) {
    const size_t w = first + (size_t)round * FEAT_WARPS + threadIdx.y;
    if (w >= n_words)
      break; /* warp-uniform */
    const Mask mask = ha4_load_mask<P>(f.bits, w);
    if (mask == 0)
      continue; /* warp-uniform */
    const int b = ha4_thread_bit(mask, lane);
    /* Only the start of each segment piece works. */
    const Mask starts = ha4_piece_starts<P>(mask, f.cuts, w);
    const bool start = ha4_bit(starts, b);
    const uint32_t k = (uint32_t)(w * 32 * P + b);
    const uint32_t y = (uint32_t)(w / words_per_row);
    /* L is compressed by root flags. Pieces of one component in this warp
     * share a root: one lane reads the id (offset and rootmask of a large
     * component are the same few L2 lines for every warp), and the lanes
     * of each component add up here first (below) — one giant component
     * owns most pieces on dense noise. */
    const uint32_t root = start ? f.L[k] : 0xffffffffu;
    const unsigned same = __match_any_sync(HA4_FULL, root);
    const int reader = __ffs(same) - 1;
    uint32_t id = 0;
    if (start && lane == reader)
      id = ha4_component_id(offset, rootmask, root);
    id = __shfl_sync(HA4_FULL, id, reader);
    PieceSums s = {};
    if (start) {
      const uint32_t x = k - y * f.pitch;
      const uint32_t count = ha4_end_distance(mask & ~starts, b);
      s.area = count;
      s.sum_x = gpuccl_run_sum(x, count);
      s.sum_y = (unsigned long long)y * count;
      s.max_x = x + count - 1;
      s.inv_min_x = (uint32_t)f.width - 1 - x;
      s.max_y = y;
      if (root == k)
        feat.first_y[id] = y;
    }
    /* Lone pieces go straight to the table. */
    const bool lone = __popc(same) == 1;
    if (start && lone)
      piece_add(table, feat, id, s);
    unsigned leaders =
        __ballot_sync(HA4_FULL, start && !lone && lane == reader);
    while (leaders) { /* warp-uniform: one group per round */
      const int leader = __ffs(leaders) - 1;
      leaders &= leaders - 1;
      const bool mine = start && (same >> leader) & 1u;
      PieceSums g;
      g.area = warp_sum(mine ? s.area : 0u);
      g.sum_x = warp_sum(mine ? s.sum_x : 0ull);
      g.sum_y = warp_sum(mine ? s.sum_y : 0ull);
      g.max_x = warp_max(mine ? s.max_x : 0u);
      g.inv_min_x = warp_max(mine ? s.inv_min_x : 0u);
      g.max_y = warp_max(mine ? s.max_y : 0u);
      if (lane == leader)
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

cudaError_t ha4_launch_features(const Ha4Frame &f, int p,
                                const uint32_t *offset,
                                const uint32_t *rootmask,
                                const Ha4Features &feat, cudaStream_t stream)
{
  const size_t n = (size_t)f.height * (f.words / p);
  const size_t per_block = FEAT_WARPS * FEAT_ROUNDS;
  dim3 block(HA4_BLOCK_W, FEAT_WARPS);
  const unsigned grid = (unsigned)((n + per_block - 1) / per_block);
  if (p == 2)
    ha4_features<2><<<grid, block, 0, stream>>>(f, offset, rootmask, feat);
  else
    ha4_features<1><<<grid, block, 0, stream>>>(f, offset, rootmask, feat);
  return cudaGetLastError();
}
