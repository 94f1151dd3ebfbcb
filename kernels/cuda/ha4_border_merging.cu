/* HA4 border merging (Alg. 4 of Hennequin et al. 2018), extended to the
 * borders this library adds: strip labeling works on tiles of HA4_TILE_W
 * pixels, so besides the horizontal borders between 4-row strips the
 * vertical borders between tiles are joined here too, and 8-connectivity
 * adds the diagonal neighbours.
 *
 * Horizontal borders: one warp per 32-bit word of the first row of each
 * strip, reading the bitmask image (not the raw pixels again); merges only
 * at segment starts, as in the paper. The pixel left of bit 0 comes from the
 * previous word, whose piece start holds a valid L entry.
 * Vertical borders: one thread per (row, tile border). */
#include "ha4_kernels.h"

/* Address of the start of the 32-bit piece holding the set pixel at
 * address kj, bit j of `mask`; j = -1 is bit 31 of `prev`, the word to the
 * left. Piece starts hold valid L entries (strip labeling). */
__device__ __forceinline__ uint32_t piece_start(uint32_t mask, uint32_t prev,
                                                int j, uint32_t kj)
{
  if (j < 0)
    return kj - gpuccl_start_distance32(prev, 31);
  return kj - gpuccl_start_distance32(mask, j);
}

__device__ void merge_strip_border(const Ha4Frame &f, int w, int y)
{
  const int i = threadIdx.x;
  const size_t wy = (size_t)y * f.words + w, wu = wy - f.words;
  const uint32_t my = f.bits[wy], mu = f.bits[wu];
  const uint32_t py = w > 0 ? f.bits[wy - 1] : 0u;
  const uint32_t pu = w > 0 ? f.bits[wu - 1] : 0u;
  const uint32_t k = (uint32_t)y * f.pitch + w * 32 + i, ku = k - f.pitch;
  const bool by = (my >> i) & 1u, bu = (mu >> i) & 1u;
  const bool ly = i > 0 ? (my >> (i - 1)) & 1u : py >> 31;
  const bool lu = i > 0 ? (mu >> (i - 1)) & 1u : pu >> 31;
  if (by && bu && (!ly || !lu))
    ha4_merge(f.L, piece_start(my, py, i, k), piece_start(mu, pu, i, ku));
  if (f.conn8) {
    if (by && !ly && lu && !bu)
      ha4_merge(f.L, k, piece_start(mu, pu, i - 1, ku - 1));
    if (bu && !lu && ly && !by)
      ha4_merge(f.L, ku, piece_start(my, py, i - 1, k - 1));
  }
}

__device__ void merge_tile_border(const Ha4Frame &f, int y, int x)
{
  const int w = x >> 5; /* x is a multiple of HA4_TILE_W: bit 0 of word w */
  const size_t wy = (size_t)y * f.words + w;
  const uint32_t my = f.bits[wy], py = f.bits[wy - 1];
  const uint32_t k = (uint32_t)y * f.pitch + x;
  if ((my & 1u) && (py >> 31))
    ha4_merge(f.L, k, piece_start(my, py, -1, k - 1));
  if (f.conn8 && y > 0) {
    const uint32_t mu = f.bits[wy - f.words], pu = f.bits[wy - f.words - 1];
    const uint32_t ku = k - f.pitch;
    if ((my & 1u) && (pu >> 31))
      ha4_merge(f.L, k, piece_start(mu, pu, -1, ku - 1));
    if ((mu & 1u) && (py >> 31))
      ha4_merge(f.L, ku, piece_start(my, py, -1, k - 1));
  }
}

/* blockIdx.y < strip borders: one horizontal border; the last row of
 * blocks walks the vertical tile borders. */
__global__ void __launch_bounds__(HA4_BLOCK_W *HA4_BLOCK_H)
    ha4_border_merging(Ha4Frame f, int n_borders, int n_tile_borders)
{
  if ((int)blockIdx.y < n_borders) {
    const int w = blockIdx.x * HA4_BLOCK_H + threadIdx.y;
    const int y = (blockIdx.y + 1) * HA4_BLOCK_H;
    if (w < f.words)
      merge_strip_border(f, w, y);
    return;
  }
  const long total = (long)n_tile_borders * f.height;
  const long step = (long)gridDim.x * blockDim.x * blockDim.y;
  for (long t = (long)blockIdx.x * blockDim.x * blockDim.y +
                threadIdx.y * blockDim.x + threadIdx.x;
       t < total; t += step)
    merge_tile_border(f, (int)(t / n_tile_borders),
                      (int)(t % n_tile_borders + 1) * HA4_TILE_W);
}

cudaError_t ha4_launch_border_merging(const Ha4Frame &f, int sm_count,
                                      cudaStream_t stream)
{
  const int n_borders = (f.height - 1) / HA4_BLOCK_H;
  const int n_tile_borders = (f.width - 1) / HA4_TILE_W;
  if (n_borders == 0 && n_tile_borders == 0)
    return cudaSuccess;
  int gx = (f.words + HA4_BLOCK_H - 1) / HA4_BLOCK_H;
  (void)sm_count;
  dim3 block(HA4_BLOCK_W, HA4_BLOCK_H);
  dim3 grid(gx, n_borders + (n_tile_borders > 0 ? 1 : 0));
  ha4_border_merging<<<grid, block, 0, stream>>>(f, n_borders, n_tile_borders);
  return cudaGetLastError();
}
