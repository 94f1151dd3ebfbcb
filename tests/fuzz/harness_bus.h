/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstHarness helpers of the element's bad-input tests: an element that
 * posts to a bus the test reads, the error it must post, and a good frame
 * that must still work afterwards. */
#ifndef GPUCCL_REL_HARNESS_BUS_H
#define GPUCCL_REL_HARNESS_BUS_H

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* gpucclblob on rel_backend(), with `props` (gst-launch syntax, or NULL),
 * posting to *bus. */
GstHarness *rel_harness_with_bus (const gchar * props, GstBus ** bus);

/* The error the element posted: there must be one, with a message a user
 * can read; returns that message (free it). The rest of the bus is
 * dropped. */
gchar *rel_expect_error (GstBus * bus, const gchar * what);

/* A good frame of format w x h: pushed, pulled, its ROIs exactly the
 * rectangles painted. */
void rel_expect_good_frame (GstHarness * h, GstVideoFormat format, guint w,
    guint hgt);

/* Flush the bus first: a queued message holds the element, which holds
 * the bus. */
void rel_teardown_with_bus (GstHarness * h, GstBus * bus);

G_END_DECLS

#endif /* GPUCCL_REL_HARNESS_BUS_H */
