// The ABI part of conformance: what the plugin's library exports, how its
// load went, which ABI it declares, and which kernels it registered — read
// from the file and, after the load, through the public API (the load
// record, devices, ops and their kernels). Nothing here calls the plugin.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_

#include <string>
#include <vector>

#include "sdk/conformance/tool/plugin_target.h"
#include "sdk/conformance/tool/report.h"
#include "switchyard/switchyard.hpp"

namespace sy::conformance {

// One kernel the plugin registered, as the context lists it.
struct PluginKernel {
  std::string name;          // "plugin::kernel", what a route names
  std::string op_name;       // "add.Tensor"
  std::string op_owner;      // "core", or the plugin that registered the op
  std::string device_type;   // "cpu"
  std::string dtypes;        // "f32,f32" (one per tensor argument)
  int32_t priority = 0;
  bool core_op = false;      // of core op set v1 (not a plugin's namespace)
};

// Every kernel plugin `plugin` registered in `context`, in op order, each
// op's in registration order.
std::vector<PluginKernel> ListKernels(const sy::Context& context, const std::string& plugin);

// The device types `plugin` provides in `context` (empty: kernel-only):
// those of its devices, and — when it loaded without devices — those its
// manifest declares.
std::vector<std::string> ProvidedDeviceTypes(const sy::Context& context,
                                             const PluginTarget& target,
                                             const sy::LoadRecord& record);

// Before loading: the library's dynamic symbol table holds sy_plugin_init
// and nothing else.
void CheckExports(const PluginTarget& target, Report& report);

// After loading: the load record (`record`) says loaded; the ABI major and
// minor the plugin's table declares are this host's major and at most its
// minor, and agree with the manifest; the struct sizes the loader checked;
// its kernels are for known ops, on known device types, declared in the
// manifest's device_types.
void CheckLoaded(const sy::Context& context, const PluginTarget& target,
                 const sy::LoadRecord& record, Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_ABI_CHECKS_H_
