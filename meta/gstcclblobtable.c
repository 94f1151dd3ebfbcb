/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta's tables are recycled: a frame's table goes back to a few
 * spares when its buffer dies and serves a later frame. A table of 500 000
 * blobs is 16 MiB, and memory fresh from the system costs a page fault per
 * 4 KiB on first use: in a sandboxed VM, more than the whole labeling
 * (bench/metadata_bench.c, docs/metadata.md). The spares are bounded in
 * number and in bytes. */
#include "gstcclblobmetaprivate.h"

/* In front of each table: its capacity (16 bytes keep what follows
 * aligned). */
typedef struct
{
  gsize capacity;
  gsize unused;
} TableHead;

#define N_SPARES 4
#define SPARE_BYTES_MAX ((gsize) 64 << 20)

static GMutex spares_lock;
static TableHead *spares[N_SPARES];
static gsize spare_bytes;

gpointer
gst_ccl_blob_table_alloc (gsize size)
{
  TableHead *head = NULL;
  gint best = -1;

  if (size > G_MAXSIZE - sizeof (TableHead))
    return NULL;

  /* The smallest spare that is large enough. */
  g_mutex_lock (&spares_lock);
  for (gint i = 0; i < N_SPARES; i++)
    if (spares[i] && spares[i]->capacity >= size &&
        (best < 0 || spares[i]->capacity < spares[best]->capacity))
      best = i;
  if (best >= 0) {
    head = spares[best];
    spares[best] = NULL;
    spare_bytes -= head->capacity;
  }
  g_mutex_unlock (&spares_lock);

  if (!head) {
    head = g_try_malloc (sizeof (TableHead) + size);
    if (!head)
      return NULL;
    head->capacity = size;
  }
  return head + 1;
}

void
gst_ccl_blob_table_free (gpointer table)
{
  TableHead *head, *drop;
  gint slot = -1;

  if (!table)
    return;
  head = drop = (TableHead *) table - 1;

  /* Kept in an empty slot, else in place of the smallest spare if that is
   * smaller, within the byte bound. */
  g_mutex_lock (&spares_lock);
  for (gint i = 0; i < N_SPARES; i++) {
    if (!spares[i]) {
      slot = i;
      break;
    }
    if (slot < 0 || spares[i]->capacity < spares[slot]->capacity)
      slot = i;
  }
  if (!spares[slot] || spares[slot]->capacity < head->capacity) {
    gsize replaced = spares[slot] ? spares[slot]->capacity : 0;

    if (spare_bytes - replaced + head->capacity <= SPARE_BYTES_MAX) {
      drop = spares[slot];
      spares[slot] = head;
      spare_bytes += head->capacity - replaced;
    }
  }
  g_mutex_unlock (&spares_lock);
  g_free (drop);
}
