// The cuda plugin's entry point.
//
// sy_plugin_init checks the host and probes CUDA once per process
// (cudaGetDeviceCount; cuda_device.h). `load` (once per runtime) registers
// the `cuda` device type — always, so that `switchyard info` lists it — and,
// when there is at least one GPU, the kernels: the SDK's shared GPU kernel
// families (switchyard/gpu/kernel_list.h, compiled from sdk/gpu into this
// plugin), then the plugin's own GEMMs and fused ops. Without
// a GPU it registers no kernels and logs why ("no CUDA device: …"), and the
// rest of the process is unaffected. conv2d's fast kernels and cuDNN's
// fused attention need cuDNN 9, which is dlopened, not linked
// (kernels/cudnn_library.h): without it conv2d runs f64 only and attention
// only the plugin's own kernel, and `load` logs why. `load` also logs its
// time split into the driver's initialization and its own work (Note
// [Load time]). Nothing registers itself from a static initializer.
#include <chrono>
#include <cstdio>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#if defined(SY_CUDA_HAVE_NCCL)
#include "collectives/nccl_comm.h"
#include "collectives/nccl_library.h"
#endif
#include "cuda_device.h"
#include "fused/fusion_extension.h"
#include "kernels/attention.h"
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

// "12.3": one decimal, for the load-time line.
std::string Fixed1(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ms);
  return text;
}

// The option table says its defaults as text; they are kernels/conv2d.h's
// constants, written out at compile time.
constexpr plugin::OptionText kPlanCacheDefaultText =
    plugin::OptionIntText(kConv2dPlanCacheDefault);

constexpr sy_plugin_option_t kOptions[] = {
    plugin::Option("conv2d_plan_cache_size", SY_OPTION_INT, kPlanCacheDefaultText.data(),
        "cuDNN execution plans kept for conv2d (problems; least recently used evicted first)"),
    plugin::Option("conv2d_reduced_precision", SY_OPTION_BOOL,
        plugin::OptionBoolText(kConv2dReducedPrecisionDefault),
        "let conv2d use cuDNN engines with reduced-precision reduction (faster on some "
        "problems, as PyTorch allows; f16/bf16 may then add partial sums in 16 bits; f32 never "
        "uses TF32). Off: f32 accumulation"),
    plugin::Option("conv2d_graphs", SY_OPTION_BOOL, plugin::OptionBoolText(kConv2dGraphsDefault),
        "replay a conv2d plan as a CUDA graph once it has run twice with the same buffers "
        "(one launch instead of cuDNN's enqueue of each kernel)"),
};

// The collective ops through NCCL (collectives/nccl_comm.h; the plugin
// answers ABI 1.2, so the host has them). NCCL is opened here to say in the load record
// whether communicators can be made; the kernels are registered either way
// (without NCCL no communicator can reach them).
sy_error_t* RegisterCollectives(const sy_host_api_t* host,
                                sy_host_context_t* context) {
#if defined(SY_CUDA_HAVE_NCCL)
  std::string why_not;
  if (const NcclLibrary* nccl = NcclLibrary::Get(&why_not)) {
    Log(host, context, SY_LOG_INFO,
        StrCat("NCCL ", NcclVersionString(nccl->version), " (", nccl->path,
               "): collectives on cuda devices"));
  } else {
    Log(host, context, SY_LOG_WARNING,
        StrCat(why_not, ": no collectives on cuda devices until NCCL 2 is "
               "installed (libnccl.so.2 on the library path, or "
               "SWITCHYARD_NCCL_LIBRARY)"));
  }
  return plugin::RegisterKernels(host, context, "cuda", CollectiveKernels());
#else
  (void)host;
  (void)context;
  return nullptr;
#endif
}

