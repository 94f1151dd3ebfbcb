/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One frame of the CUDA backend (cuda_context.h): where the image is read,
 * the kernel sequence (a labeler and the tiled tail, as one CUDA graph;
 * segments mode: segment_frame.cu), what is done with the blob table
 * (cuda_table.cu) and the one sync, and overlays. A plain graphed frame
 * runs as a batch of one (cuda_batch.cu). */
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_context.h"
#include "cuda_internal.h"
#include "host_memory.h"

/* Whether tile labeling writes the label image on the device: asked
 * for, or read there by the intensities (mask_intensity.cu). */
static bool device_labels(const GpucclParams *params)
{
  return params->want_labels || params->want_intensity;
}

static size_t pixel_bytes(GpucclPixelFormat f)
{
  return f == GPUCCL_PIXEL_U16 ? 2 : f == GPUCCL_PIXEL_PACKED4 ? 4 : 1;
}

/* Where the kernels read the image: device memory and mapped blocks of
 * gpuccl_host_alloc (any context's, host_memory.h) in place, anything else
 * through one copy into the input buffer. */
static GpucclStatus place_input(CudaCtx *c, const GpucclImage *image,
                                Ha4Frame *f, GpucclError *error)
{
  const size_t row_bytes = (size_t)image->width * pixel_bytes(image->format);
  const uint8_t *mapped = nullptr;
  const bool pinned = gpuccl_host_block_find(image->data, &mapped);
  if (mapped) {
    f->image = mapped;
    f->stride = image->stride;
    return GPUCCL_OK;
  }
  if (!pinned) {
    cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, image->data);
    if (err != cudaSuccess)
      cudaGetLastError(); /* plain host memory on old runtimes */
    else if (attr.type == cudaMemoryTypeDevice ||
             attr.type == cudaMemoryTypeManaged) {
      f->image = static_cast<const uint8_t *>(attr.devicePointer);
      f->stride = image->stride;
      return GPUCCL_OK;
    }
  }
  GpucclStatus st = ensure_input(c, row_bytes * image->height, error);
  if (st != GPUCCL_OK)
    return st;
  LAUNCH(cudaMemcpy2DAsync(c->input, row_bytes, image->data, image->stride,
                           row_bytes, image->height, cudaMemcpyHostToDevice,
                           c->stream),
         "image upload");
  gpuccl_cuda_count_frame_upload();
  f->image = c->input;
  f->stride = row_bytes;
  return GPUCCL_OK;
}

/* A binary frame's kernels, in order, on the context's stream: Otsu, the
 * labeler (tile labeling for HA4, or a forest labeler and the adapter),
 * the tiled tail. */
GpucclStatus enqueue_kernels(CudaCtx *c, const Ha4Frame &f,
                                    const GpucclParams *params,
                                    GpucclError *error)
{
  if (f.d_threshold)
    LAUNCH(ha4_launch_otsu(f, c->hist, c->d_threshold, c->sm_count, c->stream),
           "Otsu threshold");
  uint32_t *labels = device_labels(params) ? c->labels_d : nullptr;
  if (!gpuccl_forest_algorithm(params->algorithm)) {
    LAUNCH(tile::enqueue_frame(c->tiled, c->tf, labels, c->stream),
           "tiled HA4");
    return GPUCCL_OK;
  }
  LAUNCH(gpuccl_forest_launch_labeling(f, params->algorithm, c->forest_ws,
                                       forest_loop_env(c), c->stream),
         "labeling");
  LAUNCH(tile::enqueue_forest_tail(
             c->tf, gpuccl_forest_view(params->algorithm, c->forest_ws, f),
             c->tiled.blobs, labels, c->stream),
         "tiled tail");
  return GPUCCL_OK;
}

GraphKey graph_key_of(const CudaCtx *c, const Ha4Frame &f,
                             const GpucclParams *params)
{
  GraphKey k;
  memset(&k, 0, sizeof k);
  k.buffers = c->buffers;
  k.f = f;
  k.algorithm = params->algorithm;
  k.want_labels = device_labels(params);
  k.labels_d = c->labels_d;
  k.forest_ws = c->forest_ws;
  memcpy(&k.tf, &c->tf, sizeof k.tf);
  return k;
}

