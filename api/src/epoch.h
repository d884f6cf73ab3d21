// Epoch-based reclamation for the C API's handle table (handle_table.h).
//
// Note [Epoch reclamation]: the objects behind C handles (a tensor handle's
// Tensor, a context's ContextState) are read by calls on any thread without
// a lock, so one thread may still be reading an object when another thread
// releases its handle or destroys its context. Such an object is not freed
// at once but *retired*, and freed only when no thread can still hold it:
//
//   - Every C API entry point pins the calling thread (EpochScope) for its
//     whole body: it publishes the global epoch it saw in its thread record
//     (one atomic exchange), and clears it on the way out (one store).
//     Pinning nests, so a callback that calls back into the API is fine.
//   - Retiring first makes the object unreachable (its slot's state changes),
//     then stamps it with the current global epoch R and advances the epoch.
//     A thread that pins after that sees an epoch > R and can no longer find
//     the object; a thread pinned at an epoch <= R may still hold it.
//   - Reclaim frees every retired object whose stamp is below the smallest
//     epoch any thread has pinned (or all of them when none is pinned).
//
// All four steps use sequentially consistent atomics, so either a reader
// sees the slot change (and never gets the object) or the reclaimer sees the
// reader's pin (and keeps the object); ThreadSanitizer follows the same
// happens-before edges (there are no bare fences).
//
// Who reclaims, and when: the thread that retired something, when its
// outermost EpochScope ends (after it unpinned itself) — so in a program
// whose other threads are not inside Switchyard at that moment, a released
// tensor's memory goes back to its device before sy_tensor_release returns,
// as it always did. What could not be freed then (another thread was inside
// a call) waits on a global list until the next entry point that creates or
// releases a handle finishes, on any thread. Paths that only read handles
// (sy_op_call_out, getters, explain) never reclaim, so they take no lock and
// free nothing.
//
// Thread records are allocated once per thread that ever calls the API and
// recycled when it exits; the list never shrinks (bounded by the largest
// number of threads that used the API at once).
#ifndef SWITCHYARD_API_SRC_EPOCH_H_
#define SWITCHYARD_API_SRC_EPOCH_H_

#include <atomic>
#include <cstdint>

namespace sy::capi {

// Something the handle table frees late. Owned by the epoch machinery from
// Retire on.
class Retirable {
 public:
  virtual ~Retirable() = default;

 private:
  friend class Epochs;
  uint64_t retired_at_ = 0;
  Retirable* next_retired_ = nullptr;
};

struct ThreadRecord;

// Pins the calling thread for its lifetime (see the Note). Cheap: one
// thread-local load and one atomic exchange in, one store out.
class EpochScope {
 public:
  EpochScope();
  ~EpochScope();
  EpochScope(const EpochScope&) = delete;
  EpochScope& operator=(const EpochScope&) = delete;

 private:
  ThreadRecord* record_;
};

class Epochs {
 public:
  // Hands `object`, already unreachable through any handle, to the
  // reclaimer. The calling thread must be pinned; its outermost EpochScope
  // tries to free it on exit.
  static void Retire(Retirable* object);

  // Marks the calling thread's current call as one that may reclaim when it
  // ends (entry points that create handles), so that objects other threads
  // could not free yet are not held indefinitely.
  static void AllowReclaim();

  // Frees every retired object no pinned thread can hold. Lock-free;
  // concurrent reclaimers split the work. Objects the calling thread itself
  // may hold (it is pinned) are kept.
  static void Reclaim();

  // Objects retired and not yet freed (for tests).
  static int64_t PendingForTesting();
};

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_EPOCH_H_
