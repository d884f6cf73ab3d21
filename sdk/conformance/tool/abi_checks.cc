#include "sdk/conformance/tool/abi_checks.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sdk/conformance/tool/elf_exports.h"
#include "switchyard/plugin.h"

namespace sy::conformance {
namespace {

constexpr char kAbi[] = "abi";

// The ABI 1.0 sizes the loader holds every table to (plugin_library.cc
// CheckTable, registration_session.cc, device.cc ValidateDeviceApi).
std::string LoaderSizeRules() {
  return absl::StrCat(
      "the loader accepted every table: sy_plugin_api_t struct_size >= ",
      SY_STRUCT_SIZE(sy_plugin_api_t, load), " (through 'load'; 'unload' read "
      "only if covered), sy_kernel_desc_t >= ",
      SY_STRUCT_SIZE(sy_kernel_desc_t, num_variants), ", sy_kernel_variant_t >= ",
      SY_STRUCT_SIZE(sy_kernel_variant_t, config_size), ", sy_schema_desc_t >= ",
      SY_STRUCT_SIZE(sy_schema_desc_t, shape_data), ", sy_device_api_t >= ",
      SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms),
      " with every slot non-null");
}

}  // namespace

std::vector<PluginKernel> ListKernels(const sy::Context& context,
                                      const std::string& plugin) {
  std::vector<PluginKernel> out;
  for (const sy::Op& op : context.ops().value_or({})) {
    sy::Result<std::vector<sy::KernelInfo>> kernels = op.kernels();
    if (!kernels.ok() || kernels->empty()) continue;
    const sy::OpInfo info = op.info().value_or({});
    for (const sy::KernelInfo& k : *kernels) {
      if (k.plugin != plugin) continue;
      std::vector<std::string> dtypes;
      for (sy_dtype_t d : k.dtypes) {
        dtypes.push_back(d == SY_DTYPE_NONE ? "none" : sy::DTypeName(d));
      }
      out.push_back({k.name, info.full_name, info.owner, k.device_type,
                     absl::StrJoin(dtypes, ","), k.priority, info.owner == "core"});
    }
  }
  return out;
}

std::vector<std::string> ProvidedDeviceTypes(const sy::Context& context,
                                             const PluginTarget& target,
                                             const sy::LoadRecord& record) {
  std::vector<std::string> out;
  for (const sy::Device& device : context.devices().value_or({})) {
    const sy::DeviceInfo info = device.info().value_or({});
    if (info.plugin == target.manifest.name &&
        std::find(out.begin(), out.end(), info.type) == out.end()) {
      out.push_back(info.type);
    }
  }
  if (out.empty() && record.outcome == SY_LOAD_LOADED_NO_DEVICES) {
    out = target.manifest.device_types;
  }
  return out;
}

void CheckExports(const PluginTarget& target, Report& report) {
  const std::string name = "exports only " SY_PLUGIN_INIT_SYMBOL;
  absl::StatusOr<std::vector<std::string>> symbols =
      ExportedSymbols(target.library_path);
  if (!symbols.ok()) {
    report.Fail(kAbi, name, std::string(symbols.status().message()));
    return;
  }
  bool has_init = false;
  std::vector<std::string> extra;
  for (const std::string& s : *symbols) {
    if (s == SY_PLUGIN_INIT_SYMBOL) has_init = true;
    else extra.push_back(s);
  }
  if (!has_init) {
    report.Fail(kAbi, name,
                absl::StrCat(target.library_path, " does not export ",
                             SY_PLUGIN_INIT_SYMBOL, "; mark the entry point "
                             "SY_PLUGIN_EXPORT"));
  } else if (!extra.empty()) {
    const size_t shown = std::min<size_t>(extra.size(), 10);
    report.Fail(kAbi, name,
                absl::StrCat(
                    "the library also exports ", extra.size(), " other symbol(s): ",
                    absl::StrJoin(extra.begin(), extra.begin() + shown, ", "),
                    extra.size() > shown ? ", …" : "",
                    "; a plugin exports only ", SY_PLUGIN_INIT_SYMBOL,
                    " — build it with switchyard_add_plugin() (hidden "
                    "visibility and a version script), or give the other "
                    "symbols hidden visibility"));
  } else {
    report.Pass(kAbi, name, "the dynamic symbol table exports only " SY_PLUGIN_INIT_SYMBOL);
  }
}

