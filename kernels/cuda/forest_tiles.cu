/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The adapter from a labeled forest to the tiled tail (forest_tiles.h).
 *
 * Forest tiles runs tile labeling's agent (tile_labeling.cuh) with its
 * linking steps (3 to 5: first top neighbours, extras, pointer jumping)
 * replaced by the forest's answer: every run of the tile asks the forest
 * for its component's root, and runs of one root form one piece whose root
 * is its smallest run, as after step 5:
 *   - a root node inside the tile (its pixels are: tiles have even sides)
 *     holds a foreground pixel of the piece, whose run stands for the
 *     piece (one shared load: run_of); on a pixel forest the root is the
 *     component's first pixel, so that run is the piece's smallest; on a
 *     block forest a smaller run of the piece may start right of the root
 *     block in its top row, so each run offers itself to the stand-in
 *     (atomicMin), and every run takes the stand-in's answer;
 *   - a root outside the tile belongs to a component that enters the tile
 *     across a seam, so the tile has at most one such root per seam pixel
 *     (OPEN_CAP); a small hash table in shared memory gives each the
 *     smallest of its runs.
 * The agent's steps 6 to 9 then flag, rank and sum the pieces and write
 * them out as they do for HA4: a piece is closed when no run of it touches
 * a seam (then it is a whole component), open otherwise, keyed by its own
 * first pixel. The open piece in whose tile the forest root lies writes
 * its slot at root_slot[root], and open merging takes it as the root of
 * every open piece of the component: the forest did seam merging's work,
 * so no seam pixel is written for it; nothing else differs downstream. */
#include "forest_tiles.h"
#include "open_merging.cuh"
#include "tile_pieces.cuh"

