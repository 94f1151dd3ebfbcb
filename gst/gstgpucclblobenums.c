/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The property enums of gpucclblob, registered once each. */
#include "gstgpucclblobenums.h"
#include "gpuccl.h"

/* Registers an enum GType from a static value table, thread-safely. */
#define DEFINE_ENUM_TYPE(func, name, ...)                                     \
  GType func (void)                                                           \
  {                                                                           \
    static GType type = 0;                                                    \
    static const GEnumValue values[] = { __VA_ARGS__, { 0, NULL, NULL } };    \
    if (g_once_init_enter (&type)) {                                          \
      GType t = g_enum_register_static (name, values);                        \
      g_once_init_leave (&type, t);                                           \
    }                                                                         \
    return type;                                                              \
  }

DEFINE_ENUM_TYPE (gst_gpuccl_blob_backend_get_type, "GstGpucclBlobBackend",
    {GPUCCL_BACKEND_AUTO, "CUDA when a device is usable, else the CPU",
        "auto"},
    {GPUCCL_BACKEND_CUDA, "CUDA (fails when no device is usable)", "cuda"},
    {GPUCCL_BACKEND_CPU, "CPU", "cpu"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_algorithm_get_type, "GstGpucclBlobAlgorithm",
    {GPUCCL_ALGORITHM_DEFAULT, "Backend default (HA4 on CUDA, Stava-Benes "
        "with mode=segments)", "default"},
    {GPUCCL_ALGORITHM_HA4, "HA4, 32 pixels per warp row", "ha4"},
    {GPUCCL_ALGORITHM_HA4_64, "HA4 (an alias: Alg. 7 is retired)", "ha4-64"},
    {GPUCCL_ALGORITHM_BUF, "Block-based union-find (8-connectivity)", "buf"},
    {GPUCCL_ALGORITHM_BUF_IC, "BUF with inline compression (8-connectivity)",
        "buf-ic"},
    {GPUCCL_ALGORITHM_BKE, "Block-based Komura equivalence (8-connectivity)",
        "bke"},
    {GPUCCL_ALGORITHM_BKE_IC, "BKE with inline compression (8-connectivity)",
        "bke-ic"},
    {GPUCCL_ALGORITHM_OUF, "Optimized union-find (Chen et al. 2017)", "ouf"},
    {GPUCCL_ALGORITHM_HYBRID3, "HYBRID3: S4DLS with label backtracking",
        "hybrid3"},
    {GPUCCL_ALGORITHM_STAVA_BENES, "Stava and Benes: shared-memory tiles, "
        "hierarchical merge", "stava-benes"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_auto_threshold_get_type,
    "GstGpucclBlobAutoThreshold",
    {GPUCCL_AUTO_THRESHOLD_NONE, "Use the threshold property", "none"},
    {GPUCCL_AUTO_THRESHOLD_OTSU, "Otsu's threshold of each frame", "otsu"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_connectivity_get_type,
    "GstGpucclBlobConnectivity",
    {4, "4-connectivity (edge neighbours)", "4"},
    {8, "8-connectivity (edge and corner neighbours)", "8"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_channel_get_type, "GstGpucclBlobChannel",
    {GPUCCL_CHANNEL_LUMA, "BT.601 luma of R, G, B", "luma"},
    {GPUCCL_CHANNEL_RED, "Red", "red"},
    {GPUCCL_CHANNEL_GREEN, "Green", "green"},
    {GPUCCL_CHANNEL_BLUE, "Blue", "blue"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_memory_get_type, "GstGpucclBlobMemory",
    {GPUCCL_MEMORY_AUTO, "Mapped on integrated GPUs, copy elsewhere", "auto"},
    {GPUCCL_MEMORY_COPY, "Pinned host memory, one DMA copy per frame",
        "copy"},
    {GPUCCL_MEMORY_MAPPED, "Pinned and mapped: the GPU reads it in place",
        "mapped"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_mode_get_type, "GstGpucclBlobMode",
    {GPUCCL_MODE_BINARY, "Threshold the frame; touching foreground pixels "
        "form one blob", "binary"},
    {GPUCCL_MODE_SEGMENTS, "Label map: 0 is background, touching pixels "
        "form one blob only when their values are equal (threshold, invert, "
        "auto-threshold and channel are ignored)", "segments"})

DEFINE_ENUM_TYPE (gst_gpuccl_blob_binarize_get_type,
    "GstGpucclBlobBinarize",
    {GST_GPUCCL_BLOB_BINARIZE_THRESHOLD, "The sample against threshold",
        "threshold"},
    {GST_GPUCCL_BLOB_BINARIZE_DIFFERENCE, "Motion: the difference from the "
          "previous frame against threshold", "difference"},
    {GST_GPUCCL_BLOB_BINARIZE_BACKGROUND, "Motion: the difference from a "
          "running-average background (learning-rate) against threshold",
        "background"})

GType
gst_gpuccl_blob_draw_flags_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GPUCCL_DRAW_BOXES, "Bounding box outlines", "boxes"},
    {GPUCCL_DRAW_CENTROIDS, "A cross on each centroid", "centroids"},
    {GPUCCL_DRAW_LABELS, "Each blob's pixels in a colour of its id",
        "labels"},
    {GST_GPUCCL_BLOB_DRAW_IDS, "Each blob's track id (with track=true, else its "
          "blob id) in digits beside its box", "ids"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstGpucclBlobDrawFlags", values);
    g_once_init_leave (&type, t);
  }
  return type;
}
