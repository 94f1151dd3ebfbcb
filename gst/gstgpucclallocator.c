/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstGpucclAllocator: GstMemory over gpuccl_host_alloc_on(). The blocks
 * are process-wide (any library context reads them, pinned portable with
 * CUDA), so the allocator keeps no library context of its own: a backend
 * and a device, resolved once. */
#include "gstgpucclallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_gpuccl_allocator_debug);
#define GST_CAT_DEFAULT gst_gpuccl_allocator_debug

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* start of the maxsize bytes */
  gpointer base;                /* what gpuccl_host_alloc returned; NULL in
                                 * shared sub-memories */
} GstGpucclMemory;

struct _GstGpucclAllocator
{
  GstAllocator parent;

  /* Set once at creation; gpuccl_host_alloc_on and gpuccl_host_release
   * may be called from any thread. */
  GpucclBackend backend;        /* CPU or CUDA, never AUTO */
  gint device_id;
  GpucclMemory memory;
};

G_DEFINE_TYPE_WITH_CODE (GstGpucclAllocator, gst_gpuccl_allocator,
    GST_TYPE_ALLOCATOR, GST_DEBUG_CATEGORY_INIT (gst_gpuccl_allocator_debug,
        "gpucclallocator", 0, "gpuccl host memory allocator"));

static GstGpucclMemory *
gpuccl_memory_new (GstGpucclAllocator * self, gsize maxsize, gsize align,
    gsize offset, gsize size, GstMemoryFlags flags)
{
  GpucclError error = { 0 };
  GstGpucclMemory *mem;
  gpointer base;

  /* Over-allocate so any requested alignment can be honoured, whatever
   * the backend's own alignment is. */
  base = gpuccl_host_alloc_on (self->backend, self->device_id,
      maxsize + align, self->memory, &error);
  if (!base) {
    GST_ERROR_OBJECT (self, "cannot allocate %" G_GSIZE_FORMAT " bytes: %s",
        maxsize, error.message);
    return NULL;
  }

  mem = g_new0 (GstGpucclMemory, 1);
  mem->base = base;
  mem->data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  gst_memory_init (GST_MEMORY_CAST (mem), flags, GST_ALLOCATOR_CAST (self),
      NULL, maxsize, align, offset, size);

  if (offset && (flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, offset);
  if (maxsize > offset + size && (flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + offset + size, 0, maxsize - offset - size);
  return mem;
}

static GstMemory *
gst_gpuccl_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  gsize maxsize = size + params->prefix + params->padding;
  gsize align = params->align | gst_memory_alignment;

  return (GstMemory *) gpuccl_memory_new (GST_GPUCCL_ALLOCATOR (allocator),
      maxsize, align, params->prefix, size, params->flags);
}

static void
gst_gpuccl_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  GstGpucclMemory *mem = (GstGpucclMemory *) memory;

  /* Any thread: a buffer goes when its last reader is done with it. */
  gpuccl_host_release (mem->base);
  g_free (mem);
}

static gpointer
gpuccl_mem_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstGpucclMemory *) memory)->data;
}

static void
gpuccl_mem_unmap (GstMemory * memory)
{
}

/* A copy is made to be written (e.g. overlays on a frame upstream still
 * holds) and goes downstream: system memory serves, and avoids a pinned
 * allocation — slow with CUDA — per copied frame. */
static GstMemory *
gpuccl_mem_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstGpucclMemory *src = (GstGpucclMemory *) memory;
  GstAllocationParams params;
  GstMemory *copy;
  GstMapInfo map;

  gst_allocation_params_init (&params);
  params.align = memory->align;
  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = gst_allocator_alloc (NULL, size, &params);
  if (!copy || !gst_memory_map (copy, &map, GST_MAP_WRITE)) {
    if (copy)
      gst_memory_unref (copy);
    return NULL;
  }
  memcpy (map.data, src->data + memory->offset + offset, size);
  gst_memory_unmap (copy, &map);
  return copy;
}

static GstMemory *
gpuccl_mem_share (GstMemory * memory, gssize offset, gssize size)
{
  GstGpucclMemory *src = (GstGpucclMemory *) memory;
  GstGpucclMemory *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstGpucclMemory, 1);
  sub->data = src->data;
  sub->base = NULL;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
gst_gpuccl_allocator_class_init (GstGpucclAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = gst_gpuccl_allocator_alloc;
  allocator_class->free = gst_gpuccl_allocator_free;
}

static void
gst_gpuccl_allocator_init (GstGpucclAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_GPUCCL_MEMORY_TYPE;
  allocator->mem_map = gpuccl_mem_map;
  allocator->mem_unmap = gpuccl_mem_unmap;
  allocator->mem_copy = gpuccl_mem_copy;
  allocator->mem_share = gpuccl_mem_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_gpuccl_allocator_new (GpucclBackend backend, gint device_id,
    GpucclMemory memory, GpucclError * error)
{
  GstGpucclAllocator *self;

  /* AUTO as a context would resolve it; a CUDA device that is not there
   * is refused now rather than at the first allocation. */
  if (backend == GPUCCL_BACKEND_AUTO)
    backend = gpuccl_cuda_available (device_id, NULL) ?
        GPUCCL_BACKEND_CUDA : GPUCCL_BACKEND_CPU;
  else if (backend == GPUCCL_BACKEND_CUDA &&
      !gpuccl_cuda_available (device_id, error))
    return NULL;
  self = g_object_new (GST_TYPE_GPUCCL_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->backend = backend;
  self->device_id = device_id;
  self->memory = memory;
  GST_DEBUG_OBJECT (self, "host memory for %s device %d, memory mode %d",
      gpuccl_backend_name (backend), device_id, (int) memory);
  return GST_ALLOCATOR_CAST (self);
}

GpucclMemory
gst_gpuccl_allocator_get_memory_mode (GstGpucclAllocator * self)
{
  return self->memory;
}

gboolean
gst_is_gpuccl_memory (GstMemory * mem)
{
  return mem && mem->allocator &&
      GST_IS_GPUCCL_ALLOCATOR (mem->allocator);
}
