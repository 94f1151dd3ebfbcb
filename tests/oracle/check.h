/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Comparisons of gpuccl results with oracle results, shared by the oracle
 * tests. Each returns true when they agree and otherwise prints the first
 * difference, prefixed with `what`. */
#ifndef GPUCCL_TEST_CHECK_H
#define GPUCCL_TEST_CHECK_H

#include "gpuccl.h"
#include "oracle.h"

#include <stdbool.h>

bool check_labels(const char *what, const GpucclResult *result,
                  const uint32_t *expected, long n_expected);

/* Blob i of the result against expected[blob.id - 1]; with_sums: also the
 * 64-bit sums (oracles that report them). */
bool check_blobs(const char *what, const GpucclResult *result,
                 const OracleStats *expected, long n_expected,
                 bool with_sums);

#endif /* GPUCCL_TEST_CHECK_H */
