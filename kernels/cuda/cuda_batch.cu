/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process_batch on CUDA: the kernels and downloads of every image
 * of one CUDA context (GPU) as one CUDA graph, one branch per image on its
 * own context's stream, launched on the first one's stream; every GPU's
 * graph is launched before the host waits for the first. The branches
 * run side by side, so the tail's short kernels of one image fill the
 * gaps of another's, and the batch pays one launch and one sync. The
 * first context keeps instances of the graph for the last few keys (frame
 * keys and download sizes, the images' addresses among them); other keys
 * capture it again, and update the least recently used instance in place
 * when the shapes allow (as cuda_frame.cu does for one frame). */
#include <algorithm>
#include <cstring>
#include <new>

#include "cuda_context.h"
#include "cuda_internal.h"

/* What the batch graph of one image depends on. Zero-filled: compared
 * bytewise. */
struct BatchItemKey {
  const CudaCtx *c;
  GraphKey key;
  size_t fetched, copied; /* blobs fetched; those blob records copies */
  const void *blobs_h, *labels_h; /* regrown now and then */
  bool timed; /* the lead's gpuccl_cuda_time_kernels */
};

/* Whether an image's branch ends in a gather kernel: it fetches more
 * blobs than blob records copies. */
static bool gathers(const BatchItemKey &k)
{
  return k.fetched > k.copied;
}

/* Blobs [from, to) of one image's table, which go to the context's pinned
 * buffer, written in place by a kernel (pinned memory is mapped at the
 * same address under unified addressing). */
struct ResultCopy {
  const GpucclBlob *table;
  GpucclBlob *blobs_h;
  size_t from, to;
};

/* The blobs an image fetches beyond those blob records copied, as one
 * kernel at the end of its branch, GATHER_CHUNK vectors a block, where a
 * memcpy node would cost a copy's latency. */
constexpr int GATHER_THREADS = 256;
constexpr size_t GATHER_CHUNK = 4 * GATHER_THREADS; /* 16-byte vectors */

__global__ void __launch_bounds__(GATHER_THREADS)
    gather_results(ResultCopy r)
{
  static_assert(sizeof(GpucclBlob) == 2 * sizeof(uint4), "two vectors");
  const uint4 *src = reinterpret_cast<const uint4 *>(r.table);
  uint4 *dst = reinterpret_cast<uint4 *>(r.blobs_h);
  const size_t end = 2 * r.to;
  for (size_t i = 2 * r.from + blockIdx.x * GATHER_CHUNK + threadIdx.x;
       i < end && i < 2 * r.from + (blockIdx.x + 1) * GATHER_CHUNK;
       i += GATHER_THREADS)
    dst[i] = src[i];
}

/* What a context that leads batches keeps: the graph's instances for its
 * last keys (graph_instances.h), and the arrays of a call (grown, never
 * shrunk: no allocation in steady state). */
struct BatchGraph {
  GraphInstances graphs; /* keyed by the images' BatchItemKey[] */
  GraphInstance *current; /* the instance the call launches */
  FramePlan *plans;      /* per image */
  CudaCtx **cs;          /* per image and group */
  BatchItemKey *scratch; /* per image and group */
  size_t plans_cap, groups_cap;
};

void batch_graph_free(CudaCtx *c)
{
  if (!c->batch)
    return;
  c->batch->graphs.clear();
  delete[] c->batch->plans;
  delete[] c->batch->cs;
  delete[] c->batch->scratch;
  delete c->batch;
  c->batch = nullptr;
}

static CudaCtx *cuda_ctx(GpucclContext *ctx)
{
  return static_cast<CudaCtx *>(ctx->priv);
}

static GpucclStatus ensure_batch_event(CudaCtx *c, GpucclError *error)
{
  if (!c->ev_batch)
    CK(cudaEventCreateWithFlags(&c->ev_batch, cudaEventDisableTiming),
       "creating an event");
  return GPUCCL_OK;
}

/* c->batch, made at the first batch c leads. */
static GpucclStatus ensure_batch_state(CudaCtx *c, GpucclError *error)
{
  if (!c->batch)
    c->batch = new (std::nothrow) BatchGraph();
  if (!c->batch)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "a batch graph");
  return ensure_batch_event(c, error);
}