static std::atomic<uint64_t> graph_captures(0);

void count_graph_capture()
{
  graph_captures.fetch_add(1, std::memory_order_relaxed);
}

extern "C" uint64_t gpuccl_cuda_graph_captures(void)
{
  return graph_captures.load(std::memory_order_relaxed);
}

extern "C" bool gpuccl_cuda_graphs_on(void)
{
  const char *g = getenv("GPUCCL_CUDA_GRAPH");
  return !(g && strcmp(g, "0") == 0);
}

/* Same kernels in the same order, with the same launch shapes, and no
 * conditional node: an update may not change one's parameters (its handle
 * is new at every capture), so HYBRID3's graphs are instantiated afresh. */
bool graph_same_shape(const GraphKey &a, const GraphKey &b)
{
  return a.algorithm == b.algorithm &&
         a.algorithm != GPUCCL_ALGORITHM_HYBRID3 &&
         a.f.width == b.f.width && a.f.height == b.f.height &&
         a.f.format == b.f.format &&
         (a.f.d_threshold != nullptr) == (b.f.d_threshold != nullptr) &&
         a.want_labels == b.want_labels;
}

/* Captures the frame's kernels into a spare instance (graph_instances.h),
 * updated in place when the topology is the same (other pointers or
 * parameters); a different kernel sequence (Otsu, label image, algorithm,
 * format, size) is instantiated afresh. A failure leaves the stream out of
 * capture and no instance for the key. */
static GpucclStatus capture_graph(CudaCtx *c, const Ha4Frame &f,
                                  const GpucclParams *params,
                                  const GraphKey &key, GpucclError *error)
{
  count_graph_capture();
  CK(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal),
     "graph capture");
  GpucclStatus st = enqueue_kernels(c, f, params, error);
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(c->stream, &graph);
  if (st != GPUCCL_OK || err != cudaSuccess) {
    if (graph)
      cudaGraphDestroy(graph);
    if (st != GPUCCL_OK)
      return st;
    return cuda_fail(c, error, err, "graph capture");
  }
  GraphInstance *g = c->frame_graphs.spare();
  const bool same_shape =
      g->exec && graph_same_shape(key, *g->key_as<GraphKey>());
  err = c->frame_graphs.install(g, graph, same_shape, &key, sizeof key);
  cudaGraphDestroy(graph);
  if (err != cudaSuccess)
    return cuda_fail(c, error, err, "graph instantiation");
  c->frame_graph = g;
  return GPUCCL_OK;
}

/* One frame's kernels between the timing events: binary frames as a graph,
 * segments frames (sized mid-frame) kernel by kernel. */
static GpucclStatus run_kernels(CudaCtx *c, const Ha4Frame &f,
                                const GpucclParams *params,
                                GpucclError *error)
{
  const bool graph = c->use_graph && !f.cuts;
  if (graph) {
    const GraphKey key = graph_key_of(c, f, params);
    c->frame_graph = c->frame_graphs.find(&key, sizeof key);
    if (!c->frame_graph) {
      GpucclStatus st = capture_graph(c, f, params, key, error);
      if (st != GPUCCL_OK)
        return st;
    }
  }
  LAUNCH(cudaEventRecord(c->ev_start, c->stream), "event record");
  if (graph) {
    LAUNCH(cudaGraphLaunch(c->frame_graph->exec, c->stream), "graph launch");
  } else {
    GpucclStatus st = f.cuts ? enqueue_segments(c, f, params, error)
                             : enqueue_kernels(c, f, params, error);
    if (st != GPUCCL_OK)
      return st;
  }
  LAUNCH(cudaEventRecord(c->ev_stop, c->stream), "event record");
  return GPUCCL_OK;
}

/* The tiled tail's frame: its buffers, the image and binarisation of
 * f, the area filter (areas fit 32 bits: a larger bound is no bound, a
 * larger minimum passes nothing), the context's header. Zero-filled
 * first: the graph key compares bytes. */
