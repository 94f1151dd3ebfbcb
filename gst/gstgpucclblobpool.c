/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's allocation: the buffer pool (host memory of the backend,
 * pinned or mapped with CUDA) offered upstream. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"
#include "gstgpucclallocator.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

/* The allocator upstream should fill: host memory of our backend (pinned
 * with CUDA). Made on first use and after backend, device-id or memory
 * changed. */
static GstAllocator *
get_allocator (GstGpucclBlob * self)
{
  GstAllocator *allocator;
  GpucclBackend backend;
  GpucclMemory memory;
  gint device_id;
  GpucclError error = { 0 };

  GST_OBJECT_LOCK (self);
  allocator = self->allocator ? gst_object_ref (self->allocator) : NULL;
  backend = self->settings.backend;
  device_id = gst_gpuccl_blob_host_device (&self->settings);
  memory = self->settings.memory;
  GST_OBJECT_UNLOCK (self);
  if (allocator)
    return allocator;

  /* AUTO without a GPU already warned when the context opened: quietly
   * use what AUTO resolves to. */
  allocator = gst_gpuccl_allocator_new (backend, device_id, memory, &error);
  if (!allocator) {
    GST_WARNING_OBJECT (self, "no gpuccl allocator: %s", error.message);
    return NULL;
  }
  GST_OBJECT_LOCK (self);
  gst_object_replace ((GstObject **) & self->allocator,
      GST_OBJECT (allocator));
  GST_OBJECT_UNLOCK (self);
  return allocator;
}

/* Our pool (and allocator) first in upstream's answer to an allocation
 * query, before what downstream proposed. */
void
gst_gpuccl_blob_offer_pool (GstGpucclBlob * self, GstQuery * query)
{
  GstAllocationParams params;
  GstAllocator *allocator;
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo info;
  guint n_pools;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return;
  /* Device memory comes from a CUDA pool (upstream's or downstream's). */
  if (!gst_caps_features_is_equal (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return;
  allocator = get_allocator (self);
  if (!allocator)
    return;

  gst_allocation_params_init (&params);
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (self, "pool refused its configuration");
    gst_object_unref (pool);
    gst_object_unref (allocator);
    return;
  }

  n_pools = gst_query_get_n_allocation_pools (query);
  if (n_pools > 0) {
    /* Move the first pool to the end, ours in its place. */
    GstBufferPool *first = NULL;
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (query, 0, &first, &size, &min, &max);
    gst_query_add_allocation_pool (query, first, size, min, max);
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, 0, 0);
    if (first)
      gst_object_unref (first);
  } else {
    gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
  }
  if (gst_query_get_n_allocation_params (query) > 0) {
    /* Likewise for the allocators: ours first. */
    GstAllocator *first = NULL;
    GstAllocationParams first_params;
    gst_query_parse_nth_allocation_param (query, 0, &first, &first_params);
    gst_query_add_allocation_param (query, first, &first_params);
    gst_query_set_nth_allocation_param (query, 0, allocator, &params);
    if (first)
      gst_object_unref (first);
  } else {
    gst_query_add_allocation_param (query, allocator, &params);
  }
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  gst_object_unref (pool);
  gst_object_unref (allocator);
}
