/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the tiled HA4 kernels share: the tile geometry, the device view of
 * a frame, the per-tile outputs of tile labeling and the union-find of the
 * paper (Alg. 2) on shared or global memory.
 *
 * A frame is cut into tiles of TILE_W x TILE_H pixels. Tile labeling labels
 * a tile entirely on chip; each of its components (a "piece") is either
 * closed (it touches no border that has a neighbouring tile, so it is a
 * whole component of the image) or open (it does, and is joined with its
 * neighbours' pieces by seam merging). Closed pieces are finished inside
 * the tile; only open ones, a few percent of them, meet in global memory.
 *
 * Component ids follow raster order of each component's first pixel
 * through two bitmaps of one bit per pixel: `start` marks every first
 * pixel, `pass` those of components that pass the area filter. A cell is
 * one image row of one tile (TILE_W bits, TILE_W / 32 words); counts per
 * cell are scanned in raster order, so a component's id is its cell's
 * offset plus the start bits before it in the cell. */
#ifndef GPUCCL_TILE_COMMON_CUH
#define GPUCCL_TILE_COMMON_CUH

#include <cstddef>
#include <cstdint>

#include "../gpuccl.h"
#include "../motion.h"

namespace tile {

/* A tile shape: WORDS 32-bit words per row (W = 32 * WORDS pixels, at most
 * 256 so a column fits in a byte), H rows, THREADS threads (at least one
 * per word: a thread reads a word, then the threads share the runs). */
template <int WORDS_, int H_, int THREADS_ = WORDS_ * H_> struct Shape {
  static constexpr int WORDS = WORDS_;
  static constexpr int W = 32 * WORDS_;
  static constexpr int H = H_;
  static constexpr int THREADS = THREADS_;
  static constexpr int PIXELS = W * H;
  static constexpr int MAX_RUNS = PIXELS / 2; /* a run needs a gap */
  /* Each open piece owns a border pixel of its own. */
  static constexpr int OPEN_CAP = 2 * W + 2 * H;
  /* Closed pieces: every other pixel at most (4-connectivity). */
  static constexpr int CLOSED_CAP = PIXELS / 2;
  static_assert(W <= 256 && H <= 256, "tile coordinates are bytes");
  static_assert(THREADS >= WORDS * H, "a thread per word at least");
};

constexpr uint32_t NONE = 0xffffffffu;

/* Raw samples and how they are binarised. */
struct Image {
  const uint8_t *data; /* device (or mapped host) memory */
  size_t stride;       /* bytes between rows */
  int width, height;
  GpucclPixelFormat format;
  int threshold;          /* used when d_threshold is NULL */
  const int *d_threshold; /* Otsu's, computed on the device */
  bool invert;
  bool luma;              /* PACKED4: threshold BT.601 luma */
  uint8_t channel_offset; /* PACKED4, not luma: byte of the channel */
  uint8_t off_r, off_g, off_b;
  /* Binarisation by motion (model NULL: none), and whether this kernel
   * writes the learned model (tile_samples.cuh). */
  GpucclMotion motion;
  bool motion_learns;
  /* A mask (width bytes a row): 0 is never foreground; NULL: none. */
  const uint8_t *mask;
};

/* Pieces that touch a seam, struct of arrays, Shape::OPEN_CAP slots per tile:
 * piece i of tile t is at t * OPEN_CAP + i. Features are global (image
 * coordinates, 64-bit sums); seam merging links `parent`, and the merge
 * of open pieces adds every piece's features into its root's. */
struct OpenPieces {
  uint32_t *parent; /* union-find over slots; root: smallest key */
  uint32_t *key;    /* first pixel, y * width + x */
  uint32_t *area;
  unsigned long long *sum_x, *sum_y;
  uint32_t *x0, *x1, *y1; /* y0 = key / width */
};

/* Closed pieces that pass the area filter, Shape::CLOSED_CAP slots per tile, in
 * no particular order, packed in tile coordinates: x = first pixel
 * (row * W + column) | area << 16, y = sum of columns, z = sum of rows,
 * w = x0 | x1 << 8 | y1 << 16. */
struct ClosedPieces {
  uint4 *rec;
};

/* The ids of the pixels on each side of every seam (open piece slot, or
 * NONE for background), written by tile labeling for seam merging:
 * rows: tile row ty's top / bottom row at ty * row_len (row_len = tiles_x
 * * W); columns: tile column tx's left / right column at tx * col_len
 * (col_len = tiles_y * H). */
struct Seams {
  uint32_t *top, *bottom, *left, *right;
  int row_len, col_len;
};

/* Everything tile labeling writes. */
struct TileOutputs {
  OpenPieces open;
  ClosedPieces closed;
  Seams seams;
  uint32_t *start, *pass; /* bitmaps, start_words words per image row */
  int start_words;        /* tiles_x * Shape::WORDS */
  uint32_t *n_open;       /* per tile */
  uint32_t *n_closed;     /* per tile: closed pieces staged (passing) */
  /* Per tile: open roots, the components whose first pixel is in the tile's
   * band and whose root slot is in the tile (tile labeling clears them,
   * open merging counts them when the frame sums tiles: Frame::sums_tiles).
   * With n_closed, a tile's counts. */
  uint32_t *n_open_roots;
};

/* The tile shape of the library: 256 x 32 pixels, one thread per word.
 * Open pieces, the seams' work, fall with the tile's height, not its
 * width; 512 tiles of a 2048^2 frame run in one wave on an H100 at four
 * tiles per multiprocessor (docs/benchmarks.md). */
typedef Shape<8, 32, 256> LibraryShape;

/* Pieces of several runs whose sums tile labeling holds in shared memory at
 * once (the most that fits in 48 KB): a 256 x 32 tile has at most 2 048 of
 * them, dense noise a few hundred, so one window nearly always does. */
constexpr int LIBRARY_FCAP = 640;

struct Filter {
  uint32_t min_area, max_area; /* max_area 0: no limit */
  __device__ __forceinline__ bool passes(uint32_t area) const
  {
    return area >= min_area && (max_area == 0 || area <= max_area);
  }
  /* Every component a blob. */
  __host__ __device__ __forceinline__ bool passes_all() const
  {
    return min_area <= 1 && max_area == 0;
  }
};

/* One frame of the tiled pipeline: what every kernel reads. */
struct Frame {
  Image image;
  Filter filter;
  bool conn8;
  int tiles_x, tiles_y;
  TileOutputs out;
  /* Component ids: per cell (an image row of a tile column), the
   * components and passing blobs whose first pixel is in it, packed:
   * components | blobs << 32 (tile labeling counts the closed ones), and
   * those before it (blob_records.cu adds the open ones and scans). */
  unsigned long long *cell_count, *cell_before;
  uint32_t *header; /* {components, blobs, threshold} */
  /* Bands (tile rows) number their components in raster order by a
   * decoupled look-back (blob_records.cu): each band's status word.
   * Cleared by open merging for the next kernel. */
  unsigned long long *band_status;
  /* Tiles with open pieces arriving at their seams, seams::TASKS a tile
   * (seam_merging.cuh). Cleared by open merging for the next frame. */
  uint32_t *seam_arrivals;
  /* Host memory (pinned, mapped) where blob records also writes the header
   * and the table's first n blobs, read after the frame's sync: no download
   * follows the kernels of a sparse frame. n is fixed per context, not per
   * scene, so that a frame's graph does not change with its blob count;
   * 0: no copy. */
  struct HostCopy {
    uint32_t *header;
    GpucclBlob *blobs;
    uint32_t n;
  } copy;
  /* Where blob records tells the host that the frame is done: a flag in
   * pinned host memory, raised by the block that completes the host's
   * copy, which the host polls instead of waiting for the stream
   * (frame_done.cu), and the tickets that count the copy's writes (device
   * memory, back to zero after each frame). No flag: more work follows
   * blob records, and the host waits for the stream.
   *
   * A frame without foreground has nothing to merge, number or record:
   * the tile stage finishes it, so the host is not kept waiting for the
   * kernels after it. `empty_tiles` counts the tiles without foreground
   * (tile_pieces.cuh); the one that makes it every tile writes the host's
   * header and raises the flag. Blob records then knows the frame by its
   * count of components, 0, raises nothing, and sets the count back to 0
   * on every frame. */
  struct Done {
    uint32_t *flag;
    uint32_t *tickets;
    uint32_t *empty_tiles;
  } done;

  /* When every component is a blob, the counts of the bands above a tile
   * are those of their tiles, each its closed pieces and open roots, known
   * before blob records: records then adds them up instead of looking back
   * (so a tile that holds nothing waits for and publishes nothing), and
   * open merging counts the open roots only then. Each tile reads two
   * words per tile above, so the reads grow with the square of the tiles:
   * cheaper than the look-back at 1 020 tiles (3840 x 2160,
   * docs/benchmarks.md); larger frames look back. */
  static constexpr int MAX_SUMMED_TILES = 2048;
  __host__ __device__ __forceinline__ bool sums_tiles() const
  {
    return filter.passes_all() && tiles_x * tiles_y <= MAX_SUMMED_TILES;
  }
};

/* An index into rows of `width` (a pixel's key, y * width + x, or a
 * forest node's) taken apart without an integer division: a float
 * estimate of the row, off by at most one (indices under 2^28 and rows
 * under 2^14 keep its error under 0.01), then corrected. */
struct RowDivider {
  uint32_t width;
  float inverse;
  __device__ __forceinline__ explicit RowDivider(int w)
      : width((uint32_t)w), inverse(1.0f / (float)w)
  {
  }
  /* The row of index i; its column into x. */
  __device__ __forceinline__ uint32_t row(uint32_t i, uint32_t &x) const
  {
    uint32_t y = __float2uint_rz(__uint2float_rn(i) * inverse);
    int rest = (int)(i - y * width);
    if (rest < 0) {
      y--;
      rest += (int)width;
    } else if (rest >= (int)width) {
      y++;
      rest -= (int)width;
    }
    x = (uint32_t)rest;
    return y;
  }
};

/* Cells of a frame: one per image row and tile column. */
__host__ __device__ inline size_t frame_cells(const Frame &f)
{
  return (size_t)f.image.height * f.tiles_x;
}

/* Components (low half) and passing blobs (high half) whose first pixel
 * comes before pixel (x, y) in raster order: its cell's offset plus the
 * start and pass bits before it in the cell. */
template <class S>
__device__ __forceinline__ unsigned long long
components_before(const Frame &f, uint32_t x, uint32_t y)
{
  const uint32_t tc = x / S::W, b = x % S::W;
  const size_t w0 = (size_t)y * f.out.start_words + tc * S::WORDS;
  uint32_t all = 0, passed = 0;
  for (uint32_t k = 0; k < b / 32; k++) {
    all += __popc(f.out.start[w0 + k]);
    passed += __popc(f.out.pass[w0 + k]);
  }
  const uint32_t below = (1u << (b & 31)) - 1u;
  all += __popc(f.out.start[w0 + b / 32] & below);
  passed += __popc(f.out.pass[w0 + b / 32] & below);
  return f.cell_before[(size_t)y * f.tiles_x + tc] + all +
         ((unsigned long long)passed << 32);
}

/* Where a union-find forest lives (Alg. 2). Shared: one tile's runs;
 * relaxed loads (ld.relaxed.cta) are defined when racing with other warps'
 * atomics, and a plain LDS, so lanes reading one address get it
 * broadcast. Global: the open pieces of the frame; loads bypass L1, other
 * blocks' atomics land in L2. Cached: a forest in global memory whose
 * kernel only links through atomics (the forest labelers' unions): a stale
 * parent in L1 is still a node of the same tree, and link_roots' atomicMin
 * sees the truth, while L1 serves the nodes near a giant component's root
 * from every SM instead of queueing every thread at one L2 slice. */
struct SharedForest {
  static __device__ __forceinline__ uint32_t load(const uint32_t *p)
  {
    uint32_t v;
    asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];"
                 : "=r"(v)
                 : "r"((uint32_t)__cvta_generic_to_shared(p))
                 : "memory");
    return v;
  }
};
struct GlobalForest {
  static __device__ __forceinline__ uint32_t load(const uint32_t *p)
  {
    return __ldcg(p);
  }
};
struct CachedForest {
  static __device__ __forceinline__ uint32_t load(const uint32_t *p)
  {
    return *p;
  }
};
/* Finished: a forest an earlier kernel labeled, read through the
 * read-only data cache. */
