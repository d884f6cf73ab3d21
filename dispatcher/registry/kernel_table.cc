#include "dispatcher/registry/kernel_table.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {
namespace {

bool Better(const KernelEntry* a, const KernelEntry* b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  return a->sequence < b->sequence;  // earlier registration wins ties
}

bool NameMatches(const KernelEntry& entry, absl::string_view name) {
  return entry.name == name || entry.QualifiedName() == name;
}

KernelChoice ChoiceOf(const KernelEntry* kernel, int32_t variant,
                      ChoiceReason reason) {
  KernelChoice choice;
  choice.kernel = kernel;
  choice.reason = reason;
  if (variant >= 0 && variant < static_cast<int32_t>(kernel->variants.size())) {
    choice.variant = variant;
    choice.variant_config = kernel->variants[variant].config.data();
  }
  return choice;
}

// Identity of a kernel within a batch and against what is registered: the
// plugin, op, key and name (absl hashes the tuple).
using KernelIdentity =
    std::tuple<const PluginInstance*, const OpDef*, DispatchKey, std::string>;

KernelIdentity IdentityOf(const KernelEntry& k) {
  return {k.plugin, k.op, k.key, k.name};
}

}  // namespace

const char* ChoiceReasonName(ChoiceReason reason) {
  switch (reason) {
    case ChoiceReason::kPinned: return "pinned";
    case ChoiceReason::kTuned: return "autotuned";
    case ChoiceReason::kPriority: return "priority";
  }
  return "?";
}

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
  // before anything changes. One set over the batch and the touched ops'
  // kernels keeps this linear (a plugin may register 100k kernels).
  absl::flat_hash_set<const OpDef*> batch_ops;
  for (const auto& entry : batch) batch_ops.insert(entry->op);
  absl::flat_hash_set<KernelIdentity> seen;
  for (const OpDef* op : batch_ops) {
    if (auto it = by_op_.find(op); it != by_op_.end()) {
      for (const auto& existing : it->second) seen.insert(IdentityOf(*existing));
    }
  }
  for (const auto& entry : batch) {
    const KernelEntry& k = *entry;
    if (!seen.insert(IdentityOf(k)).second) {
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
  absl::flat_hash_set<OpDef*> touched;
  for (auto& entry : batch) {
    entry->sequence = next_sequence_++;
    touched.insert(entry->op);
    withdrawn_.erase(TunedKey{entry->op, entry->key});
    by_op_[entry->op].push_back(std::move(entry));
  }
  for (OpDef* op : touched) RepublishLocked(op);
  return absl::OkStatus();
}

void KernelRegistry::RemovePlugin(const PluginInstance* plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<OpDef*> touched;
  for (auto& [op, entries] : by_op_) {
    auto removed = std::stable_partition(
        entries.begin(), entries.end(),
        [plugin](const std::unique_ptr<KernelEntry>& e) { return e->plugin != plugin; });
    if (removed == entries.end()) continue;
    touched.push_back((*removed)->op);
    // A call that loaded an old snapshot may still be reading the entry.
    for (auto it = removed; it != entries.end(); ++it) {
      withdrawn_[TunedKey{op, (*it)->key}] = plugin->name();
      retired_entries_.push_back(std::move(*it));
    }
    entries.erase(removed, entries.end());
    for (const auto& kept : entries) withdrawn_.erase(TunedKey{op, kept->key});
  }
  for (OpDef* op : touched) RepublishLocked(op);
}

absl::Status KernelRegistry::Pin(OpDef* op, absl::string_view device_type,
                                 absl::string_view kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> available;
  bool found = false;
  if (auto it = by_op_.find(op); it != by_op_.end()) {
    for (const auto& entry : it->second) {
      if (entry->device_type_name != device_type) continue;
      available.push_back(entry->QualifiedName());
      if (NameMatches(*entry, kernel)) found = true;
    }
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
                                            std::optional<ShapeBucket> bucket,
                                            absl::string_view kernel,
                                            int32_t variant) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_op_.find(op);
  if (it != by_op_.end()) {
    for (const auto& entry : it->second) {
      if (entry->key != key || !NameMatches(*entry, kernel)) continue;
      if (variant < -1 ||
          variant >= static_cast<int32_t>(entry->variants.size())) {
        return absl::OutOfRangeError(absl::StrCat(
            "kernel ", entry->QualifiedName(), " has ", entry->variants.size(),
            " variant(s); variant ", variant, " does not exist"));
      }
      TunedVerdicts& verdicts = tuned_[TunedKey{op, key}];
      Tuned tuned{std::string(kernel), variant};
      if (bucket.has_value()) {
        verdicts.per_bucket[*bucket] = std::move(tuned);
      } else {
        verdicts.all_buckets = std::move(tuned);
      }
      RepublishLocked(op);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("no kernel '", kernel, "' for ",
                                          op->full_name(),
                                          " with that dispatch key"));
}

void KernelRegistry::ClearTunedChoices(OpDef* op) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::erase_if(tuned_, [op](const auto& kv) { return kv.first.op == op; });
  RepublishLocked(op);
}

size_t KernelRegistry::SetTunedChoices(absl::Span<const TunedChoice> choices,
                                       bool replace_all) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::flat_hash_set<OpDef*> touched;
  if (replace_all) {
    for (const auto& [tuned_key, verdicts] : tuned_) {
      touched.insert(const_cast<OpDef*>(tuned_key.op));
    }
    tuned_.clear();
  }
  size_t taken = 0;
  for (const TunedChoice& c : choices) {
    auto it = by_op_.find(c.op);
    if (it == by_op_.end()) continue;
    for (const auto& entry : it->second) {
      if (entry->key != c.key || !NameMatches(*entry, c.kernel)) continue;
      if (c.variant < -1 ||
          c.variant >= static_cast<int32_t>(entry->variants.size())) {
        break;
      }
      TunedVerdicts& verdicts = tuned_[TunedKey{c.op, c.key}];
      Tuned tuned{c.kernel, c.variant};
      if (c.bucket.has_value()) {
        verdicts.per_bucket[*c.bucket] = std::move(tuned);
      } else {
        verdicts.all_buckets = std::move(tuned);
      }
      touched.insert(c.op);
      ++taken;
      break;
    }
  }
  for (OpDef* op : touched) RepublishLocked(op);
  return taken;
}

