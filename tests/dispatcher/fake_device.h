// A fake device for the caching allocator's tests: raw allocations from
// malloc, up to `capacity` bytes, each recorded in `live`.
#ifndef SWITCHYARD_TESTS_DISPATCHER_FAKE_DEVICE_H_
#define SWITCHYARD_TESTS_DISPATCHER_FAKE_DEVICE_H_

#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "dispatcher/memory/caching_allocator.h"

namespace sy::core {

// A device whose raw calls the allocator makes under its mutex; the lock
// here only keeps the test's own reads of `live` safe.
struct FakeDevice {
  size_t capacity = size_t{64} << 20;
  size_t used = 0;
  std::mutex mu;
  std::map<void*, size_t> live;
  CachingAllocator::RawAllocate Allocate() {
    return [this](size_t size) -> absl::StatusOr<void*> {
      std::lock_guard<std::mutex> lock(mu);
      if (used + size > capacity) return absl::ResourceExhaustedError("device full");
      void* p = std::malloc(size);
      used += size;
      live[p] = size;
      return p;
    };
  }
  CachingAllocator::RawFree Free() {
    return [this](void* p) {
      std::lock_guard<std::mutex> lock(mu);
      used -= live[p];
      live.erase(p);
      std::free(p);
      return absl::OkStatus();
    };
  }
  size_t live_blocks() {
    std::lock_guard<std::mutex> lock(mu);
    return live.size();
  }
};

}  // namespace sy::core

#endif  // SWITCHYARD_TESTS_DISPATCHER_FAKE_DEVICE_H_
