/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The blob table: every passing component's record at its place (the pass
 * bits before its first pixel), with its id (the start bits before it,
 * plus one). One block per tile writes the tile's staged closed pieces and
 * the open roots it holds. */
#include "tile_samples.cuh" /* threshold_of */
#include "tiled_kernels.h"

namespace tile {

/* `before`: the components (low half) and blobs (high half) before the
 * blob's first pixel (x, y). */
__device__ __forceinline__ void write_blob(GpucclBlob *blobs,
                                           unsigned long long before,
                                           uint32_t y, uint32_t area,
                                           unsigned long long sum_x,
                                           unsigned long long sum_y,
                                           uint32_t x0, uint32_t x1,
                                           uint32_t y1)
{
  const uint32_t id = (uint32_t)before + 1, at = (uint32_t)(before >> 32);
  /* Two 16-byte stores: the record is 32 bytes (gpuccl.h). */
  uint4 *dst = reinterpret_cast<uint4 *>(blobs + at);
  dst[0] = make_uint4(id, area, x0 | y << 16, x1 | y1 << 16);
  dst[1] = make_uint4((uint32_t)sum_x, (uint32_t)(sum_x >> 32),
                      (uint32_t)sum_y, (uint32_t)(sum_y >> 32));
}

__global__ void __launch_bounds__(256)
    blob_records_kernel(Frame f, GpucclBlob *blobs)
{
  wait_for_previous();
  typedef LibraryShape S;
  const uint32_t t = blockIdx.x;
  const uint32_t gx0 = (t % f.tiles_x) * S::W, gy0 = (t / f.tiles_x) * S::H;
  /* The tile's start and pass words and, per row, the bits before each
   * word: a closed piece's place is then two shared loads away. */
  __shared__ uint32_t s_bits[2][S::H][S::WORDS], s_before[2][S::H][S::WORDS];
  if (threadIdx.x < S::H) {
    const uint32_t y = threadIdx.x;
    const size_t w0 = (size_t)(gy0 + y) * f.out.start_words +
                      (t % f.tiles_x) * S::WORDS;
    uint32_t all = 0, passed = 0;
    for (int k = 0; k < S::WORDS; k++) {
      s_bits[0][y][k] = f.out.start[w0 + k];
      s_bits[1][y][k] = f.out.pass[w0 + k];
      s_before[0][y][k] = all;
      s_before[1][y][k] = passed;
      all += __popc(s_bits[0][y][k]);
      passed += __popc(s_bits[1][y][k]);
    }
  }
  __syncthreads();
  const uint32_t n_closed = f.out.n_closed[t];
  for (uint32_t i = threadIdx.x; i < n_closed; i += blockDim.x) {
    const uint4 q = f.out.closed.rec[(size_t)t * S::CLOSED_CAP + i];
    const uint32_t px = q.x & 0xffffu, area = q.x >> 16;
    const uint32_t ly = px / S::W, lx = px % S::W, k = lx / 32;
    const uint32_t below = (1u << (lx & 31)) - 1u;
    const unsigned long long before =
        f.cell_before[(size_t)(gy0 + ly) * f.tiles_x + t % f.tiles_x] +
        (s_before[0][ly][k] + __popc(s_bits[0][ly][k] & below)) +
        ((unsigned long long)(s_before[1][ly][k] +
                              __popc(s_bits[1][ly][k] & below))
         << 32);
    write_blob(blobs, before, gy0 + ly, area,
               q.y + (unsigned long long)area * gx0,
               q.z + (unsigned long long)area * gy0, gx0 + (q.w & 0xff),
               gx0 + ((q.w >> 8) & 0xff), gy0 + (q.w >> 16));
  }
  const OpenPieces &o = f.out.open;
  const uint32_t n_open = f.out.n_open[t];
  for (uint32_t i = threadIdx.x; i < n_open; i += blockDim.x) {
    const uint32_t p = t * S::OPEN_CAP + i;
    if (o.parent[p] != p || !f.filter.passes(o.area[p]))
      continue;
    const uint32_t key = o.key[p], w = (uint32_t)f.image.width;
    write_blob(blobs, components_before<S>(f, key % w, key / w), key / w,
               o.area[p], o.sum_x[p], o.sum_y[p], o.x0[p], o.x1[p], o.y1[p]);
  }
  if (t == 0 && threadIdx.x == 0) {
    /* The totals: the last cell's offsets and counts. */
    const size_t last = frame_cells(f) - 1;
    const unsigned long long total = f.cell_before[last] + f.cell_count[last];
    f.header[0] = (uint32_t)total;
    f.header[1] = (uint32_t)(total >> 32);
    f.header[2] = (uint32_t)threshold_of(f.image);
  }
}

cudaError_t launch_blob_records(const Frame &f, GpucclBlob *blobs,
                                cudaStream_t stream)
{
  return launch_dependent(blob_records_kernel, f.tiles_x * f.tiles_y, 256, 0,
                          stream, f, blobs);
}

} /* namespace tile */