void CheckLoaded(const sy::Context& context, const PluginTarget& target,
                 const sy::LoadRecord& record, Report& report) {
  const std::string& plugin = target.manifest.name;
  report.Pass(kAbi, "load record",
              absl::StrCat("loaded in ", absl::StrFormat("%.1f", record.load_ms),
                           " ms; version '", record.plugin_version, "'; ",
                           record.num_devices, " device type(s), ",
                           record.num_schemas, " schema(s), ",
                           record.num_kernels, " kernel(s)"));

  // ABI versions: the loader refuses a foreign major and a minor above the
  // host's, so a loaded plugin meets those; the manifest's agreement with
  // the table is not enforced by the loader.
  const std::string declared =
      absl::StrCat(record.plugin_abi_major, ".", record.plugin_abi_minor);
  const std::string host = absl::StrCat(SY_PLUGIN_ABI_MAJOR, ".", SY_PLUGIN_ABI_MINOR);
  if (record.plugin_abi_major != SY_PLUGIN_ABI_MAJOR ||
      record.plugin_abi_minor > SY_PLUGIN_ABI_MINOR) {
    report.Fail(kAbi, "ABI version",
                absl::StrCat("the plugin declares ABI ", declared,
                             " but this host speaks ", host));
  } else if (!target.synthesized &&
             target.manifest.abi_major != record.plugin_abi_major) {
    report.Fail(kAbi, "ABI version",
                absl::StrCat("the plugin's table declares ABI ", declared,
                             " but its manifest says ", target.manifest.abi_major,
                             ".", target.manifest.abi_minor,
                             "; regenerate the manifest with the plugin's build"));
  } else {
    report.Pass(kAbi, "ABI version",
                absl::StrCat("the plugin uses ABI ", declared, " (host ", host,
                             target.synthesized
                                 ? ""
                                 : absl::StrCat(", manifest built against ",
                                                target.manifest.abi_major, ".",
                                                target.manifest.abi_minor),
                             ")"));
  }
  report.Pass(kAbi, "struct sizes", LoaderSizeRules());

  // Kernels: registration already refuses unknown op names, so every kernel
  // names an op; what remains is whose op it is and whether its device type
  // exists and is declared.
  const std::vector<PluginKernel> kernels = ListKernels(context, plugin);
  const std::vector<std::string> provided = ProvidedDeviceTypes(context, target, record);
  std::set<std::string> core_ops, own_ops, other_ops, kernel_types;
  for (const PluginKernel& k : kernels) {
    kernel_types.insert(k.device_type);
    if (k.core_op) core_ops.insert(k.op_name);
    else if (k.op_owner == plugin) own_ops.insert(k.op_name);
    else other_ops.insert(k.op_name);
  }
  if (kernels.empty() && provided.empty()) {
    report.Fail(kAbi, "registrations",
                "the plugin registered no device type and no kernel; its load "
                "slot must register what it provides");
  } else {
    report.Pass(kAbi, "kernels for known ops",
                absl::StrCat(kernels.size(), " kernel(s) for ", core_ops.size(),
                             " core op(s)",
                             own_ops.empty() ? ""
                                             : absl::StrCat(", ", own_ops.size(),
                                                            " op(s) of its own namespace"),
                             other_ops.empty()
                                 ? ""
                                 : absl::StrCat(", ", other_ops.size(),
                                                " op(s) of other plugins (",
                                                absl::StrJoin(other_ops, ", "), ")"),
                             kernels.empty() ? "" : "; every one names a registered op"));
  }
  // A device type is provided when a device of it exists, or when a
  // plugin that provides it loaded without devices (its record says so).
  std::set<std::string> known(provided.begin(), provided.end());
  for (const sy::Device& device : context.devices().value_or({})) {
    known.insert(device.info().value_or({}).type);
  }
  std::vector<std::string> unprovided;
  for (const std::string& type : kernel_types) {
    if (!known.contains(type)) unprovided.push_back(type);
  }
  if (unprovided.empty()) {
    report.Pass(kAbi, "kernel device types",
                kernel_types.empty()
                    ? "no kernels"
                    : absl::StrCat("kernels for ", absl::StrJoin(kernel_types, ", "),
                                   ", each provided by a loaded plugin"));
  } else {
    report.SkipCheck(kAbi, "kernel device types",
                     absl::StrCat("no loaded plugin provides ",
                                  absl::StrJoin(unprovided, ", "),
                                  "; those kernels cannot be run here"));
  }
  if (target.synthesized) {
    report.SkipCheck(kAbi, "manifest device_types",
                     "no manifest came with the library (one was made for the run)");
    return;
  }
  std::set<std::string> declared_types(target.manifest.device_types.begin(),
                                        target.manifest.device_types.end());
  std::vector<std::string> undeclared;
  for (const std::string& t : provided) {
    if (!declared_types.contains(t)) undeclared.push_back(t);
  }
  for (const std::string& t : kernel_types) {
    if (!declared_types.contains(t)) undeclared.push_back(t);
  }
  if (undeclared.empty()) {
    report.Pass(kAbi, "manifest device_types",
                absl::StrCat("declares ", absl::StrJoin(declared_types, ", "),
                             ", covering what the plugin registers"));
  } else {
    report.Fail(kAbi, "manifest device_types",
                absl::StrCat("the plugin registers device type(s) ",
                             absl::StrJoin(undeclared, ", "),
                             " that its manifest does not list; add them to "
                             "DEVICE_TYPES in switchyard_add_plugin()"));
  }
}

}  // namespace sy::conformance
