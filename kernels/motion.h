/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binarisation by motion (gpuccl.h, "Background models"): the arithmetic
 * of one pixel against its background model, shared by every backend so
 * they all give the same bits and the same model (plain C; host and device
 * under nvcc, as otsu.h).
 *
 * The model holds B in fixed point, `shift` fraction bits: 8 for 8-bit
 * samples (uint16_t: 255.996 fits 16 bits), 16 for U16 samples (uint32_t).
 * In difference mode the rate is 1, so B is the previous frame's sample
 * shifted: the model then keeps the sample itself (`previous`: a byte, or
 * a uint16_t for U16 samples), half the traffic, the same D. Integers
 * only, so no compiler or device can round differently. */
#ifndef GPUCCL_MOTION_H
#define GPUCCL_MOTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef GPUCCL_HOST_DEVICE
#ifdef __CUDACC__
#define GPUCCL_HOST_DEVICE __host__ __device__
#else
#define GPUCCL_HOST_DEVICE
#endif
#endif

/* A learning rate of 1 in Q16: the sample replaces the model. */
#define GPUCCL_MOTION_RATE_ONE 65536u

/* What one frame does with its model, worked out by the front
 * (background.c) before a backend runs. */
typedef struct {
  /* width * height values, row after row (stride = width): uint16_t for
   * 8-bit samples, uint32_t for U16, or with `previous` the samples' own
   * type (uint8_t, uint16_t); memory of the context's backend. NULL: no
   * model, the samples are thresholded. */
  void *model;
  uint32_t rate;  /* Q16, 0..GPUCCL_MOTION_RATE_ONE */
  bool selective; /* learn only where D <= threshold */
  bool emit;      /* false in warm-up: no foreground */
  /* The first frame after a reset: the model holds nothing (another size
   * or format's values, or none), so D is 0 and the frame is copied. */
  bool fresh;
  /* Difference mode: the model is the previous frame's samples, in their
   * own type (rate 1 and not selective, so every frame leaves B = s <<
   * shift exactly: the value stored is B >> shift). */
  bool previous;
} GpucclMotion;

/* Fraction bits of the model of samples of `wide` (U16) or 8-bit. */
GPUCCL_HOST_DEVICE static inline unsigned gpuccl_motion_shift(bool wide)
{
  return wide ? 16u : 8u;
}

/* Bytes of one model value: a sample's with `previous`, else twice. */
GPUCCL_HOST_DEVICE static inline unsigned
gpuccl_motion_value_bytes(bool wide, bool previous)
{
  return (wide ? 2u : 1u) * (previous ? 1u : 2u);
}

/* Value i of m's model as B, and B stored back as value i. */
GPUCCL_HOST_DEVICE static inline uint32_t
gpuccl_motion_model_at(const GpucclMotion *m, size_t i, bool wide)
{
  if (m->previous)
    return wide ? (uint32_t)((const uint16_t *)m->model)[i] << 16
                : (uint32_t)((const uint8_t *)m->model)[i] << 8;
  return wide ? ((const uint32_t *)m->model)[i]
              : ((const uint16_t *)m->model)[i];
}

GPUCCL_HOST_DEVICE static inline void
gpuccl_motion_model_set(const GpucclMotion *m, size_t i, bool wide,
                        uint32_t b)
{
  if (m->previous && wide)
    ((uint16_t *)m->model)[i] = (uint16_t)(b >> 16);
  else if (m->previous)
    ((uint8_t *)m->model)[i] = (uint8_t)(b >> 8);
  else if (wide)
    ((uint32_t *)m->model)[i] = b;
  else
    ((uint16_t *)m->model)[i] = (uint16_t)b;
}

/* D = |s - round(B)|, in the samples' units. */
GPUCCL_HOST_DEVICE static inline unsigned gpuccl_motion_diff(unsigned s,
                                                             uint32_t b,
                                                             unsigned shift)
{
  const unsigned level = (unsigned)((b + (1u << (shift - 1))) >> shift);
  return s > level ? s - level : level - s;
}

/* B + rate * (s - B): the step (d * rate + 32768) >> 16 of the signed
 * fixed-point difference d = (s << shift) - B, an arithmetic shift
 * (rounded half up), which is what gpuccl.h defines. One 32 x 32 -> 64-bit
 * multiply whose high half is the step: with R = rate << 16,
 * (x * rate + 32768) >> 16 is the high word of x * R + 2^31. Rate 0 keeps
 * B. The result lies between B and s << shift, so it never leaves the
 * model's type.
 *
 * 8-bit samples, rate < 1, the target s << 8 given: |d| < 2^16, so u = d
 * + 2^16 is positive, and the step of u is the step of d plus rate,
 * exactly (2^16 * rate is a whole number of steps): no sign to branch on. */
GPUCCL_HOST_DEVICE static inline uint32_t
gpuccl_motion_step8(uint32_t target, uint32_t b, uint32_t rate)
{
  const uint32_t u = target + 65536u - b;
  return b + (uint32_t)(((uint64_t)u * (rate << 16) + 0x80000000u) >> 32) -
         rate;
}

/* Either shift, rate < 1. U16 samples: |d| < 2^32, so the step is taken
 * on |d|; for d < 0 it is -((|d| * rate + 32767) >> 16), the same floor.
 * Selects, not branches: pixels side by side take either side. */
GPUCCL_HOST_DEVICE static inline uint32_t gpuccl_motion_step(unsigned s,
                                                             uint32_t b,
                                                             uint32_t rate,
                                                             unsigned shift)
{
  if (shift == 8)
    return gpuccl_motion_step8((uint32_t)s << 8, b, rate);
  const uint32_t target = (uint32_t)s << shift;
  const bool up = target >= b;
  const uint32_t a = up ? target - b : b - target;
  const uint32_t h = (uint32_t)(((uint64_t)a * (rate << 16) +
                                 (up ? 0x80000000u : 0x7fff0000u)) >>
                                32);
  return up ? b + h : b - h;
}

/* Any rate: 1 copies the sample. */
GPUCCL_HOST_DEVICE static inline uint32_t gpuccl_motion_learn(unsigned s,
                                                              uint32_t b,
                                                              uint32_t rate,
                                                              unsigned shift)
{
  if (rate >= GPUCCL_MOTION_RATE_ONE)
    return (uint32_t)s << shift;
  return gpuccl_motion_step(s, b, rate, shift);
}

/* D of a pixel in a frame of m: 0 in a fresh model's first frame. */
GPUCCL_HOST_DEVICE static inline unsigned
gpuccl_motion_frame_diff(unsigned s, uint32_t b, const GpucclMotion *m,
                         unsigned shift)
{
  return m->fresh ? 0u : gpuccl_motion_diff(s, b, shift);
}

/* One pixel: its foreground bit, and *b learned. */
GPUCCL_HOST_DEVICE static inline bool
gpuccl_motion_pixel(unsigned s, uint32_t *b, const GpucclMotion *m,
                    unsigned threshold, bool invert, unsigned shift)
{
  const unsigned d = gpuccl_motion_frame_diff(s, *b, m, shift);
  /* Not learned: stepped at rate 0, a select rather than a branch a
   * pixel. The rate's own test stays outside, one branch a frame. */
  const bool keep = m->selective && d > threshold;
  if (m->rate >= GPUCCL_MOTION_RATE_ONE)
    *b = keep ? *b : (uint32_t)s << shift;
  else
    *b = gpuccl_motion_step(s, *b, keep ? 0u : m->rate, shift);
  return m->emit && ((d > threshold) != invert);
}

#endif /* GPUCCL_MOTION_H */
