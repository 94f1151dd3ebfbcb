/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The driver of the fault-injection tests. GPUCCL_FAULT (kernels/fault.h)
 * makes the N-th event at a site fail once per process, so each case runs
 * in a fresh process: the test re-executes itself with GPUCCL_FAULT=SITE:N
 * for N = 1, 2, ... until a run no longer meets an N-th event.
 *
 * The child's workload returns one of the FAULT_* codes below. */
#ifndef GPUCCL_FAULT_LOOP_H
#define GPUCCL_FAULT_LOOP_H

enum {
  FAULT_HANDLED = 0,   /* the fault was hit, reported clearly, recovered */
  FAULT_FAILED = 1,    /* something was wrong (the child says what) */
  FAULT_NOT_HIT = 3,   /* the workload finished without meeting the fault */
  FAULT_SKIP = 77,     /* e.g. backend cuda without a device */
};

/* In the parent (GPUCCL_FAULT unset): loop over `sites` (NULL-terminated,
 * e.g. "alloc", "launch") and N, re-running argv; the sites in `required`
 * must be hit at least once. In a child: run `workload`. Returns the exit
 * status for main(). */
int fault_loop(char **argv, const char *const *sites,
               const char *const *required, int (*workload)(void));

/* In a child: whether the injected fault has happened yet (the N-th
 * event at the site was met), whether or not anything showed it. */
int fault_was_hit(void);

/* The backend under test: $GPUCCL_TEST_BACKEND (cpu, cuda, auto), cpu by
 * default. */
const char *fault_backend_name(void);

#endif /* GPUCCL_FAULT_LOOP_H */