void KernelRegistry::SetTuningActive(bool active) {
  std::lock_guard<std::mutex> lock(mu_);
  if (tuning_active_ == active) return;
  tuning_active_ = active;
  std::vector<OpDef*> ops;
  for (const auto& [op, table] : current_) ops.push_back(op);
  for (OpDef* op : ops) RepublishLocked(op);
}

bool KernelRegistry::tuning_active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tuning_active_;
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

void KernelRegistry::BuildSlotLocked(const OpDef* op, DispatchKey key,
                                     DispatchSlot& slot) {
  // Candidates arrive in registration order; sort them by priority.
  std::vector<const KernelEntry*> candidates;
  for (const KernelChoice& c : slot.choices) candidates.push_back(c.kernel);
  std::stable_sort(candidates.begin(), candidates.end(), Better);
  slot.choices.clear();

  const KernelEntry* pinned =
      PinnedLocked(op, candidates.front()->device_type_name, candidates);
  const KernelEntry* tuned = nullptr;
  int32_t tuned_variant = -1;
  const TunedVerdicts* verdicts = nullptr;
  if (auto it = tuned_.find(TunedKey{op, key}); it != tuned_.end()) {
    verdicts = &it->second;
    if (verdicts->all_buckets.has_value()) {
      for (const KernelEntry* c : candidates) {
        if (NameMatches(*c, verdicts->all_buckets->kernel)) {
          tuned = c;
          tuned_variant = verdicts->all_buckets->variant;
          break;
        }
      }
    }
  }
  if (pinned != nullptr) {
    slot.choices.push_back(ChoiceOf(pinned, -1, ChoiceReason::kPinned));
  }
  if (tuned != nullptr && tuned != pinned) {
    slot.choices.push_back(ChoiceOf(tuned, tuned_variant, ChoiceReason::kTuned));
  }
  for (const KernelEntry* c : candidates) {
    if (c != pinned && c != tuned) {
      slot.choices.push_back(ChoiceOf(c, -1, ChoiceReason::kPriority));
    }
  }

  // Per-bucket verdicts become the slot's first bucket table; a pin
  // outranks them (Note [Bucket tables]).
  auto table = std::make_unique<BucketTable>();
  if (verdicts != nullptr && pinned == nullptr) {
    for (const auto& [bucket, verdict] : verdicts->per_bucket) {
      for (size_t i = 0; i < slot.choices.size(); ++i) {
        if (NameMatches(*slot.choices[i].kernel, verdict.kernel)) {
          BucketChoice choice;
          choice.choice = static_cast<int16_t>(i);
          choice.variant = verdict.variant;
          choice.tuned = true;
          table->Add(bucket, std::move(choice));
          break;
        }
      }
    }
  }
  bool alternatives = slot.choices.size() > 1;
  for (const KernelChoice& c : slot.choices) alternatives |= !c.kernel->variants.empty();
  slot.needs_bucket = slot.choices.front().kernel->may_decline() ||
                      table->size() > 0 || (tuning_active_ && alternatives);
  if (table->size() > 0) {
    slot.buckets.store(table.get(), std::memory_order_relaxed);
    tables_.push_back(std::move(table));
  }
}