struct FinishedForest {
  static __device__ __forceinline__ uint32_t load(const uint32_t *p)
  {
    return __ldg(p);
  }
};

/* Root of x, read only: where no merge runs any more, or where halving's
 * stores would race with another thread's (root flags' compression).
 * Every writer of these forests only lowers a parent to a smaller node of
 * the same tree, so even a stale load leads to the root. */
template <class Mem>
__device__ __forceinline__ uint32_t root_of(const uint32_t *P, uint32_t x)
{
  uint32_t p;
  while ((p = Mem::load(P + x)) != x)
    x = p;
  return x;
}

/* Root of the node holding pixel (x, y) in a forest over nodes of 2^shift
 * x 2^shift pixels, fpitch nodes a row (the forest labelers'). */
template <class Mem>
__device__ __forceinline__ uint32_t node_root(const uint32_t *parent,
                                              int shift, int fpitch,
                                              uint32_t x, uint32_t y)
{
  return root_of<Mem>(parent, (y >> shift) * (uint32_t)fpitch + (x >> shift));
}

/* One step up a path with halving, for x with parent p (not x) and
 * g = P[p] loaded: x becomes a root (p, when g is p) or, pointed at g with
 * atomicMin (which never raises a link a concurrent merge lowered), its
 * grandparent, whose parent is then to load (returns true). */
