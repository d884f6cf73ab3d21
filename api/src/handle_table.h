// The process-wide table behind every C handle.
//
// Note [Handle tokens]: a C handle is not an address but a 64-bit token
//   bits 63..56  0x5A — marks a Switchyard handle
//   bits 55..52  kind (context, device, op, tensor, graph)
//   bits 51..28  generation of its slot
//   bits 27..0   slot index
// A lookup checks all four before touching anything, so NULL, garbage, a
// handle of the wrong kind, a released tensor or one of a destroyed context
// each get their own error instead of a crash. Freeing a slot bumps its
// generation: an old token for a reused slot is stale. The generation wraps
// after 2^24 reuses of one slot; a token kept that long could alias, which
// is the price of fitting in a pointer.
//
// Note [Lock-free handle table]: lookups, the whole of sy_op_call_out's
// path, take no lock and allocate nothing.
//   - Slots live in chunks that never move: chunk k holds 1024·2^k slots,
//     so 19 chunk pointers cover all 2^28 indices and a lookup is a few bit
//     operations and two loads. A chunk is allocated once, when the first
//     index in it is handed out, and lives as long as the process.
//   - Each slot has an atomic state word (generation << 8 | kind; kind 0 is
//     free) and an atomic pointer to its object (a HandleObject). A handle
//     is published by storing the object, then the state; a lookup loads
//     the state (must equal the token's generation and kind), the object,
//     and the state again — a slot freed and reused in between fails the
//     second check.
//   - A slot is freed by exactly one thread: the one whose compare-exchange
//     moves its state from live to free (a last release, a context's
//     destruction, an undo). That thread retires the object (tensors,
//     contexts) through epoch-based reclamation (Note [Epoch reclamation],
//     epoch.h), so a call on another thread that already looked the handle
//     up keeps a valid object to the end of its call, and pushes the index
//     on the free list.
//   - The free list is a lock-free stack of indices; its head carries a
//     32-bit tag bumped by every push and pop, so a pop that raced another
//     pop and push of the same index (ABA) fails its compare-exchange.
//   - A tensor handle's reference count lives in its object. Retain and
//     release change it with compare-exchange and never move it off 0: a
//     handle whose count reached 0 is stale even before its slot is freed,
//     and cannot be revived by a racing retain.
//   - A handle made for a context that is being destroyed is caught by
//     either side: the destroyer marks the context retired before it sweeps
//     the slots, and the maker checks the mark after publishing; both use
//     sequentially consistent atomics, so at least one sees the other and
//     the slot's compare-exchange decides who frees it.
#ifndef SWITCHYARD_API_SRC_HANDLE_TABLE_H_
#define SWITCHYARD_API_SRC_HANDLE_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/src/epoch.h"
#include "dispatcher/collectives/communicator.h"
#include "dispatcher/memory/tensor.h"

namespace sy::capi {

struct ContextState;  // context_state.h

enum class HandleKind : uint8_t {
  kFree = 0,
  kContext = 1,
  kDevice = 2,
  kOp = 3,
  kTensor = 4,
  kGraph = 5,         // since 1.2
  kCommunicator = 6,  // since 1.2
  kLast = kCommunicator,
};

const char* HandleKindName(HandleKind kind);  // "tensor", …

// What a slot points at. `context` is the context the handle belongs to;
// it is alive for as long as the calling thread holds its EpochScope.
struct HandleObject {
  HandleObject(HandleKind kind, ContextState* context)
      : kind(kind), context(context) {}
  HandleKind kind;
  ContextState* context;
};

// A context handle's object: it holds the context's state. Retired when the
// context is destroyed.
struct ContextObject final : HandleObject, Retirable {
  static constexpr HandleKind kKind = HandleKind::kContext;
  explicit ContextObject(std::shared_ptr<ContextState> state);
  ~ContextObject() override;
  std::shared_ptr<ContextState> state;
};

// A tensor handle's object: the tensor and its handle's reference count.
// Retired when the count reaches 0 or the context is destroyed.
struct TensorObject final : HandleObject, Retirable {
  static constexpr HandleKind kKind = HandleKind::kTensor;
  TensorObject(std::shared_ptr<ContextState> context, sy::core::Tensor tensor);
  ~TensorObject() override;
  std::atomic<int64_t> references{1};
  // Declared before the tensor, so destroyed after it: the runtime must
  // outlive the tensor's storage.
  std::shared_ptr<ContextState> keep_context;
  sy::core::Tensor tensor;
};
// Graph handles point at GraphObject (graph_object.h): one owner, retired
// by sy_graph_release or the context's destruction.
// A communicator handle's object (one reference: destroying the handle
// drops it). Retired when destroyed or its context is; a call that looked
// it up keeps it, and the Communicator, until the call ends.
struct CommunicatorObject final : HandleObject, Retirable {
  static constexpr HandleKind kKind = HandleKind::kCommunicator;
  CommunicatorObject(std::shared_ptr<ContextState> context,
                     std::shared_ptr<sy::core::Communicator> comm);
  ~CommunicatorObject() override;
  // Declared before the communicator, so destroyed after it: its plugin
  // must stay loaded while the engine's communicator is freed.
  std::shared_ptr<ContextState> keep_context;
  std::shared_ptr<sy::core::Communicator> comm;
};
// Device and op handles point at DeviceEntry and OpEntry (context_state.h),
// which their context owns: they are never retired on their own.

class HandleTable {
 public:
  static constexpr uint64_t kMagic = 0x5A;
  static constexpr int kIndexBits = 28;
  static constexpr int kGenerationBits = 24;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
  static constexpr uint64_t kGenerationMask = (uint64_t{1} << kGenerationBits) - 1;

