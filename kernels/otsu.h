/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Otsu's threshold from a 256-bin histogram, shared by every backend so
 * they all pick the same threshold (plain C; host and device under nvcc).
 *
 * Pixels <= t form the background class, pixels > t the foreground class.
 * The result is the t in 0..255 that maximises the between-class variance
 *   w0 * w1 * (mu0 - mu1)^2     (w: pixel counts, mu: class means),
 * the smallest such t on ties; 0 when no split separates two non-empty
 * classes (an empty or single-valued histogram).
 *
 * Why the arithmetic is written this way: the counts and sums are exact
 * 64-bit integers; the few double operations contain no a * b + c pattern,
 * so no compiler can fuse them into an FMA, and every IEEE double unit (x86,
 * ARM, CUDA with its default precise division) rounds them identically. */
#ifndef GPUCCL_OTSU_H
#define GPUCCL_OTSU_H

#include <stdint.h>

#ifdef __CUDACC__
#define GPUCCL_HOST_DEVICE __host__ __device__
#else
#define GPUCCL_HOST_DEVICE
#endif

GPUCCL_HOST_DEVICE static inline int gpuccl_otsu_threshold(const uint32_t hist[256])
{
  uint64_t total = 0, total_sum = 0;
  for (int i = 0; i < 256; i++) {
    total += hist[i];
    total_sum += (uint64_t)i * hist[i];
  }
  uint64_t w0 = 0, s0 = 0;
  double best = 0.0;
  int best_t = 0;
  for (int t = 0; t < 255; t++) {
    w0 += hist[t];
    s0 += (uint64_t)t * hist[t];
    uint64_t w1 = total - w0;
    if (w0 == 0 || w1 == 0)
      continue;
    double mu0 = (double)s0 / (double)w0;
    double mu1 = (double)(total_sum - s0) / (double)w1;
    double diff = mu0 - mu1;
    double between = ((double)w0 * (double)w1) * (diff * diff);
    if (between > best) { /* strict: ties keep the smaller t */
      best = between;
      best_t = t;
    }
  }
  return best_t;
}

#endif /* GPUCCL_OTSU_H */
