/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The check macro of the C tests: the includer defines the counters
 * `checks` and `failures` (any integer type), and the test fails when
 * failures is not 0. */
#ifndef GPUCCL_TEST_CHECK_H
#define GPUCCL_TEST_CHECK_H

#include <stdio.h>

/* How many failures are printed, the rest only counted: a test that
 * checks in long loops defines a smaller number before the include. */
#ifndef EXPECT_PRINTED
#define EXPECT_PRINTED 2147483647
#endif

/* One check: counted in `checks` and, when cond is false, in `failures`,
 * printed with where and why (printf's arguments). */
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond) && failures++ < EXPECT_PRINTED) {                              \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                              \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

#endif /* GPUCCL_TEST_CHECK_H */
