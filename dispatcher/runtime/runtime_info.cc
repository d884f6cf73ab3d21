// Runtime::Info — everything `switchyard info --json` shows.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/runtime/runtime.h"
#include "dispatcher/base/version.h"
#include "nlohmann/json.hpp"

namespace sy::core {
namespace {

nlohmann::json DeviceJson(const Device& device) {
  const DeviceProperties& p = device.properties();
  const AllocatorStats stats = device.allocator().stats();
  return {
      {"label", device.label()},
      {"type", device.type().name()},
      {"index", device.index()},
      {"plugin", device.type().plugin() ? device.type().plugin()->name() : ""},
      {"name", p.name},
      {"vendor", p.vendor},
      {"driver_version", p.driver_version},
      {"total_memory_bytes", p.total_memory_bytes},
      {"compute_units", p.compute_units},
      {"float_flags", p.float_flags},
      {"allocator",
       {{"allocated_bytes", stats.allocated_bytes},
        {"reserved_bytes", stats.reserved_bytes},
        {"peak_allocated_bytes", stats.peak_allocated_bytes},
        {"cache_hits", stats.cache_hits},
        {"device_allocations", stats.device_allocations}}},
  };
}

}  // namespace

nlohmann::json Runtime::Info() const {
  nlohmann::json info;
  info["version"] = kSwitchyardVersion;
  info["abi"] = absl::StrCat(SY_PLUGIN_ABI_MAJOR, ".", SY_PLUGIN_ABI_MINOR);
  info["cpu_fallback"] = state().cpu_fallback;
  info["plugins"] = nlohmann::json::array();
  for (const LoadRecord& record : LoadRecords()) {
    info["plugins"].push_back(LoadRecordToJson(record));
  }
  info["devices"] = nlohmann::json::array();
  for (Device* device : Devices()) info["devices"].push_back(DeviceJson(*device));
  info["ops"] = nlohmann::json::array();
  for (OpDef* op : state().ops.All()) {
    nlohmann::json kernels = nlohmann::json::array();
    const OpDispatch* table = op->dispatch();
    for (const KernelEntry* kernel : state().kernels.KernelsFor(op)) {
      std::vector<std::string> dtypes;
      for (sy_dtype_t d : kernel->dtypes) dtypes.emplace_back(DTypeName(d));
      const DispatchSlot* slot = table ? table->Find(kernel->key) : nullptr;
      // The slot's first choice is what runs unless a bucket of a call
      // says otherwise (a decline or a per-bucket verdict).
      const bool chosen = slot != nullptr && slot->choices.front().kernel == kernel;
      std::vector<std::string> variants;
      for (const KernelVariant& v : kernel->variants) variants.push_back(v.name);
      nlohmann::json k = {{"name", kernel->QualifiedName()},
                          {"plugin", kernel->plugin ? kernel->plugin->name() : ""},
                          {"device_type", kernel->device_type_name},
                          {"dtypes", dtypes},
                          {"priority", kernel->priority},
                          {"variants", variants},
                          {"may_decline", kernel->may_decline()},
                          {"chosen", chosen}};
      if (chosen) {
        k["chosen_because"] = ChoiceReasonName(slot->choices.front().reason);
      }
      kernels.push_back(std::move(k));
    }
    info["ops"].push_back({{"name", op->full_name()},
                           {"schema", op->schema().ToString()},
                           {"owner", op->owner().empty() ? "core" : op->owner()},
                           {"decomposition", op->decomposition() != nullptr},
                           {"view", op->kind() == OpKind::kView},
                           {"kernels", std::move(kernels)}});
  }
  return info;
}

}  // namespace sy::core
