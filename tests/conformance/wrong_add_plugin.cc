// conformance_wrong_add: a deliberately wrong plugin for
// switchyard-conformance's own tests. It adds one kernel to the cpu device,
// add.Tensor for (f32, f32) at high priority, that computes a - b. The tool
// must fail add.Tensor (exit 1) and name it, and judge nothing else.
#include <array>
#include <span>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace {

// Inputs arrive broadcast to the output's shape (the core does that for
// elementwise ops), with any strides.
sy_error_t* SubtractInsteadOfAdd(const sy_kernel_call_t* call) {
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  const float* pa = sy::plugin::DataPtr<const float>(a);
  const float* pb = sy::plugin::DataPtr<const float>(b);
  float* po = sy::plugin::DataPtr<float>(out);
  sy::plugin::ForEachStridedRun<3>(
      std::span<const int64_t>(out.shape, out.ndim),
      {out.strides, a.strides, b.strides},
      [&](const std::array<int64_t, 3>& offsets, int64_t count,
          const std::array<int64_t, 3>& steps) {
        for (int64_t i = 0; i < count; ++i) {
          po[offsets[0] + i * steps[0]] =
              pa[offsets[1] + i * steps[1]] - pb[offsets[2] + i * steps[2]];
        }
      });
  return nullptr;
}

constexpr sy_dtype_t kF32F32[] = {SY_DTYPE_F32, SY_DTYPE_F32};
constexpr sy::plugin::KernelSpec kKernels[] = {
    {"add.Tensor", "wrong_add.f32", kF32F32, 100, SubtractInsteadOfAdd},
};

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return sy::plugin::RegisterKernels(host, context, "cpu", kKernels);
}

constexpr sy_plugin_api_t kPlugin = {
    sizeof(sy_plugin_api_t), nullptr, SY_PLUGIN_ABI_MAJOR, SY_PLUGIN_ABI_MINOR,
    "conformance_wrong_add", "0.0.1", Load, nullptr, /*flags=*/0, /*num_options=*/0,
    /*options=*/nullptr};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  sy::plugin::SetHost(host);
  *out_plugin = &kPlugin;
  return nullptr;
}
