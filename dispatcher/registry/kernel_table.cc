#include "absl/strings/string_view.h"
#include "dispatcher/registry/kernel_table.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/registry/plugin_instance.h"

namespace sy::core {
namespace {

bool Better(const KernelEntry* a, const KernelEntry* b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  return a->sequence < b->sequence;  // earlier registration wins ties
}

bool NameMatches(const KernelEntry& entry, absl::string_view name) {
  return entry.name == name || entry.QualifiedName() == name;
}

}  // namespace

DispatchKey MakeDispatchKey(uint16_t device_type,
                            absl::Span<const sy_dtype_t> dtypes) {
  DispatchKey key = DispatchKey{device_type} << 48;
  for (size_t i = 0; i < dtypes.size() && i < kMaxKeyedTensorArgs; ++i) {
    key |= DispatchKey{DTypeIndex(dtypes[i])} << (8 * i);
  }
  return key;
}

std::string KernelEntry::QualifiedName() const {
  return absl::StrCat(plugin != nullptr ? plugin->name() : "core", "::", name);
}

KernelRegistry::~KernelRegistry() {
  for (auto& [op, table] : current_) op->publish_dispatch(nullptr);
}

absl::Status KernelRegistry::Add(
    std::vector<std::unique_ptr<KernelEntry>> batch) {
  std::lock_guard<std::mutex> lock(mu_);
  // Reject duplicates (within the batch and against what is registered)
  // before anything changes.
  for (size_t i = 0; i < batch.size(); ++i) {
    const KernelEntry& k = *batch[i];
    auto same = [&k](const KernelEntry& other) {
      return other.plugin == k.plugin && other.op == k.op &&
             other.key == k.key && other.name == k.name;
    };
    for (size_t j = 0; j < i; ++j) {
      if (same(*batch[j])) {
        std::vector<std::string> dtypes;
        for (sy_dtype_t d : k.dtypes) dtypes.emplace_back(DTypeName(d));
        return absl::AlreadyExistsError(absl::StrCat(
            "register_kernel: kernel '", k.name, "' for ", k.op->full_name(),
            " on ", k.device_type_name, " with dtypes (",
            absl::StrJoin(dtypes, ", "),
            ") is registered twice; register each (op, device, dtypes) once "
            "per kernel name"));
      }
    }
  }
  absl::flat_hash_set<OpDef*> touched;
  for (auto& entry : batch) {
    entry->sequence = next_sequence_++;
    touched.insert(entry->op);
    entries_.push_back(std::move(entry));
  }
  for (OpDef* op : touched) RepublishLocked(op);
  return absl::OkStatus();
}

void KernelRegistry::RemovePlugin(const PluginInstance* plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::flat_hash_set<OpDef*> touched;
  auto removed = std::stable_partition(
      entries_.begin(), entries_.end(),
      [plugin](const std::unique_ptr<KernelEntry>& e) { return e->plugin != plugin; });
  for (auto it = removed; it != entries_.end(); ++it) {
    touched.insert((*it)->op);
    // A call that loaded an old snapshot may still be reading the entry.
    retired_entries_.push_back(std::move(*it));
  }
  entries_.erase(removed, entries_.end());
  for (OpDef* op : touched) RepublishLocked(op);
}

absl::Status KernelRegistry::Pin(OpDef* op, absl::string_view device_type,
                                 absl::string_view kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> available;
  bool found = false;
  for (const auto& entry : entries_) {
    if (entry->op != op || entry->device_type_name != device_type) continue;
    available.push_back(entry->QualifiedName());
    if (NameMatches(*entry, kernel)) found = true;
  }
  if (!found) {
    return absl::NotFoundError(absl::StrCat(
        "cannot pin kernel '", kernel, "' for ", op->full_name(), " on ",
        device_type, ": no such kernel. Kernels registered there: ",
        available.empty() ? "none" : absl::StrJoin(available, ", ")));
  }
  std::erase_if(pins_, [&](const PinEntry& p) {
    return p.op == op && p.device_type == device_type;
  });
  pins_.push_back({op, std::string(device_type), std::string(kernel)});
  RepublishLocked(op);
  return absl::OkStatus();
}

void KernelRegistry::Unpin(OpDef* op, absl::string_view device_type) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(pins_, [&](const PinEntry& p) {
    return p.op == op && p.device_type == device_type;
  });
  RepublishLocked(op);
}

absl::Status KernelRegistry::SetTunedChoice(OpDef* op, DispatchKey key,
                                            absl::string_view kernel,
                                            int32_t variant) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& entry : entries_) {
    if (entry->op == op && entry->key == key && NameMatches(*entry, kernel)) {
      if (variant < -1 ||
          variant >= static_cast<int32_t>(entry->variants.size())) {
        return absl::OutOfRangeError(absl::StrCat(
            "kernel ", entry->QualifiedName(), " has ", entry->variants.size(),
            " variants; variant ", variant, " does not exist"));
      }
      tuned_[{op, key}] = Tuned{std::string(kernel), variant};
      RepublishLocked(op);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("no kernel '", kernel, "' for ",
                                          op->full_name(),
                                          " with that dispatch key"));
}

const KernelEntry* KernelRegistry::PinnedLocked(
    const OpDef* op, const std::string& device,
    const std::vector<const KernelEntry*>& candidates) const {
  for (const PinEntry& pin : pins_) {
    if (pin.op != op || pin.device_type != device) continue;
    for (const KernelEntry* c : candidates) {
      if (NameMatches(*c, pin.kernel)) return c;
    }
  }
  return nullptr;
}

void KernelRegistry::RepublishLocked(OpDef* op) {
  auto table = std::make_unique<OpDispatch>();
  for (const auto& entry : entries_) {
    if (entry->op == op) table->slots[entry->key].candidates.push_back(entry.get());
  }
  for (auto& [key, slot] : table->slots) {
    std::stable_sort(slot.candidates.begin(), slot.candidates.end(), Better);
    const KernelEntry* chosen =
        PinnedLocked(op, slot.candidates.front()->device_type_name, slot.candidates);
    if (chosen == nullptr) {
      if (auto it = tuned_.find({op, key}); it != tuned_.end()) {
        for (const KernelEntry* c : slot.candidates) {
          if (NameMatches(*c, it->second.kernel)) {
            chosen = c;
            slot.variant = it->second.variant;
            if (slot.variant >= 0) {
              slot.variant_config = c->variants[slot.variant].config.data();
            }
            break;
          }
        }
      }
    }
    slot.kernel = chosen != nullptr ? chosen : slot.candidates.front();
  }
  if (table->slots.empty()) table.reset();
  op->publish_dispatch(table.get());
  auto& current = current_[op];
  if (current) retired_.push_back(std::move(current));
  current = std::move(table);
}

std::vector<const KernelEntry*> KernelRegistry::KernelsFor(const OpDef* op) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const KernelEntry*> kernels;
  for (const auto& entry : entries_) {
    if (entry->op == op) kernels.push_back(entry.get());
  }
  return kernels;
}

ChoiceReason KernelRegistry::ReasonFor(const OpDef* op, DispatchKey key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const OpDispatch* table = op->dispatch();
  const DispatchSlot* slot = table != nullptr ? table->Find(key) : nullptr;
  if (slot == nullptr) return ChoiceReason::kPriority;
  if (PinnedLocked(op, slot->kernel->device_type_name, slot->candidates) ==
      slot->kernel) {
    return ChoiceReason::kPinned;
  }
  if (tuned_.contains({op, key})) return ChoiceReason::kTuned;
  return ChoiceReason::kPriority;
}

}  // namespace sy::core
