/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpuccl_process_batch: the steps of one process call before and after
 * the backend for each image (process_call.h), and between them the
 * backend's batch (CUDA: one graph for all, cuda_batch.cu) or,
 * without one, one process call per image. */
#include "backend.h"
#include "process_call.h"
#include "process_checks.h"

#include <stdlib.h>
#include <string.h>

/* Image i of a batch failed: its message prefixed with the image. */
static GpucclStatus image_error(GpucclError *error, size_t i,
                                GpucclStatus status)
{
  if (error) {
    char message[sizeof error->message];
    memcpy(message, error->message, sizeof message);
    gpuccl_set_error(error, status, "image %zu: %s", i, message);
  }
  return status;
}

/* Each context once, all of one backend. */
static GpucclStatus check_contexts(GpucclContext *const *contexts, size_t n,
                                   GpucclError *error)
{
  for (size_t i = 0; i < n; i++) {
    if (!contexts[i])
      return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                              "image %zu has no context", i);
    if (contexts[i]->ops != contexts[0]->ops)
      return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                              "image %zu's context is a %s one, image 0's "
                              "a %s one: a batch runs on one backend",
                              i, gpuccl_backend_name(contexts[i]->ops->kind),
                              gpuccl_backend_name(contexts[0]->ops->kind));
    for (size_t j = 0; j < i; j++)
      if (contexts[j] == contexts[i])
        return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                                "images %zu and %zu share a context: each "
                                "image of a batch needs its own (the "
                                "result lives in it)",
                                j, i);
  }
  return GPUCCL_OK;
}

/* The backend's batch, or one process call per image. */
static GpucclStatus run_batch(GpucclContext *const *contexts,
                              const GpucclImage *images,
                              const GpucclParams *const *params, size_t n,
                              GpucclError *error)
{
  const GpucclBackendOps *ops = contexts[0]->ops;
  if (ops->process_batch) {
    size_t failed = 0;
    GpucclStatus status =
        ops->process_batch(contexts, images, params, n, &failed, error);
    return status == GPUCCL_OK ? status : image_error(error, failed, status);
  }
  for (size_t i = 0; i < n; i++) {
    GpucclStatus status = ops->process(contexts[i], &images[i], params[i],
                                       &contexts[i]->last, error);
    if (status != GPUCCL_OK)
      return image_error(error, i, status);
  }
  return GPUCCL_OK;
}

GpucclStatus gpuccl_process_batch_sized(GpucclContext *const *contexts,
                                        const GpucclImage *images,
                                        const GpucclParams *const *params,
                                        size_t params_size, size_t n,
                                        GpucclResult *results,
                                        GpucclError *error)
{
  gpuccl_clear_error(error);
  if (n == 0)
    return GPUCCL_OK;
  if (!contexts || !images || !params || !results)
    return gpuccl_set_error(error, GPUCCL_ERROR_INVALID_ARGUMENT,
                            "a batch of %zu images without contexts, "
                            "images, parameters or results",
                            n);
  memset(results, 0, n * sizeof *results);
  GpucclStatus status = check_contexts(contexts, n, error);
  if (status != GPUCCL_OK)
    return status;
  GpucclParams *own = malloc(n * sizeof *own);
  const GpucclParams **use = calloc(n, sizeof *use);
  if (!own || !use) {
    free(own);
    free(use);
    return gpuccl_set_error(error, GPUCCL_ERROR_OUT_OF_MEMORY,
                            "a batch of %zu images", n);
  }
  size_t prepared = 0;
  for (; prepared < n && status == GPUCCL_OK; prepared++) {
    status = gpuccl_read_params(params[prepared], params_size,
                                &own[prepared], &use[prepared], error);
    if (status == GPUCCL_OK)
      status = gpuccl_prepare_process(contexts[prepared], &images[prepared],
                                      use[prepared], NULL, error);
    if (status != GPUCCL_OK)
      image_error(error, prepared, status);
  }
  if (status == GPUCCL_OK)
    status = run_batch(contexts, images, use, n, error);
  for (size_t i = 0; i < prepared; i++) {
    gpuccl_finish_process(contexts[i], use[i], status);
    results[i] = contexts[i]->last;
  }
  free(own);
  free(use);
  return status;
}
