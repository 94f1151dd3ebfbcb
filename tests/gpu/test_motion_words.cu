/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Binarisation by motion on CUDA, a 32-pixel word at a time
// (tile_samples.cuh: threshold_word with a model), against motion.h's
// arithmetic a pixel at a time. Every (8-bit sample, model value) pair
// once, as GRAY8 rows (aligned words: four samples a step; each row's last
// word cut by the width: a pixel a step) and as PACKED4 pixels (samples
// gathered from one channel, then the same four-a-step path), for rates
// from 0 to 1, selective or not, a fresh model's first frame, invert,
// thresholds 0, 30 and the largest difference (no pixel above it), no
// blobs emitted (the model still learns), a pass that does not write the
// model (the label image's: motion_learns), and GRAY8 rows and model rows
// off 16-byte boundaries (a pixel a step); U16 samples against their
// 32-bit model (chunked, motion_layout.cuh) on pseudo-random pairs. Bits
// and learned model must be the same, value by value.
//
// Usage: test-motion-words [--quick]   (--quick: two rates, for the
// sanitizers). Exits 77 without a usable CUDA device.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/motion_layout.cuh"
#include "cuda/tile_samples.cuh"
#include "gpuccl.h"
#include "tile_check.cuh"

static int failures, checks;

template <GpucclPixelFormat FMT>
__global__ void words_kernel(tile::Image im, uint32_t *bits)
{
  const int words = (im.width + 31) / 32;
  const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= (long)words * im.height)
    return;
  bits[k] = tile::threshold_word<FMT>(im, (unsigned)im.threshold,
                                      32 * (int)(k % words), (int)(k / words));
}

// One frame of `im` on the device: its words' bits, and the model learned
// in place (model: host values, in the device's layout).
template <GpucclPixelFormat FMT, typename T>
static std::vector<uint32_t> run_words(tile::Image im,
                                       const std::vector<uint8_t> &samples,
                                       std::vector<T> &model)
{
  const int words = (im.width + 31) / 32;
  const size_t n_words = (size_t)words * im.height;
  uint8_t *d_samples;
  T *d_model;
  uint32_t *d_bits;
  CK(cudaMalloc(&d_samples, samples.size()));
  CK(cudaMalloc(&d_model, model.size() * sizeof(T)));
  CK(cudaMalloc(&d_bits, n_words * sizeof(uint32_t)));
  CK(cudaMemcpy(d_samples, samples.data(), samples.size(),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_model, model.data(), model.size() * sizeof(T),
                cudaMemcpyHostToDevice));
  im.data = d_samples;
  im.motion.model = d_model;
  words_kernel<FMT><<<(unsigned)((n_words + 255) / 256), 256>>>(im, d_bits);
  CK(cudaGetLastError());
  const std::vector<uint32_t> bits = down(d_bits, n_words);
  model = down(d_model, model.size());
  CK(cudaFree(d_samples));
  CK(cudaFree(d_model));
  CK(cudaFree(d_bits));
  return bits;
}

struct Variant {
  uint32_t rate;
  bool selective, fresh, invert;
  int threshold;
  bool emit = true, learns = true;
};

// The frame's pixels against gpuccl_motion_pixel: sample_of(x, y) and
// start_of(x, y) give a pixel's sample and its model value before; the
// learned one is at model_index(x, y).
template <typename T, class Sample, class Start, class Index>
static void compare(const char *name, const tile::Image &im, const Variant &v,
                    const std::vector<uint32_t> &bits,
                    const std::vector<T> &model, unsigned shift,
                    Sample sample_of, Start start_of, Index model_index)
{
  const int words = (im.width + 31) / 32;
  long bad_bits = 0, bad_model = 0;
  for (int y = 0; y < im.height; y++)
    for (int x = 0; x < im.width; x++) {
      const uint32_t before = start_of(x, y);
      uint32_t want = before;
      const bool fg = gpuccl_motion_pixel(sample_of(x, y), &want, &im.motion,
                                          (unsigned)v.threshold, v.invert,
                                          shift);
      const uint32_t word = bits[(size_t)y * words + x / 32];
      bad_bits += (word >> (x % 32) & 1u) != fg;
      bad_model += model[model_index(x, y)] != (v.learns ? want : before);
    }
  EXPECT(bad_bits == 0 && bad_model == 0,
         "%s %dx%d, rate %u%s%s%s%s%s, threshold %d: %ld bits and %ld model "
         "values differ from motion.h",
         name, im.width, im.height, v.rate, v.selective ? ", selective" : "",
         v.fresh ? ", fresh" : "", v.invert ? ", invert" : "",
         v.emit ? "" : ", no blobs", v.learns ? "" : ", model kept",
         v.threshold, bad_bits, bad_model);
}

static tile::Image image_of(GpucclPixelFormat format, int width, int height,
                            size_t stride, const Variant &v)
{
  tile::Image im = {};
  im.width = width;
  im.height = height;
  im.stride = stride;
  im.format = format;
  im.threshold = v.threshold;
  im.invert = v.invert;
  im.channel_offset = 1;
  im.motion.rate = v.rate;
  im.motion.selective = v.selective;
  im.motion.emit = v.emit;
  im.motion.fresh = v.fresh;
  im.motion_learns = v.learns;
  return im;
}

