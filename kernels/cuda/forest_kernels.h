/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The algorithms beside HA4 (BUF, BKE and their IC variants, Allegretti et
 * al. 2019; optimized union-find, OUF; HYBRID3; Stava and Benes) and the
 * shared tail they reuse.
 *
 * Each of them labels an equivalence forest in the form natural to it (2x2
 * block labels for BUF/BKE, pixel labels for the others). Two generic adapter kernels
 * (forest_to_segments.cu) then turn that forest into exactly what HA4's
 * later stages read: the bitmask image f.bits (forest_bitmask.cu) and, at
 * every piece start k of f.L, the address of the component's first pixel
 * in raster order, which points to itself. From there on the frame is
 * HA4's: root flags + scan (dense ids in raster order), features, the blob
 * table with its filters, relabeling. No labeling logic is copied.
 *
 * Segments mode (GPUCCL_MODE_SEGMENTS, label maps), Stava and Benes only:
 * f.cuts is set, the bitmask means "value non-zero", neighbours connect
 * when their values are equal (forest_values.cuh), the pieces of HA4's tail
 * also start at the cuts (ha4_piece_starts), and the blob table gets each
 * component's value (Ha4Features::value, filled by Adapter 3).
 *
 * cuda_frame.cu calls only the gpuccl_forest_* functions below and,
 * in segments mode, forest_launch_segment_values. */
#ifndef GPUCCL_FOREST_KERNELS_H
#define GPUCCL_FOREST_KERNELS_H

#include <cuda_runtime.h>

#include "../backend.h"
#include "ha4_common.cuh"

/* The forest as the adapter reads it: node of pixel (x, y) is
 * parent[(y >> shift) * fpitch + (x >> shift)] (shift 1: 2x2 blocks).
 * first[] is indexed like parent and must hold UINT32_MAX at every root
 * when the adapter starts (the algorithm's first kernel sets it). */
struct Forest {
  uint32_t *parent;
  uint32_t *first;
  uint8_t *info; /* BKE's information byte per block (Table 1) */
  int shift;
  int fpitch; /* nodes per forest row */
  int fcols;  /* nodes of a row that exist (pixel forests: the width) */
  int frows;  /* forest rows */
  unsigned *changed; /* HYBRID3's convergence flag (device) */
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

/* Segments mode: the cut mask (f.cuts) and the per-component values
 * (Ha4Features::value) inside the workspace; both NULL in binary mode. */
struct ForestSegments {
  uint32_t *cuts;
  uint32_t *values;
};
ForestSegments gpuccl_forest_segments(const GpucclParams *params,
                                      void *workspace, int width, int height);

/* Binarise into f.bits, label, and leave f.L as HA4's border merging
 * would: the launches of one frame, on `stream`, no sync. */
cudaError_t gpuccl_forest_launch_labeling(const Ha4Frame &f,
                                          GpucclAlgorithm algorithm,
                                          void *workspace,
                                          cudaStream_t stream);

/* ---- the steps, one kernel each (launchers) ---- */

/* Binarisation (threshold fused) into HA4's bitmask image, one warp per
 * 32-pixel word; bits past the width are 0. Segments mode: value non-zero,
 * and the cuts into f.cuts. */
cudaError_t forest_launch_bitmask(const Ha4Frame &f, cudaStream_t stream);

/* Adapter 1: each pixel that can be its component's first (no earlier
 * neighbour in raster order is foreground) offers its address to
 * first[root] (atomicMin). */
cudaError_t forest_launch_first_pixel(const Ha4Frame &f, const Forest &g,
                                      cudaStream_t stream);

/* Adapter 2: L at every piece start = first[root]. */
cudaError_t forest_launch_segment_links(const Ha4Frame &f, const Forest &g,
                                        cudaStream_t stream);

/* Adapter 3, segments mode, after HA4's root flags and id scan: value[id]
 * = the sample at each component's first pixel. */
cudaError_t forest_launch_segment_values(const Ha4Frame &f,
                                         const uint32_t *offset,
                                         const uint32_t *rootmask,
                                         uint32_t *value, cudaStream_t stream);

/* BUF (Alg. 2 of Allegretti et al.): Initialization, Merge, Compression.
 * Initialization (every node its own tree, first[] = UINT32_MAX) also
 * gives HYBRID3 its initial labels on a pixel forest. */
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

/* Optimized union-find (Zhu et al., paper 000): Kernel 1 local merge with
 * row-column coarse labeling in shared memory, Kernel 2 boundary analysis
 * (tile-border pixels only); its Link is the Compress of
 * buf_launch_compression. */
cudaError_t ouf_launch_local_merge(const Ha4Frame &f, const Forest &g,
                                   cudaStream_t stream);
cudaError_t ouf_launch_boundary_analysis(const Ha4Frame &f, const Forest &g,
                                         cudaStream_t stream);

/* HYBRID3 (Soh et al., paper 003): S4DLS and label backtracking, one
 * iteration each; *g.changed set when a label moved. */
cudaError_t hybrid3_launch_s4dls(const Ha4Frame &f, const Forest &g,
                                 cudaStream_t stream);
cudaError_t hybrid3_launch_label_backtracking(const Ha4Frame &f,
                                              const Forest &g,
                                              cudaStream_t stream);

/* Stava and Benes (paper 004): Kernel 1 labels SB_TILE x SB_TILE tiles in
 * shared memory; Kernel 2 merges 2x2 tiles of side `side` across their
 * inner borders, once per level; the final update is the Compress of
 * buf_launch_compression. */
#define SB_TILE 16
cudaError_t sb_launch_tile_labeling(const Ha4Frame &f, const Forest &g,
                                    cudaStream_t stream);
cudaError_t sb_launch_tile_merging(const Ha4Frame &f, const Forest &g,
                                   int side, cudaStream_t stream);

#endif /* GPUCCL_FOREST_KERNELS_H */
