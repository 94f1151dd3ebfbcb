/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl-host-path-bench: the GPU's clock (%globaltimer) tied to the
 * host's by round trips through mapped memory, so that CUDA events can be
 * read on the host's clock (within about the round trip; %globaltimer
 * ticks per us on some GPUs). */
#ifndef GPUCCL_HOST_PATH_CLOCK_H
#define GPUCCL_HOST_PATH_CLOCK_H

#include <cstdint>

#include <cuda_runtime.h>

struct GpuClock {
  cudaStream_t stream;
  volatile unsigned *go;           /* mapped: the host's round */
  volatile unsigned long long *at; /* mapped: the GPU's answers */
  int64_t offset;                  /* host ns = GPU ns + offset */
  int64_t rtt;                     /* the best round trip, ns */
  uint64_t tie_gpu;                /* the GPU clock at `tie` */
  cudaEvent_t tie;
};

/* The clock's mapped memory and event, for round trips on `stream`. */
bool gpu_clock_open(GpuClock &c, cudaStream_t stream);

/* Ties the clocks anew; false when the GPU never answered. */
bool gpu_clock_tie(GpuClock &c);

/* Event e (after the last tie) on the host's clock, ns. */
int64_t gpu_clock_host_time(const GpuClock &c, cudaEvent_t e);

#endif /* GPUCCL_HOST_PATH_CLOCK_H */