// 8-bit samples: pixel i of the frame is pair i, (i / 65281, i % 65281),
// the rest 0; as GRAY8 or as channel 1 of PACKED4 pixels (the others
// junk). Rows of `width` pixels (16 400: 512 words + 16) and `pad` bytes
// more.
static void case_bytes(GpucclPixelFormat format, const Variant &v,
                       int width = 16400, int pad = 16)
{
  const int height = 1021;
  const int bpp = format == GPUCCL_PIXEL_PACKED4 ? 4 : 1;
  const size_t stride = (size_t)width * bpp + pad;
  const size_t pairs = 256u * 65281u;
  std::vector<uint8_t> samples(stride * height);
  std::vector<uint16_t> start((size_t)width * height);
  for (size_t i = 0; i < start.size(); i++) {
    const uint8_t s = i < pairs ? (uint8_t)(i / 65281) : 0;
    start[i] = i < pairs ? (uint16_t)(i % 65281) : 0;
    uint8_t *p = &samples[(i / width) * stride + (i % width) * bpp];
    if (bpp == 1) {
      p[0] = s;
    } else {
      p[0] = (uint8_t)(i * 7), p[1] = s, p[2] = (uint8_t)(i * 13),
      p[3] = (uint8_t)(i >> 5);
    }
  }
  std::vector<uint16_t> model = start;
  const tile::Image im = image_of(format, width, height, stride, v);
  const auto bits = format == GPUCCL_PIXEL_PACKED4
                        ? run_words<GPUCCL_PIXEL_PACKED4>(im, samples, model)
                        : run_words<GPUCCL_PIXEL_U8>(im, samples, model);
  tile::Image host = im;
  host.motion.model = model.data();
  compare(bpp == 1 ? "GRAY8" : "PACKED4", host, v, bits, model, 8,
          [&](int x, int y) {
            return (unsigned)samples[(size_t)y * stride + (size_t)x * bpp +
                                     (bpp == 4)];
          },
          [&](int x, int y) { return (uint32_t)start[(size_t)y * width + x]; },
          [&](int x, int y) { return (size_t)y * width + x; });
}

// U16 samples against a 32-bit model of 16 fraction bits, pseudo-random
// pairs with B up to 65535 << 16, in the chunked layout.
static void case_u16(const Variant &v)
{
  const int width = 4112, height = 1024; // 128 words + 16
  const size_t stride = (size_t)width * 2 + 32;
  const size_t row_values = (size_t)(width + 31) / 32 * 32;
  std::vector<uint8_t> samples(stride * height);
  std::vector<uint32_t> start(row_values * height), model;
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      h = h * 6364136223846793005u + 1442695040888963407u;
      const uint16_t s = (uint16_t)(h >> 48);
      memcpy(&samples[(size_t)y * stride + 2 * (size_t)x], &s, 2);
      start[model_offset<uint32_t>(width, x, y)] =
          (uint32_t)((h >> 16) % 0xffff0001u);
    }
  model = start;
  const tile::Image im = image_of(GPUCCL_PIXEL_U16, width, height, stride, v);
  const auto bits = run_words<GPUCCL_PIXEL_U16>(im, samples, model);
  tile::Image host = im;
  host.motion.model = model.data();
  compare("U16", host, v, bits, model, 16,
          [&](int x, int y) {
            uint16_t s;
            memcpy(&s, &samples[(size_t)y * stride + 2 * (size_t)x], 2);
            return (unsigned)s;
          },
          [&](int x, int y) {
            return start[model_offset<uint32_t>(width, x, y)];
          },
          [&](int x, int y) { return model_offset<uint32_t>(width, x, y); });
}

int main(int argc, char **argv)
{
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (!gpuccl_cuda_available(0, nullptr)) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  const uint32_t rates[] = {0,     1,     655, 3277, 32768,
                            65535, GPUCCL_MOTION_RATE_ONE};
  for (uint32_t rate : rates) {
    if (quick && rate != 3277 && rate != GPUCCL_MOTION_RATE_ONE)
      continue;
    Variant variants[] = {{rate, false, false, false, 30},
                          {rate, true, false, true, 30},
                          {rate, true, true, false, 30},
                          {rate, true, false, false, 0},
                          {rate, true, false, false, 255},
                          {rate, false, false, true, 255},
                          {rate, true, false, false, 30},
                          {rate, true, false, false, 30}};
    variants[6].emit = false;
    variants[7].learns = false;
    for (const Variant &v : variants) {
      case_bytes(GPUCCL_PIXEL_U8, v);
      Variant v16 = v; /* 30 and 255 of 8 bits, in 16 */
      v16.threshold = v.threshold == 255 ? 65535 : v.threshold * 256;
      case_u16(v16);
    }
    case_bytes(GPUCCL_PIXEL_PACKED4, variants[1]);
    /* Odd strides, and a width of 512 words + 12 whose model rows
     * (2 bytes a pixel) are off 16-byte boundaries every other row. */
    case_bytes(GPUCCL_PIXEL_U8, variants[1], 16396, 3);
    case_bytes(GPUCCL_PIXEL_U8, variants[7], 16396, 3);
  }
  printf("motion words: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
