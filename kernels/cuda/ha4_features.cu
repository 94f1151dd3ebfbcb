/* HA4 features (Alg. 6 of Hennequin et al. 2018): connected component
 * analysis without a label image. One warp per bitmask word (32 pixels, or
 * 64 with Alg. 7); only the thread at the start of each segment piece works:
 * it finds the component's dense id and adds the whole piece at once —
 * area = run length, sum of x = phi(x1) - phi(x0 - 1), sum of y = y * area,
 * bounding box by atomic max — into component-sized arrays. The top row is
 * the root's row, stored by the root itself without an atomic. */
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

__device__ __forceinline__ void add_features(const Ha4Features &feat,
                                             uint32_t id, const PieceSums &s)
{
  atomicAdd(feat.area + id, s.area);
  atomicAdd(feat.sum_x + id, s.sum_x);
  atomicAdd(feat.sum_y + id, s.sum_y);
  atomicMax(feat.max_x + id, s.max_x);
  atomicMax(feat.inv_min_x + id, s.inv_min_x);
  atomicMax(feat.max_y + id, s.max_y);
}

template <int P>
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    ha4_features(Ha4Frame f, const uint32_t *offset, const uint32_t *rootmask,
                 Ha4Features feat)
{
  typedef typename Ha4Mask<P>::type Mask;
  const int words_per_row = f.words / P;
  const size_t w = (size_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (w >= (size_t)words_per_row * f.height)
    return; /* warp-uniform */
  const Mask mask = ha4_load_mask<P>(f.bits, w);
  if (mask == 0)
    return; /* warp-uniform */
  const int lane = threadIdx.x;
  const int b = ha4_thread_bit(mask, lane);
  /* Only the start of each segment piece works. */
  const Mask starts = ha4_piece_starts<P>(mask, f.cuts, w);
  const bool start = ha4_bit(starts, b);
  const uint32_t k = (uint32_t)(w * 32 * P + b);
  const uint32_t y = (uint32_t)(w / words_per_row);
  uint32_t id = 0xffffffffu;
  PieceSums s = {};
  if (start) {
    const uint32_t root = f.L[k]; /* compressed by root flags */
    id = ha4_component_id(offset, rootmask, root);
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
  /* Pieces of one component in this warp add up here first: on dense
   * noise one giant component owns most pieces, and a single address
   * taking every atomic serialises the whole kernel. Lone pieces go
   * straight to the atomics. */
  const unsigned same = __match_any_sync(HA4_FULL, id);
  const bool lone = __popc(same) == 1;
  if (start && lone)
    add_features(feat, id, s);
  unsigned leaders =
      __ballot_sync(HA4_FULL, start && !lone && lane == __ffs(same) - 1);
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
      add_features(feat, id, g);
  }
}

cudaError_t ha4_launch_features(const Ha4Frame &f, int p,
                                const uint32_t *offset,
                                const uint32_t *rootmask,
                                const Ha4Features &feat, cudaStream_t stream)
{
  const size_t n = (size_t)f.height * (f.words / p);
  dim3 block(HA4_BLOCK_W, 8);
  const unsigned grid = (unsigned)((n + 7) / 8);
  if (p == 2)
    ha4_features<2><<<grid, block, 0, stream>>>(f, offset, rootmask, feat);
  else
    ha4_features<1><<<grid, block, 0, stream>>>(f, offset, rootmask, feat);
  return cudaGetLastError();
}
