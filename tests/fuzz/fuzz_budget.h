/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A bound on the overlay work of one fuzz input.
 *
 * Centroid crosses cost line width squared per blob: a noise frame of a
 * few hundred pixels a side with 10^4 blobs and crosses 32-40 px thick
 * writes ~10^8-10^9 pixels, seconds under the sanitizers for one input,
 * and such inputs made most of the fuzzers' time. The targets decode the
 * line width from the input as before and then narrow it to this budget:
 * every width stays reachable where there are few blobs, and many blobs
 * are drawn with narrower lines through the same clipping and format code. */
#ifndef GPUCCL_FUZZ_BUDGET_H
#define GPUCCL_FUZZ_BUDGET_H

#include <stdint.h>

/* Pixels the centroid crosses of one frame may cover at most. */
#define FUZZ_CROSS_PIXEL_BUDGET (UINT64_C(1) << 25)

/* The widest line width up to `wanted` whose crosses (and ids, when
 * drawn), one per blob, stay within the budget: a cross of width w covers
 * up to 2 (6w + 1) w <= 14 w^2 pixels, an id up to 10 digits of 13 cells
 * of (w + 1)^2. Widths below 2 (the invalid ones too) are returned
 * unchanged. */
static inline int fuzz_line_width_cap(uint64_t blobs, int wanted, int ids)
{
  int w = wanted;
  while (w > 1 && (UINT64_C(14) * (uint64_t)w * (uint64_t)w +
                   (ids ? UINT64_C(130) * (uint64_t)(w + 1) * (uint64_t)(w + 1)
                        : 0)) * blobs > FUZZ_CROSS_PIXEL_BUDGET)
    w--;
  return w;
}

#endif /* GPUCCL_FUZZ_BUDGET_H */
