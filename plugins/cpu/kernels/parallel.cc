#include "kernels/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace sy::cpu {
namespace {


int ReadNumThreads() {
#if defined(__GLIBC__)
  const char* value = secure_getenv("SWITCHYARD_NUM_THREADS");
#else
  const char* value = std::getenv("SWITCHYARD_NUM_THREADS");
#endif
  if (value != nullptr && *value != '\0') {
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    // Out of range or not a number: fall back to the hardware, silently
    // (kernels have no host context to log through; the value is visible in
    // `switchyard info` as the device's compute units).
    if (*end == '\0' && n >= 1 && n <= 1024) return static_cast<int>(n);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max(1, CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// One parallel region at a time; threads that find the pool busy run
// inline (see the header).
class ThreadPool {
 public:
  // A function-local static, destroyed when the library closes (a heap
  // object left behind by an unloaded library would be a leak).
  static ThreadPool& Get() {
    static ThreadPool pool;
    return pool;
  }

  // The plugin's unload has joined the workers already; this covers a
  // process that exits with the plugin still loaded.
  ~ThreadPool() { Stop(); }

  // Returns false, doing nothing, when a region holds the pool — another
  // thread's, or the caller's own when this is a nested call from a body.
  bool TryRun(int64_t n, int64_t chunk, internal::ChunkFn fn,
              const void* body) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    const int64_t chunks = (n + chunk - 1) / chunk;
    {
      std::lock_guard lock(mutex_);
      StartWorkersLocked(static_cast<int>(std::min<int64_t>(
          chunks - 1, NumThreads() - 1)));
      job_ = {fn, body, n, chunk, chunks};
      next_.store(0, std::memory_order_relaxed);
      pending_ = chunks;
      ++generation_;
    }
    wake_.notify_all();
    const int64_t finished = RunChunks(job_);
    std::unique_lock lock(mutex_);
    pending_ -= finished;
    // Workers that joined this region must have left it before the next
    // region may reset the chunk counter under them.
    done_.wait(lock, [&] { return pending_ == 0 && active_ == 0; });
    job_ = {};
    busy_.store(false, std::memory_order_release);
    return true;
  }

  void Stop() {
    std::vector<std::thread> workers;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      workers.swap(workers_);
    }
    wake_.notify_all();
    for (std::thread& worker : workers) worker.join();
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }

 private:
  struct Job {
    internal::ChunkFn fn = nullptr;
    const void* body = nullptr;
    int64_t n = 0, chunk = 0, chunks = 0;
  };

  void StartWorkersLocked(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      workers_.emplace_back([this, seen = generation_] { WorkerLoop(seen); });
    }
  }

  // Takes chunks of `job` until none is left; returns how many it ran.
  int64_t RunChunks(const Job& job) {
    int64_t finished = 0;
    for (int64_t c; (c = next_.fetch_add(1, std::memory_order_relaxed)) <
                    job.chunks;) {
      const int64_t begin = c * job.chunk;
      job.fn(job.body, begin, std::min(job.n, begin + job.chunk));
      ++finished;
    }
    return finished;
  }

  void WorkerLoop(uint64_t seen) {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (pending_ == 0) continue;  // woke after the region ended
      const Job job = job_;
      ++active_;
      lock.unlock();
      const int64_t finished = RunChunks(job);
      lock.lock();
      --active_;
      pending_ -= finished;
      if (pending_ == 0 && active_ == 0) done_.notify_all();
    }
  }

  // Set while a region runs. A flag rather than thread_local state or a
  // mutex: a nested call from the owner must see "busy" without locking a
  // mutex it holds, and dynamic TLS in a dlopen'd plugin trips
  // LeakSanitizer's thread scan after the plugin is closed.
  std::atomic<bool> busy_{false};
  std::mutex mutex_;         // guards everything below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Job job_;
  std::atomic<int64_t> next_{0};
  int64_t pending_ = 0;  // chunks not yet finished
  int active_ = 0;       // workers inside RunChunks
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

}  // namespace

std::atomic<int> g_threads_override{0};

int NumThreads() {
  static const int threads = ReadNumThreads();
  const int override = g_threads_override.load(std::memory_order_relaxed);
  return override > 0 ? override : threads;
}

void SetNumThreads(int threads) {
  g_threads_override.store(std::clamp(threads, 0, 1024),
                           std::memory_order_relaxed);
}

void StopThreadPool() { ThreadPool::Get().Stop(); }

namespace internal {

void RunParallel(int64_t n, int64_t chunk, ChunkFn fn, const void* body) {
  if (!ThreadPool::Get().TryRun(n, chunk, fn, body)) {
    fn(body, 0, n);
  }
}

}  // namespace internal
}  // namespace sy::cpu