sy_error_t* RegisterAllKernels(const sy_host_api_t* host,
                               sy_host_context_t* context) {
  for (std::span<const KernelSpec> family : gpu::AllSharedKernels()) {
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::RegisterKernels(host, context, "cuda", family));
  }
  SY_PLUGIN_RETURN_IF_ERROR(RegisterGemmKernels(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterFusedOps(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterAttentionKernels(host, context));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterPatternOps(host, context));  // fused/
  std::string why_not;
  const CudnnLibrary* cudnn = CudnnLibrary::Get(&why_not);
  if (cudnn == nullptr) {
    // A warning: the GPU works, but conv2d's fast kernels are missing until
    // cuDNN is installed. The load record carries the line.
    Log(host, context, SY_LOG_WARNING,
        StrCat(why_not, ": conv2d not registered for f32, f16 and bf16 "
               "(f64 runs the plugin's direct kernel), and "
               "scaled_dot_product_attention runs the plugin's own flash "
               "kernel only; install cuDNN 9 (NVIDIA's libcudnn9 package or "
               "the nvidia-cudnn-cu13 wheel) and put libcudnn.so.9 on the "
               "library path, or run conv2d on cpu"));
  } else {
    Log(host, context, SY_LOG_INFO,
        StrCat("cuDNN ", CudnnVersionString(cudnn->version), " (", cudnn->path,
               "): conv2d through its graph API, attention through its fused "
               "engines where they fit"));
  }
  SY_PLUGIN_RETURN_IF_ERROR(RegisterConv2dKernels(host, context, cudnn != nullptr));
  return RegisterCollectives(host, context);
}

// Reads the plugin's options (kOptions' defaults without an ABI 1.1 host).
sy_error_t* ApplyOptions(const sy_host_api_t* host, sy_host_context_t* context) {
  sy_option_value_t cache{}, reduced{}, graphs{};
  cache.value.i = kConv2dPlanCacheDefault;
  reduced.value.b = kConv2dReducedPrecisionDefault ? 1 : 0;
  graphs.value.b = kConv2dGraphsDefault ? 1 : 0;
  if (plugin::HostHasOptions(host)) {
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::GetOption(host, context, "conv2d_plan_cache_size", &cache));
    SY_PLUGIN_RETURN_IF_ERROR(
        plugin::GetOption(host, context, "conv2d_reduced_precision", &reduced));
    SY_PLUGIN_RETURN_IF_ERROR(plugin::GetOption(host, context, "conv2d_graphs", &graphs));
  }
  if (cache.value.i < 1) {
    return plugin::MakeError(
        host, SY_STATUS_INVALID_ARGUMENT,
        StrCat("cuda plugin: option conv2d_plan_cache_size is ", cache.value.i,
               "; pass at least 1"));
  }
  SetConv2dPlanCacheCapacity(static_cast<size_t>(cache.value.i));
  SetConv2dReducedPrecision(reduced.value.b != 0);
  SetConv2dGraphs(graphs.value.b != 0);
  return nullptr;
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "cuda plugin: load", [&]() -> sy_error_t* {
    const auto start = std::chrono::steady_clock::now();
    const CudaProbe& probe = ProbeCuda();
    // The device table, with the fusion hooks on its extension chain.
    SY_PLUGIN_RETURN_IF_ERROR(
        host->register_device(context, &WithFusionHooks(CudaDeviceApi())));
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
    SY_PLUGIN_RETURN_IF_ERROR(ApplyOptions(host, context));
    SY_PLUGIN_RETURN_IF_ERROR(RegisterAllKernels(host, context));
    // Note [Load time]: the driver's initialization happens once per process
    // (sy_plugin_init's probe) and is the driver's; the rest is ours.
    const double own_ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count() +
                          probe.properties_ms;
    Log(host, context, SY_LOG_INFO,
        StrCat("load time: CUDA driver initialization ",
               Fixed1(probe.driver_init_ms), " ms (cudaGetDeviceCount, once per "
               "process); the plugin's own work ", Fixed1(own_ms),
               " ms (device properties ", Fixed1(probe.properties_ms),
               " ms, registration and cuDNN ", Fixed1(own_ms - probe.properties_ms),
               " ms)"));
    return nullptr;
  });
}

void Unload() { plugin::SetHost(nullptr); }

// Resident: the CUDA runtime keeps threads and its own state until the
// process exits, so the library must never be closed (plugin.h).
constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    // resident (1.1), collectives (1.2), launch configurations (1.3),
    // conv2d_relu's output layout (1.4)
    .abi_minor = 4,
    .name = "cuda",
    .version = "0.2.0",
    .load = Load,
    .unload = Unload,
    .flags = SY_PLUGIN_FLAG_RESIDENT,
    .num_options = static_cast<int32_t>(std::size(kOptions)),
    .options = kOptions,
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
