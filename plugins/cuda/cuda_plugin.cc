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
using ::sy::plugin::Log;
using ::sy::plugin::StrCat;

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

// Resident: the CUDA runtime keeps threads and its own state until the
// process exits, so the library must never be closed (plugin.h).
constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 1,  // resident
    .name = "cuda",
    .version = "0.2.0",
    .load = Load,
    .unload = Unload,
    .flags = SY_PLUGIN_FLAG_RESIDENT,
    .num_options = 0,
    .options = nullptr,
};

}  // namespace
}  // namespace sy::cuda

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  // ProbeCuda: once per process, before any runtime loads the plugin.
  return sy::plugin::InitPlugin(host, out_plugin, sy::cuda::kPluginApi,
                                "cuda plugin", [](const sy_host_api_t*) {
                                  sy::cuda::ProbeCuda();
                                  return static_cast<sy_error_t*>(nullptr);
                                });
}
