/* HA4 features (Alg. 6 of Hennequin et al. 2018): connected component
 * analysis without a label image. One warp per bitmask word (32 pixels, or
 * 64 with Alg. 7); only the thread at the start of each segment piece works:
 * it finds the component's dense id and adds the whole piece at once —
 * area = run length, sum of x = phi(x1) - phi(x0 - 1), sum of y = y * area,
 * bounding box by atomic max — into component-sized arrays. The top row is
 * the root's row, stored by the root itself without an atomic. */
#include "ha4_kernels.h"

template <int P>
__global__ void __launch_bounds__(HA4_BLOCK_W * 8)
    ha4_features(Ha4Frame f, const uint32_t *offset, const uint32_t *rootmask,
                 Ha4Features feat)
{
  typedef typename Ha4Mask<P>::type Mask;
  const int words_per_row = f.words / P;
  const size_t w = (size_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (w >= (size_t)words_per_row * f.height)
    return;
  const Mask mask = ha4_load_mask<P>(f.bits, w);
  if (mask == 0)
    return;
  const int b = ha4_thread_bit(mask, threadIdx.x);
  if (!ha4_bit(mask, b) || (b > 0 && ha4_bit(mask, b - 1)))
    return; /* not the start of a piece */
  const uint32_t k = (uint32_t)(w * 32 * P + b);
  const uint32_t root = f.L[k]; /* compressed by root flags */
  const uint32_t id = ha4_component_id(offset, rootmask, root);
  const uint32_t y = (uint32_t)(w / words_per_row);
  const uint32_t x = k - y * f.pitch;
  const uint32_t count = ha4_end_distance(mask, b);
  atomicAdd(feat.area + id, count);
  atomicAdd(feat.sum_x + id, (unsigned long long)gpuccl_run_sum(x, count));
  atomicAdd(feat.sum_y + id, (unsigned long long)y * count);
  atomicMax(feat.max_x + id, x + count - 1);
  atomicMax(feat.inv_min_x + id, (uint32_t)f.width - 1 - x);
  atomicMax(feat.max_y + id, y);
  if (root == k)
    feat.first_y[id] = y;
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
