#include "api/src/context_state.h"

#include <charconv>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/src/handle_table.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::capi {
namespace {

// A default as schema text prints it; the schema printer keeps its own
// formatter private, and bindings want one argument's default at a time.
std::string DefaultText(const SchemaArg& arg) {
  if (!arg.has_default) return "";
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(double v) const {
      char buf[64];
      const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
      std::string s(buf, r.ptr);
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::string& v) const {
      return absl::StrCat("\"", v, "\"");
    }
    std::string operator()(sy_dtype_t v) const { return std::string(DTypeName(v)); }
  };
  return std::visit(Visitor{}, arg.default_value);
}

}  // namespace

absl::StatusOr<uint64_t> ContextState::DeviceHandle(Device* device) {
  std::lock_guard<std::mutex> lock(mu_);
  // A device of an unloaded plugin keeps its (stale) entry; a new device at
  // the same address is told apart by its label.
  for (const DeviceEntry& entry : devices_) {
    if (entry.device == device && entry.label == device->label() &&
        entry.handle != 0) {
      return entry.handle;
    }
  }
  DeviceEntry entry(this);
  entry.device = device;
  entry.label = device->label();
  entry.type = device->type().name();
  entry.plugin = device->type().plugin() ? device->type().plugin()->name() : "";
  const DeviceProperties& p = device->properties();
  entry.name = p.name;
  entry.vendor = p.vendor;
  entry.driver_version = p.driver_version;
  entry.index = device->index();
  entry.compute_units = p.compute_units;
  entry.total_memory_bytes = p.total_memory_bytes;
  entry.dl_device = device->dl_device();
  entry.float_flags = p.float_flags;
  devices_.push_back(std::move(entry));
  absl::StatusOr<uint64_t> handle = HandleTable::Instance().Add(&devices_.back());
  // On failure the entry stays (unused): a reader may have seen it during
  // the moment it was published.
  if (!handle.ok()) return handle.status();
  devices_.back().handle = *handle;
  return *handle;
}

absl::StatusOr<uint64_t> ContextState::OpHandle(OpDef* op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = op_index_.find(op); it != op_index_.end()) return it->second->handle;
  OpEntry entry(this);
  entry.def = op;
  const Schema& schema = op->schema();
  entry.base_name = schema.BaseName();
  entry.schema_text = schema.ToString();
  entry.owner = op->owner().empty() ? "core" : op->owner();
  for (const SchemaArg& arg : schema.args) {
    entry.args.push_back(OpArgEntry{
        DefaultText(arg),
        absl::StrCat(AsAbsl(ArgKindName(arg.kind)), arg.optional ? "?" : "")});
  }
  ops_.push_back(std::move(entry));
  absl::StatusOr<uint64_t> handle = HandleTable::Instance().Add(&ops_.back());
  if (!handle.ok()) return handle.status();  // the entry stays, as above
  ops_.back().handle = *handle;
  op_index_[op] = &ops_.back();
  return *handle;
}

absl::StatusOr<Device*> ContextState::Resolve(const DeviceEntry& entry) const {
  Device* device = runtime->state().devices.FindDevice(entry.label);
  if (device != entry.device) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device '", entry.label, "' is gone: plugin '", entry.plugin,
        "' that provided it was unloaded; look the device up again after "
        "loading a plugin that provides it"));
  }
  return device;
}

int32_t ContextState::RecordCount() const {
  return static_cast<int32_t>(runtime->LoadRecords().size());
}

absl::StatusOr<const RecordEntry*> ContextState::Record(int32_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index < 0 || static_cast<size_t>(index) >= records_.size()) {
    std::vector<LoadRecord> records = runtime->LoadRecords();
    for (size_t i = records_.size(); i < records.size(); ++i) {
      std::string description = DescribeLoadRecord(records[i]);
      records_.push_back(RecordEntry{std::move(records[i]), std::move(description)});
    }
  }
  if (index < 0 || static_cast<size_t>(index) >= records_.size()) {
    return absl::OutOfRangeError(absl::StrCat(
        "load record index ", index, " is out of range: there are ",
        records_.size(), " (see sy_context_plugin_record_count)"));
  }
  return &records_[index];
}

const KernelDescription& ContextState::Describe(const KernelEntry& kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = kernel_index_.find(&kernel); it != kernel_index_.end()) {
    return *it->second;
  }
  KernelDescription& d = kernels_.emplace_back();
  d.name = kernel.QualifiedName();
  d.plugin = kernel.plugin != nullptr ? kernel.plugin->name() : "";
  d.device_type = kernel.device_type_name;
  d.dtypes = kernel.dtypes;
  for (const KernelVariant& v : kernel.variants) d.variants.push_back(v.name);
  for (const std::string& v : d.variants) d.variant_names.push_back(v.c_str());
  kernel_index_[&kernel] = &d;
  return d;
}

}  // namespace sy::capi
