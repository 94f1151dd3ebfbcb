/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The backend a fuzz target runs on: the CPU, unless $GPUCCL_TEST_BACKEND
 * says cuda (the GPU host replays the corpora that way under
 * compute-sanitizer: gpu-host-memcheck.sh). */
#ifndef GPUCCL_FUZZ_BACKEND_H
#define GPUCCL_FUZZ_BACKEND_H

#include <stdlib.h>
#include <string.h>

#include "gpuccl.h"

static inline GpucclBackend fuzz_backend(void)
{
  const char *b = getenv("GPUCCL_TEST_BACKEND");
  return b && strcmp(b, "cuda") == 0 ? GPUCCL_BACKEND_CUDA : GPUCCL_BACKEND_CPU;
}

#endif /* GPUCCL_FUZZ_BACKEND_H */
