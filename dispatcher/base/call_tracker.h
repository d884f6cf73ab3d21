// Counts op calls in flight so that a plugin can be unloaded safely: after
// its kernels are withdrawn from the dispatch tables, unload waits until
// every call that might have read an old table has returned.
//
// Note [In-flight slots]: every call pays for this, so it must cost next to
// nothing. Each thread owns one slot (a cache line, process-wide, reused
// after the thread ends) that only it writes: an epoch, odd while the thread
// is inside a call. Entering the outermost call is a plain store of the next
// (odd) epoch; leaving is a plain release store of the next (even) one — no
// read-modify-write, no lock prefix, no line shared with another thread.
//
// The store on entry must be visible before the call loads the dispatch
// tables (a store→load order, which x86 keeps only behind a full fence).
// The fence is made asymmetric, as folly's asymmetric_thread_fence and
// liburcu's membarrier flavour do: the call side has only a compiler
// barrier, and the rare side — WaitForQuiescence, after the new tables are
// published — runs membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
// makes every running thread of the process execute a full barrier. Either
// a call's entry store is seen by the waiter, or the call's later table
// load sees the new tables. Where the kernel refuses membarrier (old
// kernels, seccomp filters), the call side falls back to a full
// fence after its store, which is the symmetric version of the same
// argument; the choice is made once per process and costs one predictable
// branch.
//
// The waiter snapshots every odd epoch and waits for each to change: a call
// that started later sees the new tables, so it is not waited for, and a
// thread that keeps calling cannot starve the waiter. The slots are process
// wide rather than per runtime: an unload also waits for calls of other
// runtimes in flight at that moment, which are as short.
#ifndef SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_
#define SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_

#include <atomic>
#include <cstdint>

namespace sy::core {

class CallTracker {
  struct alignas(64) Slot {
    std::atomic<uint64_t> epoch{0};  // odd: the owner is inside a call
    int depth = 0;                   // nested calls; the owner's alone
    std::atomic<bool> owned{false};
    Slot* next = nullptr;  // the process's slot list (append-only)
  };

 public:
  CallTracker();  // sets up the process's fence once (Note [In-flight slots])
  CallTracker(const CallTracker&) = delete;
  CallTracker& operator=(const CallTracker&) = delete;

  // RAII: counts one call of the calling thread for its lifetime. Nests.
  class Scope {
   public:
    explicit Scope(CallTracker& /*tracker*/) : slot_(ThisThreadSlot()) {
      if (slot_.depth++ == 0) {
        slot_.epoch.store(slot_.epoch.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
        if (light_fence_) {
          std::atomic_signal_fence(std::memory_order_seq_cst);
        } else {
          std::atomic_thread_fence(std::memory_order_seq_cst);
        }
      }
    }
    ~Scope() {
      if (--slot_.depth == 0) {
        slot_.epoch.store(slot_.epoch.load(std::memory_order_relaxed) + 1,
                          std::memory_order_release);
      }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Slot& slot_;
  };

  // Returns once every call (of any thread, any runtime) that was in flight
  // when this was called has returned. Must not be called from inside a
  // call on the same thread (it would wait for itself).
  void WaitForQuiescence() const;

 private:
  static Slot& ThisThreadSlot() {
    Slot* slot = this_thread_slot_;
    return slot != nullptr ? *slot : ClaimSlot();
  }
  static Slot& ClaimSlot();  // on a thread's first call
  struct ThreadExit;          // hands the slot back (call_tracker.cc)

  // Every slot ever made; never freed (a later thread reuses one), so the
  // waiter walks the list without a lock.
  static std::atomic<Slot*> slots_;

  static inline thread_local Slot* this_thread_slot_ = nullptr;
  // Whether membarrier serves as the heavy side; set once, before any call.
  static inline bool light_fence_ = false;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_CALL_TRACKER_H_
