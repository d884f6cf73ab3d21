// The cpu plugin's entry point: the reference backend of Switchyard.
//
// sy_plugin_init checks the host, keeps its table and picks the matmul
// micro-kernel, once per process; `load` (once per runtime) applies the
// plugin's options, registers the device, then the kernels from the
// explicit list below, in order. Nothing registers itself from a static
// initializer.
//
// Options (plugin.h, ABI 1.1; `switchyard info` lists them):
//   num_threads (int, 0)  threads large ops split over; 0: SWITCHYARD_NUM_THREADS,
//                         else every CPU this process may run on
//   isa (string, "")      cap for the matmul micro-kernel and vector math:
//                         generic, avx2 or avx512; "": SWITCHYARD_CPU_ISA,
//                         else the best the CPU has
// Both are process-wide (one thread pool, one micro-kernel choice): the
// last runtime to load the plugin with an option set decides.
#include <cstdlib>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#if defined(SY_CPU_HAVE_GLOO)
#include "collectives/gloo_comm.h"
#endif
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
using ::sy::plugin::Log;
using ::sy::plugin::StrCat;

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
#if defined(SY_CPU_HAVE_GLOO)
  // The collective ops (collectives/gloo_comm.h; the plugin answers ABI
  // 1.2, so the host has them).
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::RegisterKernels(host, context, "cpu", CollectiveKernels()));
#endif
  return nullptr;
}

// The ISA cap: the option, else SWITCHYARD_CPU_ISA (ignored under setuid
// like every SWITCHYARD_* override). An unknown value is ignored with a
// warning, not refused: the plugin still works with the best ISA.
std::string_view IsaRequest(const sy_host_api_t* host,
                            sy_host_context_t* context, std::string_view option) {
#if defined(__GLIBC__)
  const char* env = secure_getenv("SWITCHYARD_CPU_ISA");
#else
  const char* env = std::getenv("SWITCHYARD_CPU_ISA");
#endif
  std::string_view request = !option.empty() ? option : env == nullptr ? "" : env;
  if (!request.empty() && request != "generic" && request != "avx2" &&
      request != "avx512") {
    Log(host, context, SY_LOG_WARNING,
        StrCat(context == nullptr ? "cpu plugin: " : "",
               option.empty() ? "SWITCHYARD_CPU_ISA=" : "option isa=", request,
               " is not one of generic, avx2, avx512; ignoring it"));
    request = "";
  }
  return request;
}

// Runs once per runtime that loads the plugin, each time with its own
// context; the device and kernel tables are static, so every runtime gets
// the same ones.
sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "cpu plugin: load", [&]() -> sy_error_t* {
    // Without option_get (an older or test host) the defaults apply.
    sy_option_value_t threads{};
    sy_option_value_t isa{};
    if (plugin::HostHasOptions(host)) {
      SY_PLUGIN_RETURN_IF_ERROR(
          plugin::GetOption(host, context, "num_threads", &threads));
      SY_PLUGIN_RETURN_IF_ERROR(plugin::GetOption(host, context, "isa", &isa));
    }
    if (threads.is_set) SetNumThreads(static_cast<int>(threads.value.i));
    // Safe while another runtime computes: a matmul reads the choice once.
    if (isa.is_set) SelectGemmKernel(IsaRequest(host, context, isa.value.str));
    GetCpuProperties();  // read /proc and uname now, not in a later call
    Log(host, context, SY_LOG_INFO,
        StrCat("matmul uses the ", ActiveGemmKernel().isa, " micro-kernel"));
    SY_PLUGIN_RETURN_IF_ERROR(host->register_device(context, &CpuDeviceApi()));
    return RegisterAllKernels(host, context);
  });
}

// Every object the plugin handed out is gone by now (plugin.h); the static
// tables stay valid until the library is closed. The pool's workers are
// joined here, so no thread runs plugin code once the library closes.
void Unload() {
  StopThreadPool();
  plugin::SetHost(nullptr);
}

constexpr sy_plugin_option_t kOptions[] = {
    plugin::Option("num_threads", SY_OPTION_INT, "0",
        "threads large ops split over; 0: SWITCHYARD_NUM_THREADS, else every CPU the process "
        "may run on"),
    plugin::Option("isa", SY_OPTION_STRING, "",
        "cap for the matmul micro-kernel: generic, avx2 or avx512; empty: SWITCHYARD_CPU_ISA, "
        "else the best the CPU has"),
};

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 3,  // options (1.1), collectives (1.2), launch configurations (1.3)
    .name = "cpu",
    .version = "0.2.0",
    .load = Load,
    .unload = Unload,
    .flags = 0,
    .num_options = static_cast<int32_t>(std::size(kOptions)),
    .options = kOptions,
};

}  // namespace
}  // namespace sy::cpu

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(
      host, out_plugin, sy::cpu::kPluginApi, "cpu plugin",
      [](const sy_host_api_t* h) -> sy_error_t* {
        // Before any runtime loads the plugin: SWITCHYARD_CPU_ISA.
        sy::cpu::SelectGemmKernel(sy::cpu::IsaRequest(h, nullptr, ""));
        return nullptr;
      });
}
