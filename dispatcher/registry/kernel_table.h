// Kernel registrations and the dispatch snapshots built from them.
//
// Note [Dispatch snapshots]: each op owns a pointer to an immutable
// OpDispatch, a hash map from the dispatch key (device type, input dtypes)
// to a DispatchSlot: the kernels for that key in resolution order (pinned,
// then tuned, then by priority). A call loads that pointer with acquire
// order, looks up its key and runs the first choice: no lock, no string
// work, no allocation. Writers (plugin loads, pins, tuning verdicts) take
// the registry's mutex, build a fresh OpDispatch for each op they touch,
// and publish it with a release store. Replaced snapshots are retired, not
// freed, until the registry dies: a call may still be reading one. Their
// number is bounded by the number of registration batches, which are few
// (one per plugin load, pin or tuning decision).
//
// Note [Bucket tables]: a slot may also hold a BucketTable, an immutable
// map from a call's shape bucket (shape_bucket.h) to the choice for that
// bucket: what an autotuner decided for it, or where resolution goes after
// kernels declined calls of that bucket (plugin.h, sy_kernel_fn). A slot
// reads it only when `needs_bucket` is set — its first choice may decline,
// or tuned entries exist — so a call that needs neither pays one branch.
// Adding an entry copies the table, publishes the copy with a release store
// and retires the old one, as snapshots are; a table stops growing at
// kMaxBucketEntries (later buckets are then re-queried, never wrong).
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "dispatcher/registry/shape_bucket.h"
#include "switchyard/plugin.h"

namespace sy::core {

class OpDef;
class PluginInstance;

// At most this many tensor arguments take part in a dispatch key.
inline constexpr int kMaxKeyedTensorArgs = 6;
// A bucket table holds at most this many buckets (Note [Bucket tables]).
inline constexpr size_t kMaxBucketEntries = 1024;

// (device type id, input dtypes) packed into one integer: 16 bits of device
// type, then one byte (DTypeIndex) per tensor argument.
using DispatchKey = uint64_t;
DispatchKey MakeDispatchKey(uint16_t device_type,
                            absl::Span<const sy_dtype_t> dtypes);

// MakeDispatchKey for the call path, where the dtypes are already dense
// indices (DTypeIndex) — no lookups, no loop over a span.
inline DispatchKey PackDispatchKey(uint16_t device_type,
                                   const uint8_t (&indices)[kMaxKeyedTensorArgs]) {
  DispatchKey key = DispatchKey{device_type} << 48;
  for (int i = 0; i < kMaxKeyedTensorArgs; ++i) {
    key |= DispatchKey{indices[i]} << (8 * i);
  }
  return key;
}

struct KernelVariant {
  std::string name;
  std::vector<uint8_t> config;
};

struct KernelEntry {
  std::string name;            // as registered, unique within the plugin
  PluginInstance* plugin = nullptr;
  OpDef* op = nullptr;
  uint16_t device_type = 0;
  std::string device_type_name;
  std::vector<sy_dtype_t> dtypes;
  DispatchKey key = 0;
  int32_t priority = 0;
  uint64_t sequence = 0;       // registration order; breaks priority ties
  sy_kernel_fn fn = nullptr;
  void* kernel_data = nullptr;
  std::vector<KernelVariant> variants;
  uint32_t flags = 0;          // SY_KERNEL_FLAG_* (ABI 1.1)
  uint32_t plugin_abi_minor = 0;  // the minor its plugin answered

  bool may_decline() const { return (flags & SY_KERNEL_FLAG_MAY_DECLINE) != 0; }
  // "plugin::name".
  std::string QualifiedName() const;
};

// Why a kernel is where it is in a slot's order.
enum class ChoiceReason : uint8_t { kPinned, kTuned, kPriority };
const char* ChoiceReasonName(ChoiceReason reason);  // "pinned", …

// A kernel and the variant to run it with.
struct KernelChoice {
  const KernelEntry* kernel = nullptr;
  int32_t variant = -1;
  const void* variant_config = nullptr;
  ChoiceReason reason = ChoiceReason::kPriority;
};

// Where a bucket's calls go. `choice` is an index into the slot's choices,
// or -1: every kernel declined, use the op's decomposition (or fail).
// `variant` >= 0 overrides the choice's variant (a tuned verdict).
struct BucketChoice {
  int16_t choice = 0;
  int32_t variant = -1;
  bool tuned = false;
  // Which kernels declined and why ("onednn::add.Tensor.f32.f32: numel 16
  // < 4096"), for explain; "" when none did.
  std::string declined;
};

// Filed by bucket signature (Note [Bucket signatures] in shape_bucket.h):
// a call finds its entry without building its ShapeBucket.
class BucketTable {
 public:
  const BucketChoice* Find(uint64_t signature) const {
    auto it = entries_.find(signature);
    return it == entries_.end() ? nullptr : &it->second.choice;
  }
  const BucketChoice* Find(const ShapeBucket& bucket) const {
    return Find(bucket.Signature());
  }
  size_t size() const { return entries_.size(); }

 private:
  friend class KernelRegistry;
  struct Entry {
    ShapeBucket bucket;  // what the signature stands for, for messages
    BucketChoice choice;
  };
  void Add(const ShapeBucket& bucket, BucketChoice choice) {
    entries_.try_emplace(bucket.Signature(), Entry{bucket, std::move(choice)});
  }
  absl::flat_hash_map<uint64_t, Entry> entries_;
};

struct DispatchSlot {
  DispatchSlot() = default;
  // Slots move only while a snapshot is built, before it is published.
  DispatchSlot(DispatchSlot&& other) noexcept
      : choices(std::move(other.choices)),
        needs_bucket(other.needs_bucket),
        buckets(other.buckets.load(std::memory_order_relaxed)) {}

