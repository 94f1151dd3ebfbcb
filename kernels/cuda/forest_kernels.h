/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The algorithms beside HA4 (BUF, BKE and their IC variants, Allegretti et
 * al. 2019; optimized union-find, OUF; HYBRID3; Stava and Benes) and the
 * adapters that hand their result to a tail.
 *
 * Each of them labels an equivalence forest in the form natural to it (2x2
 * block labels for BUF/BKE, pixel labels for the others) over the bitmask
 * image f.bits (forest_bitmask.cu). No labeling logic is copied.
 *
 * Binary mode: the tiled tail, as for HA4 (forest_tiles.h): per-tile
 * pieces grouped by the forest's components, open merging, blob records.
 *
 * Segments mode (GPUCCL_MODE_SEGMENTS, label maps), Stava and Benes only:
 * f.cuts is set, the bitmask means "value non-zero", neighbours connect
 * when their values are equal (forest_values.cuh). Its tail is the segment
 * tail (ha4_kernels.h): the segment links point every piece start of f.L
 * at its first pixel (pieces also start at the cuts), then root flags, an
 * id scan, features, the blob table, and the segment values give each
 * component its value (Ha4Features::value). The tiled tail cannot take
 * it: its runs are runs of set bits (a segment's run ends at a cut), and a
 * tile holds up to a component per pixel where its closed records have
 * room for half.
 *
 * cuda_frame.cu calls only the gpuccl_forest_* functions below and,
 * in segments mode, forest_launch_segment_values. */
#ifndef GPUCCL_FOREST_KERNELS_H
#define GPUCCL_FOREST_KERNELS_H

#include <cuda_runtime.h>

#include "../backend.h"
#include "forest_tiles.h"
#include "ha4_common.cuh"

/* HYBRID3's convergence loop (hybrid3_loop.cu): rounds of S4DLS and label
 * backtracking until a round moves no label. On the device (Forest::loop)
 * `moved` is set by any kernel that moves a label and `rounds` counts
 * them; after every round the device copies both to the host's report. */
struct Hybrid3Rounds {
  uint32_t rounds;
  uint32_t moved; /* in a report: the last round moved a label, so the
                   * loop stopped at its bound, not at the fixed point */
};

/* The forest as the tails read it: node of pixel (x, y) is
 * parent[(y >> shift) * fpitch + (x >> shift)] (shift 1: 2x2 blocks).
 * Every link points at a smaller node of the same component, so a root is
 * its component's smallest node, in the component's topmost row of nodes:
 * on a pixel forest (shift 0, fpitch the frame's pitch) its first pixel. */
struct Forest {
  uint32_t *parent;
  uint32_t *root_slot; /* the tiled tail's (forest_tiles.h) */
  uint8_t *info; /* BKE's information byte per block (Table 1) */
  int shift;
  int fpitch; /* nodes per forest row */
  int fcols;  /* nodes of a row that exist (pixel forests: the width) */
  int frows;  /* forest rows */
  Hybrid3Rounds *loop; /* HYBRID3's convergence state (device) */
};

/* Most rounds a frame may run: more than its pixels means a bug (a CPU
 * emulation needs ~10^3 on a 512^2 4-connected diagonal serpentine, among
 * the slowest shapes), and the bound keeps a bug from holding the GPU
 * indefinitely. */
inline uint32_t hybrid3_round_bound(int width, int height)
{
  return (uint32_t)width * (uint32_t)height + 64;
}

/* What HYBRID3's loop needs beside the workspace: where the device
 * reports each round (mapped pinned memory, read after a sync), and an
 * idle stream of the same context to capture the loop's body on when the
 * frame's stream is capturing a graph. */
struct ForestLoopEnv {
  Hybrid3Rounds *report;
  cudaStream_t body_stream;
};

/* Whether `algorithm` runs through this file's path (else HA4's). */
bool gpuccl_forest_algorithm(GpucclAlgorithm algorithm);

/* GPUCCL_OK, or GPUCCL_ERROR_UNSUPPORTED with the reason when the CUDA
 * implementation of params->algorithm cannot honour params (connectivity). */
GpucclStatus gpuccl_forest_check(const GpucclParams *params,
                                 GpucclError *error);

/* Segments mode: *out = *in with the algorithm resolved (DEFAULT becomes
 * STAVA_BENES) and the binarisation parameters neutral (no Otsu, threshold
 * 0, as reported); GPUCCL_ERROR_UNSUPPORTED for any other algorithm. */
GpucclStatus gpuccl_forest_segments_params(const GpucclParams *in,
                                           GpucclParams *out,
                                           GpucclError *error);

/* Most components of a width x height image in segments mode: every pixel
 * (four values tiled 2x2 touch no equal neighbour, even 8-connected). */
size_t gpuccl_forest_segments_max_components(int width, int height);

/* Device workspace params->algorithm (and mode) needs for a width x height
 * image. */
size_t gpuccl_forest_workspace_bytes(const GpucclParams *params, int width,
                                     int height);

/* The images inside the workspace: the bitmask (f.bits); segments mode
 * only, else NULL: the cut mask (f.cuts) and the per-component values
 * (Ha4Features::value). */
struct ForestImages {
  uint32_t *bits;
  uint32_t *cuts;
  uint32_t *values;
};
ForestImages gpuccl_forest_images(const GpucclParams *params,
                                  void *workspace, int width, int height);

/* The forest of a frame as the tiled tail reads it, once labeled. */
tile::ForestView gpuccl_forest_view(GpucclAlgorithm algorithm,
                                    void *workspace, const Ha4Frame &f);

/* Binarise into f.bits, label (and, in segments mode, leave f.L as HA4's
 * border merging would): the launches of one frame, on `stream`. No sync
 * while `stream` captures a graph (HYBRID3's loop becomes a WHILE node);
 * outside a graph HYBRID3 syncs once per round. */
cudaError_t gpuccl_forest_launch_labeling(const Ha4Frame &f,
                                          GpucclAlgorithm algorithm,
                                          void *workspace,
                                          const ForestLoopEnv &loop,
                                          cudaStream_t stream);

/* ---- the steps, one kernel each (launchers) ---- */

/* Binarisation (threshold fused) into HA4's bitmask image, one warp per
 * 32-pixel word; bits past the width are 0. Segments mode: value non-zero,
 * and the cuts into f.cuts. */
cudaError_t forest_launch_bitmask(const Ha4Frame &f, cudaStream_t stream);

/* The segment links (segments mode, Stava-Benes' pixel forest): L at
 * every piece start = its root, the component's first pixel. */
cudaError_t forest_launch_segment_links(const Ha4Frame &f, const Forest &g,
                                        cudaStream_t stream);

/* The segment values, after HA4's root flags and id scan: value[id] = the
 * sample at each component's first pixel. */
cudaError_t forest_launch_segment_values(const Ha4Frame &f,
                                         const uint32_t *offset,
                                         const uint32_t *rootmask,
                                         uint32_t *value, cudaStream_t stream);

/* BUF (Alg. 2 of Allegretti et al.): Initialization, Merge, Compression.
 * Initialization (every node its own tree) also gives HYBRID3 its initial
 * labels on a pixel forest. */
cudaError_t buf_launch_initialization(const Forest &g, cudaStream_t stream);
cudaError_t buf_launch_merge(const Ha4Frame &f, const Forest &g,
                             cudaStream_t stream);
/* Compression of BUF and BKE; `inline_compress`: the IC variants. */
cudaError_t buf_launch_compression(const Forest &g, bool inline_compress,
                                   cudaStream_t stream);

/* BKE (Sec. 5.2): Initialization links each block to its smallest
 * connected neighbour and stores the information byte; Reduction unions
 * the other connected neighbours. */
cudaError_t bke_launch_initialization(const Ha4Frame &f, const Forest &g,
                                      cudaStream_t stream);
cudaError_t bke_launch_reduction(const Forest &g, cudaStream_t stream);

/* Optimized union-find (Chen et al. 2017): Kernel 1 local merge in shared
 * memory (the row scan by warp ballot: each pixel's label is its run's
 * first pixel; then one union per run above a run touches), Kernel 2
 * boundary analysis (tile-border pixels only). Its Link, which flattens the
 * forest into labels, is left out: the tail walks to the roots. */
cudaError_t ouf_launch_local_merge(const Ha4Frame &f, const Forest &g,
                                   cudaStream_t stream);
cudaError_t ouf_launch_boundary_analysis(const Ha4Frame &f, const Forest &g,
                                         cudaStream_t stream);

/* HYBRID3 (HYBRID3, after Soh et al.): S4DLS and label backtracking, one
 * iteration each; g.loop->moved set when a label moved. The loop runs them
 * from BUF's initialization until a round moves nothing (or the bound):
 * a WHILE node when `stream` captures a graph, else a host loop. */
cudaError_t hybrid3_launch_s4dls(const Ha4Frame &f, const Forest &g,
                                 cudaStream_t stream);
cudaError_t hybrid3_launch_label_backtracking(const Ha4Frame &f,
                                              const Forest &g,
                                              cudaStream_t stream);
cudaError_t hybrid3_launch_loop(const Ha4Frame &f, const Forest &g,
                                const ForestLoopEnv &env,
                                cudaStream_t stream);

/* Stava and Benes (2011, "Connected Component Labeling in CUDA"): Kernel
 * 1 labels SB_TILE x SB_TILE tiles in shared memory; Kernel 2 merges 2x2
 * tiles across their inner borders, every level in one launch. Its
 * final update, which flattens the forest into labels, is left out: the
 * tail walks to the roots. */
#define SB_TILE 16
cudaError_t sb_launch_tile_labeling(const Ha4Frame &f, const Forest &g,
                                    cudaStream_t stream);
cudaError_t sb_launch_tile_merging(const Ha4Frame &f, const Forest &g,
                                   cudaStream_t stream);

/* In the launch sequences: return the first launch's error. */
#define FOREST_TRY(expr)                                                      \
  do {                                                                        \
    cudaError_t e_ = (expr);                                                  \
    if (e_ != cudaSuccess)                                                    \
      return e_;                                                              \
  } while (0)

#endif /* GPUCCL_FOREST_KERNELS_H */
