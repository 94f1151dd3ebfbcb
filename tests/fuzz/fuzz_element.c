/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the gpucclblob element through GstHarness, backend=cpu
 * ($GPUCCL_TEST_BACKEND=cuda: the CUDA path, for the GPU host's replay).
 *
 * The input chooses the caps (one of the nine formats, 1..64 a side, one
 * input in eight up to 400), every property, and a short stream of 1..4
 * buffers: whole frames, short ones, empty ones, oversized ones, GAP
 * buffers, buffers with a GstVideoMeta of arbitrary format, size, offsets
 * and strides (also spread over 2..4 memories, so planes cross them), with
 * a GstVideoCropMeta, whole frames whose metas then go through a scale to
 * another size and pixel aspect ratio (a letterbox), with caps changes and
 * property changes in between; the rest of the input is the pixels. Nothing may crash, hang or leak (ASan, UBSan,
 * libFuzzer's leak check); a frame that comes out (whole, or with a meta
 * the element took) must have its ROI metas inside the frame and no more
 * than max-blobs of them.
 *
 * Overlay work is kept to a budget per frame (fuzz_budget.h). */
#include "frames.h"
#include "fuzz_backend.h"
#include "fuzz_budget.h"
#include "fuzz_bytes.h"
#include "fuzz_check.h"

#include <gst/check/gstharness.h>

#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  /* An instrumented plugin cannot be loaded by the plugin scanner. */
  g_setenv ("GST_REGISTRY_FORK", "no", FALSE);
  gst_init (argc, argv);
  /* Under libFuzzer the plugin is loaded by name, not found by scanning
   * its folder: a scan would also open and close any other library
   * there (libgstcclblobmeta.so before it had its own folder), and closing an instrumented library pulls its coverage counters from
   * under libFuzzer. */
  const gchar *plugin = g_getenv ("GPUCCL_PLUGIN");
  if (plugin) {
    GError *err = NULL;
    GstPlugin *p = gst_plugin_load_file (plugin, &err);
    FUZZ_CHECK (p, "cannot load %s: %s", plugin, err->message);
    gst_object_unref (p);
  }
  GstElement *probe = gst_element_factory_make ("gpucclblob", NULL);
  FUZZ_CHECK (probe, "gpucclblob not found: set GST_PLUGIN_PATH to the "
      "build's gst/ folder");
  gst_object_unref (probe);
  return 0;
}

typedef struct {
  GstVideoFormat format;
  guint width, height;
  GstVideoInfo info;
} Caps;

/* The line width within the overlay budget (fuzz_budget.h) for a frame of
 * these caps, before knowing its blobs: at most (n + 1) / 2 of them in n
 * pixels (a checkerboard). Every width 1..40 stays reachable up to 54x54
 * (64x64: up to 34, 400x400: up to 5). */
static gint
line_width_cap (const Caps * c, gint wanted, gboolean ids)
{
  return fuzz_line_width_cap (((guint64) c->width * c->height + 1) / 2,
      wanted, ids);
}

/* Does the element draw ids now? (The flag's value from its GFlags.) */
static gboolean
draws_ids (GstElement * e)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "draw");
  GFlagsValue *ids = g_flags_get_value_by_nick (G_PARAM_SPEC_FLAGS
      (spec)->flags_class, "ids");
  guint draw;

  g_object_get (e, "draw", &draw, NULL);
  return ids && (draw & ids->value);
}

static void
choose_caps (FuzzBytes * in, Caps * c)
{
  guint side = fuzz_range (in, 0, 7) == 0 ? 400 : 64;
  c->format = rel_formats[fuzz_range (in, 0, rel_n_formats - 1)];
  c->width = fuzz_range (in, 1, side);
  c->height = fuzz_range (in, 1, side);
  gst_video_info_set_format (&c->info, c->format, c->width, c->height);
}

