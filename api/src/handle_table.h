// The process-wide table behind every C handle.
//
// Note [Handle tokens]: a C handle is not an address but a 64-bit token
//   bits 63..56  0x5A — marks a Switchyard handle
//   bits 55..52  kind (context, device, op, tensor)
//   bits 51..28  generation of its slot
//   bits 27..0   slot index
// A lookup checks all four under the table's lock before touching anything,
// so NULL, garbage, a handle of the wrong kind, a released tensor or one of
// a destroyed context each get their own error instead of a crash. Freeing
// a slot bumps its generation: an old token for a reused slot is stale. The
// generation wraps after 2^24 reuses of one slot; a token kept that long
// could alias, which is the price of fitting in a pointer.
//
// Lookups copy out what they need (a Tensor, which holds its storage, and
// the context's shared_ptr, which holds the runtime) and drop the lock, so
// a release or a context destruction on another thread never pulls an object
// from under a call in flight.
#ifndef SWITCHYARD_API_SRC_HANDLE_TABLE_H_
#define SWITCHYARD_API_SRC_HANDLE_TABLE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/src/status.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "dispatcher/memory/tensor.h"

namespace sy::capi {

struct ContextState;  // context_state.h
struct DeviceEntry;
struct OpEntry;

enum class HandleKind : uint8_t {
  kFree = 0,
  kContext = 1,
  kDevice = 2,
  kOp = 3,
  kTensor = 4,
};

const char* HandleKindName(HandleKind kind);  // "tensor", …

// What a lookup of a device or op handle gives: the entry (owned by the
// context) and the context, kept alive for the caller's call.
template <typename Entry>
struct EntryRef {
  std::shared_ptr<ContextState> context;
  Entry* entry = nullptr;
};

struct TensorRef {
  std::shared_ptr<ContextState> context;
  Tensor tensor;
};

using TensorVector = absl::InlinedVector<Tensor, 8>;

class HandleTable {
 public:
  // The one table. Never destroyed: handles may be used (and rejected)
  // during static destruction, e.g. by a language runtime shutting down.
  static HandleTable& Instance();

  // New handles. Each fails with FailedPrecondition if the context has been
  // destroyed meanwhile (a call racing with sy_context_destroy).
  absl::StatusOr<uint64_t> AddContext(std::shared_ptr<ContextState> context);
  absl::StatusOr<uint64_t> AddDevice(const std::shared_ptr<ContextState>& context,
                                     DeviceEntry* entry);
  absl::StatusOr<uint64_t> AddOp(const std::shared_ptr<ContextState>& context,
                                 OpEntry* entry);
  // One handle (with one reference) per tensor, all or nothing.
  absl::Status AddTensors(const std::shared_ptr<ContextState>& context,
                          absl::Span<const Tensor> tensors, uint64_t* out_handles);

  // Lookups. `what` names the argument in messages ("tensor",
  // "input #1 ('b')").
  absl::StatusOr<std::shared_ptr<ContextState>> FindContext(
      uint64_t handle, absl::string_view what) const;
  absl::StatusOr<EntryRef<DeviceEntry>> FindDevice(uint64_t handle,
                                                   absl::string_view what) const;
  absl::StatusOr<EntryRef<OpEntry>> FindOp(uint64_t handle,
                                           absl::string_view what) const;
  absl::StatusOr<TensorRef> FindTensor(uint64_t handle,
                                       absl::string_view what) const;

  // Many tensor handles of `context`, under one lock. A 0 handle gives an
  // undefined Tensor. `describe(i)` names handle i in messages.
  absl::Status FindTensors(absl::Span<const uint64_t> handles,
                           const ContextState* context,
                           const std::function<std::string(size_t)>& describe,
                           TensorVector& out) const;

  absl::Status Retain(uint64_t handle, absl::string_view what);
  // Drops a reference. The last one frees the slot; its tensor and context
  // are moved to *out_last so that the caller destroys them after the lock
  // is gone — the tensor first (TensorRef's member order), so a context
  // destroyed concurrently cannot take its runtime down under a live tensor.
  absl::Status Release(uint64_t handle, absl::string_view what, TensorRef* out_last);

  // Frees the context's slot and every slot that belongs to it. Tensors
  // are moved to *doomed; the context is returned for the caller to drop
  // (after the tensors).
  absl::StatusOr<std::shared_ptr<ContextState>> RemoveContext(
      uint64_t handle, std::vector<Tensor>* doomed);

 private:
  struct Slot {
    uint32_t generation = 1;
    HandleKind kind = HandleKind::kFree;
    int64_t references = 0;  // tensors only
    std::shared_ptr<ContextState> context;
    DeviceEntry* device = nullptr;
    OpEntry* op = nullptr;
    Tensor tensor;
  };

  HandleTable() = default;

  // Validates a token; the error names `what` and says which check failed.
  absl::StatusOr<Slot*> LookupLocked(uint64_t handle, HandleKind kind,
                                     absl::string_view what) const;
  absl::StatusOr<uint64_t> AddLocked(HandleKind kind,
                                     const std::shared_ptr<ContextState>& context);
  void FreeLocked(uint32_t index);

  mutable std::mutex mu_;
  std::deque<Slot> slots_;
  std::vector<uint32_t> free_;
};

// Tokens ↔ the C handle types.
template <typename Handle>
uint64_t Token(Handle handle) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
}
template <typename Handle>
Handle FromToken(uint64_t token) {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(token));
}

// "0x5a40000010000003"
std::string TokenText(uint64_t token);

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_HANDLE_TABLE_H_
