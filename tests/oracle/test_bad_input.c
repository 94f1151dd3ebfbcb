/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bad arguments to gpuccl_process and friends: each must come back as
 * GPUCCL_ERROR_INVALID_ARGUMENT with a message, an empty result, and no
 * crash; the context must still work afterwards. */
#include "gpuccl.h"

#include <stdio.h>
#include <string.h>

static int failures, checks;
static uint8_t pixels[64 * 64];

static void expect_invalid(GpucclContext *ctx, const char *what,
                           const GpucclImage *image, const GpucclParams *params)
{
  checks++;
  GpucclError error = {GPUCCL_OK, ""};
  GpucclResult result;
  memset(&result, 0xab, sizeof result);
  GpucclStatus status = gpuccl_process(ctx, image, params, &result, &error);
  bool empty = result.n_blobs == 0 && result.blobs == NULL &&
               result.labels == NULL && result.n_components == 0;
  if (status != GPUCCL_ERROR_INVALID_ARGUMENT ||
      error.status != GPUCCL_ERROR_INVALID_ARGUMENT || error.message[0] == 0 ||
      !empty) {
    printf("FAIL %s: status %d (%s), message \"%s\", empty result %d\n", what,
           status, gpuccl_status_name(status), error.message, empty);
    failures++;
  } else {
    printf("ok %s: %s\n", what, error.message);
  }
}

static GpucclImage good_image(void)
{
  return (GpucclImage){pixels, 64, 64, 64, GPUCCL_PIXEL_U8, 0, 0, 0};
}

