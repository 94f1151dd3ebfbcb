/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: gpuccl_volume_process with arbitrary volumes.
 *
 * Sizes are mostly small (1..20 a side, strides padded by 0..7 bytes) and
 * sometimes absurd: 0, negative, up to INT_MAX, products that wrap size_t
 * (2^22 x 2^21 x 2^21 did, issue 19), strides short of a row or a slice,
 * or overflowing; thresholds -2..257, any algorithm value, NULL data,
 * parameters or result. Whether the call is valid is decided here from
 * gpuccl_volume.h alone:
 *  - invalid: the data is one byte; INVALID_ARGUMENT with a message, and
 *    nothing read past that byte (ASan);
 *  - valid and small: the volume is allocated to exactly what it spans,
 *    labeled (CPU backend; $GPUCCL_TEST_BACKEND=cuda: CUDA), and checked
 *    without an oracle: labels 0 exactly on background voxels, 1..N with
 *    N the component count, each blob's voxel count and box what its
 *    labels say;
 *  - valid but too large to allocate here: not called. */
#include "fuzz_backend.h"
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "gpuccl_volume.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_VOLUME_BYTES (4u << 20)

/* Kept across inputs, freed at exit (as fuzz_context, fuzz_backend.h). */
static GpucclVolume *kept_volume;

static void free_kept_volume(void)
{
  gpuccl_volume_free(kept_volume);
  kept_volume = NULL;
}

static GpucclVolume *volume(void)
{
  if (!kept_volume) {
    GpucclError e = {0};
    kept_volume = gpuccl_volume_new(fuzz_backend(), 0, &e);
    FUZZ_CHECK(kept_volume, "%s volume: %s",
               gpuccl_backend_name(fuzz_backend()), e.message);
    atexit(free_kept_volume);
  }
  return kept_volume;
}

static int choose_side(FuzzBytes *in)
{
  switch (fuzz_range(in, 0, 15)) {
  case 0: return fuzz_range(in, -2, 0);
  case 1: return 1 << fuzz_range(in, 16, 30);
  case 2: return INT_MAX - fuzz_u8(in);
  default: return fuzz_range(in, 1, 20);
  }
}

/* A stride of at least `least` bytes, or not. */
static size_t choose_stride(FuzzBytes *in, unsigned __int128 least)
{
  const size_t base = least > SIZE_MAX ? SIZE_MAX : (size_t)least;
  switch (fuzz_range(in, 0, 15)) {
  case 0: return base ? base - (size_t)fuzz_range(in, 1, 3) % base : 0;
  case 1: return SIZE_MAX / (size_t)fuzz_range(in, 1, 8);
  case 2: return (size_t)fuzz_u32(in) << 16;
  default: return base > SIZE_MAX - 8 ? base : base + (size_t)fuzz_range(in, 0, 7);
  }
}

