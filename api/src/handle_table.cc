#include "api/src/handle_table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"

namespace sy::capi {
namespace {

constexpr uint64_t kMagic = 0x5A;
constexpr int kIndexBits = 28;
constexpr int kGenerationBits = 24;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
constexpr uint32_t kGenerationMask = (uint32_t{1} << kGenerationBits) - 1;

uint64_t Encode(HandleKind kind, uint32_t generation, uint32_t index) {
  return kMagic << 56 | uint64_t{static_cast<uint8_t>(kind)} << 52 |
         uint64_t{generation & kGenerationMask} << kIndexBits | index;
}

struct Decoded {
  uint64_t magic;
  HandleKind kind;
  uint32_t generation;
  uint32_t index;
};

Decoded Decode(uint64_t token) {
  return {token >> 56, static_cast<HandleKind>((token >> 52) & 0xF),
          static_cast<uint32_t>((token >> kIndexBits) & kGenerationMask),
          static_cast<uint32_t>(token & kIndexMask)};
}

}  // namespace

const char* HandleKindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kContext: return "context";
    case HandleKind::kDevice: return "device";
    case HandleKind::kOp: return "op";
    case HandleKind::kTensor: return "tensor";
    case HandleKind::kFree: break;
  }
  return "unknown";
}

// "a tensor", "an op".
static std::string WithArticle(HandleKind kind) {
  return absl::StrCat(kind == HandleKind::kOp ? "an " : "a ", HandleKindName(kind));
}

std::string TokenText(uint64_t token) {
  return absl::StrCat("0x", absl::Hex(token));
}

HandleTable& HandleTable::Instance() {
  static HandleTable* table = new HandleTable();  // never destroyed, see header
  return *table;
}

absl::StatusOr<HandleTable::Slot*> HandleTable::LookupLocked(
    uint64_t handle, HandleKind kind, absl::string_view what) const {
  const char* kind_name = HandleKindName(kind);
  if (handle == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is NULL; pass ", WithArticle(kind), " handle"));
  }
  const Decoded d = Decode(handle);
  if (d.magic != kMagic || d.kind == HandleKind::kFree ||
      static_cast<uint8_t>(d.kind) > static_cast<uint8_t>(HandleKind::kTensor)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(handle), ") is not a Switchyard handle: a "
        "garbage pointer, or a value that never came from this library"));
  }
  if (d.kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(handle), ") is ", WithArticle(d.kind),
        " handle, not ", WithArticle(kind), " handle"));
  }
  const Slot* slot = d.index < slots_.size() ? &slots_[d.index] : nullptr;
  if (slot == nullptr || slot->kind != kind ||
      (slot->generation & kGenerationMask) != d.generation) {
    if (kind == HandleKind::kContext) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " (", TokenText(handle), ") is a stale context handle: the "
          "context was destroyed"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(handle), ") is a stale ", kind_name, " handle: ",
        kind == HandleKind::kTensor ? "it was released, or its context was destroyed"
                                    : "its context was destroyed"));
  }
  return const_cast<Slot*>(slot);  // the table owns its slots
}

absl::StatusOr<uint64_t> HandleTable::AddLocked(
    HandleKind kind, const std::shared_ptr<ContextState>& context) {
  if (kind != HandleKind::kContext && context->retired) {
    return absl::FailedPreconditionError(
        "the context was destroyed while this call ran; its results were "
        "discarded");
  }
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    if (slots_.size() > kIndexMask) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "more than ", kIndexMask, " live handles; release tensors you no "
          "longer need"));
    }
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[index];
  slot.kind = kind;
  slot.context = context;
  return Encode(kind, slot.generation, index);
}

void HandleTable::FreeLocked(uint32_t index) {
  Slot& slot = slots_[index];
  slot.kind = HandleKind::kFree;
  slot.references = 0;
  slot.device = nullptr;
  slot.op = nullptr;
  slot.generation = (slot.generation + 1) & kGenerationMask;
  if (slot.generation == 0) slot.generation = 1;
  free_.push_back(index);
}

absl::StatusOr<uint64_t> HandleTable::AddContext(
    std::shared_ptr<ContextState> context) {
  std::lock_guard<std::mutex> lock(mu_);
  return AddLocked(HandleKind::kContext, context);
}

absl::StatusOr<uint64_t> HandleTable::AddDevice(
    const std::shared_ptr<ContextState>& context, DeviceEntry* entry) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> token = AddLocked(HandleKind::kDevice, context);
  if (token.ok()) slots_[Decode(*token).index].device = entry;
  return token;
}

