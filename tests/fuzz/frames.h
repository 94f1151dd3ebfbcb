/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames with a known foreground, and checks of what the element attached,
 * for the reliability tests of the gpucclblob element (renegotiation, bad
 * input, fault injection, soak, the element fuzzer).
 *
 * A frame is painted from a mask: foreground pixels get the brightest value
 * of every colour component (Y, R, G, B, or the 16-bit gray), background 0,
 * chroma neutral (128), alpha opaque. Whatever channel or luma the element
 * thresholds, foreground is above any threshold below the maximum. */
#ifndef GPUCCL_REL_FRAMES_H
#define GPUCCL_REL_FRAMES_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The formats the element accepts (issue 5). */
extern const GstVideoFormat rel_formats[];
extern const guint rel_n_formats;

typedef struct {
  guint x, y, w, h;
} RelRect;

/* Draw up to `max_rects` filled rectangles into mask (width * height bytes,
 * 1 foreground), one per cell of a grid, each a pixel away from its
 * neighbours so that every rectangle is its own component under 4- or
 * 8-connectivity. Returns how many it drew, their boxes in rects. */
guint rel_mask_rects (guint8 * mask, guint width, guint height, GRand * rand,
    RelRect * rects, guint max_rects);

/* A buffer of info->size bytes painted from mask (NULL: all background). */
GstBuffer *rel_buffer_new (const GstVideoInfo * info, const guint8 * mask);

/* Caps for one of the formats at one size, 30/1 fps. */
GstCaps *rel_caps_new (GstVideoFormat format, guint width, guint height);

/* Whether the buffer's ROI metas are exactly the given rectangles (in any
 * order), each of roi type "blob"; on a mismatch, why, in *why (free it). */
gboolean rel_rois_match (GstBuffer * buf, const RelRect * rects, guint n,
    gchar ** why);

/* Resident set size of this process now, and its peak, in KiB (Linux). */
guint64 rel_rss_kib (void);
guint64 rel_peak_rss_kib (void);

/* The backend the element tests ask for: $GPUCCL_TEST_BACKEND (cpu,
 * cuda or auto), cpu by default. With cuda and no usable device, the test
 * exits 77 (skip). */
const gchar *rel_backend (void);

/* GST_CHECK_MAIN, but the backend is checked first: inside a gst-check
 * test an exit(77) would count as an error, not a skip. */
#define REL_CHECK_MAIN(name)                                    \
int main (int argc, char **argv)                                \
{                                                               \
  gst_check_init (&argc, &argv);                                \
  rel_backend ();                                               \
  return gst_check_run_suite (name ## _suite (), # name, __FILE__); \
}

G_END_DECLS

#endif /* GPUCCL_REL_FRAMES_H */
