/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA overlays: the three layers of ../draw_common.h drawn in its order
 * (labels, then boxes and crosses) by kernels, into a device frame in
 * place, or into a host frame whose planes go up once and come down once
 * (only with labels: boxes and crosses alone touch a few pixels, drawn on
 * the host by ../draw_host.c without moving a plane). One sync. Which
 * pixel gets which value is draw_common.h's; these kernels only decide who
 * writes it.
 *   - labels: one thread per 2x2 quad of luma pixels, so the thread that
 *     colours the luma pixels also picks the quad's chroma sample (the
 *     first coloured pixel in draw_common.h's order) without a second pass;
 *   - boxes and crosses: one warp per blob over the pixels of its outline
 *     rectangles, O(perimeter). Blobs may overlap, but every one writes the
 *     same colour, so concurrent writes store equal bytes. */
#include "draw_cuda.h"

#include <new>

#include "../backend.h"
#include "../draw_common.h"
#include "../draw_host.h"
#include "../fault.h"
#include "host_memory.h"

namespace {

/* One colour, ready for any frame format. */
struct Pen {
  uint8_t y, u, v, r, g, b;
  uint16_t y16;
};

__host__ __device__ Pen pen_of_rgb(uint8_t r, uint8_t g, uint8_t b)
{
  GpucclYuv c = gpuccl_draw_yuv601(r, g, b);
  Pen p;
  p.y = c.y;
  p.u = c.u;
  p.v = c.v;
  p.r = r;
  p.g = g;
  p.b = b;
  p.y16 = (uint16_t)(c.y * 257u);
  return p;
}

/* The frame on the device: its own planes, or tight rows (pitch = the
 * row's bytes) of the staging buffer. */
struct DevFrame {
  GpucclFrameFormat format;
  int width, height;
  uint8_t *plane[3];
  size_t pitch[3];
  uint8_t off_r, off_g, off_b;
};

__device__ bool is_420(const DevFrame &f)
{
  return f.format == GPUCCL_FRAME_NV12 || f.format == GPUCCL_FRAME_I420;
}

__device__ void put_luma(const DevFrame &f, int x, int y, const Pen &p)
{
  uint8_t *row = f.plane[0] + (size_t)y * f.pitch[0];
  switch (f.format) {
  case GPUCCL_FRAME_GRAY16:
    reinterpret_cast<uint16_t *>(row)[x] = p.y16;
    break;
  case GPUCCL_FRAME_PACKED4:
    row[4 * (size_t)x + f.off_r] = p.r;
    row[4 * (size_t)x + f.off_g] = p.g;
    row[4 * (size_t)x + f.off_b] = p.b;
    break;
  default:
    row[x] = p.y;
    break;
  }
}

/* Chroma sample (cx, cy) of a 4:2:0 frame. */
__device__ void put_chroma(const DevFrame &f, int cx, int cy, const Pen &p)
{
  if (f.format == GPUCCL_FRAME_NV12) {
    uint8_t *uv = f.plane[1] + (size_t)cy * f.pitch[1] + 2 * (size_t)cx;
    uv[0] = p.u;
    uv[1] = p.v;
  } else {
    f.plane[1][(size_t)cy * f.pitch[1] + cx] = p.u;
    f.plane[2][(size_t)cy * f.pitch[2] + cx] = p.v;
  }
}

/* pen[id] = palette index + 1 for every blob of the table; the table was
 * zeroed before (background and filtered components stay 0). */
__global__ void mark_blob_pens(const GpucclBlob *blobs, size_t n_blobs,
                               uint8_t *pen, uint32_t n_components)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n_blobs)
    return;
  uint32_t id = blobs[i].id;
  if (id <= n_components)
    pen[id] = (uint8_t)(gpuccl_draw_palette_index(id) + 1);
}

/* Label colouring, one thread per 2x2 quad. */
__global__ void draw_labels(DevFrame f, const uint32_t *labels,
                            const uint8_t *pen)
{
  int cx = blockIdx.x * blockDim.x + threadIdx.x;
  int cy = blockIdx.y * blockDim.y + threadIdx.y;
  if (2 * cx >= f.width || 2 * cy >= f.height)
    return;
  uint8_t first = 0;
  for (int i = 0; i < 4; i++) {
    int x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
    if (x >= f.width || y >= f.height)
      continue;
    uint8_t k = pen[labels[(size_t)y * f.width + x]];
    if (!k)
      continue;
    GpucclRgb c = gpuccl_draw_palette_rgb(k - 1u);
    Pen p = pen_of_rgb(c.r, c.g, c.b);
    put_luma(f, x, y, p);
    if (!first) {
      first = k;
      if (is_420(f))
        put_chroma(f, cx, cy, p);
    }
  }
}