void KernelRegistry::RepublishLocked(OpDef* op) {
  auto table = std::make_unique<OpDispatch>();
  if (auto it = by_op_.find(op); it != by_op_.end()) {
    for (const auto& entry : it->second) {
      KernelChoice choice;
      choice.kernel = entry.get();
      table->slots[entry->key].choices.push_back(choice);
    }
  }
  for (auto& [key, slot] : table->slots) BuildSlotLocked(op, key, slot);
  if (table->slots.empty()) table.reset();
  op->publish_dispatch(table.get());
  auto& current = current_[op];
  if (current) retired_.push_back(std::move(current));
  current = std::move(table);
}

void KernelRegistry::RecordBucketChoice(const OpDef* op,
                                        const DispatchSlot* slot,
                                        const ShapeBucket& bucket,
                                        BucketChoice choice) {
  std::lock_guard<std::mutex> lock(mu_);
  // Only a slot of the op's published snapshot: an older one was replaced
  // because its candidates changed, and its decisions no longer apply.
  auto it = current_.find(const_cast<OpDef*>(op));
  if (it == current_.end() || it->second == nullptr) return;
  bool published = false;
  for (const auto& [key, s] : it->second->slots) published |= &s == slot;
  if (!published) return;
  const BucketTable* old = slot->bucket_table();
  if (old != nullptr && (old->size() >= kMaxBucketEntries || old->Find(bucket))) {
    return;
  }
  auto table = std::make_unique<BucketTable>();
  if (old != nullptr) table->entries_ = old->entries_;
  table->Add(bucket, std::move(choice));
  slot->buckets.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));  // the old one stays: calls may read it
}

std::vector<const KernelEntry*> KernelRegistry::KernelsFor(const OpDef* op) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const KernelEntry*> kernels;
  if (auto it = by_op_.find(op); it != by_op_.end()) {
    for (const auto& entry : it->second) kernels.push_back(entry.get());
  }
  return kernels;
}

std::string KernelRegistry::WithdrawnBy(const OpDef* op, DispatchKey key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = withdrawn_.find(TunedKey{op, key});
  return it == withdrawn_.end() ? std::string() : it->second;
}

}  // namespace sy::core
