#include "dispatcher/base/call_tracker.h"

#include <thread>

namespace sy::core {

int CallTracker::ShardIndex() {
  static std::atomic<int> next{0};
  thread_local const int index =
      next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return index;
}

void CallTracker::WaitForQuiescence() const {
  // The shards are read one by one, so a call may start on an already-read
  // shard meanwhile; it then sees the republished tables (it incremented
  // its counter with seq_cst before loading them), which is all that
  // matters.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (const Shard& shard : shards_) {
    while (shard.count.load(std::memory_order_acquire) != 0) {
      std::this_thread::yield();
    }
  }
}

}  // namespace sy::core
