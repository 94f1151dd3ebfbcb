/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading a fuzzer's input bytes as a sequence of choices.
 *
 * Every fuzz target takes its decisions (sizes, formats, parameters) from
 * the front of the input and its pixel data from what is left, so that a
 * short input still means something (missing bytes read as 0) and a mutation
 * of one byte changes one decision. */
#ifndef GPUCCL_FUZZ_BYTES_H
#define GPUCCL_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  size_t size;
  size_t pos;
} FuzzBytes;

static inline void fuzz_bytes_init(FuzzBytes *in, const uint8_t *data,
                                   size_t size)
{
  in->data = data;
  in->size = size;
  in->pos = 0;
}

static inline uint8_t fuzz_u8(FuzzBytes *in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint16_t fuzz_u16(FuzzBytes *in)
{
  uint16_t lo = fuzz_u8(in);
  return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(FuzzBytes *in)
{
  uint32_t lo = fuzz_u16(in);
  return lo | (uint32_t)fuzz_u16(in) << 16;
}

static inline int fuzz_bool(FuzzBytes *in)
{
  return fuzz_u8(in) & 1;
}

/* A value in lo..hi (inclusive), from as many bytes as the range needs. */
static inline int fuzz_range(FuzzBytes *in, int lo, int hi)
{
  uint32_t span = (uint32_t)(hi - lo) + 1u;
  uint32_t raw = span <= 0x100u ? fuzz_u8(in)
                 : span <= 0x10000u ? fuzz_u16(in)
                                    : fuzz_u32(in);
  return lo + (int)(raw % span);
}

/* Fill dst with the remaining input, repeated when it is shorter than dst
 * (zeros when nothing is left): large images from small inputs still carry
 * the fuzzer's pattern. The remaining input is not consumed. */
static inline void fuzz_fill(const FuzzBytes *in, uint8_t *dst, size_t n)
{
  size_t left = in->size - in->pos;
  if (left == 0) {
    memset(dst, 0, n);
    return;
  }
  for (size_t done = 0; done < n;) {
    size_t chunk = n - done < left ? n - done : left;
    memcpy(dst + done, in->data + in->pos, chunk);
    done += chunk;
  }
}

#endif /* GPUCCL_FUZZ_BYTES_H */
