/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA backend's context, private to its files:
 *   cuda_context.cu  allocation, errors, the buffers a context grows, open
 *                    and close, the backend's entry points
 *   cuda_frame.cu    one frame: input, the kernel sequence as a CUDA graph,
 *                    the sync, draw
 *   cuda_table.cu    a frame's blob table: downloads, the side stream
 *                    (nearest blobs, the overlay's boxes), max_blobs
 *                    selection, segments values
 *   host_memory.cu   pinned host blocks (gpuccl_host_alloc)
 *
 * One context = one device (or the caller's CUDA context), one
 * non-blocking stream, and buffers allocated once per image size; a frame
 * of an already-seen size allocates nothing. In binary mode every
 * algorithm ends in the tiled tail (tiled_frame.h): HA4, HA4-64 (an alias)
 * and the default run tile labeling, the forest labelers
 * (forest_kernels.h) their own labeling and the adapter of
 * forest_tiles.h. The kernels run as one CUDA graph (HYBRID3's
 * convergence loop inside it as a WHILE node), its instances kept for
 * the last keys (size, parameters, buffers, the image's address:
 * graph_instances.h), captured for a new one (GPUCCL_CUDA_GRAPH=0:
 * kernel by kernel, HYBRID3 with a sync per round; blob records writes the
 * header and the table's first blobs into host memory), the download of
 * any further blobs, one sync. Segments mode
 * (Stava and Benes) ends in the segment tail (ha4_kernels.h), sized by a
 * mid-frame count.
 *
 * Every CUDA error becomes a GpucclStatus with a message; nothing aborts.
 * Allocations go through dev_alloc/pinned_alloc (counted, fault injection
 * GPUCCL_FAULT=alloc:N), launches and copies through LAUNCH
 * (GPUCCL_FAULT=launch:N). */
#ifndef GPUCCL_CUDA_CONTEXT_H
#define GPUCCL_CUDA_CONTEXT_H

#include <cstddef>
#include <cstdint>

#include "../backend.h"
#include "../fault.h"
#include "cuda_binding.h"
#include "device_alloc.h"   /* dev_alloc, pinned_alloc: counted */
#include "draw_cuda.h"
#include "forest_kernels.h" /* BUF, BKE, ...: own labeling, an adapter */
#include "graph_instances.h" /* graphs kept for their last keys */
#include "ha4_kernels.h"    /* Otsu, the segment tail, nearest blobs */
#include "tiled_frame.h"    /* the tiled tail */

/* What one captured frame depends on: the frame description (zero-filled,
 * so it compares bytewise), the parameters the kernels read and the
 * buffers they use. */
struct GraphKey {
  uint64_t buffers; /* CudaCtx::buffers */
  Ha4Frame f;
  GpucclAlgorithm algorithm;
  bool want_labels;
  const void *labels_d, *forest_ws;
  tile::Frame tf; /* the tail's frame: buffers, image, area filter */
};

/* Component capacity a segments frame starts from (6.5 MB). */
#define SEGMENTS_FIRST_COMPONENTS 65536

struct CudaCtx {
  int device;
  /* The caller's CUcontext (gpuccl_context_new_cuda), current around each
   * call; NULL: the device's primary context. */
  void *cu_context;
  int sm_count;
  bool integrated;
  cudaStream_t stream;
  bool own_stream; /* else the caller's: not destroyed here */
  cudaEvent_t ev_start, ev_stop;
  /* Work beside the blob table's download on `stream`, once the table is
   * made: the nearest-blob search and the overlay's boxes and crosses;
   * joined before the frame's sync (ev_side_done). */
  cudaStream_t side_stream;
  cudaEvent_t ev_side_done;
  /* gpuccl_context_wait_cuda_stream: recorded on the caller's stream and
   * waited for on `stream` (stream_order.cu); made at first use. */
  cudaEvent_t ev_upstream;
  bool timed; /* the events hold the last frame's kernels */
  /* Graphed frames record ev_start and ev_stop only when asked
   * (gpuccl_cuda_time_kernels): an event costs the host a call a frame. */
  bool time_kernels;

  /* Size-independent. */
  uint32_t *hist;     /* 256 bins, zero between frames */
  int *d_threshold;   /* Otsu's */
  uint32_t *header;   /* components, blobs, threshold */
  uint32_t *header_h; /* pinned */
  /* Pinned: raised by blob records once the host's copy is complete, so
   * that the host sees a graphed frame done without waiting for its
   * stream (tile::Frame::done, frame_done.cu). */
  uint32_t *done_h;
  GpucclBlob *blobs_h; /* pinned, blobs_cap entries */
  size_t blobs_cap;
  uint32_t *values_h; /* segments mode: GpucclResult.values, pinned */
  size_t values_cap;
  /* HYBRID3's rounds in its last frame, pinned: the device writes them
   * after every round (hybrid3_loop.cu), the host reads them after a
   * sync. */
  Hybrid3Rounds *h3_report;
  size_t copy_hint; /* blobs fetched with the header; adapts to the scene */

  /* The frame's blob table on the device, whichever pipeline made it, and
   * how many blobs it can hold; the header and the first `copied` blobs
   * are already in header_h and blobs_h after the kernels (the tiled
   * tail's blob records writes them: tile::Frame::copy), the rest is
   * downloaded. */
  GpucclBlob *table;
  size_t table_cap;
  size_t copied;

  /* Binary mode: the tiled tail's buffers (per image size) and frame. */
  tile::Buffers tiled;
  tile::Frame tf;

  /* Segments mode: the segment tail's buffers, per image size and grown
   * to the components a frame counts. */
  int width, height;
  size_t n_words, n_max;
  int n_tiles;
  uint32_t *L, *rootmask, *count, *offset;
  Ha4Features feat;
  uint32_t *tile_count, *tile_offset;
  GpucclBlob *out;
  void *temp; /* the id scan's (per size) */
  size_t temp_bytes;
  void *tile_temp; /* the blob scan's (per component capacity) */
  size_t tile_temp_bytes;
  /* A failed frame (or new accumulators) may have left device state that
   * frames count on finding at zero: the segment tail's sums, the tiled
   * tail's counters (reset_frame_state). */
  bool dirty;

  /* Grown on demand. */
  uint8_t *input;
  size_t input_bytes;
  uint32_t *labels_d, *labels_h;
  size_t labels_n;
  /* want_intensity: per component (mask_intensity.cu). */
  GpucclBlobIntensity *intensity_d;
  size_t intensity_cap;

  /* max_blobs selection, allocated at first use for the size. */
  uint64_t *keys, *keys_sorted;
  uint8_t *flags;
  GpucclBlob *selected;
  uint32_t *n_selected;
  void *sel_temp;
  bool selection_ready; /* every selection buffer above is allocated */
  size_t sel_cap;       /* for a table of this many blobs */
  size_t sel_temp_bytes;

  /* The forest labelers' forest and bitmask, grown on demand
   * (forest_kernels.h). */
  void *forest_ws;
  size_t forest_ws_bytes;

  GpucclCudaDraw *draw; /* overlay buffers, created at the first draw */

  /* Query points (x then y) and their nearest blobs, grown on demand, in
   * pinned mapped host memory: the search reads and writes them in place,
   * so a frame with queries queues no extra copy (each small copy costs
   * the stream a bus round trip). *_dev: the device's view. */
  float *query_h, *query_dev;
  GpucclNearest *nearest_h, *nearest_dev;
  size_t queries_cap;

  /* The frame as one CUDA graph: launching ~10 kernels one by one
   * costs the host a few µs each, and on light images the GPU waits for
   * them. Captured for a (frame, parameters, buffers) GraphKey; instances
   * kept for the last keys (graph_instances.h). Frames outside a batch
   * (overlays, query points, intensities); the others run in the batch
   * graph below. */
  bool use_graph;
  /* The generation of the buffers the graphs use, a process-wide number
   * taken at open and whenever those buffers are freed or made again
   * (renew_buffers): not every buffer a graph touches is in its key (the
   * table, Otsu's histogram), and a size seen again may get the same
   * addresses for some of them, or another context this one's address.
   * In every key, so a kept graph of other buffers never matches. */
  uint64_t buffers;
  GraphInstances frame_graphs;
  GraphInstance *frame_graph; /* the instance the frame launches */

  /* gpuccl_process_batch (cuda_batch.cu): the graph of the batches this
   * context leads, made at the first; the event that orders the streams of
   * a batch, made at first use. */
  struct BatchGraph *batch;
  cudaEvent_t ev_batch;
  size_t batch_fetched; /* blobs a batch downloads with the header */
};

/* What HYBRID3's loop borrows from the context: its report, and the side
 * stream (idle while the kernels are enqueued) to capture its body on. */
inline ForestLoopEnv forest_loop_env(const CudaCtx *c)
{
  return ForestLoopEnv{c->h3_report, c->side_stream};
}

/* A CUDA error as a status with a message; marks the context dirty. */
GpucclStatus cuda_fail(CudaCtx *c, GpucclError *error, cudaError_t err,
                       const char *what);

/* The buffers a context grows (nothing happens when they are there). */
GpucclStatus ensure_tiled(CudaCtx *c, int width, int height,
                          GpucclError *error);
/* Segments mode: the segment tail's buffers for the size and at least
 * SEGMENTS_FIRST_COMPONENTS components (new accumulators leave the
 * context dirty). */
GpucclStatus ensure_segments(CudaCtx *c, int width, int height,
                             GpucclError *error);
GpucclStatus ensure_components(CudaCtx *c, size_t n, GpucclError *error);
/* A dirty context's state back to zero (CudaCtx::dirty), on its stream. */
GpucclStatus reset_frame_state(CudaCtx *c, GpucclError *error);
GpucclStatus ensure_input(CudaCtx *c, size_t bytes, GpucclError *error);
GpucclStatus ensure_forest(CudaCtx *c, const GpucclParams *params, int width,
                           int height, GpucclError *error);
GpucclStatus ensure_labels(CudaCtx *c, size_t n, GpucclError *error);
GpucclStatus ensure_pinned(CudaCtx *c, void **buf, size_t *cap_out, size_t n,
                           size_t elem, GpucclError *error);
GpucclStatus ensure_blobs_h(CudaCtx *c, size_t n, GpucclError *error);
GpucclStatus ensure_queries(CudaCtx *c, size_t n, GpucclError *error);
GpucclStatus ensure_selection(CudaCtx *c, GpucclError *error);

/* A frame's blob table (cuda_table.cu). The side stream starts once the
 * table is made, and the frame's sync joins it (also after a failure). */
GpucclStatus side_start(CudaCtx *c, GpucclError *error);
GpucclStatus side_join(CudaCtx *c, GpucclError *error);
GpucclStatus enqueue_nearest(CudaCtx *c, const GpucclNearestRequest *request,
                             GpucclError *error);
GpucclStatus enqueue_downloads(CudaCtx *c, const GpucclParams *params,
                               size_t fetched, size_t n_pixels,
                               GpucclError *error);
/* Blobs of the table that blob records writes to host memory itself:
 * fixed, so that the graph stays as the scene changes; beyond them the
 * table is downloaded. */
constexpr size_t RECORDS_COPY_BLOBS = 1024;
GpucclStatus select_largest(CudaCtx *c, size_t n, uint32_t k,
                            GpucclError *error);
GpucclStatus fetch_values(CudaCtx *c, uint32_t n_components, size_t n_blobs,
                          GpucclError *error);

/* One frame's steps (cuda_frame.cu), which gpuccl_process_batch shares. */
struct FramePlan {
  bool segments;
  const GpucclParams *params; /* the caller's, or seg_params */
  GpucclParams seg_params;
  Ha4Frame f;
};
/* Up to the kernels: the buffers, the input, the frame's description. */
GpucclStatus plan_frame(CudaCtx *c, const GpucclImage *image,
                        const GpucclParams *params, FramePlan *plan,
                        GpucclError *error);
/* Whether the frame's kernels are captured as a CUDA graph, and whether
 * they join a batch's graph (not with query points or intensities, which
 * work after the table's download). */
bool runs_as_graph(const CudaCtx *c, const GpucclParams *params);
bool runs_in_batch(const CudaCtx *c, const GpucclParams *params);
GraphKey graph_key_of(const CudaCtx *c, const Ha4Frame &f,
                      const GpucclParams *params);
/* Same kernels in the same order, with the same launch shapes. */
bool graph_same_shape(const GraphKey &a, const GraphKey &b);
/* A frame or batch graph is being captured (gpuccl_cuda_graph_captures). */
void count_graph_capture();
GpucclStatus enqueue_kernels(CudaCtx *c, const Ha4Frame &f,
                             const GpucclParams *params, GpucclError *error);
/* The table the frame makes, and how many of its blobs to have on the host
 * with the header for a hint of that many (at least those copied). */
void set_table(CudaCtx *c, const FramePlan &plan);
size_t blobs_to_fetch(const CudaCtx *c, size_t hint);
/* After the sync: the rest of the table, the result. */
GpucclStatus fill_result(CudaCtx *c, const GpucclImage *image,
                         const GpucclParams *params, size_t fetched,
                         GpucclResult *result, GpucclError *error);
GpucclStatus process_frame(GpucclContext *ctx, const GpucclImage *image,
                           const GpucclParams *params,
                           const GpucclOverlay *overlay, GpucclResult *result,
                           GpucclError *error);
/* segment_frame.cu: a segments-mode frame's kernels (it syncs once to
 * size its component buffers). */
GpucclStatus enqueue_segments(CudaCtx *c, const Ha4Frame &f,
                              const GpucclParams *params, GpucclError *error);
/* frame_done.cu: c's next graphed frame raises c->done_h once the host's
 * copy of its results is complete, or (raises false) leaves the host to
 * wait for its stream; the host's wait for the graphed frames of contexts
 * cs[0..n) (NULL entries skipped), all launched on `stream`. */
void frame_done_arm(CudaCtx *c, bool raises);
extern "C" cudaError_t gpuccl_frame_done_wait(CudaCtx *const *cs, size_t n,
                                              cudaStream_t stream);
/* cuda_batch.cu */
GpucclStatus cuda_process_batch(GpucclContext *const *contexts,
                                const GpucclImage *images,
                                const GpucclParams *const *params, size_t n,
                                size_t *failed, GpucclError *error);
void batch_graph_free(CudaCtx *c);

/* The backend's entry points (gpuccl_cuda_ops). */
GpucclStatus cuda_process(GpucclContext *ctx, const GpucclImage *image,
                          const GpucclParams *params, GpucclResult *result,
                          GpucclError *error);
GpucclStatus cuda_draw(GpucclContext *ctx, const GpucclFrame *frame,
                       const GpucclDrawParams *params, GpucclError *error);
GpucclStatus cuda_process_draw(GpucclContext *ctx, const GpucclImage *image,
                               const GpucclParams *params,
                               const GpucclOverlay *overlay,
                               GpucclResult *result, GpucclError *error);
/* mask_intensity.cu: a mask's upload (the ops' mask_copy), and after a
 * frame's sync the intensities of its result's blobs from the label image
 * on the device (labels_d, written when want_intensity). */
GpucclStatus cuda_mask_copy(GpucclContext *ctx, void *dst,
                            const GpucclImage *picture, GpucclError *error);
GpucclStatus cuda_measure_intensity(GpucclContext *ctx, CudaCtx *c,
                                    const GpucclResult *result,
                                    GpucclError *error);
void *cuda_host_alloc(GpucclContext *ctx, size_t size, GpucclMemory memory,
                      GpucclError *error);
void cuda_host_free(GpucclContext *ctx, void *ptr);

#define CK(expr, what)                                                        \
  do {                                                                        \
    cudaError_t err_ = (expr);                                                \
    if (err_ != cudaSuccess)                                                  \
      return cuda_fail(c, error, err_, what);                                 \
  } while (0)

/* Kernel launches and copies: a fault-injection point each. */
#define LAUNCH(expr, what)                                                    \
  do {                                                                        \
    if (gpuccl_fault_hit(GPUCCL_FAULT_LAUNCH)) {                              \
      c->dirty = true;                                                        \
      return gpuccl_set_error(error, GPUCCL_ERROR_DEVICE,                     \
                              "CUDA: %s failed: injected fault", what);       \
    }                                                                         \
    CK(expr, what);                                                           \
  } while (0)

#endif /* GPUCCL_CUDA_CONTEXT_H */
