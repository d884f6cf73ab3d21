#include "api/src/handle_table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/graph_object.h"

namespace sy::capi {
namespace {

// "a tensor", "an op".
std::string WithArticle(HandleKind kind) {
  return absl::StrCat(kind == HandleKind::kOp ? "an " : "a ", HandleKindName(kind));
}

bool Retires(HandleKind kind) {
  return kind == HandleKind::kTensor || kind == HandleKind::kContext ||
         kind == HandleKind::kGraph || kind == HandleKind::kCommunicator;
}

// The object's Retirable base (contexts, tensors, graphs, communicators).
Retirable* AsRetirable(HandleObject* object) {
  if (object->kind == HandleKind::kTensor) return static_cast<TensorObject*>(object);
  if (object->kind == HandleKind::kGraph) return static_cast<GraphObject*>(object);
  if (object->kind == HandleKind::kCommunicator) {
    return static_cast<CommunicatorObject*>(object);
  }
  return static_cast<ContextObject*>(object);
}

uint64_t NextGeneration(uint64_t generation) {
  generation = (generation + 1) & HandleTable::kGenerationMask;
  return generation == 0 ? 1 : generation;
}

}  // namespace

ContextObject::ContextObject(std::shared_ptr<ContextState> s)
    : HandleObject(HandleKind::kContext, s.get()), state(std::move(s)) {}
ContextObject::~ContextObject() = default;

TensorObject::TensorObject(std::shared_ptr<ContextState> context, sy::core::Tensor t)
    : HandleObject(HandleKind::kTensor, context.get()),
      keep_context(std::move(context)),
      tensor(std::move(t)) {}
TensorObject::~TensorObject() = default;

CommunicatorObject::CommunicatorObject(std::shared_ptr<ContextState> context,
                                       std::shared_ptr<sy::core::Communicator> c)
    : HandleObject(HandleKind::kCommunicator, context.get()),
      keep_context(std::move(context)),
      comm(std::move(c)) {}
CommunicatorObject::~CommunicatorObject() = default;

const char* HandleKindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kContext: return "context";
    case HandleKind::kDevice: return "device";
    case HandleKind::kOp: return "op";
    case HandleKind::kTensor: return "tensor";
    case HandleKind::kGraph: return "graph";
    case HandleKind::kCommunicator: return "communicator";
    case HandleKind::kFree: break;
  }
  return "unknown";
}

std::string TokenText(uint64_t token) {
  return absl::StrCat("0x", absl::Hex(token));
}

HandleTable& HandleTable::Instance() {
  static HandleTable* table = new HandleTable();  // never destroyed, see header
  return *table;
}

absl::Status HandleTable::FindError(uint64_t token, HandleKind kind,
                                    absl::string_view what) const {
  if (token == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is NULL; pass ", WithArticle(kind), " handle"));
  }
  const uint64_t magic = token >> 56;
  const auto token_kind = static_cast<HandleKind>((token >> 52) & 0xF);
  if (magic != kMagic || token_kind == HandleKind::kFree ||
      static_cast<uint8_t>(token_kind) > static_cast<uint8_t>(HandleKind::kLast)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(token), ") is not a Switchyard handle: a "
        "garbage pointer, or a value that never came from this library"));
  }
  if (token_kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(token), ") is ", WithArticle(token_kind),
        " handle, not ", WithArticle(kind), " handle"));
  }
  if (kind == HandleKind::kContext) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(token), ") is a stale context handle: the "
        "context was destroyed"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, " (", TokenText(token), ") is a stale ", HandleKindName(kind),
      " handle: ",
      kind == HandleKind::kTensor || kind == HandleKind::kGraph
          ? "it was released, or its context was destroyed"
      : kind == HandleKind::kCommunicator
          ? "it was destroyed, or its context was"
          : "its context was destroyed"));
}

absl::StatusOr<uint32_t> HandleTable::TakeIndex() {
  uint64_t head = free_head_.load(std::memory_order_acquire);
  while ((head & 0xFFFFFFFFu) != 0) {
    const uint32_t index = static_cast<uint32_t>(head & 0xFFFFFFFFu) - 1;
    const uint32_t next = SlotAt(index).next_free.load(std::memory_order_relaxed);
    const uint64_t taken = ((head >> 32) + 1) << 32 | next;
    if (free_head_.compare_exchange_weak(head, taken, std::memory_order_acquire,
                                         std::memory_order_acquire)) {
      return index;
    }
  }
  const uint32_t index = next_index_.fetch_add(1, std::memory_order_relaxed);
  if (index > kIndexMask) {
    next_index_.fetch_sub(1, std::memory_order_relaxed);
    return absl::ResourceExhaustedError(absl::StrCat(
        "more than ", kIndexMask, " live handles; release tensors you no "
        "longer need"));
  }
  uint32_t offset;
  const int k = ChunkOf(index, &offset);
  if (chunks_[k].load(std::memory_order_acquire) == nullptr) {
    // Several threads may race to make the chunk; one wins, the rest drop
    // theirs. Value-initialized: every slot free, generation 0.
    Slot* fresh = new Slot[size_t{1} << (kFirstChunkBits + k)];
    Slot* expected = nullptr;
    if (!chunks_[k].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
      delete[] fresh;
    }
  }
  return index;
}

void HandleTable::PushFree(uint32_t index) {
  Slot& slot = SlotAt(index);
  uint64_t head = free_head_.load(std::memory_order_relaxed);
  uint64_t pushed;
  do {
    slot.next_free.store(static_cast<uint32_t>(head & 0xFFFFFFFFu),
                         std::memory_order_relaxed);
    pushed = ((head >> 32) + 1) << 32 | (uint64_t{index} + 1);
  } while (!free_head_.compare_exchange_weak(head, pushed, std::memory_order_release,
                                             std::memory_order_relaxed));
}