int main(void)
{
  GpucclError error = {0};
  GpucclContext *ctx = gpuccl_context_new(GPUCCL_BACKEND_CPU, 0, &error);
  if (!ctx) {
    printf("no CPU context: %s\n", error.message);
    return 1;
  }
  for (int i = 0; i < 64 * 64; i++)
    pixels[i] = (uint8_t)(i * 37);
  GpucclParams params;
  gpuccl_params_init(&params);
  GpucclImage img;

  img = good_image(); img.data = NULL;
  expect_invalid(ctx, "null data", &img, &params);
  expect_invalid(ctx, "null image", NULL, &params);
  img = good_image();
  expect_invalid(ctx, "null params", &img, NULL);
  img = good_image(); img.width = 0;
  expect_invalid(ctx, "zero width", &img, &params);
  img = good_image(); img.height = 0;
  expect_invalid(ctx, "zero height", &img, &params);
  img = good_image(); img.width = -5;
  expect_invalid(ctx, "negative width", &img, &params);
  img = good_image(); img.height = -1;
  expect_invalid(ctx, "negative height", &img, &params);
  img = good_image(); img.width = GPUCCL_MAX_SIDE + 1;
  img.stride = (size_t)img.width;
  expect_invalid(ctx, "width over the limit", &img, &params);
  img = good_image(); img.stride = 63;
  expect_invalid(ctx, "stride < width", &img, &params);
  img = good_image(); img.format = GPUCCL_PIXEL_U16;
  expect_invalid(ctx, "stride < width * 2 (U16)", &img, &params);
  img = good_image(); img.format = (GpucclPixelFormat)7;
  expect_invalid(ctx, "unknown pixel format", &img, &params);
  img = good_image(); img.format = GPUCCL_PIXEL_PACKED4; img.width = 16;
  img.offset_g = 4;
  expect_invalid(ctx, "PACKED4 offset 4", &img, &params);

  img = good_image();
  static const int bad_conn[] = {6, 0, -4, 9};
  for (int i = 0; i < 4; i++) {
    GpucclParams p = params;
    p.connectivity = bad_conn[i];
    char what[64];
    snprintf(what, sizeof what, "connectivity %d", bad_conn[i]);
    expect_invalid(ctx, what, &img, &p);
  }
  GpucclParams p = params;
  p.threshold = 256;
  expect_invalid(ctx, "threshold 256 on U8", &img, &p);
  p.threshold = -1;
  expect_invalid(ctx, "threshold -1", &img, &p);
  p = params;
  p.auto_threshold = (GpucclAutoThreshold)5;
  expect_invalid(ctx, "unknown auto threshold", &img, &p);
  p = params;
  p.channel = (GpucclChannel)9;
  expect_invalid(ctx, "unknown channel", &img, &p);

  /* No context or no result: an error, not a crash. */
  checks++;
  GpucclResult result;
  if (gpuccl_process(NULL, &img, &params, &result, &error) !=
          GPUCCL_ERROR_INVALID_ARGUMENT ||
      gpuccl_process(ctx, &img, &params, NULL, NULL) !=
          GPUCCL_ERROR_INVALID_ARGUMENT) {
    printf("FAIL null context or result\n");
    failures++;
  }
  checks++;
  if (gpuccl_context_new(GPUCCL_BACKEND_CPU, -1, &error) != NULL ||
      error.status != GPUCCL_ERROR_INVALID_ARGUMENT ||
      gpuccl_context_new((GpucclBackend)42, 0, &error) != NULL ||
      gpuccl_host_alloc(ctx, 0, GPUCCL_MEMORY_AUTO, &error) != NULL) {
    printf("FAIL bad context or host allocation arguments accepted\n");
    failures++;
  }

  /* Host blocks without a context: the CPU backend's, written over and
   * released; bad arguments refused. Stream ordering is a CUDA context's
   * call: a clear status on the CPU one. */
  checks++;
  uint8_t *block = gpuccl_host_alloc_on(GPUCCL_BACKEND_CPU, 0, 4096,
                                        GPUCCL_MEMORY_AUTO, &error);
  if (!block) {
    printf("FAIL gpuccl_host_alloc_on(CPU): %s\n", error.message);
    failures++;
  } else {
    memset(block, 0xa5, 4096);
    gpuccl_host_release(block);
  }
  gpuccl_host_release(NULL);
  checks++;
  if (gpuccl_host_alloc_on(GPUCCL_BACKEND_CPU, 0, 0, GPUCCL_MEMORY_AUTO,
                           &error) != NULL ||
      error.status != GPUCCL_ERROR_INVALID_ARGUMENT ||
      gpuccl_host_alloc_on((GpucclBackend)42, 0, 64, GPUCCL_MEMORY_AUTO,
                           &error) != NULL ||
      error.status != GPUCCL_ERROR_INVALID_ARGUMENT ||
      gpuccl_host_alloc_on(GPUCCL_BACKEND_CPU, -1, 64, GPUCCL_MEMORY_AUTO,
                           &error) != NULL ||
      gpuccl_host_alloc_on(GPUCCL_BACKEND_CPU, 0, 64, (GpucclMemory)9,
                           &error) != NULL) {
    printf("FAIL bad contextless host allocation arguments accepted\n");
    failures++;
  }
  checks++;
  if (gpuccl_context_wait_cuda_stream(ctx, NULL, &error) !=
          GPUCCL_ERROR_UNSUPPORTED ||
      gpuccl_context_wait_cuda_stream(NULL, NULL, &error) !=
          GPUCCL_ERROR_INVALID_ARGUMENT) {
    printf("FAIL stream ordering on a CPU context or none: %s\n",
           gpuccl_status_name(error.status));
    failures++;
  }

  /* A crossed area range is an empty one, not an error (gpuccl.h): the
   * two can be changed one at a time. */
  checks++;
  p = params;
  p.min_area = 10;
  p.max_area = 5;
  if (gpuccl_process(ctx, &img, &p, &result, &error) != GPUCCL_OK ||
      result.n_components == 0 || result.n_blobs != 0) {
    printf("FAIL crossed area range: %s, %u components, %zu blobs\n",
           error.message, result.n_components, result.n_blobs);
    failures++;
  }

  /* The context still labels correctly after all that: a 1-pixel image. */
  checks++;
  uint8_t one = 255;
  GpucclImage tiny = {&one, 1, 1, 1, GPUCCL_PIXEL_U8, 0, 0, 0};
  if (gpuccl_process(ctx, &tiny, &params, &result, &error) != GPUCCL_OK ||
      result.n_components != 1 || result.n_blobs != 1 ||
      result.blobs[0].area != 1) {
    printf("FAIL context unusable after errors\n");
    failures++;
  }
  gpuccl_context_free(ctx);
  gpuccl_context_free(NULL);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
