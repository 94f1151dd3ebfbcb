/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Leptonica as an oracle: pixConnCompTransform numbers each component of a
 * 1-bpp image (32-bit labels, so more than 65 535 components are fine). */
#include "oracle.h"

#include <leptonica/allheaders.h>

long oracle_leptonica(const uint8_t *data, int width, int height,
                      size_t stride, int connectivity, uint32_t *labels)
{
  PIX *binary = pixCreate(width, height, 1);
  if (!binary)
    return -1;
  l_uint32 *bits = pixGetData(binary);
  int wpl = pixGetWpl(binary);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      if (data[(size_t)y * stride + x])
        SET_DATA_BIT(bits + y * wpl, x);
  PIX *numbered = pixConnCompTransform(binary, connectivity, 32);
  pixDestroy(&binary);
  if (!numbered)
    return -1;
  const l_uint32 *out = pixGetData(numbered);
  int owpl = pixGetWpl(numbered);
  uint32_t max_label = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint32_t l = out[y * owpl + x];
      labels[(size_t)y * width + x] = l;
      if (l > max_label)
        max_label = l;
    }
  pixDestroy(&numbered);
  return oracle_normalize(labels, width, height, max_label);
}
