// The cpu plugin's entry point: the reference backend of Switchyard.
//
// sy_plugin_init checks the host, keeps its table and picks the matmul
// micro-kernel, once per process; `load` (once per runtime) registers the
// device, then the kernels from the explicit list below, in order. Nothing
// registers itself from a static initializer.
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "cpu_device.h"
#include "cpu_properties.h"
#include "kernels/gemm.h"
#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"
#include "kernels/parallel.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::KernelSpec;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

// The newest ABI minor whose fields this plugin reads or fills.
constexpr uint32_t kAbiMinorUsed = 0;
static_assert(kAbiMinorUsed <= SY_PLUGIN_ABI_MINOR);

// Every kernel of the plugin, family by family in the order of
// kernels/kernel_list.h. The reference kernels all have priority 0, so any
// other plugin's kernel for the same key wins by default.
sy_error_t* RegisterAllKernels(const sy_host_api_t* host,
                               sy_host_context_t* context) {
  for (std::span<const KernelSpec> family :
       {CreationKernels(), UnaryKernels(), BinaryKernels(), ReductionKernels(),
        NormKernels(), LinalgKernels(), LayoutKernels()}) {
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::RegisterKernels(host, context, "cpu", family));
  }
  return nullptr;
}

// During `load` pass its context (the host prefixes the plugin's name);
// otherwise NULL, and the message names the plugin itself.
void Log(const sy_host_api_t* host, sy_host_context_t* context,
         sy_log_level_t level, const std::string& message) {
  if (SY_STRUCT_HAS(host, sy_host_api_t, log) && host->log != nullptr) {
    host->log(context, level, message.c_str());
  }
}

// SWITCHYARD_CPU_ISA caps the matmul micro-kernel ("generic", "avx2",
// "avx512"), for testing and for comparing machines; ignored under setuid
// like every SWITCHYARD_* override. Read once per process, in init.
void SelectIsa(const sy_host_api_t* host) {
#if defined(__GLIBC__)
  const char* value = secure_getenv("SWITCHYARD_CPU_ISA");
#else
  const char* value = std::getenv("SWITCHYARD_CPU_ISA");
#endif
  std::string_view request = value == nullptr ? "" : value;
  if (!request.empty() && request != "generic" && request != "avx2" &&
      request != "avx512") {
    Log(host, nullptr, SY_LOG_WARNING,
        StrCat("cpu plugin: SWITCHYARD_CPU_ISA=", request,
               " is not one of generic, avx2, avx512; ignoring it"));
    request = "";
  }
  SelectGemmKernel(request);
}

// Runs once per runtime that loads the plugin, each time with its own
// context; the device and kernel tables are static, so every runtime gets
// the same ones.
sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "cpu plugin: load", [&]() -> sy_error_t* {
    if (!SY_STRUCT_HAS(host, sy_host_api_t, register_device) ||
        host->register_device == nullptr) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       "cpu plugin: load: the host table has no "
                       "register_device slot; the host is damaged or older "
                       "than ABI 1.0");
    }
    GetCpuProperties();  // read /proc and uname now, not in a later call
    Log(host, context, SY_LOG_INFO,
        StrCat("matmul uses the ", ActiveGemmKernel().isa, " micro-kernel"));
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, &CpuDeviceApi()));
    return RegisterAllKernels(host, context);
  });
}

// Every object the plugin handed out is gone by now (plugin.h); the static
// tables stay valid until the library is closed.
void Unload() {
  StopThreadPool();
  plugin::SetHost(nullptr);
}

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = kAbiMinorUsed,
    .name = "cpu",
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
};

sy_error_t* Init(const sy_host_api_t* host,
                 const sy_plugin_api_t** out_plugin) {
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckHost(host, out_plugin, "cpu plugin", kAbiMinorUsed));
  plugin::SetHost(host);
  SelectIsa(host);
  *out_plugin = &kPluginApi;
  return nullptr;
}

}  // namespace
}  // namespace sy::cpu

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  if (out_plugin != nullptr) *out_plugin = nullptr;
  // Without a way to create errors there is no way to report one: the host
  // sees a NULL table and no error, and must treat that as a failure. The
  // leading fields (through error_create) are read whatever the host's
  // major, to be able to refuse it in words.
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    return nullptr;
  }
  return sy::plugin::Guard(host, "cpu plugin: sy_plugin_init",
                           [&] { return sy::cpu::Init(host, out_plugin); });
}
