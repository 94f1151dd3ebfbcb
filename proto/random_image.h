// Random test images of the prototypes: YACCLAB-style noise, cells of
// g x g pixels each set with probability d (255 foreground, 0 background).
#ifndef PROTO_RANDOM_IMAGE_H
#define PROTO_RANDOM_IMAGE_H

#include <cstdint>
#include <random>
#include <vector>

inline std::vector<uint8_t> make_image(int W, int H, double d, int g, uint32_t seed)
{
  std::mt19937 rng(seed);
  std::bernoulli_distribution b(d);
  int gw = (W + g - 1) / g, gh = (H + g - 1) / g;
  std::vector<uint8_t> cells((size_t)gw * gh), img((size_t)W * H);
  for (auto &c : cells)
    c = b(rng) ? 255 : 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      img[(size_t)y * W + x] = cells[(size_t)(y / g) * gw + x / g];
  return img;
}

#endif
