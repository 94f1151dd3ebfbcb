/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only fault injection, so tests can prove every failure path frees
 * what it holds and reports clearly. Set GPUCCL_FAULT to "SITE:N" (for
 * example "alloc:3" or "launch:1"): the N-th event at SITE in this process
 * fails, once. Unset, the check costs one branch on a cached flag.
 *
 * When the fault fires and GPUCCL_FAULT_MARK names a file, that file is
 * created: a process that reaches the library only through a plugin (the
 * element's fault tests) learns that way that its fault happened, since
 * nothing here is exported. */
#ifndef GPUCCL_FAULT_H
#define GPUCCL_FAULT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GPUCCL_FAULT_ALLOC = 0, /* device or pinned host allocation */
  GPUCCL_FAULT_LAUNCH,    /* a kernel launch or copy */
  GPUCCL_FAULT_N_SITES,
} GpucclFaultSite;

/* true when this event must fail. */
bool gpuccl_fault_hit(GpucclFaultSite site);

/* How many events at the configured site this process has met so far (0
 * for other sites or with GPUCCL_FAULT unset): a test compares it with N to
 * know whether its injected fault happened, even one handled silently. */
long gpuccl_fault_events(GpucclFaultSite site);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_FAULT_H */
