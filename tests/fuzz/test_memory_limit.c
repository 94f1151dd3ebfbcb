/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A frame of 500 000 blobs (a 1000 x 1000 one-pixel checkerboard under
 * 4-connectivity) under a memory limit, with the metadata and the messages
 * on: the element must post an error and return, whatever runs out first
 * (the library's buffers, the blob table, the metadata), never end the
 * process inside GLib's allocator (it aborted before: issue 19).
 *
 * Each limit runs in a child process: setrlimit(RLIMIT_AS) to the child's
 * address space after its setup plus 32, 128 or 512 MiB. The child exits
 * 10 when the element posted an error, 0 when the frame went through
 * (enough memory after all), anything else or a signal is a failure.
 *
 * Skipped (77) where an address-space limit means nothing: under ASan
 * (its shadow memory), valgrind, and on the CUDA backend (the driver maps
 * the GPU's memory into the address space). */
#define _GNU_SOURCE
#include "frames.h"
#include "harness_bus.h"

#include <gst/check/gstcheck.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define SIDE 1000
#define CHILD_ERROR 10

/* This process's address space, in bytes (VmSize), 0 if unknown. */
static gsize
address_space (void)
{
  gchar *status = NULL;
  gsize kib = 0;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)) {
    const gchar *line = strstr (status, "VmSize:");
    if (line)
      kib = g_ascii_strtoull (line + 7, NULL, 10);
  }
  g_free (status);
  return kib * 1024;
}

/* The child: set up, limit, push the frame. */
static int
child (gsize extra)
{
  GstBus *bus;
  GstHarness *h = rel_harness_with_bus ("connectivity=4 attach-meta=true "
      "post-messages=true", &bus);
  GstVideoInfo info;
  guint8 *mask = g_malloc (SIDE * SIDE);
  GstBuffer *buf;
  struct rlimit lim;
  GstFlowReturn ret;
  GstMessage *msg;

  for (guint y = 0; y < SIDE; y++)
    for (guint x = 0; x < SIDE; x++)
      mask[y * SIDE + x] = (x + y) % 2;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, SIDE, SIDE);
  gst_harness_set_src_caps (h, rel_caps_new (GST_VIDEO_FORMAT_GRAY8, SIDE,
          SIDE));
  buf = rel_buffer_new (&info, mask);
  g_free (mask);
  lim.rlim_cur = lim.rlim_max = address_space () + extra;
  if (setrlimit (RLIMIT_AS, &lim) != 0) {
    perror ("setrlimit");
    return 1;
  }
  ret = gst_harness_push (h, buf);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (ret == GST_FLOW_ERROR && msg) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    printf ("limit +%zu MiB: %s\n", extra >> 20, err->message);
    g_error_free (err);
    return CHILD_ERROR;
  }
  printf ("limit +%zu MiB: %s, %s\n", extra >> 20, gst_flow_get_name (ret),
      msg ? "an error message" : "no error message");
  return ret == GST_FLOW_OK && !msg ? 0 : 1;
}

GST_START_TEST (test_checkerboard_under_limits)
{
  static const gsize extra_mib[] = { 32, 128, 512 };
  guint errors = 0;

  for (guint i = 0; i < G_N_ELEMENTS (extra_mib); i++) {
    int status;
    pid_t pid;

    fflush (NULL);
    pid = fork ();
    fail_unless (pid >= 0);
    if (pid == 0) {
      int rc = child (extra_mib[i] << 20);
      fflush (NULL);
      _exit (rc);
    }
    fail_unless (waitpid (pid, &status, 0) == pid);
    fail_if (WIFSIGNALED (status), "limit +%zu MiB: killed by signal %d",
        extra_mib[i], WIFSIGNALED (status) ? WTERMSIG (status) : 0);
    fail_unless (WEXITSTATUS (status) == 0 ||
        WEXITSTATUS (status) == CHILD_ERROR, "limit +%zu MiB: exit %d",
        extra_mib[i], WEXITSTATUS (status));
    errors += WEXITSTATUS (status) == CHILD_ERROR;
  }
  /* 500 000 blobs' metadata needs far more than 512 MiB. */
  fail_unless_equals_int (errors, G_N_ELEMENTS (extra_mib));
}

GST_END_TEST;

static Suite *
memory_limit_suite (void)
{
  Suite *s = suite_create ("gpucclblob-memory-limit");
  TCase *tc = tcase_create ("memory-limit");

  tcase_set_timeout (tc, 0);
  tcase_add_test (tc, test_checkerboard_under_limits);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (UNDER_ASAN || RUNNING_ON_VALGRIND ||
      g_strcmp0 (rel_backend (), "cpu") != 0) {
    printf ("SKIP: an address-space limit means nothing under ASan, "
        "valgrind or CUDA\n");
    return 77;
  }
  return gst_check_run_suite (memory_limit_suite (), "memory_limit",
      __FILE__);
}
