/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The check macro of the C tests: the includer defines the counters
 * `checks` and `failures` (any integer type), and the test fails when
 * failures is not 0. */
#ifndef GPUCCL_TEST_CHECK_H
#define GPUCCL_TEST_CHECK_H

#include <stdio.h>

/* One check: counted in `checks` and, when cond is false, in `failures`,
 * printed with where and why (printf's arguments). */
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                              \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

#endif /* GPUCCL_TEST_CHECK_H */
