// RuntimeBackend: the backend under test as an application sees a device
// through the public C++ API (switchyard.hpp, libswitchyard.so) — the full
// core (binding, shape functions, views, decompositions, dispatch) in front
// of whatever plugins provide the device's kernels.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "sdk/conformance/harness/backend.h"

namespace sy {
class Context;  // switchyard.hpp
}  // namespace sy

namespace sy::op_harness {

struct RuntimeBackendOptions {
  // The device under test, as sy::Context::device takes it: "cpu", "cuda:0".
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

// Creates a context, loads the plugins and finds the device. Errors name
// the plugin or device that failed, with the load records' reasons.
Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackend(
    const RuntimeBackendOptions& options);

// The same over a context the caller made, loaded and prepared (e.g. pins
// set), for tools that inspect the context too (switchyard-conformance).
// Borrowed: `context` must outlive the backend and every tensor it made.
// Errors: NOT_FOUND for an unknown device.
Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackendOn(
    const sy::Context& context, const std::string& device);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_RUNTIME_BACKEND_H_
