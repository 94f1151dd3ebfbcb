/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seam merging: HA4's border merging (Alg. 4 of Hennequin et al. 2018),
 * between tiles and on open pieces only, as tile labeling's last step. The
 * pixels on the two sides of a seam carry the slot of their open piece, and
 * touching pairs join their pieces' trees in global memory. A seam pixel
 * repeats its neighbour's pair along a segment; only the first pixel of
 * such a run merges, so a long shared border costs one union.
 *
 * No kernel of its own: a tile with open pieces, once its seam pixels and
 * its open pieces' parents are out (the unions need nothing else), arrives
 * at each seam it shares with another tile (a counter per seam), and the
 * second of the two to arrive merges that seam when it has finished its
 * features. A tile arrives only where its side of the seam has foreground:
 * elsewhere there is no pair to join, and a seam where only one tile
 * arrived is left alone. So merging overlaps the labeling of other tiles,
 * and a sparse frame pays little or nothing for it. */
#ifndef GPUCCL_SEAM_MERGING_CUH
#define GPUCCL_SEAM_MERGING_CUH

#include "tile_common.cuh"

namespace tile {

namespace seams {

/* The seams of a tile T, each counted at T: the column between T and the
 * tile right of it, the row between T and the tile below it, and, with
 * 8-connectivity, the corner below right of T, where two diagonals cross:
 * T's last pixel against the first of the tile below right, and the first
 * pixel of the last row of the tile right of T against the last pixel of
 * the first row of the tile below T. */
enum Task { RIGHT, BELOW, DIAGONAL, ANTIDIAGONAL, TASKS };

/* Where a tile arrives: the task of the tile dx, dy from it. The first
 * four are its sides, the others the diagonals through its corners. */
struct Arrival {
  int8_t dx, dy;
  uint8_t task;
};
constexpr int SIDES = 4, ARRIVALS = 8;
__device__ constexpr Arrival arrivals[ARRIVALS] = {
    {0, 0, RIGHT},      {-1, 0, RIGHT},     {0, 0, BELOW},
    {0, -1, BELOW},     {0, 0, DIAGONAL},   {-1, -1, DIAGONAL},
    {-1, 0, ANTIDIAGONAL}, {0, -1, ANTIDIAGONAL}};

/* The pieces to join with `near` across one seam position (NONE: no
 * union): near_prev is this side's slot before it, far_* the other side's
 * neighbours (NONE outside or on background). The position before already
 * joined near_prev with far_prev and far (and, 8-connected, the one before
 * far_prev); when near is near_prev, only what is new needs a union. */
template <bool CONN8> struct SeamPairs {
  static constexpr int N = CONN8 ? 3 : 1;
  uint32_t other[N];
};

template <bool CONN8>
__device__ __forceinline__ SeamPairs<CONN8>
pairs_across(uint32_t near, uint32_t near_prev, uint32_t far_prev,
             uint32_t far, uint32_t far_next)
{
  SeamPairs<CONN8> p;
  for (uint32_t &o : p.other)
    o = NONE;
  if (near == NONE)
    return p;
  const bool same = near == near_prev;
  if constexpr (!CONN8) {
    if (!(same && far == far_prev))
      p.other[0] = far;
  } else {
    if (!same) {
      p.other[0] = far_prev;
      if (far != far_prev)
        p.other[1] = far;
    }
    if (far_next != far && !(same && far == NONE && far_next == far_prev))
      p.other[2] = far_next;
  }
  return p;
}

/* 8-connected, a warp's positions mostly pair the same two pieces (on
 * dense images the giant component's, broken by gaps): only the first lane
 * of each pair keeps it. 4-connected, the repeats are neighbouring
 * positions, which pairs_across already drops, and the match costs more
 * than it saves (docs/benchmarks.md). Called by whole warps. */
template <bool CONN8>
__device__ __forceinline__ void drop_repeats(uint32_t here,
                                             SeamPairs<CONN8> &p,
                                             uint32_t lane)
{
  if constexpr (CONN8) {
    for (uint32_t &o : p.other) {
      if (!__any_sync(0xffffffffu, o != NONE))
        continue;
      const unsigned peers =
          __match_any_sync(0xffffffffu, (unsigned long long)here << 32 | o);
      if (lane != (uint32_t)__ffs(peers) - 1)
        o = NONE;
    }
  }
}

/* One side of one tile's seam: the slots that tile wrote, at positions
 * lo..hi - 1 of the whole seam row or column; NONE elsewhere (the tiles
 * beyond are another seam's). Read through L2: another block wrote them
 * during this kernel. */
struct SeamSide {
  const uint32_t *slot;
  uint32_t lo, hi;

