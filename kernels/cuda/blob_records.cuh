/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The blob records agent (blob_records.cu), apart from its kernel so that
 * a profile can mark its phases (bench/tile_bench.cu). */
#ifndef GPUCCL_BLOB_RECORDS_CUH
#define GPUCCL_BLOB_RECORDS_CUH

#include <cub/block/block_scan.cuh>

#include "tile_labeling.cuh" /* NoMarks */
#include "tile_samples.cuh" /* threshold_of */
#include "tiled_kernels.h"

namespace tile {

namespace records {

typedef LibraryShape S;
constexpr int THREADS = S::THREADS;
constexpr int MAX_TILES_X = (GPUCCL_MAX_SIDE + S::W - 1) / S::W;
typedef cub::BlockScan<unsigned long long, THREADS> CellScan;
static_assert(THREADS == S::H * S::WORDS, "a thread per bitmap word");
static_assert(THREADS >= 32 + S::H, "a warp looks back, a row per thread");
static_assert(S::W / 2 < (1 << 16), "open roots per cell in 16 bits");

/* A band's status word: a flag and its counts, components | blobs << 31
 * (each under 2^31: at most 2^27 pixels). */
constexpr unsigned long long BAND_AGGREGATE = 1ull << 62;
constexpr unsigned long long BAND_PREFIX = 2ull << 62;
constexpr unsigned long long COUNTS = (1ull << 62) - 1;

/* Frame::done's tickets when every record of the host's copy and its
 * header are written: above any count of records the copy holds. */
constexpr uint32_t DONE_TICKETS = 1u << 30;

__device__ __forceinline__ unsigned long long to_status(unsigned long long c)
{
  return (c & 0xffffffffu) | (c >> 32) << 31;
}
__device__ __forceinline__ unsigned long long from_status(unsigned long long s)
{
  return (s & 0x7fffffffu) | (s >> 31 & 0x7fffffffu) << 32;
}

/* `before`: the components (low half) and blobs (high half) before the
 * blob's first pixel (x, y). The record goes to the table and, among the
 * first copy.n, to the host's copy too: then true. */
__device__ __forceinline__ bool write_blob(GpucclBlob *blobs,
                                           const Frame::HostCopy &copy,
                                           unsigned long long before,
                                           uint32_t y, uint32_t area,
                                           unsigned long long sum_x,
                                           unsigned long long sum_y,
                                           uint32_t x0, uint32_t x1,
                                           uint32_t y1)
{
  const uint32_t id = (uint32_t)before + 1, at = (uint32_t)(before >> 32);
  /* Two 16-byte stores: the record is 32 bytes (gpuccl.h). */
  const uint4 a = make_uint4(id, area, x0 | y << 16, x1 | y1 << 16);
  const uint4 b = make_uint4((uint32_t)sum_x, (uint32_t)(sum_x >> 32),
                             (uint32_t)sum_y, (uint32_t)(sum_y >> 32));
  uint4 *dst = reinterpret_cast<uint4 *>(blobs + at);
  dst[0] = a;
  dst[1] = b;
  if (at >= copy.n)
    return false;
  uint4 *host = reinterpret_cast<uint4 *>(copy.blobs + at);
  host[0] = a;
  host[1] = b;
  return true;
}

struct RecordsShared {
  CellScan::TempStorage scan;
  unsigned long long band_before; /* looked back: bands above's counts */
  uint32_t summed; /* the components of the tiles added up */
  uint32_t open_before[MAX_TILES_X + 1]; /* open slots of the band's tiles */
  uint32_t n_mine, mine[S::OPEN_CAP]; /* open roots with first pixel here */
  uint32_t host_records; /* the block's tickets (signal_done) */
  /* The tile's start and pass words and, per row, the bits before each
   * word: a component's place is then two shared loads away. */
  uint32_t bits[2][S::H][S::WORDS];
  uint32_t before[2][S::H][S::WORDS];
};

struct BlobRecords {
  const Frame &f;
  GpucclBlob *blobs;
  RecordsShared &s;
  unsigned long long *cells; /* the band's cells: counts, then offsets */
  /* Open roots per cell, components | blobs << 16 (a cell's row of TILE_W
   * pixels holds at most TILE_W / 2 of each): a 32-bit shared atomic where
   * the cell's 64-bit word would take a compare-and-swap loop. */
  uint32_t *open_counts;
  const int t;
  const uint32_t tile, band, tx;
  uint32_t n_cells;
  size_t cell0; /* the band's first cell in the frame */
  unsigned long long band_before = 0; /* components and blobs above */

