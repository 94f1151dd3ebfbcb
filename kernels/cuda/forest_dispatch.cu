/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frame of the forest algorithms (forest_kernels.h): the kernels of
 * each one in the order of its paper, then the shared adapter; its
 * workspace. The tail (forest_tiles.h, or the segment tail) is run by
 * cuda_frame.cu. */
#include <algorithm>

#include "block_mask.cuh"

static bool block_based(GpucclAlgorithm a)
{
  return a == GPUCCL_ALGORITHM_BUF || a == GPUCCL_ALGORITHM_BUF_IC ||
         a == GPUCCL_ALGORITHM_BKE || a == GPUCCL_ALGORITHM_BKE_IC;
}

static bool pixel_based(GpucclAlgorithm a)
{
  return a == GPUCCL_ALGORITHM_OUF || a == GPUCCL_ALGORITHM_HYBRID3 ||
         a == GPUCCL_ALGORITHM_STAVA_BENES;
}

static const char *algorithm_name(GpucclAlgorithm a)
{
  switch (a) {
  case GPUCCL_ALGORITHM_HA4: return "HA4";
  case GPUCCL_ALGORITHM_HA4_64: return "HA4_64";
  case GPUCCL_ALGORITHM_BUF: return "BUF";
  case GPUCCL_ALGORITHM_BUF_IC: return "BUF_IC";
  case GPUCCL_ALGORITHM_BKE: return "BKE";
  case GPUCCL_ALGORITHM_BKE_IC: return "BKE_IC";
  case GPUCCL_ALGORITHM_OUF: return "OUF";
  case GPUCCL_ALGORITHM_HYBRID3: return "HYBRID3";
  default: return "?";
  }
}

bool gpuccl_forest_algorithm(GpucclAlgorithm algorithm)
{
  return block_based(algorithm) || pixel_based(algorithm);
}

GpucclStatus gpuccl_forest_check(const GpucclParams *params,
                                 GpucclError *error)
{
  /* All pixels of a 2x2 block share a label only under 8-connectivity (a
   * diagonal pair is two 4-components), so the block methods cannot do 4. */
  if (block_based(params->algorithm) && params->connectivity != 8)
    return gpuccl_set_error(
        error, GPUCCL_ERROR_UNSUPPORTED,
        "algorithm %s labels 2x2 blocks, which are one component only under "
        "8-connectivity: use connectivity 8, or HA4 for 4-connectivity",
        algorithm_name(params->algorithm));
  return GPUCCL_OK;
}

GpucclStatus gpuccl_forest_segments_params(const GpucclParams *in,
                                           GpucclParams *out,
                                           GpucclError *error)
{
  *out = *in;
  if (in->algorithm == GPUCCL_ALGORITHM_DEFAULT)
    out->algorithm = GPUCCL_ALGORITHM_STAVA_BENES;
  if (out->algorithm != GPUCCL_ALGORITHM_STAVA_BENES)
    return gpuccl_set_error(
        error, GPUCCL_ERROR_UNSUPPORTED,
        "segments mode (equal values connect) runs on CUDA with algorithm "
        "STAVA_BENES (or DEFAULT) only, not %s",
        algorithm_name(in->algorithm));
  out->threshold = 0;
  out->invert = false;
  out->auto_threshold = GPUCCL_AUTO_THRESHOLD_NONE;
  return GPUCCL_OK;
}

size_t gpuccl_forest_segments_max_components(int width, int height)
{
  return (size_t)width * height;
}

static size_t align256(size_t n)
{
  return (n + 255) & ~(size_t)255;
}

/* Workspace layout: parent, the tail's root slots (nodes each), then
 * BKE's info bytes or HYBRID3's loop state, the bitmask image; in segments
 * mode the cuts and values follow. */
static Forest make_forest(GpucclAlgorithm algorithm, void *workspace,
                          int width, int height)
{
  Forest g = {};
  if (block_based(algorithm)) {
    g.shift = 1;
    g.fpitch = g.fcols = (width + 1) / 2;
    g.frows = (height + 1) / 2;
  } else {
    g.shift = 0;
    g.fpitch = ha4_pitch(width); /* nodes are the frame's addresses */
    g.fcols = width;
    g.frows = height;
  }
  const size_t nodes = (size_t)g.fpitch * g.frows;
  uint8_t *p = static_cast<uint8_t *>(workspace);
  g.parent = reinterpret_cast<uint32_t *>(p);
  g.root_slot = reinterpret_cast<uint32_t *>(p + align256(nodes * 4));
  g.info = p + 2 * align256(nodes * 4);
  g.loop = reinterpret_cast<Hybrid3Rounds *>(g.info);
  return g;
}

