/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Overflow-checked sizes, for the argument checks of the entry points: a
 * plane or volume given by its caller is refused when its extent cannot
 * even be computed, instead of being walked with a wrapped size. */
#ifndef GPUCCL_CHECKED_H
#define GPUCCL_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* *out = a * b; false when that overflows. */
static inline bool gpuccl_mul_size(size_t a, size_t b, size_t *out)
{
  return !__builtin_mul_overflow(a, b, out);
}

/* The bytes a plane of `rows` rows (>= 1) of row_bytes bytes, `stride`
 * apart, spans from `data`: (rows - 1) * stride + row_bytes. false when
 * that overflows, exceeds the largest object (PTRDIFF_MAX) or would wrap
 * the address space past `data`. */
static inline bool gpuccl_plane_span(const void *data, size_t stride,
                                     size_t rows, size_t row_bytes,
                                     size_t *span)
{
  size_t s;
  if (rows == 0 || __builtin_mul_overflow(stride, rows - 1, &s) ||
      __builtin_add_overflow(s, row_bytes, &s) || s > PTRDIFF_MAX ||
      (uintptr_t)data > UINTPTR_MAX - s)
    return false;
  *span = s;
  return true;
}

#endif /* GPUCCL_CHECKED_H */
