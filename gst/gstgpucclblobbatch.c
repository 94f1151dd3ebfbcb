/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The batcher that gpucclblob instances of one process share when
 * batch-size > 1: each streaming thread adds its frame to the open batch
 * and waits; the thread whose frame fills it, or the first whose wait runs
 * out (batch-max-wait after the batch's first frame), closes it and labels
 * it with one gpuccl_process_batch, then wakes the others. A frame never
 * waits longer than the wait of the batch it joined, so an instance that
 * leaves, pauses or flushes only makes the others' batches smaller. One
 * batcher per backend: a batch runs on one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* One frame of a batch: the request, then its answer. */
typedef struct
{
  GpucclContext *ctx;
  const GpucclImage *image;
  const GpucclParams *params;
  GpucclResult result;
  GpucclError error;
  GpucclStatus status;
  gboolean done;
} Slot;

typedef struct
{
  GPtrArray *open;              /* Slot *, the batch being filled */
  gint64 deadline;              /* monotonic µs: when the open batch closes */
  guint64 closed;               /* batches closed so far */
  GCond finished;               /* a batch was labeled */
} Batcher;

static GMutex batch_lock;
static Batcher batchers[GPUCCL_BACKEND_CUDA + 1];

/* The backend's batcher, made at first use; under batch_lock. */
static Batcher *
batcher_of (GpucclBackend backend)
{
  Batcher *b = &batchers[backend == GPUCCL_BACKEND_CUDA];
  if (!b->open) {
    b->open = g_ptr_array_new ();
    g_cond_init (&b->finished);
  }
  return b;
}

/* Batches in the order of their contexts, whatever order the frames
 * arrived in: the library keeps a batch's graph for the same contexts in
 * the same order, and re-makes it when the order changes. */
static gint
by_context (gconstpointer a, gconstpointer b)
{
  const Slot *x = *(Slot * const *) a, *y = *(Slot * const *) b;
  return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* Labels a closed batch (outside the lock). When the batch is refused,
 * one camera's bad frame must not fail the others: each frame is then
 * labeled alone, with its own answer. */
static void
label_batch (GPtrArray * batch)
{
  const guint n = batch->len;
  GpucclContext *contexts[GST_GPUCCL_BLOB_MAX_BATCH] = { NULL };
  GpucclImage images[GST_GPUCCL_BLOB_MAX_BATCH] = { {0} };
  const GpucclParams *params[GST_GPUCCL_BLOB_MAX_BATCH] = { NULL };
  GpucclResult results[GST_GPUCCL_BLOB_MAX_BATCH];
  GpucclError error = { 0 };

  g_ptr_array_sort (batch, by_context);
  for (guint i = 0; i < n; i++) {
    Slot *slot = g_ptr_array_index (batch, i);
    contexts[i] = slot->ctx;
    images[i] = *slot->image;
    params[i] = slot->params;
  }
  if (gpuccl_process_batch (contexts, images, params, n, results,
          &error) == GPUCCL_OK) {
    for (guint i = 0; i < n; i++) {
      Slot *slot = g_ptr_array_index (batch, i);
      slot->result = results[i];
      slot->status = GPUCCL_OK;
    }
    return;
  }
  GST_DEBUG ("batch of %u refused (%s): labeling its frames one by one", n,
      error.message);
  for (guint i = 0; i < n; i++) {
    Slot *slot = g_ptr_array_index (batch, i);
    slot->status = gpuccl_process (slot->ctx, slot->image, slot->params,
        &slot->result, &slot->error);
  }
}

/* Closes b's open batch, labels it and marks its frames done; called and
 * returns with batch_lock held. */
static void
close_and_label (Batcher * b)
{
  GPtrArray *batch = b->open;

  b->open = g_ptr_array_new ();
  b->closed++;
  g_mutex_unlock (&batch_lock);
  label_batch (batch);
  g_mutex_lock (&batch_lock);
  for (guint i = 0; i < batch->len; i++)
    ((Slot *) g_ptr_array_index (batch, i))->done = TRUE;
  g_ptr_array_unref (batch);
  g_cond_broadcast (&b->finished);
}

GpucclStatus
gst_gpuccl_blob_batch_process (guint size, GstClockTime max_wait,
    GpucclContext * ctx, const GpucclImage * image,
    const GpucclParams * params, GpucclResult * result, GpucclError * error)
{
  Slot slot = {.ctx = ctx,.image = image,.params = params };
  Batcher *b;
  guint64 mine;

  g_mutex_lock (&batch_lock);
  b = batcher_of (gpuccl_context_backend (ctx));
  if (b->open->len == 0)
    b->deadline = g_get_monotonic_time () + max_wait / GST_USECOND;
  g_ptr_array_add (b->open, &slot);
  mine = b->closed;
  size = MIN (size, GST_GPUCCL_BLOB_MAX_BATCH);
  while (!slot.done) {
    const gboolean still_open = b->closed == mine;
    if (still_open && (b->open->len >= size ||
            g_get_monotonic_time () >= b->deadline)) {
      close_and_label (b);
    } else if (still_open) {
      g_cond_wait_until (&b->finished, &batch_lock, b->deadline);
    } else {
      g_cond_wait (&b->finished, &batch_lock);
    }
  }
  g_mutex_unlock (&batch_lock);
  *result = slot.result;
  if (error)
    *error = slot.error;
  return slot.status;
}