  __device__ BlobRecords(const Frame &f_, GpucclBlob *blobs_,
                         RecordsShared &s_, unsigned long long *cells_)
      : f(f_), blobs(blobs_), s(s_), cells(cells_),
        open_counts(reinterpret_cast<uint32_t *>(cells_ + S::H * f_.tiles_x)),
        t((int)threadIdx.x), tile(blockIdx.x), band(tile / f_.tiles_x),
        tx(tile % f_.tiles_x)
  {
    if (t == 0)
      s.host_records = 0; /* read after a barrier (signal_done) */
    const int rows = min(S::H, f.image.height - (int)band * S::H);
    n_cells = (uint32_t)rows * f.tiles_x;
    cell0 = (size_t)band * S::H * f.tiles_x;
  }

  /* Whether the tile may hold a component's first pixel: a start bit (a
   * closed one's), or an open piece (a component crossing a seam may start
   * in it). When the frame sums tiles, every closed piece is staged, so its
   * counts say; otherwise its start words do. Called by the whole block. */
  __device__ bool holds_first_pixel() const
  {
    if (f.out.n_open[tile] != 0)
      return true;
    if (f.sums_tiles())
      return n_closed != 0;
    return __syncthreads_or(f.out.start[bitmap_word()] != 0);
  }

  /* The thread's word of the tile's start and pass bitmaps. */
  __device__ size_t bitmap_word() const
  {
    const int y = t / S::WORDS, k = t % S::WORDS;
    return (size_t)(band * S::H + y) * f.out.start_words + tx * S::WORDS + k;
  }

  /* Whether the tile skips its band's scan: one that holds no first pixel
   * has no record to write and no offset anyone reads. When the frame
   * sums tiles nothing else waits for it; otherwise the band's first tile
   * publishes the band's counts for the look-back, and the last writes the
   * header from its scan. Known before wait_for_previous(). */
  __device__ bool skips() const
  {
    if (!f.sums_tiles() && (tx == 0 || last()))
      return false;
    return !holds_first_pixel();
  }
  __device__ bool last() const
  {
    return tile + 1 == (uint32_t)(f.tiles_x * f.tiles_y);
  }

  /* The band's closed counts, the tile's bitmaps: all written by tile
   * labeling, which has finished before this kernel starts
   * (tiled_kernels.h), so this may run before wait_for_previous(). */
  __device__ void take_tile()
  {
    if (t == 0) {
      s.n_mine = 0;
      s.summed = 0;
    }
    for (uint32_t i = t; i < n_cells; i += THREADS) {
      cells[i] = f.cell_count[cell0 + i];
      open_counts[i] = 0;
    }
    const int y = t / S::WORDS, k = t % S::WORDS;
    const size_t word = bitmap_word();
    s.bits[0][y][k] = f.out.start[word];
    s.bits[1][y][k] = f.out.pass[word];
    if (t < f.tiles_x)
      s.open_before[t + 1] = f.out.n_open[band * f.tiles_x + t];
    __syncthreads();
    if (t == 0) {
      s.open_before[0] = 0;
      for (int i = 1; i <= f.tiles_x; i++)
        s.open_before[i] += s.open_before[i - 1];
    }
    __syncthreads();
  }

