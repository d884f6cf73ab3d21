#include "dispatcher/base/call_tracker.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace sy::core {
namespace {

bool Membarrier(int command) {
  return syscall(__NR_membarrier, command, 0, 0) == 0;
}

}  // namespace

std::atomic<CallTracker::Slot*> CallTracker::slots_{nullptr};

// Hands the thread's slot back when the thread ends. A call made from a
// thread_local destructor that runs after this one claims a slot again and
// keeps it for good (its epoch is even from then on, so no waiter waits
// for it).
struct CallTracker::ThreadExit {
  ~ThreadExit() {
    if (Slot* slot = std::exchange(this_thread_slot_, nullptr)) {
      slot->owned.store(false, std::memory_order_release);
    }
  }
};

CallTracker::CallTracker() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Registration is what lets PRIVATE_EXPEDITED be used later; if either
    // is refused, calls take the full fence instead.
    light_fence_ = Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
                   Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  });
}

CallTracker::Slot& CallTracker::ClaimSlot() {
  Slot* slot = nullptr;
  for (Slot* candidate = slots_.load(std::memory_order_acquire); candidate != nullptr;
       candidate = candidate->next) {
    bool expected = false;
    if (!candidate->owned.load(std::memory_order_relaxed) &&
        candidate->owned.compare_exchange_strong(expected, true,
                                                 std::memory_order_acquire)) {
      slot = candidate;
      break;
    }
  }
  if (slot == nullptr) {
    slot = new Slot;  // lives as long as the process
    slot->owned.store(true, std::memory_order_relaxed);
    Slot* head = slots_.load(std::memory_order_relaxed);
    do {
      slot->next = head;
    } while (!slots_.compare_exchange_weak(head, slot, std::memory_order_release,
                                            std::memory_order_relaxed));
  }
  this_thread_slot_ = slot;
  thread_local ThreadExit exit;  // registered on the thread's first claim
  (void)exit;
  return *slot;
}

void CallTracker::WaitForQuiescence() const {
  // The heavy side of the fence (Note [In-flight slots]): the new tables
  // were published before this; after it, every call either shows in its
  // slot or reads the new tables. Once registered, PRIVATE_EXPEDITED does
  // not fail (membarrier(2)); the constructor has tried it. Should the
  // registration have been lost all the same, it is made again.
  if (light_fence_) {
    if (!Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
      Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
      Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    }
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  std::vector<std::pair<const Slot*, uint64_t>> busy;
  for (const Slot* slot = slots_.load(std::memory_order_acquire); slot != nullptr;
       slot = slot->next) {
    const uint64_t epoch = slot->epoch.load(std::memory_order_acquire);
    if (epoch & 1) busy.emplace_back(slot, epoch);
  }
  for (const auto& [slot, epoch] : busy) {
    while (slot->epoch.load(std::memory_order_acquire) == epoch) {
      std::this_thread::yield();
    }
  }
}

}  // namespace sy::core
