// The rocm plugin's entry point.
//
// sy_plugin_init checks the host and probes ROCm once per process
// (ProbeRocm: dlopen the HIP runtime, count the GPUs, register the code
// objects; rocm_device.h). `load` (once per runtime) registers the `rocm`
// device type — always, so that `switchyard info` lists it — and, when
// there is at least one GPU the plugin was built for, the kernels: the
// SDK's shared GPU kernel families (switchyard/gpu/kernel_list.h, compiled
// from sdk/gpu into this plugin with hipcc), then the plugin's own GEMMs.
// Without a GPU it registers no kernels and logs why ("no ROCm device: …"),
// and the rest of the process is unaffected. Nothing registers itself from
// a static initializer.
//
// The plugin has not yet run on AMD hardware: every load says so, and
// docs/rocm.md says what a vendor with a GPU runs to change that.
#include <span>
#include <string>
#include <string_view>

#include "hip_library.h"
#include "kernels/kernel_list.h"
#include "rocm_device.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::rocm {
namespace {

using ::sy::plugin::KernelSpec;
using ::sy::plugin::Log;
using ::sy::plugin::StrCat;

// "gfx90a gfx1030".
std::string BuiltList() {
  std::string out;
  for (std::string_view arch : BuiltArchitectures()) {
    if (!out.empty()) out.push_back(' ');
    out.append(arch);
  }
  return out;
}

sy_error_t* RegisterAllKernels(const sy_host_api_t* host,
                               sy_host_context_t* context) {
  for (std::span<const KernelSpec> family : gpu::AllSharedKernels()) {
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::RegisterKernels(host, context, "rocm", family));
  }
  return RegisterGemmKernels(host, context);
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "rocm plugin: load", [&]() -> sy_error_t* {
    const RocmProbe& probe = ProbeRocm();
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, &RocmDeviceApi()));
    if (probe.device_count == 0) {
      // Info, not a warning: a machine without an AMD GPU is normal, and
      // the load record carries the line (`switchyard info` shows it).
      Log(host, context, SY_LOG_INFO,
          StrCat(probe.reason, "; no rocm kernels were registered"));
      return nullptr;
    }
    std::string devices;
    int built = 0;
    for (int i = 0; i < probe.device_count; ++i) {
      devices += StrCat(i == 0 ? "" : ", ", "rocm:", i, " ", probe.arch[i],
                        probe.arch_built[i] ? "" : " (not built for)");
      built += probe.arch_built[i] ? 1 : 0;
    }
    const std::string kernels_for = StrCat("kernels built for ", BuiltList());
    if (built == 0) {
      Log(host, context, SY_LOG_WARNING,
          StrCat("no rocm kernels were registered: ", probe.device_count,
                 " ROCm device(s) (", devices, ") but ", kernels_for,
                 "; rebuild the plugin with -DSWITCHYARD_ROCM_ARCHITECTURES "
                 "naming the GPU's gfx architecture (rocminfo shows it)"));
      return nullptr;
    }
    // A warning on purpose: results from a plugin that has never been
    // validated on hardware deserve a look before anyone relies on them.
    Log(host, context, SY_LOG_WARNING,
        StrCat(probe.device_count, " ROCm device(s) (", devices, "); HIP ",
               HipVersionString(probe.runtime_version), " from ",
               probe.library, "; ", kernels_for,
               ". The rocm plugin has not yet run on AMD hardware: run "
               "switchyard-conformance on rocm.json and rocm_op_harness_test "
               "before relying on its results (docs/rocm.md)"));
    return RegisterAllKernels(host, context);
  });
}

void Unload() { plugin::SetHost(nullptr); }

// Resident: the HIP runtime keeps threads and its own state until the
// process exits, so the library must never be closed (plugin.h).
constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 1,  // resident
    .name = "rocm",
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
    .flags = SY_PLUGIN_FLAG_RESIDENT,
    .num_options = 0,
    .options = nullptr,
};

}  // namespace
}  // namespace sy::rocm

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  // ProbeRocm: once per process, before any runtime loads the plugin.
  return sy::plugin::InitPlugin(host, out_plugin, sy::rocm::kPluginApi,
                                "rocm plugin", [](const sy_host_api_t*) {
                                  sy::rocm::ProbeRocm();
                                  return static_cast<sy_error_t*>(nullptr);
                                });
}