static void set_tiled_frame(CudaCtx *c, const Ha4Frame &f,
                            const GpucclParams *params)
{
  tile::Frame &tf = c->tf;
  memcpy(&tf, &c->tiled.frame, sizeof tf);
  tile::Image &im = tf.image;
  set_tile_samples(im, f);
  im.motion = f.motion;
  /* With the label image, tile labeling binarises every tile twice: only
   * the second pass learns (tiled_frame.cu), so both see one model. */
  im.motion_learns = !device_labels(params);
  im.mask = params->mask ? params->mask->data : nullptr;
  tf.filter.min_area = (uint32_t)(params->min_area < UINT32_MAX
                                      ? params->min_area
                                      : UINT32_MAX);
  tf.filter.max_area = (uint32_t)(params->max_area < UINT32_MAX
                                      ? params->max_area
                                      : 0);
  tf.conn8 = f.conn8;
  tf.header = c->header;
  /* blobs_h never holds fewer (cuda_context.cu). */
  const size_t copied = std::min({RECORDS_COPY_BLOBS, c->blobs_cap,
                                  tile::max_components(f.width, f.height)});
  tf.copy = tile::Frame::HostCopy{c->header_h, c->blobs_h, (uint32_t)copied};
}

/* The frame's description for the kernels: input, binarisation, and the
 * forest's images (bitmask; segments mode: cuts, values). Zero-filled
 * first: the graph key compares bytes. */
static GpucclStatus describe_frame(CudaCtx *c, const GpucclImage *image,
                                   const GpucclParams *params, Ha4Frame *f,
                                   GpucclError *error)
{
  memset(f, 0, sizeof *f);
  c->feat.value = nullptr;
  GpucclStatus st = place_input(c, image, f, error);
  if (st != GPUCCL_OK)
    return st;
  f->width = image->width;
  f->height = image->height;
  f->pitch = ha4_pitch(image->width);
  f->words = f->pitch / 32;
  if (gpuccl_forest_algorithm(params->algorithm)) {
    const ForestImages fi = gpuccl_forest_images(params, c->forest_ws,
                                                 image->width, image->height);
    f->bits = fi.bits;
    f->cuts = fi.cuts;
    c->feat.value = fi.values;
  }
  if (f->cuts)
    f->L = c->L;
  f->threshold = params->threshold;
  f->d_threshold =
      params->auto_threshold == GPUCCL_AUTO_THRESHOLD_OTSU ? c->d_threshold
                                                           : nullptr;
  f->invert = params->invert;
  f->conn8 = params->connectivity == 8;
  f->format = image->format;
  f->luma = params->channel == GPUCCL_CHANNEL_LUMA;
  f->off_r = image->offset_r;
  f->off_g = image->offset_g;
  f->off_b = image->offset_b;
  if (const GpucclMotion *motion = gpuccl_motion_of(params))
    f->motion = *motion;
  f->channel_offset = params->channel == GPUCCL_CHANNEL_RED ? image->offset_r
                      : params->channel == GPUCCL_CHANNEL_GREEN
                          ? image->offset_g
                          : image->offset_b;
  return GPUCCL_OK;
}

/* The buffers a frame needs: the tiled tail's (binary) or the segment
 * tail's, the label image, the forest labelers' workspace. */
static GpucclStatus ensure_frame_buffers(CudaCtx *c, const GpucclImage *image,
                                         const GpucclParams *params,
                                         GpucclError *error)
{
  const int w = image->width, h = image->height;
  GpucclStatus st = params->mode == GPUCCL_MODE_SEGMENTS
                        ? ensure_segments(c, w, h, error)
                        : ensure_tiled(c, w, h, error);
  if (st == GPUCCL_OK && device_labels(params))
    st = ensure_labels(c, (size_t)w * h, error);
  if (st == GPUCCL_OK && gpuccl_forest_algorithm(params->algorithm))
    st = ensure_forest(c, params, w, h, error);
  if (st == GPUCCL_OK && c->dirty)
    st = reset_frame_state(c, error);
  return st;
}

