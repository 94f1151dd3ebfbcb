// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers of the CUDA tests of the tiled pipeline's steps (test_tiled_steps,
// test_tile_forest, test_forest_tiles) and of gpuccl-tile-bench: checks,
// CUDA calls that must succeed, device memory, the test pictures, and the
// pieces the tests compare.
#ifndef GPUCCL_TILE_CHECK_CUH
#define GPUCCL_TILE_CHECK_CUH

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>

// The first 20 failures printed: the checks run per tile and per piece.
#define EXPECT_PRINTED 20
#include "test_check.h" // EXPECT

// A CUDA call that must succeed: otherwise where and why, and exit(1).
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                       \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// A component as the tests compare it: first pixel (raster), features.
typedef std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint32_t, uint32_t,
                   uint32_t, uint32_t>
    Piece; // first, area, sum_x, sum_y, x0, y0, x1, y1

// Closed record q of the tile at (ox, oy), in an image w pixels wide (the
// layout tile labeling writes, tile_common.cuh), as a Piece of the image.
template <class S>
static inline Piece closed_piece(const uint4 &q, uint32_t ox, uint32_t oy,
                                 uint64_t w)
{
  const uint32_t px = q.x & 0xffff, a = q.x >> 16;
  return Piece{(uint64_t)(oy + px / S::W) * w + ox + px % S::W, a,
               q.y + (uint64_t)a * ox, q.z + (uint64_t)a * oy,
               ox + (q.w & 0xff), oy + px / S::W, ox + ((q.w >> 8) & 0xff),
               oy + (q.w >> 16)};
}

// n elements from the device.
template <typename T> static inline std::vector<T> down(const T *d, size_t n)
{
  std::vector<T> h(n);
  if (n)
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// A frame's open piece slots on the host: the arrays of tile::OpenPieces
// (tile_common.cuh), all downloaded.
struct HostOpenPieces {
  std::vector<uint32_t> parent, key, area;
  std::vector<unsigned long long> sum_x, sum_y;
  std::vector<uint32_t> x0, x1, y1;

  // Slot p as a Piece of an image w pixels wide.
  Piece piece(size_t p, uint64_t w) const
  {
    return Piece{key[p], area[p], sum_x[p], sum_y[p],
                 x0[p],  (uint32_t)(key[p] / w), x1[p], y1[p]};
  }
};

// The cap slots of open pieces o (a tile::OpenPieces) from the device.
template <class OpenPieces>
static inline HostOpenPieces down_open(const OpenPieces &o, size_t cap)
{
  return HostOpenPieces{down(o.parent, cap), down(o.key, cap),
                        down(o.area, cap),   down(o.sum_x, cap),
                        down(o.sum_y, cap),  down(o.x0, cap),
                        down(o.x1, cap),     down(o.y1, cap)};
}

// What tile labeling wrote for a frame (a tile::Frame of shape S), on the
// host: pieces per tile, closed records, open slots, the start bitmap.
struct HostTiles {
  std::vector<uint32_t> n_open, n_closed;
  std::vector<uint4> rec; // CLOSED_CAP closed records per tile
  HostOpenPieces open;    // OPEN_CAP slots per tile
  std::vector<uint32_t> start;
};

template <class S, class Frame> static inline HostTiles down_tiles(const Frame &f)
{
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  return HostTiles{
      down(f.out.n_open, tiles), down(f.out.n_closed, tiles),
      down(f.out.closed.rec, tiles * S::CLOSED_CAP),
      down_open(f.out.open, tiles * S::OPEN_CAP),
      down(f.out.start, (size_t)f.tiles_y * S::H * f.out.start_words)};
}

// A frame's open piece slots (a tile::Frame of shape S), in tile order.
template <class S, class Frame>
static inline std::vector<uint32_t> open_slots(const Frame &f)
{
  const auto n_open = down(f.out.n_open, (size_t)f.tiles_x * f.tiles_y);
  std::vector<uint32_t> slots;
  for (size_t t = 0; t < n_open.size(); t++)
    for (uint32_t k = 0; k < n_open[t]; k++)
      slots.push_back((uint32_t)(t * S::OPEN_CAP + k));
  return slots;
}

// The allocator pair tile::buffers_alloc / buffers_free take (no zero-byte
// allocations).
static inline cudaError_t dalloc(void **p, size_t n)
{
  return cudaMalloc(p, n ? n : 1);
}
static inline void dfree(void *p) { cudaFree(p); }

// YACCLAB-style random picture: cells of g x g pixels, each 255 with
// probability d, else 0.
static inline std::vector<uint8_t> random_image(int w, int h, double d, int g,
                                                uint32_t seed)
{
  std::mt19937 rng(seed);
  std::bernoulli_distribution bit(d);
  const int gw = (w + g - 1) / g;
  std::vector<uint8_t> cells((size_t)gw * ((h + g - 1) / g)), img((size_t)w * h);
  for (auto &c : cells)
    c = bit(rng) ? 255 : 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      img[(size_t)y * w + x] = cells[(size_t)(y / g) * gw + x / g];
  return img;
}

// Rows of one-pixel serpentine: a component crossing every seam many times,
// its first pixel in the top-left tile.
static inline std::vector<uint8_t> serpentine(int w, int h)
{
  std::vector<uint8_t> img((size_t)w * h, 0);
  for (int y = 0; y < h; y += 2) {
    for (int x = 0; x < w; x++)
      img[(size_t)y * w + x] = 255;
    if (y + 1 < h)
      img[(size_t)(y + 1) * w + ((y / 2) % 2 ? 0 : w - 1)] = 255;
  }
  return img;
}

#endif // GPUCCL_TILE_CHECK_CUH
