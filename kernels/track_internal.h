/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker's state and the pieces its files share (gpuccl_track.h
 * says what it does, track.c how one update goes): track.c the API, its
 * memory and steps 1 and 4; track_grid.c step 2 and the searches over the
 * grid that settle most tracks; track_match.c step 3, the order of pairs
 * and the matching. */
#ifndef GPUCCL_TRACK_INTERNAL_H
#define GPUCCL_TRACK_INTERNAL_H

#include "gpuccl_track.h"

#include <stdbool.h>
#include <stdint.h>

/* Weight of the newest displacement in the velocity estimate: low enough
 * that one noisy centroid (e.g. two blobs merged for a frame) does not throw
 * the prediction off, high enough to follow a turn within a few frames. */
#define VELOCITY_GAIN 0.5

/* A track considers at most this many blobs (the nearest inside the gate):
 * memory and time stay linear in the blobs however dense they are (a frame
 * of isolated pixels has thousands of blobs within any useful gate); a
 * track whose candidates all went to better tracks stays unmatched. */
#define MAX_CANDIDATES 8

/* Grid cells per blob at most (see build_grid). */
#define CELLS_PER_BLOB 4

/* Entries of the prediction's own cell read by the shortcut without a
 * data-dependent loop (about one blob per cell: a fuller cell is rare and
 * takes the slower path). */
#define OWN_SCAN 4

#define NO_MATCH UINT32_MAX
#define LIST_NOT_BUILT UINT8_MAX

/* The per-track state that step 4 updates together; the prediction, which
 * the search reads for every track, lives apart in two float arrays. */
typedef struct {
  double x, y;       /* centroid when last seen */
  double vx, vy;     /* pixels per frame */
  float w, h;        /* bounding box size when last seen */
  uint32_t id;
  int32_t lost;      /* frames since last seen */
  int32_t hits;      /* frames seen; velocity is known from the second */
  /* For GpucclTrackEnd only: cold, read when the track ends. */
  double first_x, first_y;
  uint64_t first_frame, last_frame;
} Track;

/* A blob a track may take: d2, its squared distance from the track's
 * prediction, and blob, its index in this frame's blobs. The device's
 * answers (GpucclNearest) are such pairs and are read as they come. */
typedef GpucclNearest Candidate;
_Static_assert(NO_MATCH == GPUCCL_NO_BLOB, "one value means no blob");

/* Step 2's grid: cells of side `cell` from (x0, y0), gw x gh of them,
 * row-major, so the cells of one row of a neighbourhood are one contiguous
 * run of entries. */
typedef struct {
  double x0, y0, cell, inv_cell;
  int64_t gw, gh;
} Grid;

/* A blob's centroid as floats, copied so that the passes over the blobs
 * read 12 bytes each instead of 32. */
typedef struct {
  float x, y;
  uint32_t blob;     /* index into blobs */
} GridEntry;

/* The grid's entries in cell order, one array per field, so the shortcut
 * computes the distances of a cell's first entries side by side. */
typedef struct {
  float *x, *y;
  uint32_t *blob;
} CellEntries;

struct GpucclTracker {
  GpucclTrackerParams params;
  uint32_t next_id;
  uint64_t frame;          /* updates so far: the next update's index */
  bool updated;            /* the events describe an update */
  size_t n_predicted;      /* tracks gpuccl_tracker_predict answered for
                            * since the last update; 0: none */

  /* Tracks, oldest first (the tie-break relies on it), and per-track
   * scratch; one capacity for the group. */
  size_t n_tracks, cap_tracks;
  Track *tracks;
  float *px, *py;          /* prediction for the current frame */
  uint32_t *match;         /* blob index of each track, or NO_MATCH */
  uint8_t *proposals;      /* candidates proposed to so far */
  uint8_t *n_candidates;   /* length of the list, or LIST_NOT_BUILT */
  Candidate *near;         /* the own-cell shortcut's answer */
  uint64_t *order;         /* which tracks go first past max_tracks */
  GpucclTrackEnd *ended;   /* the last update's ended tracks */
  size_t n_ended;
  Candidate *candidates;   /* MAX_CANDIDATES per track, built on demand */
  size_t cap_candidates;

  /* Per-blob scratch; one capacity for the group. */
  size_t cap_blobs;
  GridEntry *points;       /* the blobs' centroids in blob order */
  CellEntries entries;     /* the same in cell order, + OWN_SCAN sentinels */
  uint32_t *blob_cell;     /* grid cell of each blob */
  uint32_t *holder;        /* track holding each blob, or NO_MATCH */
  float *holder_d2;        /* squared distance of that track's pair */
  uint8_t *merged;         /* blob is two objects: its track coasts */
  uint32_t *started;       /* the last update's blobs that started tracks */
  size_t n_started;

  Grid grid;
  uint32_t *cell_start;    /* first entry of each cell, + the end */
  size_t cap_cells;

  uint64_t visited;        /* rows, cells and entries the growing searches read,
                            * over the tracker's life (tests bound it) */
};

static inline double dmin(double a, double b) { return a < b ? a : b; }

/* Step 3's shortcut for the usual case, a good prediction (track_grid.c):
 * the nearest blob settled from the grid's cells around the prediction,
 * or not. The grid's numbers are copied into locals (stores through the
 * tracker's byte arrays could alias them and force reloads). */
typedef enum { NEAR_UNDECIDED, NEAR_FOUND, NEAR_NONE } NearResult;

typedef struct {
  double x0, y0, inv_cell, gw_d, gh_d;
  double cell2;             /* cell^2 less the rounding margin */
  int64_t gw, gh;
  const uint32_t *cell_start;
  const CellEntries *entries;
  float gate2;
} NearGrid;

/* Step 2 on first need: sort the blobs into the grid and take its numbers
 * for the searches; *built says whether that happened already. */
void gpuccl_track_ensure_grid(GpucclTracker *t, const GpucclBlob *blobs,
                              size_t n_blobs, NearGrid *g, bool *built);
/* Every track's nearest blob when its own cell settles it, else NO_MATCH. */
void gpuccl_track_nearest_own(const NearGrid *g, const float *px,
                              const float *py, uint32_t n_tracks,
                              Candidate *near);
/* The 2 x 2 block of cells towards the prediction's quarter of its cell. */
NearResult gpuccl_track_nearest_block(const NearGrid *g, float px, float py,
                                      Candidate *out);

/* Step 3 (track_match.c): match the tracks to the blobs, starting from
 * the device's answers when given; then mark the blobs that are merges. */
void gpuccl_track_match(GpucclTracker *t, const GpucclBlob *blobs,
                        size_t n_blobs, const GpucclNearest *nearest);
void gpuccl_track_mark_merges(GpucclTracker *t, const GpucclBlob *blobs);

#endif /* GPUCCL_TRACK_INTERNAL_H */