/* What the overlays borrow from the context. */
static GpucclCudaDrawEnv draw_env(const CudaCtx *c)
{
  return GpucclCudaDrawEnv{c->stream, c->sm_count, c->labels_d, dev_alloc,
                           dev_free};
}

void set_table(CudaCtx *c, const FramePlan &plan)
{
  c->table = plan.segments ? c->out : c->tiled.blobs;
  c->table_cap = plan.segments ? c->n_max
                               : tile::max_components(plan.f.width,
                                                      plan.f.height);
  c->copied = plan.segments ? 0 : c->tf.copy.n;
}

size_t blobs_to_fetch(const CudaCtx *c, size_t hint)
{
  return std::min({std::max(hint, c->copied), c->blobs_cap, c->table_cap});
}

/* After the kernels: the nearest blobs and the boxes and crosses of a
 * device overlay beside the table's download (draw_beside), the downloads
 * of the header and the first *fetched blobs, the join, the frame's one
 * sync. */
static GpucclStatus download_results(CudaCtx *c, const GpucclParams *params,
                                     const GpucclOverlay *overlay,
                                     bool draw_beside, size_t n_pixels,
                                     size_t *fetched, GpucclError *error)
{
  GpucclNearestRequest *const request = params->nearest;
  const bool search = request && request->n != 0;
  const bool beside = search || draw_beside;
  GpucclStatus st = beside ? side_start(c, error) : GPUCCL_OK;
  if (st == GPUCCL_OK && search)
    st = enqueue_nearest(c, request, error);
  if (st == GPUCCL_OK && draw_beside) {
    GpucclCudaDrawEnv env = draw_env(c);
    env.stream = c->side_stream;
    st = gpuccl_cuda_draw_queue(&env, c->table, c->header + 1, c->table_cap,
                                overlay->frame, &overlay->params, error);
  }
  *fetched = blobs_to_fetch(c, c->copy_hint);
  if (st == GPUCCL_OK)
    st = enqueue_downloads(c, params, *fetched, n_pixels, error);
  if (beside) {
    GpucclStatus joined = side_join(c, st == GPUCCL_OK ? error : nullptr);
    st = st == GPUCCL_OK ? joined : st;
  }
  if (st != GPUCCL_OK)
    return st;
  CK(cudaStreamSynchronize(c->stream), "frame");
  return GPUCCL_OK;
}

/* After the sync: HYBRID3's loop converged, else its labels are wrong. */
static GpucclStatus check_converged(const CudaCtx *c,
                                    const GpucclParams *params,
                                    const GpucclImage *image,
                                    GpucclError *error)
{
  if (params->algorithm != GPUCCL_ALGORITHM_HYBRID3 || !c->h3_report->moved)
    return GPUCCL_OK;
  return gpuccl_set_error(error, GPUCCL_ERROR_INTERNAL,
                          "HYBRID3 still moved labels after %u rounds, its "
                          "bound for a %dx%d image: not converged",
                          c->h3_report->rounds, image->width, image->height);
}

/* After the sync: the largest max_blobs selected, or the rest of the table
 * downloaded; segments' values; the result. */
GpucclStatus fill_result(CudaCtx *c, const GpucclImage *image,
                                const GpucclParams *params, size_t fetched,
                                GpucclResult *result, GpucclError *error)
{
  GpucclStatus st = check_converged(c, params, image, error);
  if (st != GPUCCL_OK)
    return st;
  const uint32_t n_components = c->header_h[0];
  size_t n_blobs = c->header_h[1];
  c->copy_hint = 2 * n_blobs + 64;
  GpucclNearestRequest *const request = params->nearest;
  /* The nearest blobs index the whole table: not the selection. */
  const bool selecting = params->max_blobs && n_blobs > params->max_blobs;
  const bool searched = request && request->n != 0 && !selecting &&
                        (uint64_t)request->n * n_blobs <=
                            GPUCCL_NEAREST_MAX_PAIRS;
  if (selecting) {
    st = select_largest(c, n_blobs, params->max_blobs, error);
    n_blobs = params->max_blobs;
  } else if (n_blobs > fetched) {
    st = ensure_blobs_h(c, n_blobs, error);
    if (st != GPUCCL_OK)
      return st;
    LAUNCH(cudaMemcpyAsync(c->blobs_h, c->table, n_blobs * sizeof(GpucclBlob),
                           cudaMemcpyDeviceToHost, c->stream),
           "blob table download");
    CK(cudaStreamSynchronize(c->stream), "blob table download");
  }
  if (st == GPUCCL_OK && c->feat.value)
    st = fetch_values(c, n_components, n_blobs, error);
  if (st != GPUCCL_OK)
    return st;
  result->width = image->width;
  result->height = image->height;
  result->n_components = n_components;
  result->n_blobs = n_blobs;
  result->blobs = c->blobs_h;
  result->threshold = (int)c->header_h[2];
  result->values = c->feat.value ? c->values_h : nullptr;
  result->labels = params->want_labels ? c->labels_h : nullptr;
  if (searched)
    request->answers = c->nearest_h;
  return GPUCCL_OK;
}

