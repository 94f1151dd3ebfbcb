/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* element_cuda.h: GstCudaMemory for the element tests. */
#include "element_cuda.h"

GstCudaContext *element_cuda_ctx;

int
element_cuda_main (int argc, char **argv, Suite * (*make_suite) (void))
{
  int ret;

  gst_init (&argc, &argv);
  if (!gst_cuda_load_library ()) {
    g_print ("SKIP: GStreamer's CUDA library finds no CUDA driver\n");
    return 77;
  }
  /* GStreamer's CUDA allocator is registered by whoever uses it first
   * (nvcodec when it loads): here, so that the tests find it. */
  gst_cuda_memory_init_once ();
  element_cuda_ctx = gst_cuda_context_new (0);
  if (!element_cuda_ctx) {
    g_print ("SKIP: no GstCudaContext (no CUDA driver or device)\n");
    return 77;
  }
  g_setenv ("CK_FORK", "no", TRUE);
  ret = element_test_main (argc, argv, make_suite);
  gst_clear_object (&element_cuda_ctx);
  return ret;
}

GstCaps *
element_cuda_caps (GstVideoFormat format, gint width, gint height)
{
  GstCaps *caps = element_caps (format, width, height);
  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

/* GStreamer's CUDA allocator (1.22 to 1.26) has no gray formats, and
 * asserts when asked for one. A gray frame goes into the first plane of an
 * allocation of a format it has with that plane's shape (NV12's luma for
 * GRAY8, YUY2's packed plane for GRAY16_LE), described by a GstVideoMeta
 * of the gray format, as an element making gray CUDA frames would hand
 * them over. */
static GstVideoFormat
allocated_format (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8:
      return GST_VIDEO_FORMAT_NV12;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      return GST_VIDEO_FORMAT_YUY2;
    default:
      return format;
  }
}

/* Plane by plane between a host frame and a device frame of the same
 * format and size, as cudaupload and cudadownload copy. Not through
 * GstCudaMemory's host map: its staging copy moves the first
 * width-in-bytes of each pitched row, and GStreamer (1.22 to 1.26) puts
 * the V plane of I420/YV12 at odd heights half a pitch into a row
 * (offset[2] = offset[1] + pitch * height / 2), outside what the staging
 * copy moves: a host map neither uploads nor downloads that plane. */
static void
copy_planes (GstVideoFrame * dst, GstVideoFrame * src, gboolean to_device,
    GstCudaContext * context)
{
  fail_unless (gst_cuda_context_push (context));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (src); p++) {
    CUDA_MEMCPY2D c = { 0 };
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (src->info.finfo, p, comp);
    c.WidthInBytes = GST_VIDEO_FRAME_COMP_WIDTH (src, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (src, comp[0]);
    c.Height = GST_VIDEO_FRAME_COMP_HEIGHT (src, comp[0]);
    c.srcPitch = GST_VIDEO_FRAME_PLANE_STRIDE (src, p);
    c.dstPitch = GST_VIDEO_FRAME_PLANE_STRIDE (dst, p);
    if (to_device) {
      c.srcMemoryType = CU_MEMORYTYPE_HOST;
      c.srcHost = GST_VIDEO_FRAME_PLANE_DATA (src, p);
      c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      c.dstDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (dst, p);
    } else {
      c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      c.srcDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (src, p);
      c.dstMemoryType = CU_MEMORYTYPE_HOST;
      c.dstHost = GST_VIDEO_FRAME_PLANE_DATA (dst, p);
    }
    fail_unless (gst_cuda_result (CuMemcpy2D (&c)), "plane %u copy", p);
  }
  gst_cuda_context_pop (NULL);
}

/* `frame` (system memory, layout `info`) copied into GstCudaMemory of
 * `context`; with `meta`, a GstVideoMeta of the device layout (without,
 * the memory's own layout is the only description). */
GstBuffer *
element_to_cuda_full (GstBuffer * frame, const GstVideoInfo * info,
    GstCudaContext * context, gboolean meta)
{
  /* GStreamer 1.22's allocator takes no NULL for the default one. */
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  GstVideoInfo alloc_info, device;
  GstMemory *mem;
  GstBuffer *out = gst_buffer_new ();
  GstVideoFrame src, dst;

  fail_unless (gst_video_info_set_format (&alloc_info,
          allocated_format (GST_VIDEO_INFO_FORMAT (info)),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info)));
  /* Since 1.24 the memory may carry a stream: none here (the copies below
   * wait for the default stream). */
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (allocator), context,
#if GST_CHECK_VERSION(1, 24, 0)
      NULL,
#endif
      &alloc_info);
  gst_object_unref (allocator);
  fail_unless (mem != NULL, "no GstCudaMemory");
  /* The frame's layout: the allocation's planes, as many as it has. */
  device = *info;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    device.stride[p] = GST_CUDA_MEMORY_CAST (mem)->info.stride[p];
    device.offset[p] = GST_CUDA_MEMORY_CAST (mem)->info.offset[p];
  }
  gst_buffer_append_memory (out, mem);
  /* Written through a meta in any case; removed after when not wanted. */
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      device.offset, device.stride);
  fail_unless (gst_video_frame_map (&src, info, frame, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, &device, out,
          GST_MAP_WRITE | GST_MAP_CUDA));
  copy_planes (&dst, &src, TRUE, context);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  if (!meta)
    fail_unless (gst_buffer_remove_meta (out,
            (GstMeta *) gst_buffer_get_video_meta (out)));
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (frame);
  return out;
}

/* The device frame of `buf` (its GstVideoMeta, or its memory's own layout)
 * copied into system memory of layout `info`. */
GstBuffer *
element_from_cuda (GstBuffer * buf, const GstVideoInfo * info)
{
  GstCudaMemory *mem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0));
  GstBuffer *out = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoInfo device = *info;
  GstVideoFrame src, dst;

  if (!gst_buffer_get_video_meta (buf)) {
    for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
      device.stride[p] = mem->info.stride[p];
      device.offset[p] = mem->info.offset[p];
    }
    device.size = mem->info.size;
  }
  fail_unless (gst_video_frame_map (&src, &device, buf,
          GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_video_frame_map (&dst, info, out, GST_MAP_WRITE));
  copy_planes (&dst, &src, FALSE, mem->context);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  return out;
}

GstBuffer *
element_to_cuda (GstBuffer * frame, const GstVideoInfo * info,
    GstCudaContext * context)
{
  return element_to_cuda_full (frame, info, context, TRUE);
}

