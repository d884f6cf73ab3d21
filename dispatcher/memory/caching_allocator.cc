#include "dispatcher/memory/caching_allocator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dispatcher/base/log.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {
namespace {

constexpr size_t kSmallRounding = 512;
constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kLargeRounding = size_t{2} << 20;

size_t RoundUp(size_t size, size_t multiple) {
  return (size + multiple - 1) / multiple * multiple;
}

}  // namespace

CachingAllocator::CachingAllocator(std::string label, RawAllocate allocate,
                                   RawFree free)
    : label_(std::move(label)),
      raw_allocate_(std::move(allocate)),
      raw_free_(std::move(free)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status status = EmptyCacheLocked();
  if (!status.ok()) Log(LogLevel::kWarning, status.message());
}

size_t CachingAllocator::RoundSize(size_t size) {
  if (size == 0) return kSmallRounding;
  if (size <= kSmallLimit) return RoundUp(size, kSmallRounding);
  return RoundUp(size, kLargeRounding);
}

absl::StatusOr<MemoryBlock> CachingAllocator::Allocate(size_t size) {
  if (size > (size_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "device ", label_, ": cannot allocate ", size,
        " bytes (more than any device has); check the tensor's shape"));
  }
  const size_t rounded = RoundSize(size);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cached_.lower_bound(rounded);
  if (it != cached_.end() && it->first <= 2 * rounded) {
    MemoryBlock block{it->second, it->first};
    cached_.erase(it);
    ++stats_.cache_hits;
    ++stats_.num_allocations;
    stats_.allocated_bytes += block.size;
    stats_.peak_allocated_bytes =
        std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
    if (trace::Enabled()) {
      trace::RecordAllocation(label_, block.size, stats_.allocated_bytes, false);
    }
    return block;
  }
  absl::StatusOr<void*> ptr = raw_allocate_(rounded);
  if (!ptr.ok() && !cached_.empty()) {
    // Out of memory with blocks parked in the cache: give them back, retry.
    absl::Status emptied = EmptyCacheLocked();
    if (emptied.ok()) ptr = raw_allocate_(rounded);
  }
  if (!ptr.ok()) {
    return absl::Status(ptr.status().code(),
                        absl::StrCat("allocating ", size, " bytes on ", label_,
                                     " failed: ", ptr.status().message()));
  }
  ++stats_.device_allocations;
  ++stats_.num_allocations;
  stats_.reserved_bytes += rounded;
  stats_.allocated_bytes += rounded;
  stats_.peak_allocated_bytes =
      std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  if (trace::Enabled()) {
    trace::RecordAllocation(label_, rounded, stats_.allocated_bytes, true);
  }
  return MemoryBlock{*ptr, rounded};
}

void CachingAllocator::Free(MemoryBlock block) {
  if (block.ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.allocated_bytes -= block.size;
  cached_.emplace(block.size, block.ptr);
  if (trace::Enabled()) {
    trace::RecordAllocation(label_, block.size, stats_.allocated_bytes, false);
  }
}

absl::Status CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  return EmptyCacheLocked();
}

absl::Status CachingAllocator::EmptyCacheLocked() {
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
  return stats_;
}

}  // namespace sy::core
