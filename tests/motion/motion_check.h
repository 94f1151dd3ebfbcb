/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the motion tests (test_motion.c, test_motion_rows.c) share: the
 * check counters, the comparison of two blob tables and main's run of
 * the named cases. Each test is one file: the statics are its own. */
#ifndef GPUCCL_MOTION_CHECK_H
#define GPUCCL_MOTION_CHECK_H

#include "gpuccl.h"
#include "test_check.h" /* EXPECT */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

/* a's blob table equals b's, every field. */
static inline bool same_table(const GpucclResult *a, const GpucclResult *b)
{
  return a->n_components == b->n_components && a->n_blobs == b->n_blobs &&
         (a->n_blobs == 0 ||
          memcmp(a->blobs, b->blobs, a->n_blobs * sizeof *a->blobs) == 0);
}

typedef struct {
  const char *name;
  void (*run)(void);
} MotionCase;

/* The case named by argv[1], or every case: main's exit status (99 for
 * an unknown name, 1 when a check failed). */
static inline int run_motion_cases(const MotionCase *cases, size_t n,
                                   int argc, char **argv)
{
  const char *only = argc > 1 ? argv[1] : NULL;
  int ran = 0;
  for (size_t i = 0; i < n; i++)
    if (!only || strcmp(only, cases[i].name) == 0) {
      cases[i].run();
      ran++;
    }
  if (!ran) {
    fprintf(stderr, "unknown case %s\n", only);
    return 99;
  }
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}

#endif /* GPUCCL_MOTION_CHECK_H */
