#include "dispatcher/memory/caching_allocator.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dispatcher/base/log.h"
#include "dispatcher/trace/trace.h"

// Note [Thread block caches]
// A small op called in a loop allocates its output and frees it a moment
// later, and the shared cache made that cost a mutex and a std::multimap
// node (a heap allocation, a tree rebalance) both ways — ~600 of the
// ~2,500 instructions of a one-element `Call`. So each thread keeps, per
// allocator, a small cache of its own in front of the shared one:
//
// - What it holds: blocks of kThreadCacheMaxBlock (64 KiB) and below, as
//   freed, in exact size classes (every such block is a multiple of 512
//   bytes), at most kThreadCacheDepth of one size and kThreadCacheMaxBytes
//   in all. A request is served from the class of its rounded size or,
//   failing that, the smallest class up to twice that size (the shared
//   cache's rule), else by the shared cache as before; a free goes to the
//   thread's class if it has room, else to the shared cache. A block may be freed on another
//   thread than the one that allocated it; it then serves that thread.
// - Locking: each thread cache has a spin lock that only its thread takes
//   on the hot path (uncontended: one atomic exchange), and that the
//   allocator takes, under its mutex, to drain the cache or read its
//   counts. Lock order: the registry lock (process-wide; attaching or
//   detaching a thread cache, destroying an allocator) → the allocator's
//   mutex → a thread cache's lock. The hot path takes only the last.
// - Lifetime: a thread finds its caches in a trivially destructible
//   thread_local table keyed by the allocator's serial (process-wide, never
//   reused, so a new allocator at a dead one's address never matches). The
//   thread owns its caches; its exit — or the eviction of an entry when it
//   uses more allocators than the table holds — returns the blocks to the
//   allocator's shared cache and forgets the cache there, under the
//   registry lock. An allocator destroyed first drains its threads' caches,
//   frees the blocks to the device and marks the caches ownerless, also
//   under the registry lock; the threads then only delete them. A free
//   during the thread's exit, after its caches went, takes the shared path.
// - Stats: allocated and peak bytes are atomics, counted on both paths, so
//   they stay exact; a block in a thread's cache is reserved and not
//   allocated, as in the shared cache. A thread cache counts the requests
//   it served (allocations and cache hits); stats() adds them up, and a
//   detached cache leaves its counts to the allocator.
// - Emptying: EmptyCache, FlushThreadCaches and the out-of-memory retry
//   drain every thread's cache first, so no memory parked in a thread is
//   out of reach when the device runs short.
// - Streams: a device's work is ordered on its one stream (v1), so a block
//   may be handed out again at once on any thread, as before.

namespace sy::core {
namespace {

constexpr size_t kSmallRounding = 512;
constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kLargeRounding = size_t{2} << 20;
constexpr size_t kClasses = CachingAllocator::kThreadCacheMaxBlock / kSmallRounding;
constexpr int kThreadSlots = 8;  // allocators one thread caches for at once

size_t RoundUp(size_t size, size_t multiple) {
  return (size + multiple - 1) / multiple * multiple;
}

size_t ClassOf(size_t rounded) { return rounded / kSmallRounding - 1; }

// Guards which thread caches belong to which live allocator. Never
// destroyed: threads exit after static destructors may have run.
std::mutex& RegistryMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}

std::atomic<uint64_t> g_next_serial{1};

}  // namespace

struct CachingAllocator::ThreadCache {
  explicit ThreadCache(CachingAllocator* allocator) : owner(allocator) {}

