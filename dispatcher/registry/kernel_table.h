// Kernel registrations and the dispatch snapshots built from them.
//
// Note [Dispatch snapshots]: each op owns a pointer to an immutable
// OpDispatch, a hash map from (device type, input dtypes) to the chosen
// kernel. A call loads that pointer with acquire order, looks up its key and
// calls the kernel: no lock, no string work, no allocation. Writers (plugin
// loads, pins, autotune decisions) take the registry's mutex, build a fresh
// OpDispatch for each op they touch, and publish it with a release store.
// Replaced snapshots are retired, not freed, until the registry dies: a call
// may still be reading one. Their number is bounded by the number of
// registration batches, which are few (one per plugin load, pin or tuning
// decision).
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "switchyard/plugin.h"

namespace sy::core {

class OpDef;
class PluginInstance;

// At most this many tensor arguments take part in a dispatch key.
inline constexpr int kMaxKeyedTensorArgs = 6;

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

  // "plugin::name".
  std::string QualifiedName() const;
};

struct DispatchSlot {
  const KernelEntry* kernel = nullptr;  // the one calls run
  int32_t variant = -1;
  const void* variant_config = nullptr;
  // Every kernel for this key, best first (the autotuner's candidates).
  std::vector<const KernelEntry*> candidates;
};

struct OpDispatch {
  absl::flat_hash_map<DispatchKey, DispatchSlot> slots;

  const DispatchSlot* Find(DispatchKey key) const {
    auto it = slots.find(key);
    return it == slots.end() ? nullptr : &it->second;
  }
};

// How the kernel for one key was chosen, for `switchyard info` and tests.
enum class ChoiceReason { kPinned, kTuned, kPriority };

class KernelRegistry {
 public:
  KernelRegistry() = default;
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // Adds a batch (one plugin's kernels) and publishes the touched ops once.
  // Fails, adding nothing, if a kernel duplicates one of the same plugin
  // (same op, device type, dtypes and name).
  absl::Status Add(std::vector<std::unique_ptr<KernelEntry>> batch);

  // Withdraws every kernel of `plugin` and republishes the touched ops.
  void RemovePlugin(const PluginInstance* plugin);

  // Forces `kernel` ("plugin::name" or "name") for `op` on `device_type`
  // for every dtype key it serves. NotFound lists the kernels that exist.
  absl::Status Pin(OpDef* op, absl::string_view device_type,
                   absl::string_view kernel);
  void Unpin(OpDef* op, absl::string_view device_type);

  // The autotuner's verdict for one key: kernel and variant. Below a pin,
  // above priority.
  absl::Status SetTunedChoice(OpDef* op, DispatchKey key,
                              absl::string_view kernel, int32_t variant);

  // Every kernel registered for `op`, in registration order.
  std::vector<const KernelEntry*> KernelsFor(const OpDef* op) const;

  // Why the published kernel for (op, key) was chosen.
  ChoiceReason ReasonFor(const OpDef* op, DispatchKey key) const;

 private:
  struct PinEntry {
    OpDef* op;
    std::string device_type;
    std::string kernel;
  };
  struct Tuned {
    std::string kernel;
    int32_t variant;
  };

  void RepublishLocked(OpDef* op);
  const KernelEntry* PinnedLocked(const OpDef* op, const std::string& device,
                                  const std::vector<const KernelEntry*>& c) const;

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<KernelEntry>> entries_;
  std::vector<PinEntry> pins_;
  absl::flat_hash_map<std::pair<const OpDef*, DispatchKey>, Tuned> tuned_;
  absl::flat_hash_map<OpDef*, std::unique_ptr<const OpDispatch>> current_;
  std::vector<std::unique_ptr<const OpDispatch>> retired_;
  std::vector<std::unique_ptr<KernelEntry>> retired_entries_;
  uint64_t next_sequence_ = 0;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_KERNEL_TABLE_H_
