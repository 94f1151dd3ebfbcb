/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Independent labelers used only by the tests and benchmarks: Leptonica's
 * pixConnComp family and OpenCV's connectedComponentsWithStats, both with
 * their labels renumbered to the gpuccl order (raster order of each
 * component's first pixel), so they can be compared label for label. */
#ifndef GPUCCL_TEST_ORACLE_H
#define GPUCCL_TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Features of one component as an oracle reports them. */
typedef struct {
  uint32_t x0, y0, x1, y1; /* inclusive */
  uint64_t area;
  uint64_t sum_x, sum_y;   /* oracle_stats_from_labels only */
  double cx, cy;
} OracleStats;

/* Input: an 8-bit plane, nonzero = foreground, rows `stride` bytes apart.
 * labels: width * height entries, written row after row (stride = width).
 * Return the number of components, or -1 on failure. */
long oracle_leptonica(const uint8_t *data, int width, int height,
                      size_t stride, int connectivity, uint32_t *labels);

/* Also fills stats[0..n) (component i + 1) when stats is not NULL and
 * stats_cap >= n; sum_x and sum_y are left 0 (OpenCV does not report them). */
long oracle_opencv(const uint8_t *data, int width, int height, size_t stride,
                   int connectivity, uint32_t *labels, OracleStats *stats,
                   size_t stats_cap);

/* OpenCV's labeling alone, for the benchmark: returns the component count
 * (background included, as OpenCV counts), labels left in OpenCV's order.
 * with_stats: connectedComponentsWithStats, else connectedComponents
 * (labels only). Scratch matrices are kept between calls. */
long oracle_opencv_bench(const uint8_t *data, int width, int height,
                         size_t stride, int connectivity, int with_stats);
void oracle_opencv_set_threads(int threads); /* 0: OpenCV's default */
int oracle_opencv_get_threads(void);

/* OpenCV's Otsu threshold (cv::threshold with THRESH_OTSU) of an 8-bit
 * plane: pixels > the result are its foreground. */
int oracle_opencv_otsu(const uint8_t *data, int width, int height,
                       size_t stride);

/* Renumber labels[0..width*height) in raster order of first appearance
 * (0 stays 0). max_label: the largest label present. -1 on failure. */
long oracle_normalize(uint32_t *labels, int width, int height,
                      uint32_t max_label);

/* Area, box and sums of components 1..n straight from a label image. */
void oracle_stats_from_labels(const uint32_t *labels, int width, int height,
                              uint32_t n, OracleStats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_TEST_ORACLE_H */
