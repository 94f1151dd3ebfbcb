/* Initialisation of a pixel forest (HYBRID3's initial labels: every pixel
 * its own raster address): parent = itself, first = UINT32_MAX for the
 * adapter. */
#include "block_mask.cuh"

__global__ void forest_pixel_init(Forest g)
{
  int x, y;
  uint32_t k;
  if (!block_of_thread(g, &x, &y, &k))
    return;
  g.parent[k] = k;
  g.first[k] = UINT32_MAX;
}

cudaError_t forest_launch_pixel_init(const Forest &g, cudaStream_t stream)
{
  forest_pixel_init<<<block_grid(g), BLOCK_THREADS, 0, stream>>>(g);
  return cudaGetLastError();
}
