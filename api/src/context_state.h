// What one sy_context_t owns: its runtime, and the entries behind its device
// and op handles (one handle per device and op, made on first use, so that
// looking a thing up twice gives the same handle and nothing leaks).
#ifndef SWITCHYARD_API_SRC_CONTEXT_STATE_H_
#define SWITCHYARD_API_SRC_CONTEXT_STATE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/src/handle_table.h"
#include "api/src/status.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/runtime/runtime.h"
#include "switchyard/switchyard.h"

namespace sy::fusion {
class Compiler;  // fusion/graph.h
}  // namespace sy::fusion

namespace sy::capi {

// A device as its handle sees it. The strings back sy_device_info_t and so
// live as long as the context, even after the device's plugin is unloaded.
struct DeviceEntry : HandleObject {
  static constexpr HandleKind kKind = HandleKind::kDevice;
  explicit DeviceEntry(ContextState* context) : HandleObject(kKind, context) {}
  Device* device = nullptr;  // check with ContextState::Resolve before use
  std::string label, type, plugin, name, vendor, driver_version;
  int32_t index = 0;
  int32_t compute_units = 0;
  uint64_t total_memory_bytes = 0;
  sy_device_t dl_device{};
  uint32_t float_flags = 0;
  uint64_t handle = 0;
};

struct OpArgEntry {
  std::string default_text;
  std::string kind_name;
};

struct OpEntry : HandleObject {
  static constexpr HandleKind kKind = HandleKind::kOp;
  explicit OpEntry(ContextState* context) : HandleObject(kKind, context) {}
  OpDef* def = nullptr;  // owned by the runtime's registry, never freed
  std::string base_name;
  std::string schema_text;
  std::string owner;
  std::vector<OpArgEntry> args;  // one per schema argument
  uint64_t handle = 0;
};

struct RecordEntry {
  LoadRecord record;
  std::string description;
};

// What sy_kernel_info_t points at for one kernel: copies that live as long
// as the context (a kernel's entry outlives its plugin's unload, but not
// its runtime).
struct KernelDescription {
  std::string name, plugin, device_type;
  std::vector<sy_dtype_t> dtypes;
  std::vector<std::string> variants;
  std::vector<const char*> variant_names;
};

struct ContextState : std::enable_shared_from_this<ContextState> {
  std::unique_ptr<Runtime> runtime;
  // Set by HandleTable::RemoveContext (Note [Lock-free handle table]).
  std::atomic<bool> retired{false};
  // The fusion compiler of sy_graph_compile (its kernel cache is shared by
  // the context's graphs), made on first use (c_graph.cc). Declared after
  // the runtime, so destroyed before it.
  std::shared_ptr<fusion::Compiler> FusionCompiler();

  // The handle of `device` / `op`, made on first use.
  absl::StatusOr<uint64_t> DeviceHandle(Device* device);
  absl::StatusOr<uint64_t> OpHandle(OpDef* op);

  // The live device behind an entry; FailedPrecondition once its plugin
  // was unloaded.
  absl::StatusOr<Device*> Resolve(const DeviceEntry& entry) const;

  int32_t RecordCount() const;
  // Load record `index`; OutOfRange outside [0, RecordCount()).
  absl::StatusOr<const RecordEntry*> Record(int32_t index);

  // The lasting copies behind sy_kernel_info_t for `kernel`.
  const KernelDescription& Describe(const KernelEntry& kernel);

 private:
  mutable std::mutex mu_;
  std::deque<DeviceEntry> devices_;
  std::deque<OpEntry> ops_;
  absl::flat_hash_map<const OpDef*, OpEntry*> op_index_;
  std::deque<RecordEntry> records_;  // append-only, like the runtime's
  std::deque<KernelDescription> kernels_;
  absl::flat_hash_map<const KernelEntry*, const KernelDescription*> kernel_index_;
  std::shared_ptr<fusion::Compiler> fusion_compiler_;  // guarded by mu_
};

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_CONTEXT_STATE_H_
