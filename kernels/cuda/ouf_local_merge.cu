/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OUF Kernel 1, local union-find merge with coarse labeling (Chen et al.
 * 2017): a 32 x 16 tile in shared memory. Row scan and column scan
 * link each foreground pixel to its left, then its upper, neighbour's
 * label (always a smaller index, so a forest); row-column unification
 * shortens the chains; local union-find (shared-memory atomicMin) then
 * joins every left and upper (and, 8-connected, diagonal) pair; the local
 * root becomes a global pixel address. Unlike the paper's scans, each
 * reads its neighbour before anyone writes (a barrier between), so the
 * coarse labels do not depend on thread timing. 8-connectivity (diagonal
 * unions here and across tile borders) is our extension of the paper's
 * 4-connected method. */
#include "block_mask.cuh"

#define OUF_TW 32
#define OUF_TH 16

/* volatile: other threads' atomicMin must be seen on every load. */
__device__ __forceinline__ int ouf_find(const volatile int *lab, int a)
{
  int n;
  while (a != (n = lab[a]))
    a = n;
  return a;
}

/* findAndUnion in shared memory: the smaller root wins. */
__device__ __forceinline__ void ouf_union(volatile int *lab, int a, int b)
{
  a = ouf_find(lab, a);
  b = ouf_find(lab, b);
  while (a != b) {
    if (a < b) {
      int t = a;
      a = b;
      b = t;
    }
    const int old = atomicMin(const_cast<int *>(lab) + a, b);
    if (old == a)
      break;
    a = ouf_find(lab, old);
    b = ouf_find(lab, b);
  }
}

__global__ void __launch_bounds__(OUF_TW *OUF_TH)
    ouf_local_merge(Ha4Frame f, Forest g)
{
  __shared__ volatile int lab[OUF_TW * OUF_TH];
  __shared__ bool fg[OUF_TW * OUF_TH];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * OUF_TW + tx;
  const int x = blockIdx.x * OUF_TW + tx, y = blockIdx.y * OUF_TH + ty;
  const bool me = pixel_fg(f, x, y);
  fg[tid] = me;
  __syncthreads();
  const bool left = tx > 0 && me && fg[tid - 1];
  const bool up = ty > 0 && me && fg[tid - OUF_TW];
  /* Row scan. */
  lab[tid] = left ? tid - 1 : tid;
  __syncthreads();
  /* Column scan. */
  const int l = up ? lab[tid - OUF_TW] : lab[tid];
  __syncthreads();
  lab[tid] = l;
  __syncthreads();
  /* Row-column unification: every chain walked before any is shortened
   * (the paper overlaps them; a barrier keeps racecheck quiet). */
  int t = tid;
  while (t != lab[t])
    t = lab[t];
  __syncthreads();
  lab[tid] = t;
  __syncthreads();
  /* Local union-find. */
  if (left)
    ouf_union(lab, tid, tid - 1);
  __syncthreads();
  if (up)
    ouf_union(lab, tid, tid - OUF_TW);
  if (f.conn8 && me && ty > 0) {
    if (tx > 0 && fg[tid - OUF_TW - 1])
      ouf_union(lab, tid, tid - OUF_TW - 1);
    if (tx + 1 < OUF_TW && fg[tid - OUF_TW + 1])
      ouf_union(lab, tid, tid - OUF_TW + 1);
  }
  __syncthreads();
  if (x >= f.width || y >= f.height)
    return;
  const int r = ouf_find(lab, tid);
  const uint32_t k = pixel_node(f, x, y);
  g.parent[k] = pixel_node(f, blockIdx.x * OUF_TW + r % OUF_TW,
                           blockIdx.y * OUF_TH + r / OUF_TW);
}

/* OUF Kernel 2, boundary analysis: one thread per pixel on a tile's left
 * column (x % 32 == 0) or top row (y % 16 == 0), union with its neighbours
 * across that border. */
__global__ void ouf_boundary_analysis(Ha4Frame f, Forest g, int n_columns,
                                      int n_rows)
{
  const long id = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const long n_v = (long)n_columns * f.height;
  int x, y;
  bool vertical;
  if (id < n_v) {
    x = (int)(id / f.height + 1) * OUF_TW;
    y = (int)(id % f.height);
    vertical = true;
  } else if (id < n_v + (long)n_rows * f.width) {
    const long j = id - n_v;
    y = (int)(j / f.width + 1) * OUF_TH;
    x = (int)(j % f.width);
    vertical = false;
  } else {
    return;
  }
  if (!pixel_fg(f, x, y))
    return;
  const uint32_t k = pixel_node(f, x, y);
  if (vertical) {
    if (pixel_fg(f, x - 1, y))
      ha4_merge(g.parent, k, pixel_node(f, x - 1, y));
    if (f.conn8) {
      if (pixel_fg(f, x - 1, y - 1))
        ha4_merge(g.parent, k, pixel_node(f, x - 1, y - 1));
      if (pixel_fg(f, x - 1, y + 1))
        ha4_merge(g.parent, k, pixel_node(f, x - 1, y + 1));
    }
  } else {
    if (pixel_fg(f, x, y - 1))
      ha4_merge(g.parent, k, pixel_node(f, x, y - 1));
    if (f.conn8) {
      if (pixel_fg(f, x - 1, y - 1))
        ha4_merge(g.parent, k, pixel_node(f, x - 1, y - 1));
      if (pixel_fg(f, x + 1, y - 1))
        ha4_merge(g.parent, k, pixel_node(f, x + 1, y - 1));
    }
  }
}

cudaError_t ouf_launch_local_merge(const Ha4Frame &f, const Forest &g,
                                   cudaStream_t stream)
{
  dim3 grid((f.width + OUF_TW - 1) / OUF_TW, (f.height + OUF_TH - 1) / OUF_TH);
  ouf_local_merge<<<grid, dim3(OUF_TW, OUF_TH), 0, stream>>>(f, g);
  return cudaGetLastError();
}

cudaError_t ouf_launch_boundary_analysis(const Ha4Frame &f, const Forest &g,
                                         cudaStream_t stream)
{
  const int n_columns = (f.width - 1) / OUF_TW, n_rows = (f.height - 1) / OUF_TH;
  const long n = (long)n_columns * f.height + (long)n_rows * f.width;
  if (n == 0)
    return cudaGetLastError();
  ouf_boundary_analysis<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(
      f, g, n_columns, n_rows);
  return cudaGetLastError();
}
