// The onednn plugin's entry point: kernels for the `cpu` device type over
// oneDNN, at priority 10 (above the cpu plugin's reference kernels). It
// provides no device; the cpu plugin does, and a runtime that loads this
// plugin without it has the kernels registered but no cpu device to run
// them on (architecture.md: kernel-only plugins).
//
// sy_plugin_init (once per process) checks the host, creates the oneDNN
// engine, sets the primitive cache capacity and decides bf16; `load` (once
// per runtime) logs those decisions and registers the plugin's schemas and
// then its kernels, family by family. Nothing registers itself from a
// static initializer.
#include <span>
#include <string>
#include <string_view>

#include "context.h"
#include "dnnl.hpp"
#include "kernels/kernel_list.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::onednn {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr uint32_t kAbiMinorUsed = 0;
static_assert(kAbiMinorUsed <= SY_PLUGIN_ABI_MINOR);

// The kernel list, built on first use (in `load`) and kept until the
// process exits (the library is never unmapped: -z nodelete); the same for
// every runtime and every reload. Filled in place — the specs point into
// the list's own storage, so it is never copied or moved.
struct AllKernels {
  KernelList list;
  AllKernels() {
    const bool bf16 = HasNativeBf16();
    AddEltwiseKernels(list, bf16);
    AddBinaryKernels(list, bf16);
    AddReductionKernels(list, bf16);
    AddSoftmaxKernels(list, bf16);
    AddLayerNormKernels(list, bf16);
    AddMatmulKernels(list, bf16);
    AddConvKernels(list, bf16);
    AddFusedKernels(list, bf16);
  }
};

const KernelList& Kernels() {
  static const AllKernels all;
  return all.list;
}

void Log(const sy_host_api_t* host, sy_host_context_t* context,
         sy_log_level_t level, const std::string& message) {
  if (SY_STRUCT_HAS(host, sy_host_api_t, log) && host->log != nullptr) {
    host->log(context, level, message.c_str());
  }
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "onednn plugin: load", [&]() -> sy_error_t* {
    if (!SY_STRUCT_HAS(host, sy_host_api_t, register_schema) ||
        host->register_schema == nullptr) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       "onednn plugin: load: the host table has no "
                       "register_schema slot; the host is damaged or older "
                       "than ABI 1.0");
    }
    const dnnl_version_t* version = dnnl_version();
    Log(host, context, SY_LOG_INFO,
        StrCat("oneDNN ", version->major, ".", version->minor, ".",
               version->patch, ", ISA ", IsaName(), ", primitive cache ",
               PrimitiveCacheCapacity(), " entries"));
    if (!HasNativeBf16()) {
      Log(host, context, SY_LOG_INFO,
          StrCat("no bf16 kernels: the CPU (as oneDNN sees it: ", IsaName(),
                 ") lacks AVX512-BF16/AMX, so bf16 ops stay with the cpu "
                 "plugin"));
    }
    for (const sy_schema_desc_t& schema : FusedSchemas()) {
      SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &schema));
    }
    return plugin::RegisterKernels(host, context, "cpu", Kernels().specs());
  });
}

void Unload() { plugin::SetHost(nullptr); }

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = kAbiMinorUsed,
    .name = "onednn",
    .version = "0.1.0",
    .load = Load,
    .unload = Unload,
};

sy_error_t* PluginInit(const sy_host_api_t* host,
                 const sy_plugin_api_t** out_plugin) {
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckHost(host, out_plugin, "onednn plugin", kAbiMinorUsed));
  try {
    Init();
  } catch (const dnnl::error& e) {
    return MakeError(host, SY_STATUS_UNAVAILABLE,
                     StrCat("onednn plugin: oneDNN could not create a CPU "
                            "engine: ", e.what(),
                            "; check the libdnnl installation"));
  }
  plugin::SetHost(host);
  *out_plugin = &kPluginApi;
  return nullptr;
}

}  // namespace
}  // namespace sy::onednn

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  if (out_plugin != nullptr) *out_plugin = nullptr;
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    return nullptr;
  }
  return sy::plugin::Guard(host, "onednn plugin: sy_plugin_init",
                           [&] { return sy::onednn::PluginInit(host, out_plugin); });
}
