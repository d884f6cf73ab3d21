// The onednn plugin's entry point: kernels for the `cpu` device type over
// oneDNN, at priority 10 (above the cpu plugin's reference kernels). It
// provides no device; the cpu plugin does, and a runtime that loads this
// plugin without it has the kernels registered but no cpu device to run
// them on (architecture.md: kernel-only plugins).
//
// sy_plugin_init (once per process) checks the host, creates the oneDNN
// engine, sets the primitive cache capacity and decides bf16; `load` (once
// per runtime) applies the options, logs those decisions and registers the
// plugin's schemas and then its kernels, family by family. Nothing
// registers itself from a static initializer.
//
// Options (plugin.h, ABI 1.1): min_elements and min_matmul_flops, below
// which the kernels decline a call to the cpu plugin's (context.h, Note
// [Declining small calls]), per runtime (thresholds.h, Note [Options per
// runtime]). The plugin is resident (SY_PLUGIN_FLAG_RESIDENT):
// oneDNN and its OpenMP runtime keep threads and process-wide state until
// exit, so the library must never be closed.
#include <span>
#include <string_view>

#include "context.h"
#include "dnnl.hpp"
#include "kernels/kernel_list.h"
#include "patterns.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::onednn {
namespace {

using ::sy::plugin::Log;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

// The kernel list, built on first use (in `load`) and kept until the
// process exits (the plugin is resident); the same for every runtime and
// every reload. Filled in place — the specs point into the list's own
// storage, so it is never copied or moved.
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

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return plugin::Guard(host, "onednn plugin: load", [&]() -> sy_error_t* {
    // Without option_get (an older or test host) the defaults apply.
    sy_option_value_t min_elements{};
    sy_option_value_t min_flops{};
    min_elements.value.i = kDefaultMinElements;
    min_flops.value.i = kDefaultMinMatmulFlops;
    if (plugin::HostHasOptions(host)) {
      SY_PLUGIN_RETURN_IF_ERROR(
          plugin::GetOption(host, context, "min_elements", &min_elements));
      SY_PLUGIN_RETURN_IF_ERROR(
          plugin::GetOption(host, context, "min_matmul_flops", &min_flops));
    }
    const dnnl_version_t* version = dnnl_version();
    Log(host, context, SY_LOG_INFO,
        StrCat("oneDNN ", version->major, ".", version->minor, ".",
               version->patch, ", ISA ", IsaName(), ", primitive cache ",
               PrimitiveCacheCapacity(), " entries; declines calls below ",
               min_elements.value.i, " elements or ", min_flops.value.i,
               " matmul flops"));
    if (!HasNativeBf16()) {
      Log(host, context, SY_LOG_INFO,
          StrCat("no bf16 kernels: the CPU (as oneDNN sees it: ", IsaName(),
                 ") lacks AVX512-BF16/AMX, so bf16 ops stay with the cpu "
                 "plugin"));
    }
    for (const sy_schema_desc_t& schema : FusedSchemas()) {
      SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &schema));
    }
    // This runtime's kernels carry this runtime's thresholds (Note
    // [Options per runtime]).
    const Thresholds thresholds{.min_elements = min_elements.value.i,
                                .min_matmul_flops = min_flops.value.i};
    return plugin::RegisterKernels(host, context, "cpu",
                                   SpecsWithThresholds(Kernels().specs(), thresholds));
  });
}

void Unload() { plugin::SetHost(nullptr); }

// Defaults as text, from the constants in thresholds.h, written out at
// compile time.
constexpr plugin::OptionText kMinElementsText = plugin::OptionIntText(kDefaultMinElements);
constexpr plugin::OptionText kMinFlopsText = plugin::OptionIntText(kDefaultMinMatmulFlops);
constexpr sy_plugin_option_t kOptions[] = {
    plugin::Option("min_elements", SY_OPTION_INT, kMinElementsText.data(),
        "elementwise, reduction, softmax and norm calls with fewer input elements go to the "
        "cpu plugin"),
    plugin::Option("min_matmul_flops", SY_OPTION_INT, kMinFlopsText.data(),
        "matmul and linear calls of fewer flops (2*M*N*K) go to the cpu plugin"),
};

std::span<const sy_plugin_option_t> Options() { return kOptions; }

sy_plugin_api_t MakeTable() {
  sy_plugin_api_t table{};
  table.struct_size = sizeof(sy_plugin_api_t);
  table.abi_major = SY_PLUGIN_ABI_MAJOR;
  table.abi_minor = 1;  // declines, options, resident, patterns
  table.extension = PatternsExtension();
  table.name = "onednn";
  table.version = "0.2.0";
  table.load = Load;
  table.unload = Unload;
  table.flags = SY_PLUGIN_FLAG_RESIDENT;
  const std::span<const sy_plugin_option_t> options = Options();
  table.num_options = static_cast<int32_t>(options.size());
  table.options = options.data();
  return table;
}

sy_error_t* CreateEngine(const sy_host_api_t* host) {
  try {
    Init();
  } catch (const dnnl::error& e) {
    return MakeError(host, SY_STATUS_UNAVAILABLE,
                     StrCat("onednn plugin: oneDNN could not create a CPU "
                            "engine: ", e.what(),
                            "; check the libdnnl installation"));
  }
  return nullptr;
}

}  // namespace
}  // namespace sy::onednn

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  static const sy_plugin_api_t table = sy::onednn::MakeTable();
  return sy::plugin::InitPlugin(host, out_plugin, table, "onednn plugin",
                                sy::onednn::CreateEngine);
}