/* CUDA contexts (GPUs) one batch may span: one graph and one sync each. */
constexpr size_t MAX_GROUPS = 16;

/* Blobs downloaded with the header: at least the last count and 64 (half
 * the context's hint), kept while it stays within 4 times that, else that
 * and a quarter, in steps of 256: a scene's changing count seldom changes
 * the graph, and a large table is not fetched many times over. */
static size_t batch_fetch(CudaCtx *c)
{
  const size_t need = c->copy_hint / 2 + 32;
  if (c->batch_fetched < need || c->batch_fetched > 4 * need + 1024)
    c->batch_fetched = (need + need / 4 + 255) & ~(size_t)255;
  return blobs_to_fetch(c, c->batch_fetched);
}

/* Image i's branch of the capture: after the fork on the lead's stream,
 * its kernels and downloads on its own stream, joined back. `stop`, when
 * set, is recorded between the kernels and the downloads, so that the
 * device time of a lone frame is its labeling's, as without batches. */
static GpucclStatus capture_item(CudaCtx *lead, CudaCtx *c,
                                 const FramePlan &plan,
                                 const BatchItemKey &key, cudaEvent_t stop,
                                 GpucclError *error)
{
  const bool branch = c->stream != lead->stream;
  if (branch)
    CK(cudaStreamWaitEvent(c->stream, lead->ev_batch, 0), "batch fork");
  GpucclStatus st = enqueue_kernels(c, plan.f, plan.params, error);
  if (st == GPUCCL_OK && stop)
    LAUNCH(cudaEventRecordWithFlags(stop, c->stream, cudaEventRecordExternal),
           "event record");
  if (st == GPUCCL_OK && gathers(key)) {
    const unsigned chunks = (unsigned)((2 * (key.fetched - key.copied) +
                                        GATHER_CHUNK - 1) / GATHER_CHUNK);
    gather_results<<<chunks, GATHER_THREADS, 0, c->stream>>>(
        ResultCopy{c->table, c->blobs_h, key.copied, key.fetched});
    LAUNCH(cudaGetLastError(), "result gather");
  }
  if (st == GPUCCL_OK && plan.params->want_labels)
    LAUNCH(cudaMemcpyAsync(c->labels_h, c->labels_d,
                           (size_t)plan.f.width * plan.f.height *
                               sizeof(uint32_t),
                           cudaMemcpyDeviceToHost, c->stream),
           "label download");
  if (st != GPUCCL_OK || !branch)
    return st;
  CK(cudaEventRecord(c->ev_batch, c->stream), "batch join");
  CK(cudaStreamWaitEvent(lead->stream, c->ev_batch, 0), "batch join");
  return GPUCCL_OK;
}

/* Images in the group's graph (those with a context in cs). */
static size_t graphed_images(CudaCtx *const *cs, size_t n)
{
  size_t graphed = 0;
  for (size_t i = 0; i < n; i++)
    graphed += cs[i] != nullptr;
  return graphed;
}

/* The batch's graph, captured from every image's branch. When the lead
 * times its kernels, a lone image records the lead's ev_stop inside its
 * branch; a batch's device time is the whole graph's. */
static GpucclStatus capture_batch(CudaCtx *lead, CudaCtx *const *cs,
                                  const FramePlan *plans,
                                  const BatchItemKey *keys, size_t n,
                                  cudaGraph_t *graph, size_t *failed,
                                  GpucclError *error)
{
  CudaCtx *c = lead;
  const bool stop_inside = lead->time_kernels && graphed_images(cs, n) == 1;
  count_graph_capture();
  CK(cudaStreamBeginCapture(lead->stream, cudaStreamCaptureModeThreadLocal),
     "batch capture");
  cudaError_t err = cudaEventRecord(lead->ev_batch, lead->stream);
  GpucclStatus st = err == cudaSuccess
                        ? GPUCCL_OK
                        : cuda_fail(lead, error, err, "batch fork");
  for (size_t i = 0; i < n && st == GPUCCL_OK; i++)
    if (cs[i]) {
      st = capture_item(lead, cs[i], plans[i], keys[i],
                        stop_inside ? lead->ev_stop : nullptr, error);
      if (st != GPUCCL_OK)
        *failed = i;
    }
  err = cudaStreamEndCapture(lead->stream, graph);
  if (st == GPUCCL_OK && err != cudaSuccess)
    st = cuda_fail(lead, error, err, "batch capture");
  if (st != GPUCCL_OK && *graph) {
    cudaGraphDestroy(*graph);
    *graph = nullptr;
  }
  return st;
}

