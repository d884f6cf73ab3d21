// The cuda plugin's entry point.
//
// sy_plugin_init checks the host and probes CUDA once per process
// (cudaGetDeviceCount; cuda_device.h). `load` (once per runtime) registers
// the `cuda` device type — always, so that `switchyard info` lists it — and,
// when there is at least one GPU, the kernels: the SDK's shared GPU kernel
// families (switchyard/gpu/kernel_list.h, compiled from sdk/gpu into this
// plugin), then the plugin's own GEMMs and fused ops. Without
// a GPU it registers no kernels and logs why ("no CUDA device: …"), and the
// rest of the process is unaffected. conv2d needs cuDNN 9, which is
// dlopened, not linked (kernels/cudnn_library.h): without it conv2d alone
// is not registered, and `load` logs why. Nothing registers itself from a
// static initializer.
#include <span>
#include <string>
#include <string_view>

#include "cuda_device.h"
#include "kernels/conv2d.h"
#include "kernels/cudnn_library.h"
#include "kernels/kernel_list.h"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::KernelSpec;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr uint32_t kAbiMinorUsed = 0;
static_assert(kAbiMinorUsed <= SY_PLUGIN_ABI_MINOR);

void Log(const sy_host_api_t* host, sy_host_context_t* context,
         sy_log_level_t level, const std::string& message) {
  if (SY_STRUCT_HAS(host, sy_host_api_t, log) && host->log != nullptr) {
    host->log(context, level, message.c_str());
  }
}

sy_error_t* RegisterAllKernels(const sy_host_api_t* host,
                               sy_host_context_t* context) {
  for (std::span<const KernelSpec> family : gpu::AllSharedKernels()) {
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::RegisterKernels(host, context, "cuda", family));
  }
  SY_PLUGIN_RETURN_IF_ERROR(RegisterGemmKernels(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFusedOps(host, context));
  std::string why_not;
  const CudnnLibrary* cudnn = CudnnLibrary::Get(&why_not);
  if (cudnn == nullptr) {
    // A warning: the GPU works, but one op is missing until cuDNN is
    // installed. The load record carries the line.
    Log(host, context, SY_LOG_WARNING,
        StrCat(why_not, ": conv2d not registered; install cuDNN 9 (NVIDIA's "
               "libcudnn9 package or the nvidia-cudnn-cu13 wheel) and put "
               "libcudnn.so.9 on the library path, or run conv2d on cpu"));
    return nullptr;
  }
  Log(host, context, SY_LOG_INFO,
      StrCat("cuDNN ", CudnnVersionString(cudnn->version), " (", cudnn->path,
             "): conv2d registered"));
  return plugin::RegisterKernels(host, context, "cuda", Conv2dKernels());
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "cuda plugin: load", [&]() -> sy_error_t* {
    if (!SY_STRUCT_HAS(host, sy_host_api_t, register_device) ||
        host->register_device == nullptr) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       "cuda plugin: load: the host table has no "
                       "register_device slot; the host is damaged or older "
                       "than ABI 1.0");
    }
    const CudaProbe& probe = ProbeCuda();
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, &CudaDeviceApi()));
    if (probe.device_count == 0) {
      // Info, not a warning: a machine without a GPU is normal, and the
      // load record carries the line (`switchyard info` shows it).
      Log(host, context, SY_LOG_INFO,
          StrCat(probe.reason, "; no cuda kernels were registered"));
      return nullptr;
    }
    Log(host, context, SY_LOG_INFO,
        StrCat(probe.device_count, " CUDA device(s); driver ",
               probe.driver_version, ", runtime ", probe.runtime_version));
    return RegisterAllKernels(host, context);
  });
}

void Unload() { plugin::SetHost(nullptr); }

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = kAbiMinorUsed,
    .name = "cuda",
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
};

sy_error_t* Init(const sy_host_api_t* host,
                 const sy_plugin_api_t** out_plugin) {
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckHost(host, out_plugin, "cuda plugin", kAbiMinorUsed));
  plugin::SetHost(host);
  ProbeCuda();  // once per process, before any runtime loads the plugin
  *out_plugin = &kPluginApi;
  return nullptr;
}

}  // namespace
}  // namespace sy::cuda

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  if (out_plugin != nullptr) *out_plugin = nullptr;
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    return nullptr;
  }
  return sy::plugin::Guard(host, "cuda plugin: sy_plugin_init",
                           [&] { return sy::cuda::Init(host, out_plugin); });
}