/* The rectangle x0..x1 x y0..y1 (inclusive) clipped to the frame, and for
 * 4:2:0 frames the chroma samples covering it, by the lanes of one warp. */
__device__ void fill_rect(const DevFrame &f, int x0, int y0, int x1, int y1,
                          const Pen &p, int lane)
{
  x0 = max(x0, 0);
  y0 = max(y0, 0);
  x1 = min(x1, f.width - 1);
  y1 = min(y1, f.height - 1);
  if (x1 < x0 || y1 < y0)
    return;
  int w = x1 - x0 + 1, n = w * (y1 - y0 + 1);
  for (int i = lane; i < n; i += 32)
    put_luma(f, x0 + i % w, y0 + i / w, p);
  if (!is_420(f))
    return;
  int cx0 = x0 / 2, cw = x1 / 2 - cx0 + 1, cy0 = y0 / 2;
  int cn = cw * (y1 / 2 - cy0 + 1);
  for (int i = lane; i < cn; i += 32)
    put_chroma(f, cx0 + i % cw, cy0 + i / cw, p);
}

/* Boxes and crosses, one warp per blob: the rectangles of
 * gpuccl_draw_on_box() and gpuccl_draw_on_cross(). The blobs are n_blobs,
 * or *count when the table's size is known only on the device (drawn
 * within the labeling's frame); the warps stride over them. */
__global__ void draw_outlines(DevFrame f, const GpucclBlob *blobs,
                              size_t n_blobs, const uint32_t *count, Pen p,
                              int lw, bool boxes, bool crosses)
{
  const size_t n = count ? *count : n_blobs;
  const size_t warps = gridDim.x * (size_t)blockDim.x / 32;
  const int lane = threadIdx.x % 32;
  for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
       i < n; i += warps) {
    const GpucclBlob &b = blobs[i];
    if (boxes) {
      int x0 = (int)b.x0, y0 = (int)b.y0, x1 = (int)b.x1, y1 = (int)b.y1;
      if (x1 - x0 + 1 <= 2 * lw || y1 - y0 + 1 <= 2 * lw) {
        fill_rect(f, x0, y0, x1, y1, p, lane); /* no inside: filled */
      } else {
        fill_rect(f, x0, y0, x1, y0 + lw - 1, p, lane);
        fill_rect(f, x0, y1 - lw + 1, x1, y1, p, lane);
        fill_rect(f, x0, y0 + lw, x0 + lw - 1, y1 - lw, p, lane);
        fill_rect(f, x1 - lw + 1, y0 + lw, x1, y1 - lw, p, lane);
      }
    }
    if (crosses) {
      GpucclCross c =
          gpuccl_draw_cross(gpuccl_blob_cx(&b), gpuccl_blob_cy(&b), lw);
      fill_rect(f, c.px - c.arm, c.py + c.lo, c.px + c.arm, c.py + c.hi, p,
                lane);
      fill_rect(f, c.px + c.lo, c.py - c.arm, c.px + c.hi, c.py + c.arm, p,
                lane);
    }
  }
}

/* Boxes and crosses of at most n blobs (exactly *count when count is not
 * NULL). Past a few blocks per multiprocessor the warps stride: a grid
 * sized for a table's capacity (millions) would cost its launch on every
 * frame of a few blobs. */
cudaError_t launch_outlines(const DevFrame &df, const GpucclBlob *blobs,
                            size_t n, const uint32_t *count,
                            const GpucclDrawParams *params, int sm_count,
                            cudaStream_t stream)
{
  const size_t warps_per_block = 8;
  const size_t most = 4 * (size_t)(sm_count > 0 ? sm_count : 1);
  size_t blocks = (n + warps_per_block - 1) / warps_per_block;
  blocks = blocks < 1 ? 1 : blocks > most ? most : blocks;
  draw_outlines<<<(unsigned)blocks, 32 * warps_per_block, 0, stream>>>(
      df, blobs, n, count, pen_of_rgb(params->r, params->g, params->b),
      params->line_width, params->flags & GPUCCL_DRAW_BOXES,
      params->flags & GPUCCL_DRAW_CENTROIDS);
  return cudaGetLastError();
}

/* The frame's description for the kernels; planes and pitches apart. */
DevFrame frame_header(const GpucclFrame *frame)
{
  DevFrame df = {};
  df.format = frame->format;
  df.width = frame->width;
  df.height = frame->height;
  df.off_r = frame->offset_r;
  df.off_g = frame->offset_g;
  df.off_b = frame->offset_b;
  return df;
}

} // namespace

