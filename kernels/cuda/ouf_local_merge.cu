/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OUF Kernel 1, local union-find merge with coarse labeling (Chen et al.
 * 2017): a 32 x 16 tile in shared memory. The row scan gives each
 * foreground pixel its run's first pixel as label (the paper follows left
 * neighbours one by one; here a warp is a tile row, and its ballot finds
 * the run starts at once); local union-find (shared-memory atomicMin) then
 * joins each run with the runs above it that it touches; the local root
 * becomes a global pixel address. One union per run above a run touches,
 * at the first pixel of the run that touches it: where the pixel to the
 * left touches the same run, that pixel's union covers it. 8-connectivity
 * (diagonal unions here and across tile borders) is our extension of the
 * paper's 4-connected method. */
#include "block_mask.cuh"

#define OUF_TW 32
#define OUF_TH 16

/* findAndUnion in shared memory: the smaller root wins. */
__device__ __forceinline__ void ouf_union(volatile int *lab, int a, int b)
{
  a = block_find(lab, a);
  b = block_find(lab, b);
  while (a != b) {
    if (a < b) {
      int t = a;
      a = b;
      b = t;
    }
    const int old = atomicMin(const_cast<int *>(lab) + a, b);
    if (old == a)
      break;
    a = block_find(lab, old);
    b = block_find(lab, b);
  }
}

/* Local union-find: pixel tid (in row `row` of the tile, `above` the row
 * above it) unions its run with the runs above that it is the first of its
 * run to touch. */
__device__ __forceinline__ void ouf_union_above(volatile int *lab, int tid,
                                                int tx, uint32_t row,
                                                uint32_t above, bool conn8)
{
  const bool left = tx > 0 && (row >> (tx - 1) & 1u);
  const bool ul = tx > 0 && (above >> (tx - 1) & 1u);
  const bool up = above >> tx & 1u;
  const bool ur = tx + 1 < OUF_TW && (above >> (tx + 1) & 1u);
  if (!conn8) {
    if (up && !(left && ul))
      ouf_union(lab, tid, tid - OUF_TW);
    return;
  }
  if (left) { /* only a run above that starts up right is new to it */
    if (ur && !up)
      ouf_union(lab, tid, tid - OUF_TW + 1);
  } else if (up) { /* up left and up right are in that run */
    ouf_union(lab, tid, tid - OUF_TW);
  } else {
    if (ul)
      ouf_union(lab, tid, tid - OUF_TW - 1);
    if (ur)
      ouf_union(lab, tid, tid - OUF_TW + 1);
  }
}

__global__ void __launch_bounds__(OUF_TW *OUF_TH)
    ouf_local_merge(Ha4Frame f, Forest g)
{
  static_assert(OUF_TW == 32, "a warp is a tile row");
  __shared__ volatile int lab[OUF_TW * OUF_TH];
  __shared__ uint32_t rows[OUF_TH];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * OUF_TW + tx;
  const int x = blockIdx.x * OUF_TW + tx, y = blockIdx.y * OUF_TH + ty;
  const bool me = pixel_fg(f, x, y);
  /* Row scan. */
  const uint32_t row = __ballot_sync(0xffffffffu, me);
  const uint32_t starts = row & ~(row << 1);
  lab[tid] = me ? ty * OUF_TW + 31 - __clz(starts & (0xffffffffu >> (31 - tx)))
               : tid;
  if (tx == 0)
    rows[ty] = row;
  __syncthreads();
  if (me && ty > 0)
    ouf_union_above(lab, tid, tx, row, rows[ty - 1], f.conn8);
  __syncthreads();
  if (x >= f.width || y >= f.height)
    return;
  const int r = block_find(lab, tid);
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
