/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Label renumbering and features from a label image, shared by the oracle
 * shims and the tests. Deliberately the plainest loops: these are the
 * references the library is checked against. */
#include "oracle.h"

#include <stdlib.h>

long oracle_normalize(uint32_t *labels, int width, int height,
                      uint32_t max_label)
{
  uint32_t *map = calloc((size_t)max_label + 1, sizeof *map);
  if (!map)
    return -1;
  uint32_t n = 0;
  size_t pixels = (size_t)width * height;
  for (size_t i = 0; i < pixels; i++) {
    uint32_t l = labels[i];
    if (l == 0)
      continue;
    if (map[l] == 0)
      map[l] = ++n;
    labels[i] = map[l];
  }
  free(map);
  return (long)n;
}

void oracle_stats_from_labels(const uint32_t *labels, int width, int height,
                              uint32_t n, OracleStats *stats)
{
  for (uint32_t i = 0; i < n; i++)
    stats[i] = (OracleStats){.x0 = UINT32_MAX, .y0 = UINT32_MAX};
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint32_t l = labels[(size_t)y * width + x];
      if (l == 0 || l > n)
        continue;
      OracleStats *s = &stats[l - 1];
      if ((uint32_t)x < s->x0) s->x0 = (uint32_t)x;
      if ((uint32_t)y < s->y0) s->y0 = (uint32_t)y;
      if ((uint32_t)x > s->x1) s->x1 = (uint32_t)x;
      if ((uint32_t)y > s->y1) s->y1 = (uint32_t)y;
      s->area++;
      s->sum_x += (uint64_t)x;
      s->sum_y += (uint64_t)y;
    }
  for (uint32_t i = 0; i < n; i++)
    if (stats[i].area) {
      stats[i].cx = (double)stats[i].sum_x / (double)stats[i].area;
      stats[i].cy = (double)stats[i].sum_y / (double)stats[i].area;
    }
}