bool HandleTable::Kill(uint32_t index, uint64_t live) {
  Slot& slot = SlotAt(index);
  const uint64_t freed = NextGeneration(live >> 8) << 8;
  uint64_t expected = live;
  if (!slot.state.compare_exchange_strong(expected, freed, std::memory_order_seq_cst)) {
    return false;
  }
  HandleObject* object = slot.object.exchange(nullptr, std::memory_order_acq_rel);
  if (object != nullptr && Retires(object->kind)) Epochs::Retire(AsRetirable(object));
  PushFree(index);
  return true;
}

absl::StatusOr<uint64_t> HandleTable::Add(HandleObject* object) {
  const HandleKind kind = object->kind;
  absl::StatusOr<uint32_t> index = TakeIndex();
  if (!index.ok()) {
    if (Retires(kind)) delete AsRetirable(object);
    return index.status();
  }
  Slot& slot = SlotAt(*index);
  uint64_t generation = slot.state.load(std::memory_order_relaxed) >> 8;
  if (generation == 0) generation = 1;  // a slot never used before
  const uint64_t live = LiveState(kind, generation);
  slot.object.store(object, std::memory_order_release);
  slot.state.store(live, std::memory_order_seq_cst);
  Epochs::AllowReclaim();
  // A context being destroyed: its destroyer may have swept past this slot
  // already, so undo (Note [Lock-free handle table]).
  if (kind != HandleKind::kContext &&
      object->context->retired.load(std::memory_order_seq_cst)) {
    Kill(*index, live);
    return absl::FailedPreconditionError(
        "the context was destroyed while this call ran; its results were "
        "discarded");
  }
  return Encode(kind, generation, *index);
}

void HandleTable::Discard(uint64_t token) {
  const auto kind = static_cast<HandleKind>((token >> 52) & 0xF);
  Kill(static_cast<uint32_t>(token & kIndexMask), LiveState(kind, Generation(token)));
}

absl::Status HandleTable::Retain(uint64_t token, absl::string_view what) {
  HandleObject* object = TryFind(token, HandleKind::kTensor);
  if (object == nullptr) return FindError(token, HandleKind::kTensor, what);
  auto& references = static_cast<TensorObject*>(object)->references;
  int64_t count = references.load(std::memory_order_relaxed);
  do {
    // 0: the last reference went on another thread; never revive it.
    if (count <= 0) return FindError(token, HandleKind::kTensor, what);
  } while (!references.compare_exchange_weak(count, count + 1,
                                             std::memory_order_relaxed));
  return absl::OkStatus();
}

absl::Status HandleTable::Release(uint64_t token, absl::string_view what) {
  HandleObject* object = TryFind(token, HandleKind::kTensor);
  if (object == nullptr) return FindError(token, HandleKind::kTensor, what);
  auto& references = static_cast<TensorObject*>(object)->references;
  int64_t count = references.load(std::memory_order_relaxed);
  do {
    if (count <= 0) return FindError(token, HandleKind::kTensor, what);
  } while (!references.compare_exchange_weak(count, count - 1,
                                             std::memory_order_acq_rel));
  if (count == 1) {
    // Fails only when the context's destruction freed the slot first; the
    // object was retired there.
    Kill(static_cast<uint32_t>(token & kIndexMask),
         LiveState(HandleKind::kTensor, Generation(token)));
  }
  return absl::OkStatus();
}

absl::Status HandleTable::Free(uint64_t token, HandleKind kind, absl::string_view what) {
  if (TryFind(token, kind) == nullptr) return FindError(token, kind, what);
  // Fails only when another free or the context's destruction won the race.
  if (!Kill(static_cast<uint32_t>(token & kIndexMask), LiveState(kind, Generation(token)))) {
    return FindError(token, kind, what);
  }
  return absl::OkStatus();
}

absl::Status HandleTable::RemoveContext(uint64_t token) {
  HandleObject* object = TryFind(token, HandleKind::kContext);
  if (object == nullptr) return FindError(token, HandleKind::kContext, "context");
  ContextState* context = object->context;
  if (!Kill(static_cast<uint32_t>(token & kIndexMask),
            LiveState(HandleKind::kContext, Generation(token)))) {
    return FindError(token, HandleKind::kContext, "context");  // destroyed meanwhile
  }
  context->retired.store(true, std::memory_order_seq_cst);
  const uint32_t end = next_index_.load(std::memory_order_acquire);
  for (uint32_t index = 0; index < end && index <= kIndexMask; ++index) {
    const Slot* slot = SlotIfExists(index);
    if (slot == nullptr) continue;
    const uint64_t state = slot->state.load(std::memory_order_seq_cst);
    if ((state & 0xFF) == 0) continue;
    const HandleObject* held = slot->object.load(std::memory_order_acquire);
    if (slot->state.load(std::memory_order_seq_cst) != state || held == nullptr ||
        held->context != context) {
      continue;
    }
    Kill(index, state);
  }
  return absl::OkStatus();
}

int64_t HandleTable::CountLiveForTesting(HandleKind kind) const {
  int64_t live = 0;
  const uint32_t end = next_index_.load(std::memory_order_acquire);
  for (uint32_t index = 0; index < end && index <= kIndexMask; ++index) {
    const Slot* slot = SlotIfExists(index);
    if (slot != nullptr &&
        (slot->state.load(std::memory_order_acquire) & 0xFF) ==
            static_cast<uint64_t>(kind)) {
      ++live;
    }
  }
  return live;
}

}  // namespace sy::capi
