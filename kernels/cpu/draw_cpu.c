/* Placeholder until the CPU overlays land (owned by the element work). */
#include "cpu.h"

GpucclStatus gpuccl_cpu_draw(GpucclContext *ctx, const GpucclFrame *frame,
                             const GpucclDrawParams *params, GpucclError *error)
{
  (void)ctx; (void)frame; (void)params;
  return gpuccl_set_error(error, GPUCCL_ERROR_UNSUPPORTED,
                          "overlays are not implemented yet");
}
