/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU backend pieces shared between its files. */
#ifndef GPUCCL_CPU_H
#define GPUCCL_CPU_H

#include "../backend.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a row of samples becomes foreground bits (or, in segments mode,
 * runs of equal values). */
typedef struct {
  GpucclPixelFormat format;
  bool segments;        /* GPUCCL_MODE_SEGMENTS: runs of equal values */
  int threshold;        /* foreground: sample > threshold */
  bool invert;          /* ... or sample <= threshold */
  int channel_offset;   /* PACKED4: byte of the sample, -1 for BT.601 luma */
  uint8_t off_r, off_g, off_b;
  /* Binarisation by motion: the difference from this model is
   * thresholded (motion_cpu.c); NULL: the sample. */
  const GpucclMotion *motion;
  /* A mask's bytes (stride = width): 0 is never foreground; NULL: none. */
  const uint8_t *mask;
} Binarizer;

/* Image sides are at most GPUCCL_MAX_SIDE (16384), so run ends fit 16 bits. */
typedef struct {
  uint16_t start, end; /* inclusive */
  uint32_t label;      /* provisional label when the run was found */
} Run;

/* The sample at x; in segments mode a PACKED4 pixel's whole colour
 * 0xRRGGBB (gpuccl.h). */
static inline unsigned sample_at(const uint8_t *row, int x, const Binarizer *b)
{
  switch (b->format) {
  case GPUCCL_PIXEL_U8:
    return row[x];
  case GPUCCL_PIXEL_U16: {
    uint16_t v;
    memcpy(&v, row + 2 * (size_t)x, sizeof v); /* rows may be unaligned */
    return v;
  }
  case GPUCCL_PIXEL_PACKED4: {
    const uint8_t *p = row + 4 * (size_t)x;
    if (b->segments)
      return (unsigned)p[b->off_r] << 16 | (unsigned)p[b->off_g] << 8 |
             p[b->off_b];
    if (b->channel_offset >= 0)
      return p[b->channel_offset];
    return gpuccl_luma601(p[b->off_r], p[b->off_g], p[b->off_b]);
  }
  }
  return 0;
}

/* One row in threshold mode into (width + 63) / 64 words, bit x of word
 * x / 64 = pixel x is foreground; bits past the width are 0 (rows_cpu.c). */
void gpuccl_cpu_row_bits(const uint8_t *row, int width, const Binarizer *b,
                         uint64_t *bits);

/* The 8-bit samples of 64 PACKED4 pixels as sample_at gives them (b: not
 * in segments mode; rows_cpu.c). */
void gpuccl_cpu_packed4_samples(const uint8_t *pixels, const Binarizer *b,
                                uint8_t out[64]);

/* Binarisation by motion (b->motion set): the bits of row y (as
 * gpuccl_cpu_row_bits gives them, tail bits 0), the row of the model
 * learned; and the histogram of the differences for Otsu, the model
 * untouched. */
void gpuccl_cpu_motion_bits(const uint8_t *row, int y, int width,
                            const Binarizer *b, uint64_t *bits);
void gpuccl_cpu_motion_histogram(const GpucclImage *image, const Binarizer *b,
                                 uint32_t hist[256]);

/* The CPU backend's mask_copy (backend.h). */
GpucclStatus gpuccl_cpu_mask_copy(GpucclContext *ctx, void *dst,
                                  const GpucclImage *picture,
                                  GpucclError *error);

/* Clears the bits of row y whose mask byte is 0 (intensity_cpu.c). */
void gpuccl_cpu_mask_bits(const Binarizer *b, int y, int width,
                          uint64_t *bits);

/* The runs pass 1 kept (row y's at row_start[y]..row_start[y + 1]),
 * provisional labels 1..n_provisional - 1 and their final ones
 * parent[label]: each blob's sample sum, min and max into
 * ctx->intensity, one entry per blob of blobs (intensity_cpu.c). */
typedef struct {
  const Run *runs;
  const uint32_t *row_start;
  const uint32_t *parent;
  uint32_t n_provisional;
} KeptRuns;
GpucclStatus gpuccl_cpu_intensity(GpucclContext *ctx,
                                  const GpucclImage *image,
                                  const Binarizer *b, const KeptRuns *kept,
                                  const GpucclBlob *blobs, size_t n_blobs,
                                  GpucclError *error);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_CPU_H */