__device__ __forceinline__ bool climb(uint32_t *P, uint32_t &x, uint32_t p,
                                      uint32_t g)
{
  if (g == p) {
    x = p;
    return false;
  }
  atomicMin(P + x, g);
  x = g;
  return true;
}

/* Root of x, halving the path on the way. */
template <class Mem>
__device__ __forceinline__ uint32_t find_root(uint32_t *P, uint32_t x)
{
  for (;;) {
    const uint32_t p = Mem::load(P + x);
    if (p == x || !climb(P, x, p, Mem::load(P + p)))
      return x;
  }
}

/* Alg. 2's link (Playne and Hawick's merge) of two found roots: the
 * smaller wins; atomicMin retries, from what it finds, until both sides
 * agree. */
__device__ __forceinline__ void link_roots(uint32_t *P, uint32_t a,
                                           uint32_t b)
{
  while (a != b) {
    if (a < b) {
      const uint32_t t = a;
      a = b;
      b = t;
    }
    const uint32_t c = atomicMin(P + a, b);
    a = (a == c) ? b : c;
  }
}

/* Alg. 2: both roots found, halving the paths, then linked, from a and b
 * and their parents pa and pb. The two walks go up together, so their
 * loads overlap: a union waits for the longer path, not for both (the
 * seams' unions wait on L2 round trips). */
