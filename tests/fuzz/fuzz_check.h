/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fuzz targets' assertion: print what broke and abort, which libFuzzer
 * (and the replay driver's caller) reports as a crash with the input. */
#ifndef GPUCCL_FUZZ_CHECK_H
#define GPUCCL_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, ...)                                           \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, \
              #cond);                                                   \
      fprintf(stderr, __VA_ARGS__);                                     \
      fputc('\n', stderr);                                              \
      abort();                                                          \
    }                                                                   \
  } while (0)

#endif /* GPUCCL_FUZZ_CHECK_H */
