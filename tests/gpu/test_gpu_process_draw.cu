/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process_draw into frames in device memory, where the CUDA backend
 * queues boxes and crosses behind the labeling and draws them from the
 * blob table on the device: every byte of every plane against the CPU
 * backend's gpuccl_process + gpuccl_draw (kernels/draw_host.c, the
 * reference of draw_common.h) on the same host frame, junk and row padding
 * included. Both pipelines (HA4 tiled, HA4-64 strips), every frame
 * format, line widths 1..3, boxes and crosses; also the paths that draw
 * after the frame (labels, max_blobs), and a table with no blob. Exits 77
 * without a GPU. --reduced: no 1080p (for compute-sanitizer). */
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "corpus.h"
extern "C" {
#include "gpu_check.h"
}

static int failures, checks;

static const char *format_names[] = {"GRAY8", "GRAY16", "NV12", "I420",
                                     "PACKED4"};

/* A host frame full of junk, padding too, and its twin in device memory. */
struct Frames {
  GpucclFrame host{}, device{};
  size_t bytes[3] = {0, 0, 0};

  Frames(GpucclFrameFormat format, int w, int h, unsigned seed)
  {
    host.format = format;
    host.width = w;
    host.height = h;
    const size_t cw = (size_t)(w + 1) / 2;
    const size_t ch = (size_t)(h + 1) / 2;
    size_t row[3] = {0, 0, 0}, rows[3] = {(size_t)h, ch, ch};
    switch (format) {
    case GPUCCL_FRAME_GRAY8: row[0] = w; break;
    case GPUCCL_FRAME_GRAY16: row[0] = 2 * (size_t)w; break;
    case GPUCCL_FRAME_NV12: row[0] = w; row[1] = 2 * cw; break;
    case GPUCCL_FRAME_I420: row[0] = w; row[1] = row[2] = cw; break;
    case GPUCCL_FRAME_PACKED4:
      row[0] = 4 * (size_t)w;
      host.offset_r = 2; /* BGRA */
      host.offset_g = 1;
      host.offset_b = 0;
      break;
    }
    device = host;
    for (int i = 0; i < 3 && row[i]; i++) {
      host.stride[i] = device.stride[i] = row[i] + 4 * (seed % 3) + 8;
      bytes[i] = host.stride[i] * rows[i];
      host.data[i] = malloc(bytes[i]);
      if (!host.data[i] || cudaMalloc(&device.data[i], bytes[i]) != cudaSuccess)
        abort();
      uint32_t state = seed * 2654435761u + (uint32_t)i;
      for (size_t k = 0; k < bytes[i]; k++) {
        state = state * 1664525u + 1013904223u;
        static_cast<uint8_t *>(host.data[i])[k] = (uint8_t)(state >> 24);
      }
      if (cudaMemcpy(device.data[i], host.data[i], bytes[i],
                     cudaMemcpyHostToDevice) != cudaSuccess)
        abort();
    }
  }
  ~Frames()
  {
    for (int i = 0; i < 3; i++) {
      free(host.data[i]);
      cudaFree(device.data[i]);
    }
  }
  Frames(const Frames &) = delete;
  Frames &operator=(const Frames &) = delete;
};

/* The device frame, drawn by gpuccl_process_draw on the GPU, against the
 * host frame drawn by the CPU backend's two calls: every byte. */
