// myvendor's entry point. sy_plugin_init checks the host (once per
// process); `load` registers the device type and the kernels (once per
// runtime that loads the plugin). Nothing registers itself from a static
// initializer.
#include "device.h"
#include "kernels.h"
#include "switchyard/plugin.hpp"

namespace myvendor {
namespace {

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return sy::plugin::Guard(host, "myvendor: load", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, &DeviceApi()));
    return sy::plugin::RegisterKernels(host, context, kDeviceType, Kernels());
  });
}

void Unload() { sy::plugin::SetHost(nullptr); }

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 0,  // the newest minor whose fields this plugin reads or fills
    .name = "myvendor",  // must equal the manifest's name
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
};

}  // namespace
}  // namespace myvendor

// The SDK's InitPlugin checks the host's versions, keeps its table and
// hands out ours.
extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(host, out_plugin, myvendor::kPluginApi, "myvendor");
}
