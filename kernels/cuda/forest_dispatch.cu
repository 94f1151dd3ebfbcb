/* The frame of the forest algorithms (forest_kernels.h): the kernels of
 * each one in the order of its paper, then the shared adapter. The rest of
 * the frame (root flags, scan, features, blob table, relabeling) is HA4's,
 * run by backend_cuda.cu as for HA4. */
#include "block_mask.cuh"

static bool block_based(GpucclAlgorithm a)
{
  return a == GPUCCL_ALGORITHM_BUF || a == GPUCCL_ALGORITHM_BUF_IC ||
         a == GPUCCL_ALGORITHM_BKE || a == GPUCCL_ALGORITHM_BKE_IC;
}

static const char *algorithm_name(GpucclAlgorithm a)
{
  switch (a) {
  case GPUCCL_ALGORITHM_BUF: return "BUF";
  case GPUCCL_ALGORITHM_BUF_IC: return "BUF_IC";
  case GPUCCL_ALGORITHM_BKE: return "BKE";
  case GPUCCL_ALGORITHM_BKE_IC: return "BKE_IC";
  default: return "?";
  }
}

bool gpuccl_forest_algorithm(GpucclAlgorithm algorithm)
{
  return block_based(algorithm);
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

static size_t align256(size_t n)
{
  return (n + 255) & ~(size_t)255;
}

static Forest block_forest(void *workspace, int width, int height)
{
  Forest g = {};
  g.shift = 1;
  g.fpitch = (width + 1) / 2;
  g.frows = (height + 1) / 2;
  const size_t nodes = (size_t)g.fpitch * g.frows;
  uint8_t *p = static_cast<uint8_t *>(workspace);
  g.parent = reinterpret_cast<uint32_t *>(p);
  g.first = reinterpret_cast<uint32_t *>(p + align256(nodes * 4));
  g.info = p + 2 * align256(nodes * 4);
  return g;
}

size_t gpuccl_forest_workspace_bytes(GpucclAlgorithm algorithm, int width,
                                     int height)
{
  (void)algorithm;
  const size_t nodes = (size_t)((width + 1) / 2) * ((height + 1) / 2);
  return 2 * align256(nodes * 4) + align256(nodes);
}

#define TRY(expr)                                                             \
  do {                                                                        \
    cudaError_t e_ = (expr);                                                  \
    if (e_ != cudaSuccess)                                                    \
      return e_;                                                              \
  } while (0)

cudaError_t gpuccl_forest_launch_labeling(const Ha4Frame &f,
                                          GpucclAlgorithm algorithm,
                                          void *workspace,
                                          cudaStream_t stream)
{
  const Forest g = block_forest(workspace, f.width, f.height);
  const bool ic = algorithm == GPUCCL_ALGORITHM_BUF_IC ||
                  algorithm == GPUCCL_ALGORITHM_BKE_IC;
  TRY(forest_launch_bitmask(f, stream));
  if (algorithm == GPUCCL_ALGORITHM_BUF ||
      algorithm == GPUCCL_ALGORITHM_BUF_IC) {
    TRY(buf_launch_initialization(g, stream));
    TRY(buf_launch_merge(f, g, stream));
    TRY(buf_launch_compression(g, ic, stream));
  } else {
    TRY(bke_launch_initialization(f, g, stream));
    TRY(buf_launch_compression(g, ic, stream));
    TRY(bke_launch_reduction(g, stream));
    TRY(buf_launch_compression(g, ic, stream));
  }
  TRY(forest_launch_first_pixel(f, g, stream));
  TRY(forest_launch_segment_links(f, g, stream));
  return cudaSuccess;
}
