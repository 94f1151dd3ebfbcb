/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-bench runners of the labeling algorithms beside HA4 (see bench.h
 * and kernels/cuda/forest_kernels.h): the CUDA backend with
 * params.algorithm = BUF, BUF_IC, BKE, BKE_IC, OUF, HYBRID3, STAVA_BENES,
 * image already on the device
 * (as cuda-ha4-dev in runners_gpu.cu, so the two compare directly): wall =
 * gpuccl_process (kernels + blob table download + sync), device = kernel
 * time from CUDA events. Full CCL + CCA, not labels only. An algorithm
 * that does not support the run's connectivity is skipped with the
 * library's reason. */
#include <cstdio>

#include <cuda_runtime.h>

extern "C" {
#include "bench.h"
#include "gpuccl.h"
#include "cuda/cuda_internal.h"
}

namespace {

struct AlgoRunner {
  GpucclContext *ctx;
  GpucclParams params;
  GpucclImage image;
  void *dev; /* the image on the device */
  size_t dev_size;
};

void algo_close(void *state)
{
  AlgoRunner *r = static_cast<AlgoRunner *>(state);
  if (!r)
    return;
  cudaFree(r->dev);
  gpuccl_context_free(r->ctx);
  delete r;
}

/* A context, the device buffer, and one probe frame so an unsupported
 * connectivity is known before the timed runs. */
void *algo_open(const BenchSetup *setup, GpucclAlgorithm alg, char *why,
                size_t why_size)
{
  GpucclError err = {};
  AlgoRunner *r = new AlgoRunner();
  r->ctx = gpuccl_context_new(GPUCCL_BACKEND_CUDA, 0, &err);
  gpuccl_cuda_time_kernels(r->ctx, true); /* the device time reported */
  gpuccl_params_init(&r->params);
  r->params.connectivity = setup->connectivity;
  r->params.algorithm = alg;
  r->dev_size = (size_t)setup->width * setup->height;
  if (r->ctx && cudaMalloc(&r->dev, r->dev_size) == cudaSuccess &&
      cudaMemset(r->dev, 0, r->dev_size) == cudaSuccess) {
    GpucclImage probe = {r->dev, setup->width, setup->height,
                         (size_t)setup->width, GPUCCL_PIXEL_U8, 0, 0, 0};
    GpucclResult res;
    if (gpuccl_process(r->ctx, &probe, &r->params, &res, &err) == GPUCCL_OK)
      return r;
  }
  snprintf(why, why_size, "%s", err.message[0] ? err.message
                                                : "no device buffer");
  algo_close(r);
  return nullptr;
}

int algo_prepare(void *state, const uint8_t *data, int width, int height,
                 size_t stride)
{
  AlgoRunner *r = static_cast<AlgoRunner *>(state);
  if ((size_t)width * height > r->dev_size ||
      cudaMemcpy2D(r->dev, width, data, stride, width, height,
                   cudaMemcpyHostToDevice) != cudaSuccess)
    return -1;
  r->image = GpucclImage{r->dev, width, height, (size_t)width,
                         GPUCCL_PIXEL_U8, 0, 0, 0};
  return 0;
}

long algo_run(void *state)
{
  AlgoRunner *r = static_cast<AlgoRunner *>(state);
  GpucclResult res;
  GpucclError err = {};
  if (gpuccl_process(r->ctx, &r->image, &r->params, &res, &err) != GPUCCL_OK) {
    fprintf(stderr, "algorithm runner: %s\n", err.message);
    return -1;
  }
  return (long)res.n_components;
}

double algo_device_ms(void *state)
{
  return gpuccl_cuda_kernel_ms(static_cast<AlgoRunner *>(state)->ctx);
}

#define OPEN(fn, alg)                                                         \
  void *fn(const BenchSetup *s, char *why, size_t n)                          \
  {                                                                           \
    return algo_open(s, alg, why, n);                                         \
  }
OPEN(open_buf, GPUCCL_ALGORITHM_BUF)
OPEN(open_buf_ic, GPUCCL_ALGORITHM_BUF_IC)
OPEN(open_bke, GPUCCL_ALGORITHM_BKE)
OPEN(open_bke_ic, GPUCCL_ALGORITHM_BKE_IC)
OPEN(open_ouf, GPUCCL_ALGORITHM_OUF)
OPEN(open_hybrid3, GPUCCL_ALGORITHM_HYBRID3)
OPEN(open_sb, GPUCCL_ALGORITHM_STAVA_BENES)

} // namespace

extern "C" const BenchRunner bench_algo_runners[] = {
    {"cuda-buf-dev", "gpu", "CUDA BUF (2x2 block union-find), image on device",
     open_buf, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-buf-ic-dev", "gpu", "CUDA BUF with inline compression",
     open_buf_ic, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-bke-dev", "gpu", "CUDA BKE (2x2 block Komura equivalence)",
     open_bke, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-bke-ic-dev", "gpu", "CUDA BKE with inline compression",
     open_bke_ic, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-ouf-dev", "gpu", "CUDA optimized union-find (Chen et al. 2017)",
     open_ouf, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-hybrid3-dev", "gpu", "CUDA HYBRID3 (S4DLS + LB, iterative)",
     open_hybrid3, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {"cuda-stava-benes-dev", "gpu", "CUDA Stava-Benes (tiles + merging)",
     open_sb, algo_prepare, algo_run, algo_device_ms, algo_close, false},
    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
     false},
};