struct GpucclCudaDraw {
  uint8_t *planes; /* the frame's planes, tight rows */
  size_t planes_bytes;
  GpucclBlob *blobs; /* the last result's table */
  size_t blobs_cap;
  uint8_t *pen; /* pen index + 1 per component id */
  size_t pen_cap;
};

static GpucclStatus fail(GpucclError *error, cudaError_t err,
                         const char *what)
{
  cudaGetLastError(); /* clear it unless sticky */
  return gpuccl_set_error(error,
                          err == cudaErrorMemoryAllocation
                              ? GPUCCL_ERROR_OUT_OF_MEMORY
                              : GPUCCL_ERROR_DEVICE,
                          "CUDA: %s failed: %s (%s)", what,
                          cudaGetErrorName(err), cudaGetErrorString(err));
}

/* Launches and copies: a fault-injection point each (GPUCCL_FAULT=launch:N),
 * as in cuda_context.cu. */
#define DRAW_CK(expr, what)                                                   \
  do {                                                                        \
    if (gpuccl_fault_hit(GPUCCL_FAULT_LAUNCH))                                \
      return gpuccl_set_error(error, GPUCCL_ERROR_DEVICE,                     \
                              "CUDA: %s failed: injected fault", what);       \
    cudaError_t err_ = (expr);                                                \
    if (err_ != cudaSuccess)                                                  \
      return fail(error, err_, what);                                         \
  } while (0)

/* Grow-only device buffer through the backend's allocator. */
static GpucclStatus ensure(const GpucclCudaDrawEnv *env, void **p,
                           size_t *cap, size_t bytes, GpucclError *error)
{
  if (bytes <= *cap)
    return GPUCCL_OK;
  env->release(*p);
  *p = nullptr;
  *cap = 0;
  cudaError_t err = env->alloc(p, bytes);
  if (err != cudaSuccess)
    return fail(error, err, "overlay buffer allocation");
  *cap = bytes;
  return GPUCCL_OK;
}

void gpuccl_cuda_draw_free(GpucclCudaDraw *s, void (*release)(void *p))
{
  if (!s)
    return;
  release(s->planes);
  release(s->blobs);
  release(s->pen);
  delete s;
}

/* Bytes of one row and number of rows of plane i (0 when absent). */
static void plane_shape(const GpucclFrame *f, int i, size_t *row_bytes,
                        int *rows)
{
  const size_t w = (size_t)f->width, cw = (w + 1) / 2;
  const int ch = (f->height + 1) / 2;
  *rows = i == 0 ? f->height : ch;
  switch (f->format) {
  case GPUCCL_FRAME_GRAY16: *row_bytes = i == 0 ? 2 * w : 0; break;
  case GPUCCL_FRAME_PACKED4: *row_bytes = i == 0 ? 4 * w : 0; break;
  case GPUCCL_FRAME_NV12: *row_bytes = i == 0 ? w : i == 1 ? 2 * cw : 0; break;
  case GPUCCL_FRAME_I420: *row_bytes = i == 0 ? w : cw; break;
  default: *row_bytes = i == 0 ? w : 0; break;
  }
  if (!*row_bytes)
    *rows = 0;
}

/* A frame in device memory as the kernels see it: its own planes. */
static DevFrame device_frame(const GpucclFrame *frame)
{
  DevFrame df = frame_header(frame);
  for (int i = 0; i < 3; i++) {
    size_t row_bytes;
    int rows;
    plane_shape(frame, i, &row_bytes, &rows);
    df.plane[i] = rows ? static_cast<uint8_t *>(frame->data[i]) : nullptr;
    df.pitch[i] = frame->stride[i];
  }
  return df;
}

static size_t align256(size_t n)
{
  return (n + 255) & ~(size_t)255;
}

GpucclStatus gpuccl_cuda_frame_on_device(const GpucclFrame *frame,
                                         bool *device, GpucclError *error)
{
  int on_device = 0, planes = 0;
  for (int i = 0; i < 3; i++) {
    size_t row_bytes;
    int rows;
    plane_shape(frame, i, &row_bytes, &rows);
    if (!rows)
      continue;
    cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, frame->data[i]);
    if (err != cudaSuccess)
      cudaGetLastError(); /* plain host memory on old runtimes */
    else if (attr.type == cudaMemoryTypeDevice ||
             attr.type == cudaMemoryTypeManaged)
      on_device++;
    planes++;
  }
  if (on_device && on_device != planes)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "%d of the frame's %d planes are in device "
                            "memory: all or none",
                            on_device, planes);
  *device = on_device != 0;
  return GPUCCL_OK;
}

