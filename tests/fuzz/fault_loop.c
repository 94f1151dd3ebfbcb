/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See fault_loop.h. */
#define _POSIX_C_SOURCE 200809L
#include "fault_loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* More events than any workload here has; reaching it means the fault
 * never stops being met, i.e. the child's counting is broken. */
#define MAX_CASES 500

const char *fault_backend_name(void)
{
  const char *b = getenv("GPUCCL_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

/* The library creates $GPUCCL_FAULT_MARK when the fault fires
 * (kernels/fault.h): its counters are not exported, and the element's
 * tests reach it through the plugin only. */
int fault_was_hit(void)
{
  const char *mark = getenv("GPUCCL_FAULT_MARK");
  return mark && access(mark, F_OK) == 0;
}

static int run_child(char **argv, const char *site, int n)
{
  char spec[64];
  char mark[] = "/tmp/gpuccl-fault-XXXXXX";
  snprintf(spec, sizeof spec, "%s:%d", site, n);
  int fd = mkstemp(mark);
  if (fd < 0) {
    perror("mkstemp");
    return FAULT_FAILED;
  }
  close(fd);
  unlink(mark); /* the name is ours; the library creates it on the fault */
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return FAULT_FAILED;
  }
  if (pid == 0) {
    setenv("GPUCCL_FAULT", spec, 1);
    setenv("GPUCCL_FAULT_MARK", mark, 1);
    execv(argv[0], argv);
    perror(argv[0]);
    _exit(FAULT_FAILED);
  }
  int status;
  pid_t waited = waitpid(pid, &status, 0);
  unlink(mark);
  if (waited != pid)
    return FAULT_FAILED;
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "GPUCCL_FAULT=%s: killed by signal %d\n", spec,
            WTERMSIG(status));
    return FAULT_FAILED;
  }
  return WEXITSTATUS(status);
}

int fault_loop(char **argv, const char *const *sites,
               const char *const *required, int (*workload)(void))
{
  if (getenv("GPUCCL_FAULT"))
    return workload();

  int failures = 0;
  for (const char *const *site = sites; *site; site++) {
    int handled = 0, n;
    for (n = 1; n <= MAX_CASES; n++) {
      int rc = run_child(argv, *site, n);
      if (rc == FAULT_SKIP) {
        printf("SKIP: backend %s is not usable here\n", fault_backend_name());
        return FAULT_SKIP;
      }
      if (rc == FAULT_NOT_HIT)
        break;
      if (rc == FAULT_HANDLED) {
        handled++;
      } else {
        fprintf(stderr, "FAIL: backend %s, GPUCCL_FAULT=%s:%d (exit %d)\n",
                fault_backend_name(), *site, n, rc);
        failures++;
      }
    }
    int must = 0;
    for (const char *const *r = required; r && *r; r++)
      must |= strcmp(*r, *site) == 0;
    printf("backend %s, site %s: %d faults injected, %d handled, %d failed\n",
           fault_backend_name(), *site, n - 1, handled, n - 1 - handled);
    if (n > MAX_CASES) {
      fprintf(stderr, "FAIL: site %s still hit after %d cases\n", *site,
              MAX_CASES);
      failures++;
    }
    if (must && n == 1) {
      fprintf(stderr, "FAIL: no %s event went through the fault hook\n", *site);
      failures++;
    }
  }
  return failures ? FAULT_FAILED : 0;
}