/* The same images on the same contexts with kernels of the same shapes:
 * an update in place can do. */
static bool batch_same_shape(const GraphInstance *g, const BatchItemKey *keys,
                             size_t n)
{
  if (!g->exec || g->key_count<BatchItemKey>() != n)
    return false;
  const BatchItemKey *old = g->key_as<BatchItemKey>();
  for (size_t i = 0; i < n; i++)
    if (old[i].c != keys[i].c ||
        (keys[i].c && (!graph_same_shape(old[i].key, keys[i].key) ||
                       gathers(old[i]) != gathers(keys[i]))))
      return false;
  return true;
}

/* lead->batch->current runs `keys`: the instance kept for them, else the
 * graph captured afresh into a spare instance (graph_instances.h). */
static GpucclStatus ensure_batch_graph(CudaCtx *lead, CudaCtx *const *cs,
                                       const FramePlan *plans,
                                       const BatchItemKey *keys, size_t n,
                                       size_t *failed, GpucclError *error)
{
  BatchGraph *b = lead->batch;
  const size_t bytes = n * sizeof *keys;
  if ((b->current = b->graphs.find(keys, bytes)))
    return GPUCCL_OK;
  GraphInstance *g = b->graphs.spare();
  cudaGraph_t graph = nullptr;
  GpucclStatus st =
      capture_batch(lead, cs, plans, keys, n, &graph, failed, error);
  if (st != GPUCCL_OK)
    return st;
  const cudaError_t err = b->graphs.install(
      g, graph, batch_same_shape(g, keys, n), keys, bytes);
  cudaGraphDestroy(graph);
  if (err != cudaSuccess)
    return cuda_fail(lead, error, err, "batch instantiation");
  b->current = g;
  return GPUCCL_OK;
}

/* Image i up to its branch: planned, its table named, its key made. The
 * graph runs on the lead's stream, so that stream first waits for what
 * was queued on image i's own (its upload, a wait for the producer of the
 * frame: gpuccl_context_wait_cuda_stream). */
static GpucclStatus plan_item(CudaCtx *lead, CudaCtx *c,
                              const GpucclImage *image,
                              const GpucclParams *params, FramePlan *plan,
                              BatchItemKey *key, GpucclError *error)
{
  GpucclStatus st = plan_frame(c, image, params, plan, error);
  if (st != GPUCCL_OK)
    return st;
  set_table(c, *plan);
  memset(key, 0, sizeof *key);
  key->c = c;
  key->fetched = batch_fetch(c);
  key->copied = c->copied;
  /* Blob records ends the branch unless a gather or the label image's
   * download follows (capture_item). */
  frame_done_arm(c, !gathers(*key) && !plan->params->want_labels);
  key->key = graph_key_of(c, plan->f, plan->params);
  key->timed = lead->time_kernels;
  key->blobs_h = c->blobs_h;
  key->labels_h = c->labels_h;
  if (c->stream == lead->stream)
    return GPUCCL_OK;
  st = ensure_batch_event(c, error);
  if (st != GPUCCL_OK)
    return st;
  CK(cudaEventRecord(c->ev_batch, c->stream), "stream order");
  CK(cudaStreamWaitEvent(lead->stream, c->ev_batch, 0), "stream order");
  return GPUCCL_OK;
}

/* One call's images, and what the batch makes of them. cs and keys hold n
 * entries per group (CUDA context): cs[i] the context of image i when it
 * is in the group's graph, else NULL. */
struct Batch {
  GpucclContext *const *contexts;
  const GpucclImage *images;
  const GpucclParams *const *params;
  size_t n;
  FramePlan *plans;
  CudaCtx **cs;
  BatchItemKey *keys;
  size_t firsts[MAX_GROUPS]; /* each group's first image */
  size_t groups;
  size_t failed; /* the image an error is about */
};