namespace tile {

namespace {

typedef LibraryShape S;

/* The tile's foreign roots: fewer than OPEN_CAP (576), so the table keeps
 * a free slot (it is at most 56 % full) and every probe ends. */
constexpr int HASH_BITS = 10;
constexpr uint32_t HASH_SLOTS = 1u << HASH_BITS;
static_assert(HASH_SLOTS > (uint32_t)S::OPEN_CAP,
              "hash table of foreign roots too small");
/* A run's P while it waits for its piece's smallest run: a foreign
 * root's table slot, or the stand-in run of a root in the tile, flagged. */
constexpr uint32_t FOREIGN = 0x80000000u, STAND_IN = 0x40000000u;
static_assert(S::MAX_RUNS <= (int)STAND_IN, "run numbers beside the flags");
static_assert(S::MAX_RUNS <= 32 * S::THREADS, "a thread's runs in a word");
static_assert(S::W % 2 == 0 && S::H % 2 == 0,
              "a 2x2 block lies in one tile");

/* Root of the forest node of pixel (x, y): its labeler finished. */
__device__ __forceinline__ uint32_t forest_root(const ForestView &g,
                                                uint32_t x, uint32_t y)
{
  return node_root<FinishedForest>(g.parent, g.shift, g.fpitch, x, y);
}

/* Pixel coordinates of a node's first pixel (nodes: rows of fpitch). */
__device__ __forceinline__ uint2 node_origin(const ForestView &g,
                                             const RowDivider &nodes,
                                             uint32_t n)
{
  uint32_t x;
  const uint32_t y = nodes.row(n, x);
  return make_uint2(x << g.shift, y << g.shift);
}

/* Tile labeling's outputs for one tile of a labeled forest. The label
 * image is not the agent's (its pieces are another labeling's): see
 * forest_label_image_kernel. LABELS: the label image follows, and takes
 * every component's key from root_slot. CONN8: the forest's connectivity.
 *
 * Isolated runs (a run inside one word that touches no other run and no
 * seam: most runs of sparse noise) are whole components whatever the
 * forest says, so the agent finds them at the forest's connectivity and
 * finishes them from their words, as tile labeling does: they never ask
 * the forest for a root. With a label image every run is numbered: each
 * component's key is published at its root (publish_root_slots). */
template <bool LABELS, bool CONN8> struct ForestTiles {
  typedef TilePieces<S, GPUCCL_PIXEL_U8, CONN8, LIBRARY_FCAP> Tile;
  typedef typename Tile::Shared Shared;
  static constexpr int NT = S::THREADS;
  static constexpr uint32_t FULL = 0xffffffffu;
  static_assert(sizeof(Shared::extra) >= 2 * HASH_SLOTS * sizeof(uint32_t),
                "the hash table lives in the extras' list");

  Tile tl;
  Shared &s;
  const Frame &f;
  const ForestView &g;
  const RowDivider nodes;
  /* Free between steps 2 and 7: the extras' list, which this adapter does
   * not use, and which the feature windows overwrite from step 7 on. */
  uint32_t *const hkey, *const hrep;

  __device__ ForestTiles(Shared &shared, const Frame &frame,
                         const ForestView &forest)
      : tl(shared, frame, !LABELS), s(shared), f(frame), g(forest),
        nodes(forest.fpitch),
        hkey(shared.extra), hrep(shared.extra + HASH_SLOTS)
  {
  }

  /* A node's first pixel in the tile's coordinates: past the tile's size
   * (they wrap) when it lies outside. */
  __device__ uint2 local_origin(uint32_t node) const
  {
    const uint2 o = node_origin(g, nodes, node);
    return make_uint2(o.x - tl.gx0, o.y - tl.gy0);
  }
  /* Whether local_origin's coordinates lie in the tile. */
  static __device__ bool in_tile(uint2 l)
  {
    return l.x < (uint32_t)S::W && l.y < (uint32_t)S::H;
  }

  /* Step 1 from the bitmask the forest labeled (so both see one image),
   * with the agent's per-tile state cleared as its binarise() does;
   * whether the tile has any foreground comes back with the barrier. */
  __device__ uint32_t load_bits(bool &any)
  {
    const uint32_t y = tl.gy0 + tl.wy;
    const uint32_t word = blockIdx.x * S::WORDS + tl.ww;
    uint32_t B = 0;
    if (y < (uint32_t)f.image.height && word < (uint32_t)g.words)
      B = __ldg(g.bits + (size_t)y * g.words + word);
    s.fg[tl.wy][tl.ww] = B;
    if (tl.t < Shared::RW) {
      s.multi[tl.t] = 0;
      s.open[tl.t] = 0;
    }
    if (tl.t == 0)
      s.n_closed = 0;
    any = __syncthreads_or(B != 0u);
    return B;
  }

  /* The slot of a foreign root in the table (inserted if new), and r
   * offered as the smallest run of the root. */
  __device__ uint32_t insert(uint32_t root, uint32_t r)
  {
    uint32_t h = (root * 2654435761u) >> (32 - HASH_BITS);
    for (;;) {
      const uint32_t old = atomicCAS(hkey + h, NONE, root);
      if (old == NONE || old == root)
        break;
      h = (h + 1) & (HASH_SLOTS - 1);
    }
    atomicMin(hrep + h, r);
    return h;
  }

  /* The run standing for the piece of root node (lx, ly) of the tile: the
   * one holding the node's first foreground pixel (a 2x2 block's lie in
   * one word, two rows). */
  __device__ uint32_t stand_in(uint32_t lx, uint32_t ly) const
  {
    if (!g.shift)
      return tl.run_of((int)ly, (int)lx);
    uint32_t two = s.fg[ly][lx >> 5] >> (lx & 31) & 3u;
    if (!two) {
      ly++;
      two = s.fg[ly][lx >> 5] >> (lx & 31) & 3u;
    }
    return tl.run_of((int)ly, (int)(lx + 1 - (two & 1u)));
  }

  /* Steps 3 to 5 by the forest: every run's P is the smallest run of its
   * component in the tile; runs of pieces of several runs are PAIRED.
   * Whole warps go round together: on dense images most runs of a tile
   * belong to one giant component, so the runs of one root in a warp send
   * one atomic to its table slot, not one each. */
  __device__ void group_by_component()
  {
    for (uint32_t i = tl.t; i < HASH_SLOTS; i += NT) {
      hkey[i] = NONE;
      hrep[i] = NONE;
    }
    __syncthreads();
    const uint32_t lane = tl.lane;
    uint32_t offers = 0; /* bit k: run t + k * NT is before its stand-in */
    for (uint32_t r0 = tl.t - lane, k = 0; r0 < tl.n_runs; r0 += NT, k++) {
      const uint32_t r = r0 + lane;
      const bool valid = r < tl.n_runs;
      uint32_t root = NONE;
      uint2 l = make_uint2(0, 0);
      if (valid) {
        root = forest_root(g, tl.gx0 + tl.run_a(r), tl.gy0 + tl.run_y(r));
        l = local_origin(root);
      }
      const bool foreign = valid && !in_tile(l);
      /* The lowest lane of a root holds its smallest run here. */
      const uint32_t peers = __match_any_sync(FULL, foreign ? root : NONE);
      const int leader = __ffs(peers) - 1;
      uint32_t h = 0;
      if (foreign && (int)lane == leader)
        h = insert(root, r);
      h = __shfl_sync(FULL, h, leader);
      if (valid) {
        const uint32_t rep = foreign ? 0u : stand_in(l.x, l.y);
        s.P[r] = foreign ? FOREIGN | h : rep == r ? r : STAND_IN | rep;
        offers |= (uint32_t)(!foreign && r < rep) << k;
      }
    }
    __syncthreads();
    if (g.shift)
      offer_to_stand_ins(offers);
    for (uint32_t r0 = tl.t - lane; r0 < tl.n_runs; r0 += NT) {
      const uint32_t r = r0 + lane;
      const bool valid = r < tl.n_runs;
      uint32_t p = valid ? s.P[r] : r;
      /* A stand-in's own word holds no flag, and only flagged words are
       * written here: no run reads a word that changes. */
      if (valid && (p & (FOREIGN | STAND_IN))) {
        p = p & FOREIGN ? hrep[p & ~FOREIGN] : s.P[p & ~STAND_IN];
        s.P[r] = p;
      }
      const bool linked = p != r;
      if (linked)
        tl.mark_paired(r);
      const uint32_t peers = __match_any_sync(FULL, linked ? p : NONE);
      if (linked && (int)lane == __ffs(peers) - 1)
        tl.mark_paired(p);
    }
    __syncthreads();
  }

  /* Block forests: the runs before their stand-in lower its word to the
   * smallest of them. Their own words keep their flags, and are the only
   * ones read here. */
  __device__ void offer_to_stand_ins(uint32_t offers)
  {
    for (; offers; offers &= offers - 1) {
      const uint32_t r = tl.t + (uint32_t)(__ffs(offers) - 1) * NT;
      atomicMin(s.P + (s.P[r] & ~STAND_IN), r);
    }
    __syncthreads();
  }

  /* Steps 1 to 7; false for a tile without foreground (nothing after
   * step 1 ran). */
  __device__ bool label_runs()
  {
    bool any;
    const uint32_t B = load_bits(any);
    if (!any)
      return false;
    tl.number_runs(B);
    group_by_component();
    tl.find_roots();
    tl.rank_roots();
    return true;
  }

  /* The pieces in whose tile their component's forest root lies publish
   * their open slots at the root, and with a label image to follow, closed
   * ones their keys. One piece per component does. */
  __device__ void publish_root_slots()
  {
    for (uint32_t r = tl.t; r < tl.n_runs; r += NT) {
      if (s.P[r] != r)
        continue;
      const bool open = tl.flag(s.open, r);
      if (!open && !LABELS)
        continue;
      const uint32_t x = tl.gx0 + tl.run_a(r), y = tl.gy0 + tl.run_y(r);
      const uint32_t root = forest_root(g, x, y);
      if (in_tile(local_origin(root)))
        g.root_slot[root] = open ? tl.open_slot(r)
                                 : CLOSED_KEY | (y * f.image.width + x);
    }
  }
};

template <bool LABELS, bool CONN8>
__global__ void __launch_bounds__(S::THREADS)
    forest_tiles_kernel(Frame f, ForestView g)
{
  typedef ForestTiles<LABELS, CONN8> Agent;
  extern __shared__ uint4 smem_raw[];
  wait_for_previous();
  allow_next();
  Agent a(*reinterpret_cast<typename Agent::Shared *>(smem_raw), f, g);
  if (!a.label_runs()) {
    a.tl.write_empty(nullptr); /* its counts and zero bitmaps */
    count_empty_tile(f);
    return;
  }
  a.publish_root_slots();
  const uint32_t n_open = a.tl.count_open();
  a.tl.open_parents(n_open);
  a.tl.stage_isolated(); /* none with a label image */
  a.tl.features();
  a.tl.write_counts(n_open);
}

/* An open piece's root from the forest: the root slot of its component's
 * forest root, found from any pixel of the piece. The key read may be the
 * root piece's while another tile lowers it: either is a pixel of the
 * component. */
struct ForestRoots {
  const ForestView g;
  const OpenPieces o;
  const RowDivider keys;
  __device__ uint32_t operator()(uint32_t p) const
  {
    uint32_t x;
    const uint32_t y = keys.row(o.key[p], x);
    return g.root_slot[forest_root(g, x, y)];
  }
};

/* Open merging with the forest's roots (seam merging's work, done by the
 * forest): every open piece of tile blockIdx.x joins its component's root
 * slot directly. */
__global__ void __launch_bounds__(OPEN_THREADS)
    forest_open_merging_kernel(Frame f, ForestView g)
{
  wait_for_previous();
  allow_next();
  open_merging(f, ForestRoots{g, f.out.open, RowDivider(f.image.width)});
}

/* The label image (Alg. 5) after blob records: each foreground pixel gets
 * the id of its component's first pixel, background 0 (the image is never
 * cleared): a closed component's key from its root slot, an open one's
 * from its root piece, which open merging gave the smallest key. One
 * thread per pixel, a warp per 32 of a row. */
__global__ void __launch_bounds__(256)
    forest_label_image_kernel(Frame f, ForestView g, uint32_t *labels)
{
  wait_for_previous();
  allow_next();
  const uint32_t x = blockIdx.x * 32 + threadIdx.x;
  const uint32_t y = blockIdx.y * 8 + threadIdx.y;
  const uint32_t w = (uint32_t)f.image.width;
  if (x >= w || y >= (uint32_t)f.image.height)
    return;
  uint32_t id = 0;
  if (__ldg(g.bits + (size_t)y * g.words + x / 32) >> (x & 31) & 1u) {
    const uint32_t slot = g.root_slot[forest_root(g, x, y)];
    const uint32_t key =
        slot & CLOSED_KEY ? slot & ~CLOSED_KEY : f.out.open.key[slot];
    uint32_t kx;
    const uint32_t ky = RowDivider(f.image.width).row(key, kx);
    id = (uint32_t)components_before<S>(f, kx, ky) + 1;
  }
  labels[(size_t)y * w + x] = id;
}

} /* namespace */

cudaError_t launch_forest_tiles(const Frame &f, const ForestView &g,
                                bool labels, cudaStream_t stream)
{
  constexpr size_t smem = sizeof(ForestTiles<false, false>::Shared);
  static_assert(smem <= 48 * 1024, "tile shared memory over 48 KB");
  typedef void (*Kernel)(Frame, ForestView);
  const Kernel kernel =
      labels ? (f.conn8 ? forest_tiles_kernel<true, true>
                        : forest_tiles_kernel<true, false>)
             : (f.conn8 ? forest_tiles_kernel<false, true>
                        : forest_tiles_kernel<false, false>);
  return launch_dependent(kernel, dim3(f.tiles_x, f.tiles_y), S::THREADS,
                          smem, stream, f, g);
}

cudaError_t launch_forest_open_merging(const Frame &f, const ForestView &g,
                                      cudaStream_t stream)
{
  return launch_dependent(forest_open_merging_kernel, f.tiles_x * f.tiles_y,
                          OPEN_THREADS, 0, stream, f, g);
}

cudaError_t launch_forest_label_image(const Frame &f, const ForestView &g,
                                      uint32_t *labels, cudaStream_t stream)
{
  const dim3 grid((f.image.width + 31) / 32, (f.image.height + 7) / 8);
  return launch_dependent(forest_label_image_kernel, grid, dim3(32, 8), 0,
                          stream, f, g, labels);
}

cudaError_t enqueue_forest_tail(const Frame &f, const ForestView &g,
                                GpucclBlob *blobs, uint32_t *labels,
                                cudaStream_t stream)
{
  cudaError_t e;
  if ((e = launch_forest_tiles(f, g, labels != nullptr, stream)) ||
      (e = launch_forest_open_merging(f, g, stream)) ||
      (e = launch_blob_records(f, blobs, stream)))
    return e;
  return labels ? launch_forest_label_image(f, g, labels, stream)
                : cudaSuccess;
}

} /* namespace tile */
