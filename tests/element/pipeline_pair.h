/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two pipelines fed the same videotestsrc frames, for comparing a path
 * through gpucclblob with the plain system-memory one:
 *   videotestsrc ! caps ! gpucclblob ! appsink                   (reference)
 *   videotestsrc ! caps ! <before> gpucclblob <after> appsink    (tested)
 * <before> may hold "capsfilter name=cf" whose caps the test changes while
 * playing. Frames are compared by timestamp (a restart or renegotiation
 * may cost a pipeline a frame; the count of such skips is bounded and
 * printed), pixels and the blob table gpucclblob sent (read on its src
 * pad, whatever the elements after it keep of the meta). Every wait is
 * bounded; pipeline_pair_stop_all() (a checked teardown) stops pairs a
 * failed check left playing, so that no streaming thread outlives the
 * test. */
#ifndef GPUCCL_PIPELINE_PAIR_H
#define GPUCCL_PIPELINE_PAIR_H

#include "element_common.h"

G_BEGIN_DECLS

typedef struct _PipelinePair PipelinePair;

/* num_buffers -1: endless. Started by pipeline_pair_play(). */
PipelinePair *pipeline_pair_new (const gchar * format, const gchar * pattern,
    const gchar * props, gint num_buffers, const gchar * before,
    const gchar * after);
void pipeline_pair_play (PipelinePair * pair);

/* The tested pipeline (for gst_bin_get_by_name). */
GstElement *pipeline_pair_tested (PipelinePair * pair);

/* n frames of each, the same timestamps, pixels and tables. */
void pipeline_pair_compare (PipelinePair * pair, guint n, const gchar * what);

/* After num_buffers frames: no more from either. */
void pipeline_pair_assert_ended (PipelinePair * pair, const gchar * what);

/* The caps of the tested pipeline's "cf" set to each of caps[] in turn
 * while playing, then a restart: `frames` compared after each. */
void pipeline_pair_caps_rounds (PipelinePair * pair,
    const gchar * const *caps, guint n_caps, guint frames);

/* PAUSED, READY and PLAYING again, both. */
void pipeline_pair_restart (PipelinePair * pair);

/* NULL and freed (also for pairs a failed check left behind). */
void pipeline_pair_free (PipelinePair * pair);
void pipeline_pair_stop_all (void);

G_END_DECLS
#endif
