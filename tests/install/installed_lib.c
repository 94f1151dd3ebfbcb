/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A user's program built against the installed libgpuccl (`#include
 * <gpuccl.h>`, pkg-config gpuccl): label a 4x3 image with two blobs on the
 * CPU backend. Built and run by test-installed.sh. */
#include <gpuccl.h>

#include <stdio.h>

int
main (void)
{
  static const uint8_t pixels[12] = {
    255, 0, 0, 255,
    255, 0, 0, 255,
    0, 0, 0, 255,
  };
  GpucclError error = { 0 };
  GpucclContext *ctx = gpuccl_context_new (GPUCCL_BACKEND_CPU, 0, &error);
  if (!ctx) {
    printf ("gpuccl_context_new: %s\n", error.message);
    return 1;
  }
  GpucclImage image = {.data = pixels,.width = 4,.height = 3,.stride = 4,
    .format = GPUCCL_PIXEL_U8
  };
  GpucclParams params;
  GpucclResult result;

  gpuccl_params_init (&params);
  GpucclStatus status = gpuccl_process (ctx, &image, &params, &result, &error);
  printf ("%s: %u blobs\n", gpuccl_status_name (status),
      (unsigned) result.n_blobs);
  int ok = status == GPUCCL_OK && result.n_blobs == 2;
  gpuccl_context_free (ctx);
  return ok ? 0 : 1;
}
