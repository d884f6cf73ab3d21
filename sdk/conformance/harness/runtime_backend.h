// RuntimeBackend: the backend under test as sy::core::Runtime sees a device —
// the full core (binding, shape functions, views, decompositions, dispatch)
// in front of whatever plugins provide the device's kernels.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "sdk/conformance/harness/backend.h"

namespace sy::core {
class Runtime;
}  // namespace sy::core

namespace sy::op_harness {

struct RuntimeBackendOptions {
  // The device under test, as Runtime::GetDevice takes it: "cpu", "cuda:0".
  std::string device = "cpu";
  // Plugin manifests (or folders of them) to load. Nothing else is loaded:
  // neither the environment's SWITCHYARD_PLUGIN_PATH nor the default
  // folder, so a run tests exactly the plugins named here.
  std::vector<std::string> plugin_paths;
  // Run ops without a kernel on cpu with copies (SWITCHYARD_CPU_FALLBACK).
  bool cpu_fallback = false;
  // Plugin options, "plugin.option=value" each (e.g. a threshold below
  // which a plugin declines, set to 1 so that its kernels take every call).
  std::vector<std::string> plugin_options;
};

// Creates the runtime, loads the plugins and finds the device. Errors name
// the plugin or device that failed, with the load records' reasons.
Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackend(
    const RuntimeBackendOptions& options);

// The same over a runtime the caller made, loaded and prepared (e.g. kernel
// choices set), for tools that inspect the runtime too
// (switchyard-conformance). Borrowed: `runtime` must outlive the backend
// and every tensor it made. Errors: NOT_FOUND for an unknown device.
Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackendOn(
    core::Runtime& runtime, const std::string& device);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_