static void
push_caps (GstHarness * h, const Caps * c)
{
  GstSegment segment;
  GstCaps *caps = rel_caps_new (c->format, c->width, c->height);
  gst_harness_push_event (h, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
}

/* Every property from the input; returns max-blobs, and in *line_width
 * the line width the input asks for (set later, within the budget). */
static guint
choose_properties (FuzzBytes * in, GstElement * e, gint * line_width)
{
  static const gchar *const auto_t[] = { "none", "otsu" };
  static const gchar *const channels[] = { "luma", "red", "green", "blue" };
  /* One decision per statement: the order in which a call's arguments are
   * evaluated is unspecified, and gcc and clang differ, which would make
   * an input mean different things to the replay and libFuzzer builds. */
  guint max_blobs = fuzz_range (in, 0, 3) ? 0 : fuzz_range (in, 1, 10);
  gint threshold = fuzz_range (in, 0, 3) ? (gint) fuzz_u8 (in)
      : (gint) fuzz_u16 (in);
  gboolean invert = fuzz_bool (in);
  guint64 min_area = fuzz_range (in, 0, 3) ? 0 : fuzz_u8 (in);
  guint64 max_area = fuzz_range (in, 0, 3) ? 0 : fuzz_u16 (in);
  guint box_color = fuzz_u32 (in);
  *line_width = fuzz_range (in, 1, 40);
  gboolean post = fuzz_bool (in);
  gboolean meta = fuzz_range (in, 0, 7) != 0;
  gboolean track = fuzz_bool (in);

  g_object_set (e, "threshold", threshold, "invert", invert,
      "min-area", min_area, "max-area", max_area, "max-blobs", max_blobs,
      "box-color", box_color,
      "post-messages", post, "attach-meta", meta, "track", track, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "auto-threshold",
      auto_t[fuzz_range (in, 0, 3) == 0]);
  gst_util_set_object_arg (G_OBJECT (e), "connectivity",
      fuzz_bool (in) ? "4" : "8");
  gst_util_set_object_arg (G_OBJECT (e), "channel",
      channels[fuzz_range (in, 0, 3)]);
  g_object_set (e, "draw", (guint) fuzz_range (in, 0, 15), NULL);
  /* The colour's alpha is ignored by the element: its low bit turns the
   * label image on, without a new decision that would shift the meaning
   * of every input in the corpus. */
  g_object_set (e, "attach-labels", (gboolean) ((box_color >> 24) & 1), NULL);
  /* Its next bit a region, from bits already drawn: corners from -12 on,
   * partly or wholly outside small frames as often as inside. */
  if ((box_color >> 25) & 1) {
    gchar *region = g_strdup_printf ("<%d,%d,%d,%d>",
        (gint) ((box_color >> 26) & 7) * 9 - 12,
        (gint) ((box_color >> 29) & 7) * 9 - 12, 1 + (threshold & 63),
        1 + (gint) (max_area & 63));
    gst_util_set_object_arg (G_OBJECT (e), "region", region);
    g_free (region);
  }
  return max_blobs;
}

/* A buffer of the input's size (around the caps' frame size) with a
 * GstVideoMeta whose format, size, plane offsets and strides are mostly
 * the caps' own, else arbitrary: negative, short, past the end, wrapping. */
static GstBuffer *
meta_buffer (FuzzBytes * in, const Caps * c)
{
  const GstVideoInfo *info = &c->info;
  gsize frame = info->size;
  gsize n = frame + fuzz_u8 (in);
  GstVideoFormat format = c->format;
  guint w = c->width, h = c->height;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  GstBuffer *buf;
  GstMapInfo map;
  guint planes;

  if (fuzz_range (in, 0, 3) == 0)
    n = fuzz_range (in, 1, frame);
  if (fuzz_range (in, 0, 7) == 0)
    format = rel_formats[fuzz_range (in, 0, rel_n_formats - 1)];
  if (fuzz_range (in, 0, 7) == 0)
    w = fuzz_range (in, 1, 2 * c->width);
  if (fuzz_range (in, 0, 7) == 0)
    h = fuzz_range (in, 1, 2 * c->height);
  planes = GST_VIDEO_FORMAT_INFO_N_PLANES (gst_video_format_get_info (format));
  for (guint p = 0; p < planes; p++) {
    guint o = fuzz_range (in, 0, 7), t = fuzz_range (in, 0, 7);
    offset[p] = o == 0 ? (gsize) fuzz_u32 (in) % (n + 256)
        : o == 1 ? G_MAXSIZE - fuzz_u16 (in)
        : o == 2 ? info->offset[p] + fuzz_range (in, 0, 64)
        : info->offset[p];
    stride[p] = t == 0 ? (gint) (gint16) fuzz_u16 (in)
        : t == 1 ? info->stride[p] - fuzz_range (in, 1, 8)
        : t == 2 ? info->stride[p] * fuzz_range (in, 2, 4)
        : t == 3 ? G_MAXINT - fuzz_u8 (in)
        : info->stride[p];
  }
  buf = gst_buffer_new_allocate (NULL, n, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  fuzz_fill (in, map.data, n);
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format, w,
      h, planes, offset, stride);
  return buf;
}

/* The bytes of buf (taken) in 2..4 memories cut at the input's offsets,
 * its GstVideoMeta (if any) kept: planes that cross memories (issue 28). */
static GstBuffer *
split_memories (FuzzBytes * in, GstBuffer * buf)
{
  gsize size = gst_buffer_get_size (buf), at = 0;
  guint parts = fuzz_range (in, 2, 4);
  GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
  GstBuffer *out = gst_buffer_new ();

  for (guint i = 0; i < parts && at < size; i++) {
    gsize n = i + 1 == parts ? size - at
        : (gsize) fuzz_range (in, 1, (gint) MIN (size - at, 1 << 20));
    GstMemory *mem = gst_allocator_alloc (NULL, n, NULL);
    GstMapInfo map;

    gst_memory_map (mem, &map, GST_MAP_WRITE);
    gst_buffer_extract (buf, at, map.data, n);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (out, mem);
    at += n;
  }
  if (vm)
    gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
        vm->format, vm->width, vm->height, vm->n_planes, vm->offset,
        vm->stride);
  gst_buffer_unref (buf);
  return out;
}