template <class Mem>
__device__ __forceinline__ void merge_roots_from(uint32_t *P, uint32_t a,
                                                 uint32_t pa, uint32_t b,
                                                 uint32_t pb)
{
  while (pa != a || pb != b) {
    const uint32_t ga = pa != a ? Mem::load(P + pa) : a;
    const uint32_t gb = pb != b ? Mem::load(P + pb) : b;
    const bool more_a = pa != a && climb(P, a, pa, ga);
    const bool more_b = pb != b && climb(P, b, pb, gb);
    pa = more_a ? Mem::load(P + a) : a;
    pb = more_b ? Mem::load(P + b) : b;
  }
  link_roots(P, a, b);
}

/* The same, the parents not loaded yet. */
template <class Mem>
__device__ __forceinline__ void merge_roots(uint32_t *P, uint32_t a,
                                            uint32_t b)
{
  merge_roots_from<Mem>(P, a, Mem::load(P + a), b, Mem::load(P + b));
}

/* The frame's header {components, blobs, threshold}, and the host's copy
 * of it when `to_host` and the frame has one. */
__device__ __forceinline__ void write_frame_header(const Frame &f,
                                                   const uint32_t (&h)[3],
                                                   bool to_host)
{
  for (int k = 0; k < 3; k++)
    f.header[k] = h[k];
  for (int k = 0; k < 3 && to_host && f.copy.header; k++)
    f.copy.header[k] = h[k];
}

/* Tells the host the frame is done (Frame::Done), once the writes to its
 * memory that this thread made or saw are out. */
__device__ __forceinline__ void raise_done_flag(const Frame &f)
{
  __threadfence_system();
  *(volatile uint32_t *)f.done.flag = 1u;
}

/* Bits 0..b of a word (b in 0..31). */
__device__ __forceinline__ uint32_t bits_through(int b)
{
  return 0xffffffffu >> (31 - b);
}

} /* namespace tile */

#endif /* GPUCCL_TILE_COMMON_CUH */