/* A frame up to its kernels: segments mode's parameters, the motion
 * check, the buffers, the frame's description and the tail's frame. */
GpucclStatus plan_frame(CudaCtx *c, const GpucclImage *image,
                        const GpucclParams *params, FramePlan *plan,
                        GpucclError *error)
{
  c->timed = false;
  plan->segments = params->mode == GPUCCL_MODE_SEGMENTS;
  plan->params = params;
  GpucclStatus st = GPUCCL_OK;
  /* Segments mode runs Stava and Benes with its own parameters. */
  if (plan->segments) {
    st = gpuccl_forest_segments_params(params, &plan->seg_params, error);
    plan->params = params = &plan->seg_params;
  }
  /* Motion is binarised in tile labeling (tile_samples.cuh), which only
   * HA4 runs; the forest labelers binarise into their own bitmask. */
  if (st == GPUCCL_OK && params->background &&
      (plan->segments || gpuccl_forest_algorithm(params->algorithm)))
    return gpuccl_set_error(error, GPUCCL_ERROR_UNSUPPORTED,
                            "binarisation by motion (a background model) "
                            "runs in the tiled HA4 pipeline only (algorithm "
                            "DEFAULT, HA4 or HA4_64), not algorithm %d",
                            (int)params->algorithm);
  if (st == GPUCCL_OK && (params->mask || params->want_intensity) &&
      gpuccl_forest_algorithm(params->algorithm))
    return gpuccl_set_error(error, GPUCCL_ERROR_UNSUPPORTED,
                            "a mask and blob intensities run in the tiled "
                            "HA4 pipeline only (algorithm DEFAULT, HA4 or "
                            "HA4_64), not algorithm %d",
                            (int)params->algorithm);
  if (st == GPUCCL_OK)
    st = ensure_frame_buffers(c, image, params, error);
  if (st == GPUCCL_OK)
    st = describe_frame(c, image, params, &plan->f, error);
  if (st == GPUCCL_OK && !plan->segments)
    set_tiled_frame(c, plan->f, params);
  return st;
}

bool runs_as_graph(const CudaCtx *c, const GpucclParams *params)
{
  return c->use_graph && params->mode != GPUCCL_MODE_SEGMENTS;
}

bool runs_in_batch(const CudaCtx *c, const GpucclParams *params)
{
  const bool queries = params->nearest && params->nearest->n;
  return runs_as_graph(c, params) && !queries && !params->want_intensity;
}

/* One frame, and its overlay when not NULL: boxes and crosses into a
 * device frame are queued beside the table's download, before the frame's
 * one sync; labels need their pens and max_blobs selects on the host's side
 * of the sync, so those overlays follow it, as do host frames. */
