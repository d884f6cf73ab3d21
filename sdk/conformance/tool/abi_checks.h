// The ABI part of conformance: what the plugin's library exports, how its
// load went, which ABI it declares, the tables it handed the host, and
// which kernels it registered. Everything here reads the file or the
// runtime after the load; nothing calls the plugin.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_

#include <string>
#include <vector>

#include "dispatcher/registry/load_record.h"
#include "dispatcher/runtime/runtime.h"
#include "sdk/conformance/tool/plugin_target.h"
#include "sdk/conformance/tool/report.h"

namespace sy::core {
class OpDef;
struct KernelEntry;
}  // namespace sy::core

namespace sy::conformance {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

// One kernel the plugin registered, as the runtime's kernel table holds it.
struct PluginKernel {
  const KernelEntry* entry = nullptr;
  OpDef* op = nullptr;
  std::string op_name;       // "add.Tensor"
  std::string device_type;   // "cpu"
  std::string dtypes;        // "f32,f32" (one per tensor argument)
  bool core_op = false;      // of core op set v1 (not a plugin's namespace)
};

// Every kernel plugin `plugin` registered in `runtime`, in registration
// order.
std::vector<PluginKernel> ListKernels(const Runtime& runtime,
                                      const std::string& plugin);

// The device types `plugin` provides in `runtime` (empty: kernel-only).
std::vector<std::string> ProvidedDeviceTypes(const Runtime& runtime,
                                             const std::string& plugin);

// Before loading: the library's dynamic symbol table holds sy_plugin_init
// and nothing else.
void CheckExports(const PluginTarget& target, Report& report);

// After loading: the load record (`record`) says loaded; the ABI major and
// minor the plugin's table declares are this host's major and at most its
// minor, and agree with the manifest; the struct sizes the loader checked;
// its kernels are for known ops, on known device types, declared in the
// manifest's device_types.
void CheckLoaded(const Runtime& runtime, const PluginTarget& target,
                 const LoadRecord& record, Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_