  /* The open slot of the band's i-th open piece. */
  __device__ uint32_t open_piece(uint32_t i) const
  {
    int lo = 0, hi = f.tiles_x - 1; /* the last tile with before <= i */
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (s.open_before[mid] <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
    return (band * f.tiles_x + lo) * S::OPEN_CAP + i - s.open_before[lo];
  }

  /* Open components: their counts into the band's cells; those whose
   * first pixel is in this tile into its bitmaps and its list. A thread
   * reads OPEN_BATCH pieces at a time: their round trips overlap. */
  static constexpr int OPEN_BATCH = 4;
  __device__ void add_open_roots()
  {
    const OpenPieces &o = f.out.open;
    const uint32_t n = s.open_before[f.tiles_x];
    const bool areas = !f.filter.passes_all();
    for (uint32_t i0 = t; i0 < n; i0 += OPEN_BATCH * THREADS) {
      uint32_t p[OPEN_BATCH], parent[OPEN_BATCH], key[OPEN_BATCH],
          area[OPEN_BATCH];
#pragma unroll
      for (int k = 0; k < OPEN_BATCH; k++) {
        const uint32_t i = i0 + k * THREADS;
        p[k] = i < n ? open_piece(i) : NONE;
        parent[k] = p[k] != NONE ? o.parent[p[k]] : 0u;
        key[k] = p[k] != NONE ? o.key[p[k]] : 0u;
        area[k] = p[k] != NONE && areas ? o.area[p[k]] : 0u;
      }
#pragma unroll
      for (int k = 0; k < OPEN_BATCH; k++)
        if (parent[k] == p[k]) /* a root */
          add_open_root(p[k], key[k], f.filter.passes(area[k]));
    }
    __syncthreads();
  }

  /* Open root p, first pixel `key`: its counts, and where its first pixel
   * is in this tile, its bits and its place in the list. */
  __device__ void add_open_root(uint32_t p, uint32_t key, bool passes)
  {
    const uint32_t w = (uint32_t)f.image.width;
    const uint32_t x = key % w, y = key / w - band * S::H;
    atomicAdd(open_counts + y * f.tiles_x + x / S::W,
              1u | (uint32_t)passes << 16);
    if (x / S::W != tx)
      return;
    const uint32_t bit = 1u << (x & 31), k = x % S::W / 32;
    atomicOr(&s.bits[0][y][k], bit);
    if (passes)
      atomicOr(&s.bits[1][y][k], bit);
    s.mine[atomicAdd(&s.n_mine, 1u)] = p;
  }

  /* The band's cells become offsets within the band; returns its counts. */
  __device__ unsigned long long scan_cells()
  {
    unsigned long long carry = 0;
    for (uint32_t c0 = 0; c0 < n_cells; c0 += THREADS) {
      const uint32_t i = c0 + t;
      unsigned long long v = 0;
      if (i < n_cells) {
        const uint32_t o = open_counts[i];
        v = cells[i] + (o & 0xffffu) + ((unsigned long long)(o >> 16) << 32);
      }
      unsigned long long before, total;
      CellScan(s.scan).ExclusiveSum(v, before, total);
      if (i < n_cells)
        cells[i] = carry + before;
      carry += total;
      __syncthreads();
    }
    return carry;
  }

  /* The counts of the bands above, one warp: add up the earlier bands' 32
   * at a time back to the nearest one that knows its prefix. Every tile
   * of a band finds the same counts, and each publishes them, the band's
   * counts before and its prefix after: a band's status appears with its
   * fastest tile. atomicMax, because a prefix (the higher flag) is never
   * to be lowered back to counts by a slower tile. */
  __device__ unsigned long long look_back(unsigned long long counts) const
  {
    volatile unsigned long long *status = f.band_status;
    const int lane = t & 31;
    if (lane == 0 && band > 0)
      atomicMax(f.band_status + band, BAND_AGGREGATE | to_status(counts));
    unsigned long long before = 0;
    for (int j0 = (int)band - 1; j0 >= 0; j0 -= 32) {
      const int j = j0 - lane;
      unsigned long long v = BAND_PREFIX; /* before the first band: 0 */
      while (j >= 0 && !((v = status[j]) & ~COUNTS))
        ; /* not published yet: no tile of that band got this far */
      const uint32_t known =
          __ballot_sync(0xffffffffu, (v & BAND_PREFIX) != 0);
      const int nearest = known ? __ffs(known) - 1 : 31;
      unsigned long long add = lane <= nearest ? from_status(v & COUNTS) : 0;
      for (int d = 16; d; d >>= 1)
        add += __shfl_xor_sync(0xffffffffu, add, d);
      before += add;
      if (known)
        break;
    }
    if (lane == 0)
      atomicMax(f.band_status + band, BAND_PREFIX | to_status(before + counts));
    return before;
  }

  /* The components of the first n tiles when the frame sums tiles
   * (Frame::sums_tiles), into s.summed: every thread adds up some. */
  __device__ void add_tiles_before(uint32_t n) const
  {
    uint32_t above = 0;
    for (uint32_t j = t; j < n; j += THREADS)
      above += __ldcg(f.out.n_closed + j) + __ldcg(f.out.n_open_roots + j);
    for (int d = 16; d; d >>= 1)
      above += __shfl_xor_sync(0xffffffffu, above, d);
    if ((t & 31) == 0 && above)
      atomicAdd(&s.summed, above);
  }

  /* The counts of the bands above (each tile finds them itself: no wait
   * for another tile of its band), then the tile's offsets. */
  __device__ void band_prefix(unsigned long long counts)
  {
    const bool sums = f.sums_tiles();
    if (sums) {
      add_tiles_before(band * f.tiles_x);
    } else if (t < 32) {
      const unsigned long long before = look_back(counts);
      if (t == 0)
        s.band_before = before;
    }
    if (t >= 32 && t < 32 + S::H) {
      /* Bits before each word of a row, for the places below: the second
       * warp, while the first one looks back. */
      const int y = t - 32;
      uint32_t all = 0, passed = 0;
      for (int k = 0; k < S::WORDS; k++) {
        s.before[0][y][k] = all;
        s.before[1][y][k] = passed;
        all += __popc(s.bits[0][y][k]);
        passed += __popc(s.bits[1][y][k]);
      }
    }
    __syncthreads();
    /* Every component a blob when summed: both halves alike. */
    const unsigned long long summed = s.summed;
    band_before = sums ? summed | summed << 32 : s.band_before;
    if (t < S::H && (uint32_t)t * f.tiles_x < n_cells) {
      const uint32_t c = t * f.tiles_x + tx;
      f.cell_before[cell0 + c] = band_before + cells[c];
    }
    if (s.n_mine) { /* else the bitmaps are as tile labeling wrote them */
      const int y = t / S::WORDS, k = t % S::WORDS;
      const size_t word = bitmap_word();
      f.out.start[word] = s.bits[0][y][k];
      f.out.pass[word] = s.bits[1][y][k];
    }
  }

  /* The frame's header, by the last tile: `total` components and blobs. */
  __device__ void write_header(unsigned long long total)
  {
    if (t != 0)
      return;
    /* No component: the tile stage finished the frame (Frame::Done), the
     * host has its header and may have armed the flag for its next one. */
    const bool finished = f.done.flag && (uint32_t)total == 0;
    if (f.done.flag)
      *f.done.empty_tiles = 0;
    write_frame_header(f,
                       {(uint32_t)total, (uint32_t)(total >> 32),
                        (uint32_t)threshold_of(f.image)},
                       !finished);
    if (finished)
      return;
    /* The records the host's copy holds are in once the tickets reach
     * DONE_TICKETS: the header's share waits for them. */
    const uint32_t copied = min((uint32_t)(total >> 32), f.copy.n);
    header_tickets = DONE_TICKETS - copied;
  }

  /* The header by a last tile that skips: every tile's counts added up. */
  __device__ void write_summed_header()
  {
    if (t == 0)
      s.summed = 0;
    __syncthreads();
    add_tiles_before(tile + 1);
    __syncthreads();
    const unsigned long long summed = s.summed;
    write_header(summed | summed << 32);
  }

  /* The host sees the frame done (Frame::done's flag) once every write to
   * its memory is out of the GPU: each thread fences its own, its block
   * adds them to the frame's tickets, and the header's writer adds
   * DONE_TICKETS less the records the copy holds. The block whose tickets
   * make DONE_TICKETS wrote the last of them: it raises the flag. Blocks
   * that wrote nothing there take no ticket. */
  __device__ void signal_done() const
  {
    if (!f.done.flag)
      return;
    if (host_records || header_tickets) {
      __threadfence_system();
      atomicAdd(&s.host_records, host_records + header_tickets);
    }
    __syncthreads();
    const uint32_t tickets = s.host_records;
    if (t == 0 && tickets &&
        atomicAdd(f.done.tickets, tickets) + tickets == DONE_TICKETS) {
      *f.done.tickets = 0; /* every ticket is in */
      raise_done_flag(f);
    }
  }

  /* Components and blobs before the tile's pixel (lx, ly). */
  __device__ unsigned long long before(uint32_t lx, uint32_t ly) const
  {
    const uint32_t k = lx / 32, below = (1u << (lx & 31)) - 1u;
    return band_before + cells[ly * f.tiles_x + tx] +
           (s.before[0][ly][k] + __popc(s.bits[0][ly][k] & below)) +
           ((unsigned long long)(s.before[1][ly][k] +
                                 __popc(s.bits[1][ly][k] & below))
            << 32);
  }

  /* The first PRELOAD staged records of the thread, loaded before the
   * kernel waits for open merging and the tile for its band's prefix: their
   * latency hides behind both. */
  static constexpr int PRELOAD = 4;
  uint4 pre[PRELOAD];
  uint32_t n_closed = 0;
  /* This thread's records in host memory, and its header there: what
   * signal_done() counts in. */
  uint32_t host_records = 0;
  uint32_t header_tickets = 0;

  __device__ void preload_closed()
  {
    n_closed = f.out.n_closed[tile];
    const uint4 *rec = f.out.closed.rec + (size_t)tile * S::CLOSED_CAP;
#pragma unroll
    for (int k = 0; k < PRELOAD; k++)
      if (t + k * THREADS < n_closed)
        pre[k] = rec[t + k * THREADS];
  }

  /* A staged closed piece, at its place. */
  __device__ __forceinline__ void write_closed(const uint4 &q)
  {
    const uint32_t gx0 = tx * S::W, gy0 = band * S::H;
    const uint32_t px = q.x & 0xffffu, area = q.x >> 16;
    const uint32_t ly = px / S::W, lx = px % S::W;
    host_records += write_blob(blobs, f.copy, before(lx, ly), gy0 + ly, area,
                             q.y + (unsigned long long)area * gx0,
                             q.z + (unsigned long long)area * gy0,
                             gx0 + (q.w & 0xff), gx0 + ((q.w >> 8) & 0xff),
                             gy0 + (q.w >> 16));
  }

  /* The tile's staged closed pieces and its open roots, each at its place. */
  __device__ void write_records()
  {
    const uint32_t gx0 = tx * S::W, gy0 = band * S::H;
#pragma unroll
    for (int k = 0; k < PRELOAD; k++)
      if (t + k * THREADS < n_closed)
        write_closed(pre[k]);
    const uint4 *rec = f.out.closed.rec + (size_t)tile * S::CLOSED_CAP;
    for (uint32_t i = t + PRELOAD * THREADS; i < n_closed; i += THREADS)
      write_closed(rec[i]);
    const OpenPieces &o = f.out.open;
    const uint32_t w = (uint32_t)f.image.width;
    for (uint32_t i = t; i < s.n_mine; i += THREADS) {
      const uint32_t p = s.mine[i];
      if (!f.filter.passes(o.area[p]))
        continue;
      const uint32_t x = o.key[p] % w, y = o.key[p] / w;
      host_records += write_blob(blobs, f.copy, before(x - gx0, y - gy0), y,
                               o.area[p], o.sum_x[p], o.sum_y[p], o.x0[p],
                               o.x1[p], o.y1[p]);
    }
  }
};

/* A block's work, one method per phase; Marks::at(k) after phase k. */
template <class Marks = NoMarks>
__device__ __forceinline__ void blob_records(const Frame &f, GpucclBlob *blobs)
{
  __shared__ RecordsShared s;
  extern __shared__ unsigned long long cells[];
  BlobRecords r(f, blobs, s, cells);
  /* What tile labeling wrote is read while open merging still runs. */
  r.preload_closed();
  const bool skips = r.skips(); /* sparse frames: most tiles */
  if (!skips)
    r.take_tile();
  /* Even a tile that skips waits: each kernel allows the next only after
   * its wait (tiled_kernels.h). */
  wait_for_previous();
  allow_next();
  if (skips) {
    for (int k = 1; k <= 5; k++)
      Marks::at(k);
    /* Only the last wrote anything the host's copy holds: the header. */
    if (r.last()) {
      r.write_summed_header();
      r.signal_done();
    }
    return;
  }
  Marks::at(1);
  r.add_open_roots();
  Marks::at(2);
  const unsigned long long counts = r.scan_cells();
  Marks::at(3);
  r.band_prefix(counts);
  Marks::at(4);
  r.write_records();
  if (r.last())
    r.write_header(r.band_before + counts);
  Marks::at(5);
  r.signal_done();
}

/* Shared memory the kernel needs besides RecordsShared: the band's cells
 * and their open roots. */
inline size_t records_dynamic_smem(const Frame &f)
{
  return (size_t)S::H * f.tiles_x *
         (sizeof(unsigned long long) + sizeof(uint32_t));
}

} /* namespace records */

} /* namespace tile */

#endif /* GPUCCL_BLOB_RECORDS_CUH */
