/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Buffers and launch sequence of the tiled HA4 frame (tiled_frame.h). */
#include <cstring>

#include "tiled_frame.h"

#include "seam_merging.cuh"
#include "tiled_kernels.h"

namespace tile {

bool dependent_launch_supported()
{
  static const bool supported = [] {
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                               device) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return major >= 9;
  }();
  return supported;
}

size_t max_components(int width, int height)
{
  return ((size_t)width * height + 1) / 2;
}

/* One allocation, counted in b.bytes. */
template <typename T>
static cudaError_t take(Buffers &b, T **p, size_t n, DeviceAlloc alloc)
{
  b.bytes += n * sizeof(T);
  return alloc(reinterpret_cast<void **>(p), n * sizeof(T));
}

cudaError_t buffers_alloc(Buffers &b, int width, int height,
                          DeviceAlloc alloc)
{
  typedef LibraryShape S;
  memset(&b, 0, sizeof b); /* padding too: graph keys compare bytes */
  b.width = width;
  b.height = height;
  Frame &f = b.frame;
  f.tiles_x = (width + S::W - 1) / S::W;
  f.tiles_y = (height + S::H - 1) / S::H;
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  const size_t open = tiles * S::OPEN_CAP;
  TileOutputs &o = f.out;
  o.seams.row_len = f.tiles_x * S::W;
  o.seams.col_len = f.tiles_y * S::H;
  o.start_words = f.tiles_x * S::WORDS;
  const size_t bitmap = (size_t)f.tiles_y * S::H * o.start_words;
  cudaError_t e;
  if ((e = take(b, &o.open.parent, open, alloc)) ||
      (e = take(b, &o.open.key, open, alloc)) ||
      (e = take(b, &o.open.area, open, alloc)) ||
      (e = take(b, &o.open.sum_x, open, alloc)) ||
      (e = take(b, &o.open.sum_y, open, alloc)) ||
      (e = take(b, &o.open.x0, open, alloc)) ||
      (e = take(b, &o.open.x1, open, alloc)) ||
      (e = take(b, &o.open.y1, open, alloc)) ||
      (e = take(b, &o.closed.rec, tiles * S::CLOSED_CAP, alloc)) ||
      (e = take(b, &o.seams.top, (size_t)f.tiles_y * o.seams.row_len, alloc)) ||
      (e = take(b, &o.seams.bottom, (size_t)f.tiles_y * o.seams.row_len,
                alloc)) ||
      (e = take(b, &o.seams.left, (size_t)f.tiles_x * o.seams.col_len,
                alloc)) ||
      (e = take(b, &o.seams.right, (size_t)f.tiles_x * o.seams.col_len,
                alloc)) ||
      (e = take(b, &o.start, bitmap, alloc)) ||
      (e = take(b, &o.pass, bitmap, alloc)) ||
      (e = take(b, &o.n_open, tiles, alloc)) ||
      (e = take(b, &o.n_closed, tiles, alloc)) ||
      (e = take(b, &o.n_open_roots, tiles, alloc)) ||
      (e = take(b, &f.cell_count, (size_t)height * f.tiles_x, alloc)) ||
      (e = take(b, &f.cell_before, (size_t)height * f.tiles_x, alloc)) ||
      (e = take(b, &f.header, 3, alloc)) ||
      (e = take(b, &f.band_status, (size_t)f.tiles_y, alloc)) ||
      (e = take(b, &f.seam_arrivals, tiles * seams::TASKS, alloc)) ||
      (e = take(b, &f.done.tickets, 1, alloc)) ||
      (e = take(b, &f.done.empty_tiles, 1, alloc)) ||
      (e = take(b, &b.blobs, max_components(width, height), alloc)))
    return e;
  f.image.width = width;
  f.image.height = height;
  if ((e = reset_counters(b, 0)))
    return e;
  return cudaStreamSynchronize(0); /* before any kernel of any stream */
}

cudaError_t reset_counters(const Buffers &b, cudaStream_t stream)
{
  const Frame &f = b.frame;
  const size_t tiles = (size_t)f.tiles_x * f.tiles_y;
  cudaError_t e;
  if ((e = cudaMemsetAsync(f.band_status, 0,
                           f.tiles_y * sizeof *f.band_status, stream)) ||
      (e = cudaMemsetAsync(f.seam_arrivals, 0,
                           tiles * seams::TASKS * sizeof *f.seam_arrivals,
                           stream)) ||
      (e = cudaMemsetAsync(f.done.tickets, 0, sizeof *f.done.tickets,
                           stream)))
    return e;
  return cudaMemsetAsync(f.done.empty_tiles, 0, sizeof *f.done.empty_tiles,
                         stream);
}

void buffers_free(Buffers &b, DeviceFree release)
{
  TileOutputs &o = b.frame.out;
  void *p[] = {o.open.parent, o.open.key,  o.open.area,     o.open.sum_x,
               o.open.sum_y,  o.open.x0,   o.open.x1,       o.open.y1,
               o.closed.rec,  o.seams.top, o.seams.bottom,  o.seams.left,
               o.seams.right, o.start,     o.pass,          o.n_open,
               o.n_closed,    o.n_open_roots, b.frame.cell_count,
               b.frame.cell_before,
               b.frame.header, b.frame.band_status, b.frame.seam_arrivals,
               b.frame.done.tickets, b.frame.done.empty_tiles, b.blobs};
  for (void *q : p)
    release(q);
  memset(&b, 0, sizeof b);
}

cudaError_t enqueue_frame(const Buffers &b, const Frame &f, uint32_t *labels,
                          cudaStream_t stream)
{
  cudaError_t e;
  if ((e = launch_tile_labeling(f, stream)) ||
      (e = launch_open_merging(f, stream)) ||
      (e = launch_blob_records(f, b.blobs, stream)))
    return e;
  if (!labels)
    return cudaSuccess;
  /* The features pass left the model as it was (motion_learns is false
   * with a label image, cuda_frame.cu): this pass binarises the same
   * tiles against the same model, and learns it. */
  Frame relabel = f;
  relabel.image.motion_learns = true;
  return launch_label_image(relabel, labels, stream);
}

} /* namespace tile */
