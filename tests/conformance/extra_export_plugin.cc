// conformance_extra_export: a plugin whose kernels are right but whose
// library exports a second symbol, for switchyard-conformance's own tests.
// Built by hand (not switchyard_add_plugin, whose version script would hide
// the symbol) and without a manifest, so the tool is also exercised on a
// bare library. It adds neg for f32 to the cpu device.
#include <array>
#include <span>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace {

sy_error_t* Negate(const sy_kernel_call_t* call) {
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  const float* px = sy::plugin::DataPtr<const float>(x);
  float* po = sy::plugin::DataPtr<float>(out);
  sy::plugin::ForEachStridedRun<2>(
      std::span<const int64_t>(out.shape, out.ndim), {out.strides, x.strides},
      [&](const std::array<int64_t, 2>& offsets, int64_t count,
          const std::array<int64_t, 2>& steps) {
        for (int64_t i = 0; i < count; ++i) {
          po[offsets[0] + i * steps[0]] = -px[offsets[1] + i * steps[1]];
        }
      });
  return nullptr;
}

constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32};
constexpr sy::plugin::KernelSpec kKernels[] = {
    {"neg", "extra_export.neg.f32", kF32, 100, Negate},
};

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return sy::plugin::RegisterKernels(host, context, "cpu", kKernels);
}

constexpr sy_plugin_api_t kPlugin = {
    sizeof(sy_plugin_api_t), nullptr, SY_PLUGIN_ABI_MAJOR, SY_PLUGIN_ABI_MINOR,
    "conformance_extra_export", "0.0.1", Load, nullptr, /*flags=*/0, /*num_options=*/0,
    /*options=*/nullptr};

}  // namespace

// The mistake under test: a second exported symbol.
extern "C" SY_PLUGIN_EXPORT int sy_conformance_debug_counter(void) { return 42; }

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  sy::plugin::SetHost(host);
  *out_plugin = &kPlugin;
  return nullptr;
}