static bool same_cuda_context(const CudaCtx *a, const CudaCtx *b)
{
  return a->cu_context == b->cu_context && a->device == b->device;
}

/* Group g's images (those of its first image's CUDA context): frames
 * outside the graph (segments, query points, intensities) one by one, the
 * others planned. */
static GpucclStatus plan_group(Batch &b, size_t g, GpucclError *error)
{
  CudaCtx *const lead = cuda_ctx(b.contexts[b.firsts[g]]);
  CudaCtx **cs = b.cs + g * b.n;
  BatchItemKey *keys = b.keys + g * b.n;
  for (size_t i = 0; i < b.n; i++) {
    CudaCtx *c = cuda_ctx(b.contexts[i]);
    cs[i] = nullptr;
    memset(&keys[i], 0, sizeof keys[i]);
    if (i < b.firsts[g] || !same_cuda_context(c, lead))
      continue;
    const GpucclParams *params = b.params[i];
    const bool graphed = runs_in_batch(c, params);
    GpucclStatus st =
        graphed ? plan_item(lead, c, &b.images[i], params, &b.plans[i],
                            &keys[i], error)
                : process_frame(b.contexts[i], &b.images[i], params, nullptr,
                                &b.contexts[i]->last, error);
    if (st != GPUCCL_OK) {
      b.failed = i;
      return st;
    }
    cs[i] = graphed ? c : nullptr;
  }
  return GPUCCL_OK;
}

/* The host may return once every image's flag is up, while the graph
 * still runs the kernels after them (a frame without foreground is up
 * after its tile stage): each context whose own stream is not the lead's
 * has its next work wait for the whole graph, which uses its buffers. */
static GpucclStatus order_after_graph(CudaCtx *lead, CudaCtx *const *cs,
                                      size_t n, GpucclError *error)
{
  CudaCtx *c = lead;
  bool recorded = false;
  for (size_t i = 0; i < n; i++) {
    if (!cs[i] || cs[i]->stream == lead->stream)
      continue;
    if (!recorded) {
      GpucclStatus st = ensure_batch_event(lead, error);
      if (st != GPUCCL_OK)
        return st;
      CK(cudaEventRecord(lead->ev_batch, lead->stream), "stream order");
      recorded = true;
    }
    c = cs[i];
    CK(cudaStreamWaitEvent(c->stream, lead->ev_batch, 0), "stream order");
  }
  return GPUCCL_OK;
}

/* Group g planned, its graph made and launched between its first
 * context's timing events; the host waits later (finish_group). */
static GpucclStatus launch_group(Batch &b, size_t g, GpucclError *error)
{
  CudaCtx *const lead = cuda_ctx(b.contexts[b.firsts[g]]);
  CudaCtx *c = lead;
  GpucclCudaScope scope(lead->cu_context, lead->device);
  CK(scope.err, "selecting the CUDA context");
  GpucclStatus st = ensure_batch_state(lead, error);
  if (st == GPUCCL_OK)
    st = plan_group(b, g, error);
  CudaCtx **cs = b.cs + g * b.n;
  const size_t graphed = st == GPUCCL_OK ? graphed_images(cs, b.n) : 0;
  if (st != GPUCCL_OK || !graphed)
    return st;
  st = ensure_batch_graph(lead, cs, b.plans, b.keys + g * b.n, b.n,
                          &b.failed, error);
  if (st != GPUCCL_OK)
    return st;
  const bool timing = lead->time_kernels;
  if (timing)
    LAUNCH(cudaEventRecord(lead->ev_start, lead->stream), "event record");
  LAUNCH(cudaGraphLaunch(lead->batch->current->exec, lead->stream),
         "batch launch");
  if (timing && graphed > 1) /* else the lone image's branch records it */
    LAUNCH(cudaEventRecord(lead->ev_stop, lead->stream), "event record");
  return order_after_graph(lead, cs, b.n, error);
}

/* Group g's one sync, then its graphed images' results (none after a
 * failure). */