  // The one table. Never destroyed: handles may be used (and rejected)
  // during static destruction, e.g. by a language runtime shutting down.
  static HandleTable& Instance();

  // ---- Lookups -------------------------------------------------------------
  // Every lookup needs an EpochScope on the calling thread (Guard makes
  // one); the object it returns stays valid until that scope ends, even if
  // the handle is released or its context destroyed meanwhile.

  // The object of a live handle of `kind`, or nullptr. Lock-free, no
  // allocation: the fast path.
  HandleObject* TryFind(uint64_t token, HandleKind kind) const {
    if ((token >> 52) != (kMagic << 4 | static_cast<uint64_t>(kind))) return nullptr;
    const Slot* slot = SlotIfExists(static_cast<uint32_t>(token & kIndexMask));
    if (slot == nullptr) return nullptr;
    const uint64_t want = LiveState(kind, Generation(token));
    if (slot->state.load(std::memory_order_seq_cst) != want) return nullptr;
    HandleObject* object = slot->object.load(std::memory_order_acquire);
    if (slot->state.load(std::memory_order_seq_cst) != want) return nullptr;
    return object;
  }

  // Why TryFind refused `token`: NULL, not a Switchyard handle, the wrong
  // kind, or stale. `what` names the argument ("tensor", "input #1 ('b')").
  absl::Status FindError(uint64_t token, HandleKind kind,
                         absl::string_view what) const;

  // TryFind with the error, cast to the entry type (T::kKind).
  template <typename T>
  absl::StatusOr<T*> Find(uint64_t token, absl::string_view what) const {
    HandleObject* object = TryFind(token, T::kKind);
    if (object == nullptr) return FindError(token, T::kKind, what);
    return static_cast<T*>(object);
  }

  // ---- New handles ---------------------------------------------------------
  // Publishes `object` under a new handle. For tensors and contexts the
  // table owns the object from here on, also when this fails (it is then
  // destroyed). FailedPrecondition when the object's context is being
  // destroyed (a call racing with sy_context_destroy); ResourceExhausted
  // past 2^28 live handles.
  absl::StatusOr<uint64_t> Add(HandleObject* object);

  // Frees a handle made by Add that the caller no longer wants (the undo of
  // a call that made several and then failed).
  void Discard(uint64_t token);

  // ---- Tensor references ---------------------------------------------------
  absl::Status Retain(uint64_t token, absl::string_view what);
  // Drops a reference; the last frees the handle and retires its tensor.
  absl::Status Release(uint64_t token, absl::string_view what);

  // ---- Handles with one owner (graphs) ---------------------------------------
  // Frees the handle and retires its object. INVALID_ARGUMENT for a stale
  // one (freed twice).
  absl::Status Free(uint64_t token, HandleKind kind, absl::string_view what);

  // ---- Contexts ------------------------------------------------------------
  // Frees the context's handle and every handle that belongs to it, and
  // marks it retired. INVALID_ARGUMENT for a stale handle (destroyed twice).
  absl::Status RemoveContext(uint64_t token);

  // Live handles of `kind` (for tests).
  int64_t CountLiveForTesting(HandleKind kind) const;

 private:
  struct Slot {
    std::atomic<uint64_t> state{0};  // generation << 8 | kind
    std::atomic<HandleObject*> object{nullptr};
    std::atomic<uint32_t> next_free{0};  // index + 1 of the next free slot
  };

  static constexpr int kFirstChunkBits = 10;  // chunk 0: 1024 slots
  static constexpr int kNumChunks = kIndexBits - kFirstChunkBits + 1;

  static uint64_t Generation(uint64_t token) {
    return (token >> kIndexBits) & kGenerationMask;
  }
  static uint64_t LiveState(HandleKind kind, uint64_t generation) {
    return generation << 8 | static_cast<uint64_t>(kind);
  }
  static uint64_t Encode(HandleKind kind, uint64_t generation, uint32_t index) {
    return kMagic << 56 | uint64_t{static_cast<uint8_t>(kind)} << 52 |
           (generation & kGenerationMask) << kIndexBits | index;
  }
  // Chunk and offset of an index.
  static int ChunkOf(uint32_t index, uint32_t* offset) {
    const uint64_t j = uint64_t{index} + (uint64_t{1} << kFirstChunkBits);
    const int k = 63 - __builtin_clzll(j) - kFirstChunkBits;
    *offset = static_cast<uint32_t>(j - (uint64_t{1} << (kFirstChunkBits + k)));
    return k;
  }

  const Slot* SlotIfExists(uint32_t index) const {
    uint32_t offset;
    const int k = ChunkOf(index, &offset);
    if (k >= kNumChunks) return nullptr;
    const Slot* chunk = chunks_[k].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : chunk + offset;
  }
  Slot& SlotAt(uint32_t index) const {
    return *const_cast<Slot*>(SlotIfExists(index));
  }

  HandleTable() = default;

  absl::StatusOr<uint32_t> TakeIndex();
  void PushFree(uint32_t index);
  // Moves slot `index` from `live` to free; true for the one caller that
  // did it, which then retires the object and frees the index.
  bool Kill(uint32_t index, uint64_t live);

  std::atomic<Slot*> chunks_[kNumChunks] = {};
  std::atomic<uint32_t> next_index_{0};   // indices never handed out start here
  std::atomic<uint64_t> free_head_{0};    // tag << 32 | (index + 1), 0: empty
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