GpucclStatus process_frame(GpucclContext *ctx, const GpucclImage *image,
                           const GpucclParams *params,
                           const GpucclOverlay *overlay, GpucclResult *result,
                           GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  /* Where the overlay's frame is, asked once (and a split frame refused)
   * before any work. */
  bool on_device = false;
  GpucclStatus st = overlay ? gpuccl_cuda_frame_on_device(
                                  overlay->frame, &on_device, error)
                            : GPUCCL_OK;
  FramePlan plan;
  if (st == GPUCCL_OK)
    st = plan_frame(c, image, params, &plan, error);
  if (st == GPUCCL_OK)
    st = run_kernels(c, plan.f, plan.params, error);
  if (st != GPUCCL_OK)
    return st;
  params = plan.params;
  /* The table the frame made: read after the kernels, since a segments
   * frame grows its buffers mid-frame (enqueue_segments). */
  set_table(c, plan);
  /* The intensities read the frame after the sync: the overlay follows
   * them. */
  const bool draw_beside = overlay && on_device && !params->max_blobs &&
                           !params->want_intensity &&
                           !(overlay->params.flags & GPUCCL_DRAW_LABELS);
  size_t fetched = 0;
  st = download_results(c, params, overlay, draw_beside,
                        (size_t)image->width * image->height, &fetched, error);
  if (st != GPUCCL_OK)
    return st;
  c->timed = true;
  st = fill_result(c, image, params, fetched, result, error);
  if (st == GPUCCL_OK && params->want_intensity)
    st = cuda_measure_intensity(ctx, c, result, error);
  if (st != GPUCCL_OK || !overlay || draw_beside)
    return st;
  const GpucclCudaDrawEnv env = draw_env(c);
  return gpuccl_cuda_draw(&c->draw, &env, result, overlay->frame, on_device,
                          &overlay->params, error);
}

extern "C" int gpuccl_cuda_hybrid3_rounds(GpucclContext *ctx)
{
  if (!ctx || ctx->ops != &gpuccl_cuda_ops || !ctx->priv)
    return -1;
  const CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  return c->h3_report ? (int)c->h3_report->rounds : -1;
}

extern "C" void gpuccl_cuda_time_kernels(GpucclContext *ctx, bool on)
{
  if (ctx && ctx->ops == &gpuccl_cuda_ops && ctx->priv)
    static_cast<CudaCtx *>(ctx->priv)->time_kernels = on;
}

extern "C" float gpuccl_cuda_kernel_ms(GpucclContext *ctx)
{
  if (!ctx || ctx->ops != &gpuccl_cuda_ops || !ctx->priv)
    return -1.0f;
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  float ms = -1.0f;
  /* The host may have seen the frame done before its stop event was
   * (frame_done.cu). */
  if (scope.err != cudaSuccess || !c->timed ||
      cudaEventSynchronize(c->ev_stop) != cudaSuccess ||
      cudaEventElapsedTime(&ms, c->ev_start, c->ev_stop) != cudaSuccess) {
    cudaGetLastError();
    return -1.0f;
  }
  return ms;
}

GpucclStatus cuda_draw(GpucclContext *ctx, const GpucclFrame *frame,
                       const GpucclDrawParams *params,
                       GpucclError *error)
{
  CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  bool on_device = false;
  GpucclStatus st = gpuccl_cuda_frame_on_device(frame, &on_device, error);
  if (st != GPUCCL_OK)
    return st;
  const GpucclCudaDrawEnv env = draw_env(c);
  return gpuccl_cuda_draw(&c->draw, &env, &ctx->last, frame, on_device,
                          params, error);
}

/* A frame that runs in a batch (runs_in_batch) is a batch of one
 * (cuda_batch.cu): its header and first blobs come back from blob records
 * in the graph rather than two copies after it. result is ctx->last,
 * where the batch leaves it. */
GpucclStatus cuda_process(GpucclContext *ctx, const GpucclImage *image,
                          const GpucclParams *params, GpucclResult *result,
                          GpucclError *error)
{
  const CudaCtx *c = static_cast<CudaCtx *>(ctx->priv);
  if (result == &ctx->last && runs_in_batch(c, params)) {
    size_t failed = 0;
    return cuda_process_batch(&ctx, image, &params, 1, &failed, error);
  }
  return process_frame(ctx, image, params, nullptr, result, error);
}

GpucclStatus cuda_process_draw(GpucclContext *ctx, const GpucclImage *image,
                               const GpucclParams *params,
                               const GpucclOverlay *overlay,
                               GpucclResult *result, GpucclError *error)
{
  return process_frame(ctx, image, params, overlay, result, error);
}