/* A whole frame with a GstVideoCropMeta of the input's rectangle (which
 * the element does not ask for: it must label the frame of the caps, or
 * refuse a meta larger than them, never read outside the buffer). */
static GstBuffer *
crop_buffer (FuzzBytes * in, const Caps * c)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, c->info.size, NULL);
  GstVideoCropMeta *crop;
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  fuzz_fill (in, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  crop = gst_buffer_add_video_crop_meta (buf);
  crop->x = fuzz_range (in, 0, 2 * c->width);
  crop->y = fuzz_range (in, 0, 2 * c->height);
  crop->width = fuzz_range (in, 0, 2 * c->width);
  crop->height = fuzz_range (in, 0, 2 * c->height);
  return buf;
}

static void check_output (GstBuffer * out, const Caps * c, guint max_blobs);

/* The output's metas through a scale to the input's size and pixel aspect
 * ratio, as videoscale transforms them (each meta's transform, in order):
 * with another display aspect ratio the table maps into a letterbox. The
 * ROI metas the table restores must lie inside the scaled frame. */
static void
check_letterbox (FuzzBytes * in, GstBuffer * out, const Caps * c)
{
  Caps scaled = *c;
  GstVideoInfo from = c->info;
  GstVideoMetaTransform trans = { &from, &scaled.info };
  GstBuffer *dest = gst_buffer_new ();
  gpointer state = NULL;
  GstMeta *m;

  scaled.width = fuzz_range (in, 1, 400);
  scaled.height = fuzz_range (in, 1, 400);
  gst_video_info_set_format (&scaled.info, c->format, scaled.width,
      scaled.height);
  scaled.info.par_n = fuzz_range (in, 1, 16);
  scaled.info.par_d = fuzz_range (in, 1, 16);
  from.par_n = fuzz_range (in, 1, 16);
  from.par_d = fuzz_range (in, 1, 16);
  while ((m = gst_buffer_iterate_meta (out, &state)))
    if (m->info->transform_func && gst_meta_api_type_has_tag (m->info->api,
            g_quark_from_static_string (GST_META_TAG_VIDEO_SIZE_STR)))
      m->info->transform_func (dest, m, out,
          gst_video_meta_transform_scale_get_quark (), &trans);
  check_output (dest, &scaled, 0);
  gst_buffer_unref (dest);
}

