// A caching allocator over one device's raw allocate/deallocate.
//
// Device allocations (cudaMalloc and friends) are slow and synchronizing, so
// freed blocks stay cached and are reused for later requests of similar size.
// Sizes round up to 512 bytes below 1 MiB and to 2 MiB above; a cached block
// is reused for a request when it is at least as large and at most twice as
// large. Blocks are never split. When the device runs out of memory the
// cache is emptied and the allocation retried once.
//
// Stream safety: all work of a device runs on its one stream in v1, so a
// block freed after being used by queued work can be handed out again at
// once; the next user's work is queued behind the old user's.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_
#define SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "absl/status/statusor.h"

namespace sy::core {

struct AllocatorStats {
  uint64_t allocated_bytes = 0;       // in blocks handed out now
  uint64_t reserved_bytes = 0;        // obtained from the device, cached or not
  uint64_t peak_allocated_bytes = 0;
  uint64_t num_allocations = 0;       // Allocate calls that succeeded
  uint64_t cache_hits = 0;            // served from the cache
  uint64_t device_allocations = 0;    // raw allocations made
  uint64_t device_frees = 0;          // raw frees made
};

struct MemoryBlock {
  void* ptr = nullptr;
  size_t size = 0;  // rounded size obtained from the device
};

class CachingAllocator {
 public:
  using RawAllocate = std::function<absl::StatusOr<void*>(size_t size)>;
  using RawFree = std::function<absl::Status(void* ptr)>;

  // `label` names the device in messages ("cpu:0").
  CachingAllocator(std::string label, RawAllocate allocate, RawFree free);
  // Returns every cached block to the device. Blocks still handed out are
  // the owners' responsibility (Storage frees them before this runs).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `size` bytes (size 0 gets a minimal block, so every
  // tensor has a distinct address). ResourceExhausted naming the device and
  // the size when the device has no memory even after emptying the cache.
  // Thread-safe.
  absl::StatusOr<MemoryBlock> Allocate(size_t size);

  // Returns a block from Allocate to the cache. Thread-safe.
  void Free(MemoryBlock block);

  // Gives every cached block back to the device. Thread-safe.
  absl::Status EmptyCache();

  AllocatorStats stats() const;

  static size_t RoundSize(size_t size);

 private:
  absl::Status EmptyCacheLocked();

  std::string label_;
  RawAllocate raw_allocate_;
  RawFree raw_free_;
  mutable std::mutex mu_;
  std::multimap<size_t, void*> cached_;  // size → ptr
  AllocatorStats stats_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_MEMORY_CACHING_ALLOCATOR_H_
