/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the gpucclblob element tests: backend choice, known
 * frames in every format, and the independent oracle (OpenCV's
 * connectedComponentsWithStats through tests/common) they are checked
 * against.
 *
 * GPUCCL_TEST_BACKEND=cpu (default) or cuda picks the element's backend;
 * with cuda and no usable device the test program exits 77 (skip). */
#ifndef GPUCCL_ELEMENT_COMMON_H
#define GPUCCL_ELEMENT_COMMON_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstcclblobmeta.h"
#include "oracle.h"

G_BEGIN_DECLS

/* Every format the element accepts. */
extern const GstVideoFormat element_formats[];
extern const gsize n_element_formats;

/* "cpu" or "cuda". */
const gchar *test_backend (void);

/* Runs the suite; returns 77 when the cuda backend was asked for and no
 * device is usable. */
int element_test_main (int argc, char **argv, Suite * (*make_suite) (void));

/* A harness around "gpucclblob backend=<test backend> <props>". */
GstHarness *element_harness_new (const gchar * props);

/* Fails the test unless the element can be made: for tests that make it
 * on threads of their own, where a failed check cannot report. */
void element_require (void);

GstCaps *element_caps (GstVideoFormat format, gint width, gint height);

/* Random gray levels: a YACCLAB-style random image (density, granularity,
 * seed) whose foreground pixels get levels 128..255 and background 0..127,
 * so threshold 127 splits them exactly. g_free() the result. */
guint8 *element_levels_random (gint width, gint height, gdouble density,
    gint granularity, guint32 seed);

/* A frame of `info` whose labeled plane holds `levels` (width * height,
 * row after row): the Y plane of YUV and gray formats (GRAY16: level << 8
 * plus junk in the low byte), the chosen channel of RGB ones (luma: R = G
 * = B = level, so the BT.601 luma is the level; a single channel: that
 * channel, junk in the others). Everything else — chroma, padding, alpha,
 * other channels — is junk from `seed`. */
GstBuffer *element_make_frame (const GstVideoInfo * info,
    const guint8 * levels, const gchar * channel, guint32 seed);

/* The oracle's view of `levels`: foreground = level > threshold (<= with
 * invert), labeled with OpenCV, features recomputed from its labels. */
typedef struct
{
  gint width, height;
  guint32 n;                    /* components */
  OracleStats *stats;           /* n entries, component i + 1 */
} Expected;

void expected_compute (Expected * e, const guint8 * levels, gint width,
    gint height, gint threshold, gboolean invert, gint connectivity);
void expected_clear (Expected * e);

/* The indices (into e->stats) a filter keeps: area in [min_area, max_area]
 * (max 0: none), then the max_blobs largest (ties: smaller id), listed in
 * increasing id. Returns the count; *kept is g_free()d by the caller. */
guint expected_filter (const Expected * e, guint64 min_area,
    guint64 max_area, guint max_blobs, guint ** kept);

/* Check the GstCclBlobMeta and the ROI metas of `buf` against the oracle
 * (all components, or `kept` of them when kept != NULL). */
void check_buffer_blobs (GstBuffer * buf, const Expected * e,
    const guint * kept, guint n_kept);

/* Whether two buffers hold the same bytes. */
gboolean element_same_bytes (GstBuffer * a, GstBuffer * b);

/* Two blob tables of n entries hold the same blobs. */
gboolean element_same_blob_tables (const GstCclBlob * a, const GstCclBlob * b,
    guint n);

/* The visible pixels of two frames of `info` (their own layouts, from
 * their GstVideoMeta) are equal; `what` names the case in the failure. */
void element_assert_same_frames (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, const gchar * what);
/* The two buffers' GstCclBlobMeta hold the same non-empty blob table. */
void element_assert_same_blobs (GstBuffer * a, GstBuffer * b,
    const gchar * what);

/* Push one frame through, return the output (fails the test when none). */
GstBuffer *element_push_pull (GstHarness * h, GstBuffer * in);

G_END_DECLS

#endif /* GPUCCL_ELEMENT_COMMON_H */
