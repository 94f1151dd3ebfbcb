/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: the GPU's clock on the host's
 * (host_path_clock.h). */
#include "host_path_clock.h"
#include "host_path_probe.h" /* now_ns */

namespace {

/* Round trips between the host and %globaltimer: the host bumps `go`, the
 * kernel answers with its clock; the answer lies halfway through the
 * host's round trip. At the end the kernel reads the clock once more and
 * the event after it ties CUDA events to that clock. */
constexpr int CLOCK_ROUNDS = 64;

__device__ unsigned long long gpu_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void clock_probe(const volatile unsigned *go,
                            volatile unsigned long long *at)
{
  for (int i = 0; i < CLOCK_ROUNDS; i++) {
    while (*go <= (unsigned)i) {
    }
    at[i] = gpu_ns();
    __threadfence_system();
  }
  at[CLOCK_ROUNDS] = gpu_ns();
}

} // namespace

bool gpu_clock_open(GpuClock &c, cudaStream_t stream)
{
  unsigned *go = nullptr;
  unsigned long long *at = nullptr;
  c.stream = stream;
  if (cudaHostAlloc(&go, sizeof *go, cudaHostAllocMapped) ||
      cudaHostAlloc(&at, (CLOCK_ROUNDS + 1) * sizeof *at,
                    cudaHostAllocMapped) ||
      cudaEventCreate(&c.tie))
    return false;
  c.go = go;
  c.at = at;
  return true;
}

bool gpu_clock_tie(GpuClock &c)
{
  *c.go = 0;
  for (int i = 0; i <= CLOCK_ROUNDS; i++)
    c.at[i] = 0;
  clock_probe<<<1, 1, 0, c.stream>>>(c.go, c.at);
  cudaEventRecord(c.tie, c.stream);
  int64_t best = INT64_MAX, offset = 0;
  for (int i = 0; i < CLOCK_ROUNDS; i++) {
    const int64_t sent = now_ns();
    *c.go = (unsigned)i + 1;
    while (c.at[i] == 0)
      if (now_ns() - sent > 100000000)
        return false; /* the kernel never ran */
    const int64_t back = now_ns();
    if (back - sent < best) {
      best = back - sent;
      offset = sent + (back - sent) / 2 - (int64_t)c.at[i];
    }
  }
  if (cudaStreamSynchronize(c.stream) != cudaSuccess)
    return false;
  c.offset = offset;
  c.rtt = best;
  c.tie_gpu = c.at[CLOCK_ROUNDS];
  return true;
}

int64_t gpu_clock_host_time(const GpuClock &c, cudaEvent_t e)
{
  float ms = 0;
  cudaEventElapsedTime(&ms, c.tie, e);
  return (int64_t)c.tie_gpu + (int64_t)(ms * 1e6) + c.offset;
}
