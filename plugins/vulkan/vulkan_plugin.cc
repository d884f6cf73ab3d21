// The vulkan plugin's entry point.
//
// sy_plugin_init checks the host and probes Vulkan (vk_context.h: the
// loader is dlopened, so a machine without it still loads the plugin);
// `unload` releases the probe, the last release destroying the devices. `load` (once per runtime) registers the `vulkan`
// device type — always, so that `switchyard info` lists it — and, when
// there is at least one device, the kernels, family by family in the order
// below, each for the dtypes every device can hold. Without a device it
// registers no kernels and logs why ("no Vulkan device: …"), and the rest
// of the process is unaffected. Nothing registers itself from a static
// initializer.
//
// Fusion: where the plugin is built with shaderc (SY_VULKAN_FUSION) and
// there is a device, the device table carries the fusion extension
// (fused/fusion_extension.h; docs/vulkan.md, "Fusion").
#include <string>

#include "kernels/kernel_util.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"
#include "vk_context.h"
#include "vk_device_api.h"
#if SY_VULKAN_FUSION
#include "fused/fusion_extension.h"
#endif

namespace sy::vulkan {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

// 1.1: the extension chain (fusion); 1.2: the devices' float_flags.
constexpr uint32_t kAbiMinorUsed = 2;
static_assert(kAbiMinorUsed <= SY_PLUGIN_ABI_MINOR);

void Log(const sy_host_api_t* host, sy_host_context_t* context,
         sy_log_level_t level, const std::string& message) {
  if (SY_STRUCT_HAS(host, sy_host_api_t, log) && host->log != nullptr) {
    host->log(context, level, message.c_str());
  }
}

// What every device can do: kernels are registered per device type, so a
// dtype is offered only when all devices hold it.
Caps CommonCaps(const Probe& probe) {
  Caps caps = probe.devices.front()->caps;
  for (const auto& ctx : probe.devices) {
    caps.storage16 = caps.storage16 && ctx->caps.storage16;
    caps.float16 = caps.float16 && ctx->caps.float16;
    caps.storage8 = caps.storage8 && ctx->caps.storage8;
    caps.int64 = caps.int64 && ctx->caps.int64;
    caps.float64 = caps.float64 && ctx->caps.float64;
  }
  return caps;
}

const KernelList& Kernels(const Caps& caps) {
  static const KernelList list = [&] {
    KernelList l;
    AddCreationKernels(caps, l);
    AddUnaryKernels(caps, l);
    AddBinaryKernels(caps, l);
    AddCompareKernels(caps, l);
    AddReductionKernels(caps, l);
    AddNormKernels(caps, l);
    AddMatmulKernels(caps, l);
    AddLayoutKernels(caps, l);
    return l;
  }();
  return list;
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "vulkan plugin: load", [&]() -> sy_error_t* {
    if (!SY_STRUCT_HAS(host, sy_host_api_t, register_device) ||
        host->register_device == nullptr) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       "vulkan plugin: load: the host table has no "
                       "register_device slot; the host is damaged or older "
                       "than ABI 1.0");
    }
    const Probe& probe = ProbeVulkan();
    const sy_device_api_t* api = &VulkanDeviceApi();
#if SY_VULKAN_FUSION
    if (!probe.devices.empty()) api = &WithFusionHooks(*api, CommonCaps(probe));
#endif
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, api));
    if (probe.devices.empty()) {
      // Info, not a warning: a machine without Vulkan is normal, and the
      // load record carries the line (`switchyard info` shows it).
      Log(host, context, SY_LOG_INFO,
          StrCat(probe.reason, "; no vulkan kernels were registered"));
      return nullptr;
    }
    const Caps caps = CommonCaps(probe);
    Log(host, context, SY_LOG_INFO,
        StrCat(probe.devices.size(), " Vulkan device(s): ", probe.summary,
               caps.float64 ? "" : "; no shaderFloat64, so no exp/log/… kernels",
               caps.storage16 ? "" : "; no 16-bit storage, so no f16 kernels",
               caps.nv_cooperative_matrix ? "; f16 matmul on cooperative matrices"
                                          : ""));
    for (const std::string& note : probe.notes) {
      Log(host, context, SY_LOG_INFO, StrCat("Vulkan device: ", note));
    }
    for (const std::string& skipped : probe.skipped) {
      Log(host, context, SY_LOG_INFO, StrCat("Vulkan device left out: ", skipped));
    }
    return plugin::RegisterKernels(host, context, "vulkan", Kernels(caps).specs());
  });
}

// The host table is not forgotten here: it is the same static table for
// every opening of the library, and a new opening's sy_plugin_init may
// already have set it again (Note [Probe lifetime], vk_context.cc).
void Unload() {
  DestroyLeftovers();
  ReleaseVulkan();
}

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = kAbiMinorUsed,
    .name = "vulkan",
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
};

sy_error_t* Init(const sy_host_api_t* host,
                 const sy_plugin_api_t** out_plugin) {
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckHost(host, out_plugin, "vulkan plugin", kAbiMinorUsed));
  plugin::SetHost(host);
  AcquireVulkan();  // probes unless a probe is alive; unload releases it
  *out_plugin = &kPluginApi;
  return nullptr;
}

}  // namespace
}  // namespace sy::vulkan

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  if (out_plugin != nullptr) *out_plugin = nullptr;
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    return nullptr;
  }
  return sy::plugin::Guard(host, "vulkan plugin: sy_plugin_init",
                           [&] { return sy::vulkan::Init(host, out_plugin); });
}