static void
check_output (GstBuffer * out, const Caps * c, guint max_blobs)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    FUZZ_CHECK (roi->w >= 1 && roi->h >= 1 && roi->x + roi->w <= c->width
        && roi->y + roi->h <= c->height, "ROI %u,%u %ux%u outside %ux%u",
        roi->x, roi->y, roi->w, roi->h, c->width, c->height);
    n++;
  }
  FUZZ_CHECK (max_blobs == 0 || n <= max_blobs, "%u ROIs, max-blobs %u", n,
      max_blobs);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzBytes in;
  Caps caps;
  GstHarness *h = gst_harness_new ("gpucclblob");
  GstBus *bus = gst_bus_new ();
  guint max_blobs;
  gint line_width;

  fuzz_bytes_init (&in, data, size);
  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      gpuccl_backend_name (fuzz_backend ()));
  max_blobs = choose_properties (&in, h->element, &line_width);
  choose_caps (&in, &caps);
  push_caps (h, &caps);

  for (guint i = fuzz_range (&in, 1, 4); i > 0; i--) {
    guint what = fuzz_range (&in, 0, 15);
    gsize frame = caps.info.size, n;
    GstBuffer *buf;
    GstFlowReturn ret;

    if (what == 0) {            /* new caps, maybe nonsense for the data */
      choose_caps (&in, &caps);
      push_caps (h, &caps);
      continue;
    }
    if (what == 1) {            /* properties change mid-stream */
      max_blobs = choose_properties (&in, h->element, &line_width);
      continue;
    }
    /* The caps of the frame now going in set the width (a property
     * change between frames is itself something the element must take). */
    g_object_set (h->element, "line-width", line_width_cap (&caps,
            line_width, draws_ids (h->element)), NULL);
    if (what >= 6 && what <= 9) {
      /* 6, 7: a GstVideoMeta, maybe lying; 8: the same over several
       * memories; 9: a crop meta the element did not ask for. */
      buf = what == 9 ? crop_buffer (&in, &caps) : meta_buffer (&in, &caps);
      if (what == 8)
        buf = split_memories (&in, buf);
      ret = gst_harness_push (h, buf);
      if (ret == GST_FLOW_OK) {
        GstBuffer *out = gst_harness_try_pull (h);
        if (out) {
          check_output (out, &caps, max_blobs);
          gst_buffer_unref (out);
        }
      }
      continue;
    }
    n = what == 2 ? 0                           /* empty */
        : what == 3 ? (gsize) fuzz_range (&in, 0, frame - 1)    /* short */
        : what == 4 ? frame + fuzz_u8 (&in)     /* oversized */
        : frame;
    buf = n ? gst_buffer_new_allocate (NULL, n, NULL) : gst_buffer_new ();
    if (n) {
      GstMapInfo map;
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      fuzz_fill (&in, map.data, n);
      gst_buffer_unmap (buf, &map);
    }
    if (what == 5)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
    ret = gst_harness_push (h, buf);
    if (ret == GST_FLOW_OK) {
      GstBuffer *out = gst_harness_try_pull (h);
      if (out) {
        if (n >= frame && what != 5)
          check_output (out, &caps, max_blobs);
        if (n >= frame && what == 10)   /* then through a scale */
          check_letterbox (&in, out, &caps);
        gst_buffer_unref (out);
      }
    }
  }
  /* Flush first: a queued message holds the element, which holds the bus. */
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  return 0;
}
