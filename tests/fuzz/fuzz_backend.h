/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The backend a fuzz target runs on: the CPU, unless $GPUCCL_TEST_BACKEND
 * says cuda (the GPU host replays the corpora that way under
 * compute-sanitizer: gpu-host-memcheck.sh); and the context a target
 * keeps across inputs. */
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

/* The context kept across inputs is freed at exit, so that a leak check
 * at exit (compute-sanitizer's, valgrind's, LeakSanitizer's) reports only
 * what the library itself lost. Registered once the context exists: exit
 * handlers run last registered first, so this one runs before the CUDA
 * runtime's teardown, which creating the context registered. */
static GpucclContext *fuzz_kept_context;

static inline void fuzz_free_kept_context(void)
{
  gpuccl_context_free(fuzz_kept_context);
  fuzz_kept_context = NULL;
}

/* The kept context, made on first use; NULL with `error` set when none
 * can be made. */
static inline GpucclContext *fuzz_context(GpucclError *error)
{
  if (!fuzz_kept_context) {
    fuzz_kept_context = gpuccl_context_new(fuzz_backend(), 0, error);
    if (fuzz_kept_context)
      atexit(fuzz_free_kept_context);
  }
  return fuzz_kept_context;
}

#endif /* GPUCCL_FUZZ_BACKEND_H */
