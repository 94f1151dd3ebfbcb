/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only fault injection: see fault.h. */
#include "fault.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const site_names[GPUCCL_FAULT_N_SITES] = {"alloc", "launch"};

static atomic_int configured; /* 0 unread, 1 off, 2 on */
static int fault_site = -1;
static long fault_at;
static atomic_long counts[GPUCCL_FAULT_N_SITES];

static void read_config(void)
{
  const char *spec = getenv("GPUCCL_FAULT");
  const char *colon = spec ? strchr(spec, ':') : NULL;
  if (colon) {
    for (int s = 0; s < GPUCCL_FAULT_N_SITES; s++)
      if (strncmp(spec, site_names[s], (size_t)(colon - spec)) == 0 &&
          site_names[s][colon - spec] == '\0')
        fault_site = s;
    fault_at = strtol(colon + 1, NULL, 10);
  }
  atomic_store(&configured, fault_site >= 0 && fault_at > 0 ? 2 : 1);
}

bool gpuccl_fault_hit(GpucclFaultSite site)
{
  if (atomic_load(&configured) == 0)
    read_config();
  if (atomic_load(&configured) == 1 || (int)site != fault_site)
    return false;
  if (atomic_fetch_add(&counts[site], 1) + 1 != fault_at)
    return false;
  const char *mark = getenv("GPUCCL_FAULT_MARK");
  FILE *f = mark && *mark ? fopen(mark, "w") : NULL;
  if (f)
    fclose(f);
  return true;
}

long gpuccl_fault_events(GpucclFaultSite site)
{
  if ((int)site < 0 || site >= GPUCCL_FAULT_N_SITES)
    return 0;
  return atomic_load(&counts[site]);
}