absl::StatusOr<uint64_t> HandleTable::AddOp(
    const std::shared_ptr<ContextState>& context, OpEntry* entry) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<uint64_t> token = AddLocked(HandleKind::kOp, context);
  if (token.ok()) slots_[Decode(*token).index].op = entry;
  return token;
}

absl::Status HandleTable::AddTensors(const std::shared_ptr<ContextState>& context,
                                     absl::Span<const Tensor> tensors,
                                     uint64_t* out_handles) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < tensors.size(); ++i) {
    absl::StatusOr<uint64_t> token = AddLocked(HandleKind::kTensor, context);
    if (!token.ok()) {
      // Undo: tensors are moved back out only after the lock is gone, but
      // these slots hold copies, so clearing them here frees nothing.
      for (size_t j = 0; j < i; ++j) {
        Slot& slot = slots_[Decode(out_handles[j]).index];
        slot.tensor = Tensor();
        slot.context.reset();
        FreeLocked(Decode(out_handles[j]).index);
      }
      return token.status();
    }
    Slot& slot = slots_[Decode(*token).index];
    slot.tensor = tensors[i];
    slot.references = 1;
    out_handles[i] = *token;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ContextState>> HandleTable::FindContext(
    uint64_t handle, absl::string_view what) const {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kContext, what);
  if (!slot.ok()) return slot.status();
  return (*slot)->context;
}

absl::StatusOr<EntryRef<DeviceEntry>> HandleTable::FindDevice(
    uint64_t handle, absl::string_view what) const {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kDevice, what);
  if (!slot.ok()) return slot.status();
  return EntryRef<DeviceEntry>{(*slot)->context, (*slot)->device};
}

absl::StatusOr<EntryRef<OpEntry>> HandleTable::FindOp(uint64_t handle,
                                                      absl::string_view what) const {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kOp, what);
  if (!slot.ok()) return slot.status();
  return EntryRef<OpEntry>{(*slot)->context, (*slot)->op};
}

absl::StatusOr<TensorRef> HandleTable::FindTensor(uint64_t handle,
                                                  absl::string_view what) const {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kTensor, what);
  if (!slot.ok()) return slot.status();
  return TensorRef{(*slot)->context, (*slot)->tensor};
}

absl::Status HandleTable::FindTensors(
    absl::Span<const uint64_t> handles, const ContextState* context,
    const std::function<std::string(size_t)>& describe, TensorVector& out) const {
  out.clear();
  out.reserve(handles.size());
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < handles.size(); ++i) {
    if (handles[i] == 0) {
      out.emplace_back();
      continue;
    }
    absl::StatusOr<Slot*> slot =
        LookupLocked(handles[i], HandleKind::kTensor, describe(i));
    if (!slot.ok()) return slot.status();
    if ((*slot)->context.get() != context) {
      return absl::InvalidArgumentError(absl::StrCat(
          describe(i), " (", TokenText(handles[i]), ") belongs to another "
          "context; tensors and ops must come from the same context"));
    }
    out.push_back((*slot)->tensor);
  }
  return absl::OkStatus();
}

absl::Status HandleTable::Retain(uint64_t handle, absl::string_view what) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kTensor, what);
  if (!slot.ok()) return slot.status();
  ++(*slot)->references;
  return absl::OkStatus();
}

absl::Status HandleTable::Release(uint64_t handle, absl::string_view what,
                                  TensorRef* out_last) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> slot = LookupLocked(handle, HandleKind::kTensor, what);
  if (!slot.ok()) return slot.status();
  if (--(*slot)->references > 0) return absl::OkStatus();
  out_last->tensor = std::move((*slot)->tensor);
  out_last->context = std::move((*slot)->context);
  (*slot)->tensor = Tensor();
  FreeLocked(Decode(handle).index);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ContextState>> HandleTable::RemoveContext(
    uint64_t handle, std::vector<Tensor>* doomed) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Slot*> found = LookupLocked(handle, HandleKind::kContext, "context");
  if (!found.ok()) return found.status();
  std::shared_ptr<ContextState> context = std::move((*found)->context);
  context->retired = true;
  FreeLocked(Decode(handle).index);
  for (uint32_t index = 0; index < slots_.size(); ++index) {
    Slot& slot = slots_[index];
    if (slot.kind == HandleKind::kFree || slot.context != context) continue;
    if (slot.kind == HandleKind::kTensor) doomed->push_back(std::move(slot.tensor));
    slot.tensor = Tensor();
    slot.context.reset();
    FreeLocked(index);
  }
  return context;
}

}  // namespace sy::capi
