// A caching allocator over one device's raw allocate/deallocate.
//
// Device allocations (cudaMalloc and friends) are slow and synchronizing, so
// freed blocks stay cached and are reused for later requests of similar size.
// Sizes round up to 512 bytes below 1 MiB and to 2 MiB above; a cached block
// is reused for a request when it is at least as large and at most twice as
// large. Blocks are never split. When the device runs out of memory the
// cache — every thread's included — is emptied and the allocation retried
// once.
//
// Small blocks (64 KiB and below) freed by a thread first go to that
// thread's own cache (bounded: kThreadCache*) and are handed back to the
// same thread without the allocator's mutex (Note [Thread block caches]);
// FlushThreadCaches, the thread's exit and evicting its cache return them
// to the shared cache, EmptyCache and running out of memory to the device.
// The stats count a block in a thread's cache as reserved, not allocated,
// exactly as one in the shared cache.
//
// Stream safety: all work of a device runs on its one stream in v1, so a
// block freed after being used by queued work can be handed out again at
// once — by any thread: the next user's work is queued behind the old
// user's on that stream.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_
#define SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sy::core {

struct AllocatorStats {
  uint64_t allocated_bytes = 0;       // in blocks handed out now
  uint64_t reserved_bytes = 0;        // obtained from the device, cached or not
  uint64_t peak_allocated_bytes = 0;
  uint64_t num_allocations = 0;       // Allocate calls that succeeded
  uint64_t cache_hits = 0;            // served from a cache (shared or a thread's)
  uint64_t device_allocations = 0;    // raw allocations made
  uint64_t device_frees = 0;          // raw frees made
  // Of reserved_bytes, in threads' caches now (Note [Thread block caches]).
  uint64_t thread_cached_bytes = 0;
};

struct MemoryBlock {
  void* ptr = nullptr;
  size_t size = 0;  // rounded size obtained from the device
};

class CachingAllocator {
 public:
  using RawAllocate = std::function<absl::StatusOr<void*>(size_t size)>;
  using RawFree = std::function<absl::Status(void* ptr)>;

  // The largest block a thread's cache keeps, how many of one size, and
  // how many bytes in all (per thread and allocator).
  static constexpr size_t kThreadCacheMaxBlock = size_t{64} << 10;
  static constexpr int kThreadCacheDepth = 4;
  static constexpr size_t kThreadCacheMaxBytes = size_t{1} << 20;

  // `label` names the device in messages ("cpu:0").
  CachingAllocator(std::string label, RawAllocate allocate, RawFree free);
  // Returns every cached block, threads' caches included, to the device.
  // Blocks still handed out are the owners' responsibility (Storage frees
  // them before this runs). Threads may outlive the allocator: their
  // caches for it are emptied here, and forgotten at their exit.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `size` bytes (size 0 gets a minimal block, so every
  // tensor has a distinct address). ResourceExhausted naming the device and
  // the size when the device has no memory even after emptying the cache.
  // Thread-safe.
  absl::StatusOr<MemoryBlock> Allocate(size_t size);

  // Returns a block from Allocate — allocated on any thread — to the
  // calling thread's cache or the shared one. Thread-safe.
  void Free(MemoryBlock block);

  // Gives every cached block, every thread's cache included, back to the
  // device. Thread-safe.
  absl::Status EmptyCache();

  // Moves the blocks in every thread's cache to the shared cache (where any
  // thread's request may take them), returning nothing to the device.
  // Thread-safe.
  void FlushThreadCaches();

  // A snapshot, exact while no Allocate or Free runs beside it.
  // Thread-safe.
  AllocatorStats stats() const;

  static size_t RoundSize(size_t size);

 private:
  struct ThreadCache;  // Note [Thread block caches]
  friend struct ThreadCacheAccess;

  // This thread's cache for this allocator; null when the thread has
  // caches for too many allocators already.
  ThreadCache* ThisThreadCache();
  ThreadCache* AttachThreadCache();
  // Moves `cache`'s blocks into cached_ (mu_ held).
  void DrainLocked(ThreadCache& cache);
  // At the thread's exit: drains `cache`, keeps its counts, forgets it.
  void DetachThreadCache(ThreadCache& cache);
  absl::Status EmptyCacheLocked();
  // Adds `size` to the allocated bytes and the peak; the new total.
  uint64_t CountAllocated(size_t size);

  const uint64_t serial_;  // process-wide, never reused: keys thread caches
  std::string label_;
  RawAllocate raw_allocate_;
  RawFree raw_free_;
  mutable std::mutex mu_;
  std::multimap<size_t, void*> cached_;  // size → ptr
  AllocatorStats stats_;  // all but allocated and peak, which are:
  std::atomic<uint64_t> allocated_bytes_{0};
  std::atomic<uint64_t> peak_allocated_bytes_{0};
  // Guarded by mu_; attaching and detaching also hold the registry lock.
  std::vector<ThreadCache*> thread_caches_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_