GpucclStatus gpuccl_cuda_draw(GpucclCudaDraw **state,
                              const GpucclCudaDrawEnv *env,
                              const GpucclResult *last,
                              const GpucclFrame *frame, bool in_place,
                              const GpucclDrawParams *params,
                              GpucclError *error)
{
  const unsigned flags = params->flags;
  const bool labels = flags & GPUCCL_DRAW_LABELS;
  const bool boxes = flags & GPUCCL_DRAW_BOXES;
  const bool crosses = flags & GPUCCL_DRAW_CENTROIDS;
  const size_t n_blobs = last->n_blobs;
  if (n_blobs == 0 || !(labels || boxes || crosses))
    return GPUCCL_OK; /* nothing would change: no transfers */
  if (labels && !env->labels_d)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "drawing labels needs want_labels in the last "
                            "process call");
  if (!in_place && !labels)
    return gpuccl_draw_on_host(last, frame, params, error);

  if (!*state) {
    *state = new (std::nothrow) GpucclCudaDraw();
    if (!*state)
      return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                              "cannot allocate the overlay state");
  }
  GpucclCudaDraw *s = *state;

  DevFrame df = in_place ? device_frame(frame) : frame_header(frame);
  size_t row_bytes[3], offset[3], total = 0;
  int rows[3];
  for (int i = 0; i < 3; i++) {
    plane_shape(frame, i, &row_bytes[i], &rows[i]);
    offset[i] = total;
    total += in_place ? 0 : align256(row_bytes[i] * (size_t)rows[i]);
  }
  GpucclStatus st =
      ensure(env, (void **)&s->planes, &s->planes_bytes, total, error);
  if (st == GPUCCL_OK)
    st = ensure(env, (void **)&s->blobs, &s->blobs_cap,
                n_blobs * sizeof(GpucclBlob), error);
  if (st == GPUCCL_OK && labels)
    st = ensure(env, (void **)&s->pen, &s->pen_cap,
                (size_t)last->n_components + 1, error);
  if (st != GPUCCL_OK)
    return st;

  cudaStream_t stream = env->stream;
  for (int i = 0; i < 3 && !in_place; i++) {
    df.plane[i] = rows[i] ? s->planes + offset[i] : nullptr;
    df.pitch[i] = row_bytes[i];
    if (rows[i]) {
      DRAW_CK(cudaMemcpy2DAsync(df.plane[i], row_bytes[i], frame->data[i],
                                frame->stride[i], row_bytes[i], rows[i],
                                cudaMemcpyHostToDevice, stream),
              "overlay frame upload");
      gpuccl_cuda_count_frame_upload();
    }
  }
  DRAW_CK(cudaMemcpyAsync(s->blobs, last->blobs, n_blobs * sizeof(GpucclBlob),
                          cudaMemcpyHostToDevice, stream),
          "overlay blob table upload");

  if (labels) {
    DRAW_CK(cudaMemsetAsync(s->pen, 0, (size_t)last->n_components + 1,
                            stream),
            "overlay label pens");
    mark_blob_pens<<<(unsigned)((n_blobs + 255) / 256), 256, 0, stream>>>(
        s->blobs, n_blobs, s->pen, last->n_components);
    DRAW_CK(cudaGetLastError(), "overlay label pens");
    dim3 block(32, 8);
    dim3 grid((unsigned)(((frame->width + 1) / 2 + 31) / 32),
              (unsigned)(((frame->height + 1) / 2 + 7) / 8));
    draw_labels<<<grid, block, 0, stream>>>(df, env->labels_d, s->pen);
    DRAW_CK(cudaGetLastError(), "overlay label colouring");
  }
  if (boxes || crosses)
    DRAW_CK(launch_outlines(df, s->blobs, n_blobs, nullptr, params,
                            env->sm_count, stream),
            "overlay boxes and crosses");

  for (int i = 0; i < 3 && !in_place; i++)
    if (rows[i])
      DRAW_CK(cudaMemcpy2DAsync(frame->data[i], frame->stride[i], df.plane[i],
                                row_bytes[i], row_bytes[i], rows[i],
                                cudaMemcpyDeviceToHost, stream),
              "overlay frame download");
  cudaError_t err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return fail(error, err, "overlay");
  return GPUCCL_OK;
}

GpucclStatus gpuccl_cuda_draw_queue(const GpucclCudaDrawEnv *env,
                                    const GpucclBlob *table,
                                    const uint32_t *count, size_t capacity,
                                    const GpucclFrame *frame,
                                    const GpucclDrawParams *params,
                                    GpucclError *error)
{
  if (params->flags)
    DRAW_CK(launch_outlines(device_frame(frame), table, capacity, count,
                            params, env->sm_count, env->stream),
            "overlay boxes and crosses");
  return GPUCCL_OK;
}
