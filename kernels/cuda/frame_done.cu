/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host's wait for a graphed frame: the block of blob records that
 * completes the host's copy of the results raises a flag in pinned memory
 * (tile::Frame::done), and the host polls it. A stream sync wakes the
 * host some microseconds after the GPU is done and waits for the graph's
 * own completion too; the flag is seen as soon as its write crosses the
 * bus. The stream is still asked now and then, so a failed frame reports
 * its error rather than leaving the host spinning, and a long frame
 * falls back to the sync (which honours the application's scheduling
 * flags). */
#include <atomic>
#include <chrono>

#include "cuda_context.h"
#include "cuda_internal.h"

namespace {

/* How often the stream is asked, and when the wait goes to the sync: a
 * sparse frame takes tens of microseconds, and asking takes the driver's
 * lock, which other cameras' threads need for their launches. */
constexpr unsigned POLLS_PER_CLOCK = 32;
constexpr auto QUERY_EVERY = std::chrono::microseconds(50);
constexpr auto SPIN_LIMIT = std::chrono::microseconds(1000);

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

inline bool raised(const uint32_t *flag)
{
  return __atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0;
}

std::atomic<uint64_t> flagged_frames(0), raised_frames(0);

/* The frames of cs whose flag is armed and up, once the wait has returned
 * without seeing them all: their stream is done, so what the device wrote
 * is there (the counts of the tests). */
cudaError_t count_raised(CudaCtx *const *cs, size_t n, cudaError_t err)
{
  size_t up = 0;
  for (size_t i = 0; err == cudaSuccess && i < n; i++)
    up += cs[i] && cs[i]->tf.done.flag && raised(cs[i]->done_h);
  raised_frames.fetch_add(up, std::memory_order_relaxed);
  return err;
}

} // namespace

extern "C" uint64_t gpuccl_cuda_flagged_frames(void)
{
  return flagged_frames.load(std::memory_order_relaxed);
}

extern "C" uint64_t gpuccl_cuda_raised_frames(void)
{
  return raised_frames.load(std::memory_order_relaxed);
}

void frame_done_arm(CudaCtx *c, bool raises)
{
  c->tf.done.flag = raises ? c->done_h : nullptr;
  if (raises)
    __atomic_store_n(c->done_h, 0u, __ATOMIC_RELEASE);
}

cudaError_t gpuccl_frame_done_wait(CudaCtx *const *cs, size_t n,
                                   cudaStream_t stream)
{
  size_t graphed = 0;
  for (size_t i = 0; i < n; i++) {
    if (cs[i] && !cs[i]->tf.done.flag) /* a batch's others may be armed */
      return count_raised(cs, n, cudaStreamSynchronize(stream));
    graphed += cs[i] != nullptr;
  }
  typedef std::chrono::steady_clock Clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point asked = start;
  size_t i = 0;
  for (unsigned polls = 1;; polls++) {
    while (i < n && (!cs[i] || raised(cs[i]->done_h)))
      i++;
    if (i == n) {
      flagged_frames.fetch_add(graphed, std::memory_order_relaxed);
      raised_frames.fetch_add(graphed, std::memory_order_relaxed);
      return cudaSuccess;
    }
    if (polls % POLLS_PER_CLOCK == 0) {
      const Clock::time_point now = Clock::now();
      if (now - start > SPIN_LIMIT)
        return count_raised(cs, n, cudaStreamSynchronize(stream));
      if (now - asked > QUERY_EVERY) {
        const cudaError_t err = cudaStreamQuery(stream);
        if (err != cudaErrorNotReady) /* done, or failed */
          return count_raised(cs, n, err);
        asked = now;
      }
    }
    cpu_relax();
  }
}
