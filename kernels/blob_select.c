/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Blob filters: area range, then the max_blobs largest. See blob_select.h. */
#include "blob_select.h"

/* One sortable key per blob: larger area first, then smaller id. Areas and
 * ids both fit in 32 bits (at most 16384 x 16384 pixels). */
static uint64_t rank_key(const GpucclBlob *blob)
{
  return ((uint64_t)blob->area << 32) | (uint64_t)(UINT32_MAX - blob->id);
}

/* Min-heap of keys: heap[0] is the weakest of the blobs kept so far. */
static void sift_down(uint64_t *heap, size_t n, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap[l] < heap[m])
      m = l;
    if (r < n && heap[r] < heap[m])
      m = r;
    if (m == i)
      return;
    uint64_t t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

/* Move blob i (and its value) to position `to`. */
static void keep(GpucclBlob *blobs, uint32_t *values, size_t to, size_t i)
{
  blobs[to] = blobs[i];
  if (values)
    values[to] = values[i];
}

size_t gpuccl_select_blobs(GpucclBlob *blobs, uint32_t *values, size_t n,
                           const GpucclParams *params, uint64_t *scratch)
{
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t area = blobs[i].area;
    if (area < params->min_area ||
        (params->max_area != 0 && area > params->max_area))
      continue;
    keep(blobs, values, kept++, i);
  }
  size_t k = params->max_blobs;
  if (k == 0 || kept <= k)
    return kept;

  /* The k strongest keys, O(n log k); keys are unique since ids are. */
  for (size_t i = 0; i < k; i++)
    scratch[i] = rank_key(&blobs[i]);
  for (size_t i = k / 2; i-- > 0;)
    sift_down(scratch, k, i);
  for (size_t i = k; i < kept; i++) {
    uint64_t key = rank_key(&blobs[i]);
    if (key > scratch[0]) {
      scratch[0] = key;
      sift_down(scratch, k, 0);
    }
  }
  uint64_t weakest = scratch[0];
  size_t out = 0;
  for (size_t i = 0; i < kept; i++)
    if (rank_key(&blobs[i]) >= weakest)
      keep(blobs, values, out++, i);
  return out;
}
