// Note [Epoch reclamation] (epoch.h) explains the scheme; this file keeps
// its three shared structures lock-free:
//   g_epoch    the global epoch, advanced by every retirement;
//   g_records  a push-only list of thread records (recycled, never freed);
//   g_retired  a Treiber stack of retired objects. A reclaimer takes the
//              whole stack with one exchange, frees what is safe and pushes
//              the rest back, so reclaimers never share nodes and no lock
//              is needed anywhere.
#include "api/src/epoch.h"

#include <algorithm>
#include <limits>

namespace sy::capi {

struct ThreadRecord {
  std::atomic<uint64_t> epoch{0};   // 0: not pinned
  std::atomic<bool> in_use{false};  // owned by a live thread
  ThreadRecord* next = nullptr;     // fixed before the record is published
  // The owning thread's alone:
  uint32_t depth = 0;    // nesting of EpochScopes
  bool reclaim = false;  // reclaim when the outermost scope ends
};

namespace {

std::atomic<uint64_t> g_epoch{1};
std::atomic<ThreadRecord*> g_records{nullptr};
std::atomic<Retirable*> g_retired{nullptr};
std::atomic<int64_t> g_pending{0};

thread_local ThreadRecord* tls_record = nullptr;

// Gives the thread's record back when the thread exits. A separate
// thread_local so that the hot path reads only the trivial pointer above.
struct RecordOwner {
  ~RecordOwner() {
    if (tls_record == nullptr) return;
    tls_record->epoch.store(0, std::memory_order_release);
    tls_record->depth = 0;
    tls_record->reclaim = false;
    tls_record->in_use.store(false, std::memory_order_release);
    tls_record = nullptr;
  }
};

ThreadRecord* AcquireRecord() {
  static thread_local RecordOwner owner;  // registers the exit hook
  (void)owner;
  ThreadRecord* record = nullptr;
  for (ThreadRecord* r = g_records.load(std::memory_order_acquire); r != nullptr;
       r = r->next) {
    bool expected = false;
    if (!r->in_use.load(std::memory_order_relaxed) &&
        r->in_use.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      record = r;
      break;
    }
  }
  if (record == nullptr) {
    record = new ThreadRecord;  // once per thread the process ever runs at once
    record->in_use.store(true, std::memory_order_relaxed);
    ThreadRecord* head = g_records.load(std::memory_order_relaxed);
    do {
      record->next = head;
    } while (!g_records.compare_exchange_weak(head, record, std::memory_order_release,
                                              std::memory_order_relaxed));
  }
  tls_record = record;
  return record;
}

// Pushes a chain (first … the node whose link is *last_next) onto the
// retired stack.
void PushRetired(Retirable* first, Retirable** last_next) {
  Retirable* head = g_retired.load(std::memory_order_relaxed);
  do {
    *last_next = head;
  } while (!g_retired.compare_exchange_weak(head, first, std::memory_order_release,
                                            std::memory_order_relaxed));
}

}  // namespace

EpochScope::EpochScope() {
  record_ = tls_record != nullptr ? tls_record : AcquireRecord();
  if (record_->depth++ == 0) {
    // The exchange is the full barrier between publishing the epoch and
    // the slot reads that follow (Note [Epoch reclamation]).
    record_->epoch.exchange(g_epoch.load(std::memory_order_seq_cst),
                            std::memory_order_seq_cst);
  }
}

EpochScope::~EpochScope() {
  if (--record_->depth != 0) return;
  record_->epoch.store(0, std::memory_order_release);
  if (record_->reclaim) {
    record_->reclaim = false;
    Epochs::Reclaim();
  }
}

void Epochs::Retire(Retirable* object) {
  object->retired_at_ = g_epoch.fetch_add(1, std::memory_order_seq_cst);
  g_pending.fetch_add(1, std::memory_order_relaxed);
  PushRetired(object, &object->next_retired_);
  ThreadRecord* record = tls_record;
  if (record != nullptr && record->depth > 0) {
    record->reclaim = true;
  } else {
    Reclaim();
  }
}

void Epochs::AllowReclaim() {
  ThreadRecord* record = tls_record;
  if (record != nullptr && record->depth > 0 &&
      g_retired.load(std::memory_order_relaxed) != nullptr) {
    record->reclaim = true;
  }
}

void Epochs::Reclaim() {
  Retirable* list = g_retired.exchange(nullptr, std::memory_order_acquire);
  if (list == nullptr) return;
  uint64_t oldest = std::numeric_limits<uint64_t>::max();
  for (ThreadRecord* r = g_records.load(std::memory_order_acquire); r != nullptr;
       r = r->next) {
    const uint64_t e = r->epoch.load(std::memory_order_seq_cst);
    if (e != 0) oldest = std::min(oldest, e);
  }
  Retirable* keep_first = nullptr;
  Retirable* keep_last = nullptr;
  Retirable* doomed = nullptr;
  while (list != nullptr) {
    Retirable* next = list->next_retired_;
    if (list->retired_at_ < oldest) {
      list->next_retired_ = doomed;
      doomed = list;
    } else {
      list->next_retired_ = nullptr;
      if (keep_last == nullptr) {
        keep_first = keep_last = list;
      } else {
        keep_last->next_retired_ = list;
        keep_last = list;
      }
    }
    list = next;
  }
  if (keep_first != nullptr) {
    PushRetired(keep_first, &keep_last->next_retired_);
  }
  // The stack is newest first and `doomed` was built by prepending, so it
  // is oldest first: objects go in the order they were retired (tensors
  // released before their context was destroyed go before it).
  while (doomed != nullptr) {
    Retirable* next = doomed->next_retired_;
    delete doomed;
    g_pending.fetch_sub(1, std::memory_order_relaxed);
    doomed = next;
  }
}

int64_t Epochs::PendingForTesting() {
  return g_pending.load(std::memory_order_relaxed);
}

}  // namespace sy::capi