  // Every kernel for this key in resolution order: pinned first, then a
  // key-wide tuned verdict, then by priority (ties: first registered).
  absl::InlinedVector<KernelChoice, 2> choices;
  // Read the bucket table before choices[0] (Note [Bucket tables]).
  bool needs_bucket = false;
  mutable std::atomic<const BucketTable*> buckets{nullptr};

  const BucketTable* bucket_table() const {
    return buckets.load(std::memory_order_acquire);
  }
};

struct OpDispatch {
  absl::flat_hash_map<DispatchKey, DispatchSlot> slots;

  const DispatchSlot* Find(DispatchKey key) const {
    auto it = slots.find(key);
    return it == slots.end() ? nullptr : &it->second;
  }
};

class KernelRegistry {
 public:
  KernelRegistry() = default;
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // Adds a batch (one plugin's kernels) and publishes the touched ops once.
  // Fails, adding nothing, if a kernel duplicates one of the same plugin
  // (same op, device type, dtypes and name). Linear in the batch and in the
  // touched ops' kernels.
  absl::Status Add(std::vector<std::unique_ptr<KernelEntry>> batch);

  // Withdraws every kernel of `plugin` and republishes the touched ops.
  void RemovePlugin(const PluginInstance* plugin);

  // Forces `kernel` ("plugin::name" or "name") for `op` on `device_type`
  // for every dtype key it serves. NotFound lists the kernels that exist.
  absl::Status Pin(OpDef* op, absl::string_view device_type,
                   absl::string_view kernel);
  void Unpin(OpDef* op, absl::string_view device_type);

  // A tuning verdict for one key — for every bucket (`bucket` empty) or for
  // one: kernel and variant. Below a pin, above priority. NotFound when no
  // such kernel serves the key; OutOfRange for a variant it lacks.
  absl::Status SetTunedChoice(OpDef* op, DispatchKey key,
                              std::optional<ShapeBucket> bucket,
                              absl::string_view kernel, int32_t variant);
  // Forgets every verdict of `op` (all keys and buckets).
  void ClearTunedChoices(OpDef* op);

  // Many verdicts at once (a tuner folding in its cache), republishing each
  // touched op once instead of once per verdict. With `replace_all`, every
  // earlier verdict of every op is forgotten first, in the same publication.
  // A verdict that names no kernel of its key, or a variant the kernel
  // lacks, is skipped; returns how many were taken.
  struct TunedChoice {
    OpDef* op = nullptr;
    DispatchKey key = 0;
    std::optional<ShapeBucket> bucket;
    std::string kernel;  // "plugin::name"
    int32_t variant = -1;
  };
  size_t SetTunedChoices(absl::Span<const TunedChoice> choices,
                         bool replace_all);

  // While active, every slot with more than one choice (kernels or
  // variants) reads its bucket table, so that calls of untuned buckets
  // reach the tuning hook (dispatch/tuning.h). Republishes every op.
  void SetTuningActive(bool active);
  bool tuning_active() const;

  // Remembers where calls of `bucket` go in `slot` of `op` (a decline
  // result). Ignored when the slot is no longer published (a plugin came or
  // went meanwhile) or its table is full.
  void RecordBucketChoice(const OpDef* op, const DispatchSlot* slot,
                          const ShapeBucket& bucket, BucketChoice choice);

  // Every kernel registered for `op`, in registration order.
  std::vector<const KernelEntry*> KernelsFor(const OpDef* op) const;

  // The plugin whose unload took the last kernel for (op, key) away, or ""
  // (for the message of a call that raced an unload).
  std::string WithdrawnBy(const OpDef* op, DispatchKey key) const;

 private:
  struct PinEntry {
    OpDef* op;
    std::string device_type;
    std::string kernel;
  };
  struct TunedKey {
    const OpDef* op;
    DispatchKey key;
    bool operator==(const TunedKey& o) const { return op == o.op && key == o.key; }
    template <typename H>
    friend H AbslHashValue(H h, const TunedKey& k) {
      return H::combine(std::move(h), k.op, k.key);
    }
  };
  struct Tuned {
    std::string kernel;
    int32_t variant = -1;
  };
  struct TunedVerdicts {
    std::optional<Tuned> all_buckets;
    absl::flat_hash_map<ShapeBucket, Tuned> per_bucket;
  };

  void RepublishLocked(OpDef* op);
  void BuildSlotLocked(const OpDef* op, DispatchKey key, DispatchSlot& slot);
  const KernelEntry* PinnedLocked(const OpDef* op, const std::string& device,
                                  const std::vector<const KernelEntry*>& c) const;

  mutable std::mutex mu_;
  // Every live kernel, per op in registration order.
  absl::flat_hash_map<const OpDef*, std::vector<std::unique_ptr<KernelEntry>>> by_op_;
  std::vector<PinEntry> pins_;
  absl::flat_hash_map<TunedKey, TunedVerdicts> tuned_;
  absl::flat_hash_map<OpDef*, std::unique_ptr<const OpDispatch>> current_;
  std::vector<std::unique_ptr<const OpDispatch>> retired_;
  std::vector<std::unique_ptr<const BucketTable>> tables_;  // live and retired
  std::vector<std::unique_ptr<KernelEntry>> retired_entries_;
  absl::flat_hash_map<TunedKey, std::string> withdrawn_;  // → plugin name
  uint64_t next_sequence_ = 0;
  bool tuning_active_ = false;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_
