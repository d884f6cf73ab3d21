// Counts op calls in flight so that a plugin can be unloaded safely: after
// its kernels are withdrawn from the dispatch tables, unload waits until
// every call that might have read an old table has returned.
//
// Counters are sharded over cache lines and each thread sticks to one shard,
// so concurrent calls do not contend on one atomic.
#ifndef SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_
#define SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_

#include <atomic>
#include <cstdint>

namespace sy::core {

class CallTracker {
 public:
  // RAII: counts one call for its lifetime.
  class Scope {
   public:
    explicit Scope(CallTracker& tracker)
        : counter_(tracker.shards_[ShardIndex()].count) {
      counter_.fetch_add(1, std::memory_order_seq_cst);
    }
    ~Scope() { counter_.fetch_sub(1, std::memory_order_release); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    std::atomic<int64_t>& counter_;
  };

  // Returns once every call that started before this one has finished.
  void WaitForQuiescence() const;

 private:
  static constexpr int kShards = 32;
  static int ShardIndex();

  struct alignas(64) Shard {
    std::atomic<int64_t> count{0};
  };
  Shard shards_[kShards];
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_