/* The bitmask image: one word per 32 pixels of a pitch-wide row. */
static size_t bitmap_bytes(int width, int height)
{
  return align256((size_t)height * (ha4_pitch(width) / 32) * 4);
}

static size_t forest_bytes(GpucclAlgorithm algorithm, int width, int height)
{
  const Forest g = make_forest(algorithm, nullptr, width, height);
  const size_t nodes = (size_t)g.fpitch * g.frows;
  const size_t info = std::max(nodes, sizeof(Hybrid3Rounds));
  return 2 * align256(nodes * 4) + align256(info) +
         bitmap_bytes(width, height);
}

size_t gpuccl_forest_workspace_bytes(const GpucclParams *params, int width,
                                     int height)
{
  size_t bytes = forest_bytes(params->algorithm, width, height);
  if (params->mode == GPUCCL_MODE_SEGMENTS)
    bytes += bitmap_bytes(width, height) +
             align256(gpuccl_forest_segments_max_components(width, height) *
                      4);
  return bytes;
}

ForestImages gpuccl_forest_images(const GpucclParams *params,
                                  void *workspace, int width, int height)
{
  ForestImages s = {};
  uint8_t *p = static_cast<uint8_t *>(workspace) +
               forest_bytes(params->algorithm, width, height);
  s.bits = reinterpret_cast<uint32_t *>(p - bitmap_bytes(width, height));
  if (params->mode != GPUCCL_MODE_SEGMENTS)
    return s;
  s.cuts = reinterpret_cast<uint32_t *>(p);
  s.values = reinterpret_cast<uint32_t *>(p + bitmap_bytes(width, height));
  return s;
}

tile::ForestView gpuccl_forest_view(GpucclAlgorithm algorithm,
                                    void *workspace, const Ha4Frame &f)
{
  const Forest g = make_forest(algorithm, workspace, f.width, f.height);
  tile::ForestView v;
  v.parent = g.parent;
  v.bits = f.bits;
  v.root_slot = g.root_slot;
  v.shift = g.shift;
  v.fpitch = g.fpitch;
  v.words = f.words;
  return v;
}

cudaError_t gpuccl_forest_launch_labeling(const Ha4Frame &f,
                                          GpucclAlgorithm algorithm,
                                          void *workspace,
                                          const ForestLoopEnv &loop,
                                          cudaStream_t stream)
{
  const Forest g = make_forest(algorithm, workspace, f.width, f.height);
  if (!g.shift && g.fpitch != f.pitch) /* a pixel forest's roots as addresses */
    return cudaErrorInvalidValue;
  const bool ic = algorithm == GPUCCL_ALGORITHM_BUF_IC ||
                  algorithm == GPUCCL_ALGORITHM_BKE_IC;
  FOREST_TRY(forest_launch_bitmask(f, stream));
  switch (algorithm) {
  case GPUCCL_ALGORITHM_BUF:
  case GPUCCL_ALGORITHM_BUF_IC:
    FOREST_TRY(buf_launch_initialization(g, stream));
    FOREST_TRY(buf_launch_merge(f, g, stream));
    FOREST_TRY(buf_launch_compression(g, ic, stream));
    break;
  case GPUCCL_ALGORITHM_BKE:
  case GPUCCL_ALGORITHM_BKE_IC:
    FOREST_TRY(bke_launch_initialization(f, g, stream));
    FOREST_TRY(buf_launch_compression(g, ic, stream));
    FOREST_TRY(bke_launch_reduction(g, stream));
    /* The paper's last Compression flattens the forest into labels; the
     * tail only asks for roots, and each of its finds walks the few links
     * Reduction left. */
    break;
  case GPUCCL_ALGORITHM_OUF:
    FOREST_TRY(ouf_launch_local_merge(f, g, stream));
    FOREST_TRY(ouf_launch_boundary_analysis(f, g, stream));
    /* Its Link flattens the forest into labels: left out as BKE's. */
    break;
  case GPUCCL_ALGORITHM_HYBRID3:
    FOREST_TRY(buf_launch_initialization(g, stream)); /* each pixel its label */
    FOREST_TRY(hybrid3_launch_loop(f, g, loop, stream));
    break;
  case GPUCCL_ALGORITHM_STAVA_BENES:
    FOREST_TRY(sb_launch_tile_labeling(f, g, stream));
    FOREST_TRY(sb_launch_tile_merging(f, g, stream));
    /* Its final update (Kernel 4) flattens the forest into labels: left
     * out as BKE's. */
    break;
  default:
    return cudaErrorInvalidValue;
  }
  if (f.cuts) /* segments mode: the strip tail's piece links */
    FOREST_TRY(forest_launch_segment_links(f, g, stream));
  return cudaSuccess;
}