static void compare(GpucclContext *gpu, GpucclContext *cpu,
                    const GpucclImage *image, const GpucclParams *p,
                    const GpucclDrawParams *dp, Frames &t, const char *name)
{
  GpucclError e = {};
  GpucclResult rg, rc;
  const std::vector<uint8_t> before(
      static_cast<const uint8_t *>(t.host.data[0]),
      static_cast<const uint8_t *>(t.host.data[0]) + t.bytes[0]);
  GpucclStatus s = gpuccl_process_draw(gpu, image, p, &t.device, dp, &rg, &e);
  EXPECT(s == GPUCCL_OK, "%s: CUDA process_draw: %s", name, e.message);
  s = gpuccl_process(cpu, image, p, &rc, &e);
  if (s == GPUCCL_OK)
    s = gpuccl_draw(cpu, &t.host, dp, &e);
  EXPECT(s == GPUCCL_OK, "%s: CPU process + draw: %s", name, e.message);
  EXPECT(rg.n_blobs == rc.n_blobs && rg.n_components == rc.n_components,
         "%s: %zu blobs of %u on CUDA, %zu of %u on the CPU", name,
         rg.n_blobs, rg.n_components, rc.n_blobs, rc.n_components);
  /* Else two no-ops would pass. */
  if (rc.n_blobs)
    EXPECT(memcmp(before.data(), t.host.data[0], t.bytes[0]) != 0,
           "%s: the CPU drew nothing of %zu blobs", name, rc.n_blobs);
  for (int i = 0; i < 3 && t.bytes[i]; i++) {
    std::vector<uint8_t> got(t.bytes[i]);
    if (cudaMemcpy(got.data(), t.device.data[i], t.bytes[i],
                   cudaMemcpyDeviceToHost) != cudaSuccess)
      abort();
    const uint8_t *want = static_cast<const uint8_t *>(t.host.data[i]);
    size_t k = 0;
    while (k < t.bytes[i] && got[k] == want[k])
      k++;
    EXPECT(k == t.bytes[i],
           "%s: plane %d differs at byte %zu (row %zu, col %zu): CUDA %u, "
           "CPU %u",
           name, i, k, k / t.host.stride[i], k % t.host.stride[i],
           k < t.bytes[i] ? got[k] : 0, k < t.bytes[i] ? want[k] : 0);
  }
}

int main(int argc, char **argv)
{
  const bool reduced = argc > 1 && strcmp(argv[1], "--reduced") == 0;
  GpucclContext *gpu = gpu_check_context();
  GpucclContext *cpu = gpu_check_cpu_context();
  static const int sizes[][2] = {{1, 1}, {33, 17}, {385, 289}, {1920, 1080}};
  int draws = 0;
  for (int si = 0; si < (reduced ? 3 : 4); si++) {
    const int w = sizes[si][0], h = sizes[si][1];
    const size_t stride = (size_t)w + 5;
    std::vector<uint8_t> img(stride * h);
    corpus_random(img.data(), w, h, stride, 0.3, 4, (uint32_t)(w + h));
    const GpucclImage image = {img.data(), w, h, stride, GPUCCL_PIXEL_U8,
                               0, 0, 0};
    /* 0, 1: the tiled and the strip pipeline, boxes and crosses queued
     * behind them; 2: labels and 3: max_blobs, drawn after the frame; 4:
     * an area filter that leaves no blob. */
    for (int v = 0; v < 5; v++) {
      GpucclParams p;
      gpuccl_params_init(&p);
      p.connectivity = v % 2 ? 4 : 8;
      p.algorithm = v == 1 ? GPUCCL_ALGORITHM_HA4_64 : GPUCCL_ALGORITHM_HA4;
      p.want_labels = v == 2;
      p.max_blobs = v == 3 ? 7 : 0;
      p.min_area = v == 4 ? (uint64_t)w * h + 1 : 0;
      for (int fmt = GPUCCL_FRAME_GRAY8; fmt <= GPUCCL_FRAME_PACKED4; fmt++)
        for (int lw = 1; lw <= 3; lw++) {
          const unsigned flags =
              v == 2 ? GPUCCL_DRAW_LABELS | GPUCCL_DRAW_BOXES
                     : (unsigned)(lw == 2 ? GPUCCL_DRAW_BOXES
                                  : lw == 3 ? GPUCCL_DRAW_CENTROIDS
                                            : GPUCCL_DRAW_BOXES |
                                                  GPUCCL_DRAW_CENTROIDS);
          GpucclDrawParams dp = {flags, (uint8_t)(50 * lw), 220,
                                 (uint8_t)(30 * v), lw};
          Frames t((GpucclFrameFormat)fmt, w, h, (unsigned)(fmt + lw + v));
          char name[128];
          snprintf(name, sizeof name, "%dx%d variant %d %s line %d flags %u",
                   w, h, v, format_names[fmt], lw, flags);
          compare(gpu, cpu, &image, &p, &dp, t, name);
          draws++;
        }
    }
  }
  gpuccl_context_free(cpu);
  gpuccl_context_free(gpu);
  printf("%d device frames drawn by gpuccl_process_draw, %d checks, %d "
         "failures\n",
         draws, checks, failures);
  return failures ? 1 : 0;
}