  __device__ __forceinline__ uint32_t operator()(uint32_t at) const
  {
    return at - lo < hi - lo ? __ldcg(slot + at) : NONE;
  }
};

template <class S, bool CONN8> struct SeamMerging {
  const Frame &f;
  const int t, tx, ty;

  /* The tile at which arrival k is counted (its seam's owner). */
  __device__ __forceinline__ int2 owner(int k) const
  {
    return make_int2(tx + arrivals[k].dx, ty + arrivals[k].dy);
  }

  /* Arrival k of this tile: its counter, or nullptr where the seam is
   * outside the frame. */
  __device__ uint32_t *counter(int k) const
  {
    const Arrival a = arrivals[k];
    const int2 o = owner(k);
    const bool right = a.task != BELOW, below = a.task != RIGHT;
    if (o.x < 0 || o.y < 0 || (right && o.x + 1 >= f.tiles_x) ||
        (below && o.y + 1 >= f.tiles_y))
      return nullptr;
    return f.seam_arrivals + ((size_t)o.y * f.tiles_x + o.x) * TASKS + a.task;
  }

  /* Which of the tile's arrivals have a foreground pixel on the tile's
   * side of their seam (fg: the tile's foreground words): a bit per
   * arrival, in warp 0. A seam whose side has none has no pair to join,
   * and the tile does not arrive there. */
  __device__ uint32_t touching(const uint32_t (*fg)[S::WORDS]) const
  {
    static_assert(S::H <= 32 && S::WORDS <= 32, "a row or a word a lane");
    const uint32_t FULL = 0xffffffffu, last = S::WORDS - 1;
    const uint32_t *top = fg[0], *bottom = fg[S::H - 1];
    const bool row = t < S::WORDS, column = t < S::H;
    const uint32_t right = __ballot_sync(FULL, column && fg[t][last] >> 31);
    const uint32_t left = __ballot_sync(FULL, column && fg[t][0] & 1u);
    const uint32_t below = __ballot_sync(FULL, row && bottom[t]);
    const uint32_t above = __ballot_sync(FULL, row && top[t]);
    return (right != 0) | (left != 0) << 1 | (below != 0) << 2 |
           (above != 0) << 3 | (bottom[last] >> 31) << 4 |
           (top[0] & 1u) << 5 | (bottom[0] & 1u) << 6 | (top[last] >> 31) << 7;
  }

  /* The tile arrives at its seams: lane k of the first warp counts
   * arrival k in, and holds the counter as it found it (0 where it does
   * not arrive). The block's seam pixels and open parents are out before
   * (the barrier, then the fence of the arriving lanes, as a grid-wide
   * barrier releases a block's writes); nothing waits for the counters
   * until won(). */
  __device__ uint32_t arrive(const uint32_t (*fg)[S::WORDS]) const
  {
    __syncthreads();
    uint32_t before = 0;
    if (t < 32) {
      __threadfence();
      const uint32_t touches = touching(fg);
      uint32_t *c = t < (CONN8 ? ARRIVALS : SIDES) && touches >> t & 1u
                        ? counter(t)
                        : nullptr;
      if (c)
        before = atomicAdd(c, 1u);
    }
    return before;
  }

  /* The arrivals after which this tile merges, a bit per arrival, from
   * what arrive() found: it came second where the counter was 1. The
   * other tile's outputs are seen through the fence after the counter.
   * The queue of merge() starts empty. */
  __device__ uint32_t won(uint32_t before, uint32_t &mask,
                          uint32_t &queued) const
  {
    if (t < 32) {
      const bool second = before == 1u;
      if (second)
        __threadfence();
      const uint32_t m = __ballot_sync(0xffffffffu, second);
      if (t == 0) {
        mask = m;
        queued = 0;
      }
    }
    __syncthreads();
    return mask;
  }

  /* A union to make, NONE where none: the pairs of the thread's
   * positions, and the parents read for the check before it. */
  static constexpr int ROUNDS = 3, PAIRS = ROUNDS * SeamPairs<CONN8>::N;
  static constexpr size_t QUEUE_BYTES = sizeof(uint4) * PAIRS * S::THREADS;
  struct Unions {
    uint32_t a[PAIRS], b[PAIRS];
  };

  /* A position's slot and its neighbours' (pairs_across's arguments). */
  struct Around {
    uint32_t here, near_prev, far_prev, far, far_next;
  };

  /* The thread's position in round j: along the rows first (a position of
   * each row it won), then along the columns; nothing read where the
   * thread has none. */
  __device__ Around read_round(int j, uint32_t won) const
  {
    SeamSide near{nullptr, 0, 0}, far{nullptr, 0, 0};
    uint32_t at = 0;
    const uint32_t rows = won >> 2 & 3u;
    if (j < 2) { /* the first row won, then the second (both: 3) */
      if (j < __popc(rows))
        side(j == 0 && !(rows & 1u) ? 3 : 2 + j, (uint32_t)t, near, far, at);
    } else if (t < 2 * S::H && won >> (t / S::H) & 1u) {
      side(t / S::H, (uint32_t)t % S::H, near, far, at);
    }
    return Around{near(at), near(at - 1), far(at - 1), far(at), far(at + 1)};
  }

  /* Round j's pairs into u. */
  __device__ void pairs_of_round(int j, const Around &v, Unions &u) const
  {
    constexpr int N = SeamPairs<CONN8>::N;
    SeamPairs<CONN8> p = pairs_across<CONN8>(v.here, v.near_prev, v.far_prev,
                                             v.far, v.far_next);
    drop_repeats<CONN8>(v.here, p, (uint32_t)t & 31);
    for (int k = 0; k < N; k++) {
      u.a[j * N + k] = v.here;
      u.b[j * N + k] = p.other[k];
    }
  }

  /* Position `at` of side k's seam (arrival k < SIDES, won): its two
   * sides. */
  __device__ void side(int k, uint32_t i, SeamSide &near, SeamSide &far,
                       uint32_t &at) const
  {
    const Seams &sm = f.out.seams;
    const int2 o = owner(k);
    uint32_t lo;
    if (arrivals[k].task == BELOW) {
      lo = (uint32_t)o.x * S::W;
      near = {sm.bottom + (size_t)o.y * sm.row_len, lo, lo + S::W};
      far = {sm.top + (size_t)(o.y + 1) * sm.row_len, lo, lo + S::W};
    } else {
      lo = (uint32_t)o.y * S::H;
      near = {sm.right + (size_t)o.x * sm.col_len, lo, lo + S::H};
      far = {sm.left + (size_t)(o.x + 1) * sm.col_len, lo, lo + S::H};
    }
    at = lo + i;
  }

  /* The thread's diagonal through a corner, if it has one (a thread of
   * the last round without a position on a column) and the tile won it. */
  __device__ void read_corner(uint32_t won, uint32_t &p, uint32_t &q) const
  {
    const int k = SIDES + t - 2 * S::H;
    if (!CONN8 || k < SIDES || k >= ARRIVALS || !(won >> k & 1u))
      return;
    const Seams &sm = f.out.seams;
    const int2 o = owner(k);
    const uint32_t *bottom = sm.bottom + (size_t)o.y * sm.row_len;
    const uint32_t *top = sm.top + (size_t)(o.y + 1) * sm.row_len;
    const uint32_t x = (uint32_t)(o.x + 1) * S::W; /* the corner's column */
    const bool diagonal = arrivals[k].task == DIAGONAL;
    p = __ldcg(bottom + (diagonal ? x - 1 : x));
    q = __ldcg(top + (diagonal ? x : x - 1));
  }

  /* Every union of the seams this tile arrived at second. A thread's
   * positions are read, then the parents of all its pairs: the L2 round
   * trips of its positions overlap (a tile's merging waits at the end of
   * its labeling). The unions that remain, few but each a walk up two
   * paths, are queued and shared out over the block: on dense 8-connected
   * frames a thread may hold nine. */
  __device__ void merge(uint32_t won, uint4 *queue, uint32_t &queued) const
  {
    static_assert(S::W <= S::THREADS && 2 * S::H + 4 <= S::THREADS,
                  "a position of each seam a thread");
    Around v[ROUNDS];
#pragma unroll
    for (int j = 0; j < ROUNDS; j++)
      v[j] = read_round(j, won);
    uint32_t cp = NONE, cq = NONE;
    read_corner(won, cp, cq);
    Unions u;
#pragma unroll
    for (int j = 0; j < ROUNDS; j++)
      pairs_of_round(j, v[j], u);
    if (cp != NONE) { /* round 2 has no pair there */
      u.a[PAIRS - 1] = cp;
      u.b[PAIRS - 1] = cq;
    }
    uint32_t *P = f.out.open.parent;
    uint32_t pa[PAIRS], pb[PAIRS];
#pragma unroll
    for (int n = 0; n < PAIRS; n++) {
      const bool any = u.b[n] != NONE && u.a[n] != NONE && u.a[n] != u.b[n];
      pa[n] = any ? GlobalForest::load(P + u.a[n]) : 0u;
      pb[n] = any ? GlobalForest::load(P + u.b[n]) : 0u;
    }
    /* Joined already (the same parent: trees of open pieces are shallow)
     * on most positions of dense images: no atomic to the giant root. The
     * parents stay valid starts: a link only ever moves up its path. */
#pragma unroll
    for (int n = 0; n < PAIRS; n++)
      if (pa[n] != pb[n])
        queue[atomicAdd(&queued, 1u)] = make_uint4(u.a[n], pa[n], u.b[n], pb[n]);
    __syncthreads();
    for (uint32_t i = t; i < queued; i += S::THREADS) {
      const uint4 q = queue[i];
      merge_roots_from<GlobalForest>(P, q.x, q.y, q.z, q.w);
    }
  }
};

} /* namespace seams */

/* Step 10 of tile labeling, for a tile with open pieces, in two halves
 * called by the whole block. The first, once its seam pixels and open
 * parents are written (fg: its foreground words), arrives at its seams;
 * the tile's other work then hides the counters' round trips. Its result
 * goes to the second. */
template <class S, bool CONN8>
__device__ __forceinline__ uint32_t
arrive_at_seams(const Frame &f, const uint32_t (*fg)[S::WORDS])
{
  const seams::SeamMerging<S, CONN8> m{f, (int)threadIdx.x, (int)blockIdx.x,
                                       (int)blockIdx.y};
  return m.arrive(fg);
}

/* The second merges the seams the tile came second to. The block lends
 * it the shared memory `lent` (16-byte aligned) for its queue: the
 * tile's, which labeling no longer needs then. */
template <class S, bool CONN8, class Lent>
__device__ __forceinline__ void merge_seams(const Frame &f, uint32_t arrived,
                                            Lent &lent)
{
  typedef seams::SeamMerging<S, CONN8> Merging;
  static_assert(Merging::QUEUE_BYTES <= sizeof(Lent),
                "seam merging's queue fits in the memory lent");
  __shared__ uint32_t won, queued;
  const Merging m{f, (int)threadIdx.x, (int)blockIdx.x, (int)blockIdx.y};
  if (m.won(arrived, won, queued))
    m.merge(won, reinterpret_cast<uint4 *>(&lent), queued);
}

} /* namespace tile */

#endif /* GPUCCL_SEAM_MERGING_CUH */