  void Lock() {
    while (locked.exchange(true, std::memory_order_acquire)) {
      while (locked.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void Unlock() { locked.store(false, std::memory_order_release); }

  std::atomic<bool> locked{false};
  CachingAllocator* owner;  // null once the allocator is gone (registry lock)
  // Guarded by `locked`:
  uint64_t bytes = 0;
  uint64_t served = 0;  // requests served here (allocations and cache hits)
  uint8_t count[kClasses] = {};
  void* blocks[kClasses][kThreadCacheDepth];
};

// One thread's table of caches. Trivially destructible and constant
// initialized, so the hot path reads it without a guard; ThreadExit, armed
// when the first cache is attached, hands the caches back at thread exit.
struct ThreadCacheAccess {
  struct Slots {
    uint64_t serial[kThreadSlots];
    CachingAllocator::ThreadCache* cache[kThreadSlots];
    unsigned next_victim;
    bool exited;  // the thread is past its exit hook: no caches anymore
  };
  struct ThreadExit {
    bool armed = false;
    ~ThreadExit() {
      std::lock_guard<std::mutex> registry(RegistryMutex());
      for (int i = 0; i < kThreadSlots; ++i) Release(i);
      slots.exited = true;
    }
  };

  // Registry lock held: gives slot `i`'s cache back and empties the slot.
  static void Release(int i) {
    CachingAllocator::ThreadCache* cache = slots.cache[i];
    if (cache == nullptr) return;
    if (cache->owner != nullptr) cache->owner->DetachThreadCache(*cache);
    delete cache;
    slots.cache[i] = nullptr;
    slots.serial[i] = 0;
  }

  static thread_local Slots slots;
  static thread_local ThreadExit exit_hook;
};

thread_local ThreadCacheAccess::Slots ThreadCacheAccess::slots{};
thread_local ThreadCacheAccess::ThreadExit ThreadCacheAccess::exit_hook;

CachingAllocator::CachingAllocator(std::string label, RawAllocate allocate,
                                   RawFree free)
    : serial_(g_next_serial.fetch_add(1, std::memory_order_relaxed)),
      label_(std::move(label)),
      raw_allocate_(std::move(allocate)),
      raw_free_(std::move(free)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> registry(RegistryMutex());
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status status = EmptyCacheLocked();  // threads' caches included
  for (ThreadCache* cache : thread_caches_) cache->owner = nullptr;
  thread_caches_.clear();
  if (!status.ok()) Log(LogLevel::kWarning, status.message());
}

size_t CachingAllocator::RoundSize(size_t size) {
  if (size == 0) return kSmallRounding;
  if (size <= kSmallLimit) return RoundUp(size, kSmallRounding);
  return RoundUp(size, kLargeRounding);
}

CachingAllocator::ThreadCache* CachingAllocator::ThisThreadCache() {
  ThreadCacheAccess::Slots& slots = ThreadCacheAccess::slots;
  for (int i = 0; i < kThreadSlots; ++i) {
    if (slots.serial[i] == serial_) return slots.cache[i];
  }
  if (slots.exited) return nullptr;
  return AttachThreadCache();
}

CachingAllocator::ThreadCache* CachingAllocator::AttachThreadCache() {
  ThreadCacheAccess::exit_hook.armed = true;  // constructs it: its destructor runs
  ThreadCacheAccess::Slots& slots = ThreadCacheAccess::slots;
  std::lock_guard<std::mutex> registry(RegistryMutex());
  int slot = -1;
  for (int i = 0; i < kThreadSlots && slot < 0; ++i) {
    if (slots.cache[i] == nullptr) slot = i;
  }
  for (int i = 0; i < kThreadSlots && slot < 0; ++i) {
    if (slots.cache[i]->owner == nullptr) {  // its allocator is gone
      ThreadCacheAccess::Release(i);
      slot = i;
    }
  }
  if (slot < 0) {  // caches for kThreadSlots live allocators: evict one
    slot = static_cast<int>(slots.next_victim++ % kThreadSlots);
    ThreadCacheAccess::Release(slot);
  }
  auto* cache = new ThreadCache(this);
  {
    std::lock_guard<std::mutex> lock(mu_);
    thread_caches_.push_back(cache);
  }
  slots.cache[slot] = cache;
  slots.serial[slot] = serial_;
  return cache;
}

void CachingAllocator::DrainLocked(ThreadCache& cache) {
  cache.Lock();
  for (size_t c = 0; c < kClasses; ++c) {
    for (int i = 0; i < cache.count[c]; ++i) {
      cached_.emplace((c + 1) * kSmallRounding, cache.blocks[c][i]);
    }
    cache.count[c] = 0;
  }
  cache.bytes = 0;
  cache.Unlock();
}

void CachingAllocator::DetachThreadCache(ThreadCache& cache) {
  std::lock_guard<std::mutex> lock(mu_);
  DrainLocked(cache);
  stats_.num_allocations += cache.served;
  stats_.cache_hits += cache.served;
  cache.served = 0;
  thread_caches_.erase(
      std::find(thread_caches_.begin(), thread_caches_.end(), &cache));
}

uint64_t CachingAllocator::CountAllocated(size_t size) {
  const uint64_t now =
      allocated_bytes_.fetch_add(size, std::memory_order_relaxed) + size;
  uint64_t peak = peak_allocated_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_allocated_bytes_.compare_exchange_weak(
                           peak, now, std::memory_order_relaxed)) {
  }
  return now;
}

absl::StatusOr<MemoryBlock> CachingAllocator::Allocate(size_t size) {
  if (size > (size_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "device ", label_, ": cannot allocate ", size,
        " bytes (more than any device has); check the tensor's shape"));
  }
  const size_t rounded = RoundSize(size);
  if (rounded <= kThreadCacheMaxBlock) {
    if (ThreadCache* cache = ThisThreadCache()) {
      // The request's own class first, then — as the shared cache does — a
      // block up to twice its size.
      const size_t want = ClassOf(rounded);
      const size_t last = std::min(ClassOf(2 * rounded), kClasses - 1);
      cache->Lock();
      size_t c = want;
      while (cache->count[c] == 0 && c < last) ++c;
      if (cache->count[c] > 0) {
        const size_t size = (c + 1) * kSmallRounding;
        void* ptr = cache->blocks[c][--cache->count[c]];
        cache->bytes -= size;
        ++cache->served;
        cache->Unlock();
        const uint64_t now = CountAllocated(size);
        if (trace::Enabled()) trace::RecordAllocation(label_, size, now, false);
        return MemoryBlock{ptr, size};
      }
      cache->Unlock();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cached_.lower_bound(rounded);
  if (it != cached_.end() && it->first <= 2 * rounded) {
    MemoryBlock block{it->second, it->first};
    cached_.erase(it);
    ++stats_.cache_hits;
    ++stats_.num_allocations;
    const uint64_t now = CountAllocated(block.size);
    if (trace::Enabled()) trace::RecordAllocation(label_, block.size, now, false);
    return block;
  }
  absl::StatusOr<void*> ptr = raw_allocate_(rounded);
  if (!ptr.ok()) {
    // Out of memory with blocks parked in the caches (the threads' too):
    // give them back, retry.
    for (ThreadCache* cache : thread_caches_) DrainLocked(*cache);
    if (!cached_.empty()) {
      absl::Status emptied = EmptyCacheLocked();
      if (emptied.ok()) ptr = raw_allocate_(rounded);
    }
  }
  if (!ptr.ok()) {
    return absl::Status(ptr.status().code(),
                        absl::StrCat("allocating ", size, " bytes on ", label_,
                                     " failed: ", ptr.status().message()));
  }
  ++stats_.device_allocations;
  ++stats_.num_allocations;
  stats_.reserved_bytes += rounded;
  const uint64_t now = CountAllocated(rounded);
  if (trace::Enabled()) trace::RecordAllocation(label_, rounded, now, true);
  return MemoryBlock{*ptr, rounded};
}

void CachingAllocator::Free(MemoryBlock block) {
  if (block.ptr == nullptr) return;
  const uint64_t now =
      allocated_bytes_.fetch_sub(block.size, std::memory_order_relaxed) - block.size;
  bool kept = false;
  if (block.size <= kThreadCacheMaxBlock) {
    if (ThreadCache* cache = ThisThreadCache()) {
      const size_t c = ClassOf(block.size);
      cache->Lock();
      if (cache->count[c] < kThreadCacheDepth &&
          cache->bytes + block.size <= kThreadCacheMaxBytes) {
        cache->blocks[c][cache->count[c]++] = block.ptr;
        cache->bytes += block.size;
        kept = true;
      }
      cache->Unlock();
    }
  }
  if (!kept) {
    std::lock_guard<std::mutex> lock(mu_);
    cached_.emplace(block.size, block.ptr);
  }
  if (trace::Enabled()) trace::RecordAllocation(label_, block.size, now, false);
}

absl::Status CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  return EmptyCacheLocked();
}

void CachingAllocator::FlushThreadCaches() {
  std::lock_guard<std::mutex> lock(mu_);
  for (ThreadCache* cache : thread_caches_) DrainLocked(*cache);
}

absl::Status CachingAllocator::EmptyCacheLocked() {
  for (ThreadCache* cache : thread_caches_) DrainLocked(*cache);
  absl::Status first_error;
  for (const auto& [size, ptr] : cached_) {
    absl::Status status = raw_free_(ptr);
    if (!status.ok() && first_error.ok()) first_error = status;
    ++stats_.device_frees;
    stats_.reserved_bytes -= size;
  }
  cached_.clear();
  return first_error;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats stats = stats_;
  for (ThreadCache* cache : thread_caches_) {
    cache->Lock();
    stats.num_allocations += cache->served;
    stats.cache_hits += cache->served;
    stats.thread_cached_bytes += cache->bytes;
    cache->Unlock();
  }
  stats.allocated_bytes = allocated_bytes_.load(std::memory_order_relaxed);
  stats.peak_allocated_bytes =
      peak_allocated_bytes_.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace sy::core