/* Labels and blobs against the foreground, without an oracle. */
static void check_result(const GpucclVolumeImage *v, int threshold,
                         const GpucclVolumeResult *r)
{
  const int w = v->width, h = v->height, d = v->depth;
  uint64_t *count = calloc((size_t)r->n_components + 1, sizeof *count);
  FUZZ_CHECK(count, "out of memory");
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const uint8_t s = v->data[z * v->slice_stride + y * v->row_stride + x];
        const uint32_t l = r->labels[((size_t)z * h + y) * w + x];
        FUZZ_CHECK((l != 0) == (s > threshold) && l <= r->n_components,
                   "voxel %d,%d,%d: sample %u, label %u of %u", x, y, z, s, l,
                   r->n_components);
        if (!l)
          continue;
        const GpucclVolumeBlob *b = &r->blobs[l - 1];
        FUZZ_CHECK(b->id == l && (uint32_t)x >= b->x0 && (uint32_t)x <= b->x1 &&
                       (uint32_t)y >= b->y0 && (uint32_t)y <= b->y1 &&
                       (uint32_t)z >= b->z0 && (uint32_t)z <= b->z1,
                   "voxel %d,%d,%d outside blob %u's box", x, y, z, l);
        count[l]++;
      }
  for (uint32_t l = 1; l <= r->n_components; l++)
    FUZZ_CHECK(count[l] == r->blobs[l - 1].voxels && count[l] > 0,
               "blob %u: %llu voxels, %llu labeled", l,
               (unsigned long long)r->blobs[l - 1].voxels,
               (unsigned long long)count[l]);
  free(count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FuzzBytes in;
  fuzz_bytes_init(&in, data, size);
  GpucclVolumeImage v = {NULL, 0, 0, 0, 0, 0};
  v.width = choose_side(&in);
  v.height = choose_side(&in);
  v.depth = choose_side(&in);
  const int sides_ok = v.width >= 1 && v.height >= 1 && v.depth >= 1;
  const unsigned __int128 w = sides_ok ? (unsigned)v.width : 0;
  const unsigned __int128 h = sides_ok ? (unsigned)v.height : 0;
  const unsigned __int128 d = sides_ok ? (unsigned)v.depth : 0;
  v.row_stride = choose_stride(&in, w);
  v.slice_stride = choose_stride(&in, (unsigned __int128)v.row_stride * h);
  GpucclVolumeParams p;
  gpuccl_volume_params_init(&p);
  p.threshold = fuzz_range(&in, -2, 257);
  p.algorithm = (GpucclVolumeAlgorithm)fuzz_range(&in, 0, 3);
  p.want_labels = 1;
  const int nulls = fuzz_range(&in, 0, 31);

  /* gpuccl_volume.h: sides >= 1, at most GPUCCL_VOLUME_MAX_VOXELS voxels,
   * row_stride >= width, slice_stride >= row_stride * height, threshold
   * 0..255, a known algorithm; the whole volume within one object. */
  const unsigned __int128 span =
      sides_ok ? (unsigned __int128)v.slice_stride * (d - 1) +
                     (unsigned __int128)v.row_stride * (h - 1) + w
               : 0;
  const int valid = sides_ok && w * h * d <= GPUCCL_VOLUME_MAX_VOXELS &&
                    v.row_stride >= w && v.row_stride <= GPUCCL_MAX_STRIDE &&
                    v.slice_stride / h <= GPUCCL_MAX_STRIDE &&
                    v.slice_stride >= (unsigned __int128)v.row_stride * h &&
                    span <= PTRDIFF_MAX && p.threshold >= 0 &&
                    p.threshold <= 255 && p.algorithm <= GPUCCL_VOLUME_BKE &&
                    nulls > 3;
  if (valid && span > MAX_VOLUME_BYTES)
    return 0; /* valid, but more than this target allocates */
  const size_t n = valid ? (size_t)span : 1;
  uint8_t *vox = malloc(n);
  FUZZ_CHECK(vox, "out of memory");
  fuzz_fill(&in, vox, n);
  v.data = nulls == 0 ? NULL : vox;

  GpucclVolumeResult r;
  GpucclError e = {GPUCCL_ERROR_INTERNAL, "left from before"};
  GpucclStatus st = gpuccl_volume_process(nulls == 3 ? NULL : volume(), &v,
                                          nulls == 1 ? NULL : &p,
                                          nulls == 2 ? NULL : &r, &e);
  if (valid) {
    FUZZ_CHECK(st == GPUCCL_OK && e.status == GPUCCL_OK && !e.message[0],
               "valid %dx%dx%d volume (strides %zu/%zu): %s", v.width,
               v.height, v.depth, v.row_stride, v.slice_stride, e.message);
    check_result(&v, p.threshold, &r);
  } else {
    FUZZ_CHECK(st == GPUCCL_ERROR_INVALID_ARGUMENT && e.status == st &&
                   e.message[0],
               "invalid %dx%dx%d volume (strides %zu/%zu, threshold %d, "
               "algorithm %d, nulls %d) returned %s",
               v.width, v.height, v.depth, v.row_stride, v.slice_stride,
               p.threshold, (int)p.algorithm, nulls, gpuccl_status_name(st));
  }
  free(vox);
  return 0;
}
