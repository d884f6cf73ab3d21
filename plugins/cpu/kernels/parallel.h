// ParallelFor: the cpu plugin's one way to split an op across threads.
//
// A process-wide pool of worker threads, started on first use and joined
// when the plugin unloads, sized from the CPUs this process may run on
// (sched_getaffinity), or from SWITCHYARD_NUM_THREADS (1 = no workers;
// ignored under setuid). The calling thread always takes part, so a pool of
// N threads has N-1 workers.
//
// Calls from inside a ParallelFor body, or while another thread's ParallelFor
// holds the pool, run inline on the calling thread: parallel regions never
// nest and never wait on each other, so kernels cannot deadlock on the pool.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_PARALLEL_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_PARALLEL_H_

#include <cstdint>
#include <type_traits>
#include <utility>

namespace sy::cpu {

// Below this many elements of work an elementwise op stays on one thread:
// waking workers costs a few microseconds, which 32K simple elements repay.
inline constexpr int64_t kParallelGrain = 32768;

// The number of threads ParallelFor uses (>= 1): SetNumThreads' value, or
// the environment's (read on the first call).
int NumThreads();

// Overrides the number of threads (the plugin option cpu.num_threads); 0
// goes back to the environment's. Process-wide, like the pool: the last
// runtime to load the plugin with the option set decides. Takes effect for
// the next ParallelFor (workers beyond the count stay idle).
void SetNumThreads(int threads);

// Runs body(begin, end) over disjoint, equal-sized chunks that cover [0, n),
// no more of them than n / grain rounded up (so a chunk is longer than
// grain / 2), on up to NumThreads() threads; n <= grain runs inline;
// returns when every chunk is done. Chunks are contiguous and in no
// particular order across threads. `body` must be callable as const and
// must not throw.
template <class Body>
void ParallelFor(int64_t n, int64_t grain, Body&& body);

// Joins the workers; the next ParallelFor starts them again. Called from the
// plugin's unload, so no thread runs plugin code once the library closes.
void StopThreadPool();

namespace internal {

using ChunkFn = void (*)(const void* body, int64_t begin, int64_t end);
void RunParallel(int64_t n, int64_t chunk, ChunkFn fn, const void* body);

}  // namespace internal

template <class Body>
void ParallelFor(int64_t n, int64_t grain, Body&& body) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int threads = NumThreads();
  if (threads == 1 || n <= grain) {
    body(int64_t{0}, n);
    return;
  }
  // At most one chunk per thread, at least `grain` each.
  int64_t chunks = (n + grain - 1) / grain;
  if (chunks > threads) chunks = threads;
  const int64_t chunk = (n + chunks - 1) / chunks;
  using B = std::remove_reference_t<Body>;
  internal::RunParallel(
      n, chunk,
      [](const void* b, int64_t begin, int64_t end) {
        (*static_cast<const B*>(b))(begin, end);
      },
      &body);
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_PARALLEL_H_