static GpucclStatus finish_group(Batch &b, size_t g, bool fill,
                                 GpucclError *error)
{
  CudaCtx *const lead = cuda_ctx(b.contexts[b.firsts[g]]);
  CudaCtx *c = lead;
  GpucclCudaScope scope(lead->cu_context, lead->device);
  CK(scope.err, "selecting the CUDA context");
  CudaCtx **cs = b.cs + g * b.n;
  CK(gpuccl_frame_done_wait(cs, b.n, lead->stream), "batch");
  if (!fill)
    return GPUCCL_OK;
  lead->timed = lead->time_kernels;
  const BatchItemKey *keys = b.keys + g * b.n;
  for (size_t i = 0; i < b.n; i++) {
    if (!cs[i])
      continue;
    GpucclStatus st = fill_result(cs[i], &b.images[i], b.plans[i].params,
                                  keys[i].fetched, &b.contexts[i]->last,
                                  error);
    if (st != GPUCCL_OK) {
      b.failed = i;
      return st;
    }
  }
  return GPUCCL_OK;
}

/* Image i starts a group unless an earlier image shares its CUDA
 * context. */
static bool starts_group(const Batch &b, size_t i)
{
  for (size_t g = 0; g < b.groups; g++)
    if (same_cuda_context(cuda_ctx(b.contexts[b.firsts[g]]),
                          cuda_ctx(b.contexts[i])))
      return false;
  return true;
}

/* The call's arrays, kept by the first context and grown when short. */
static GpucclStatus ensure_scratch(Batch &b, GpucclError *error)
{
  BatchGraph *s = cuda_ctx(b.contexts[0])->batch;
  if (s->plans_cap < b.n) {
    delete[] s->plans;
    s->plans = new (std::nothrow) FramePlan[b.n];
    s->plans_cap = s->plans ? b.n : 0;
  }
  const size_t entries = b.n * b.groups;
  if (s->groups_cap < entries) {
    delete[] s->cs;
    delete[] s->scratch;
    s->cs = new (std::nothrow) CudaCtx *[entries];
    s->scratch = new (std::nothrow) BatchItemKey[entries];
    s->groups_cap = s->cs && s->scratch ? entries : 0;
  }
  if (!s->plans_cap || !s->groups_cap)
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "a batch of %zu images", b.n);
  b.plans = s->plans;
  b.cs = s->cs;
  b.keys = s->scratch;
  return GPUCCL_OK;
}

/* The groups' first images, and the state the first context keeps. */
static GpucclStatus start_batch(Batch &b, GpucclError *error)
{
  for (size_t i = 0; i < b.n; i++) {
    if (!starts_group(b, i))
      continue;
    if (b.groups == MAX_GROUPS) {
      b.failed = i;
      return gpuccl_set_error(error, GPUCCL_ERROR_UNSUPPORTED,
                              "a batch spans at most %zu CUDA contexts",
                              MAX_GROUPS);
    }
    b.firsts[b.groups++] = i;
  }
  CudaCtx *c = cuda_ctx(b.contexts[0]);
  GpucclCudaScope scope(c->cu_context, c->device);
  CK(scope.err, "selecting the CUDA context");
  GpucclStatus st = ensure_batch_state(c, error);
  return st == GPUCCL_OK ? ensure_scratch(b, error) : st;
}

GpucclStatus cuda_process_batch(GpucclContext *const *contexts,
                                const GpucclImage *images,
                                const GpucclParams *const *params, size_t n,
                                size_t *failed, GpucclError *error)
{
  Batch b = {};
  b.contexts = contexts;
  b.images = images;
  b.params = params;
  b.n = n;
  GpucclStatus st = start_batch(b, error);
  size_t launched = 0;
  for (; st == GPUCCL_OK && launched < b.groups; launched++)
    st = launch_group(b, launched, error);
  /* Every launched group is waited for, also after a failure. */
  for (size_t g = 0; g < launched; g++) {
    const bool ok = st == GPUCCL_OK;
    GpucclStatus done = finish_group(b, g, ok, ok ? error : nullptr);
    st = ok ? done : st;
  }
  *failed = b.failed;
  return st;
}
