/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Open merging (open_merging.cuh) after seam merging: a piece's root is
 * the end of its seam links, whose root is the component's smallest
 * slot. */
#include "open_merging.cuh"

namespace tile {

/* The root of an open piece after seam merging, read only: no merge runs
 * any more. */
struct SeamRoots {
  const uint32_t *P;
  __device__ uint32_t operator()(uint32_t p) const
  {
    return root_of<GlobalForest>(P, p);
  }
};

__global__ void __launch_bounds__(OPEN_THREADS) open_merging_kernel(Frame f)
{
  wait_for_previous();
  allow_next();
  open_merging(f, SeamRoots{f.out.open.parent});
}

cudaError_t launch_open_merging(const Frame &f, cudaStream_t stream)
{
  return launch_dependent(open_merging_kernel, f.tiles_x * f.tiles_y,
                          OPEN_THREADS, 0, stream, f);
}

} /* namespace tile */
