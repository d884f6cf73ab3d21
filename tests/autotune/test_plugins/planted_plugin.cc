// "planted": kernels with known speeds and one known wrong answer, on the
// fakedev device (tests/dispatcher/test_plugins/fake_device.h), for the
// autotuner's tests. Built twice, as versions 1.0.0 and 2.0.0 of the same
// plugin (PLANTED_VERSION), to show that a new plugin version does not reuse
// old verdicts.
//
// add.Tensor (f32, f32) on fakedev:
//   planted.decliner_add  priority 40  declines calls under 4096 elements;
//                                      above, correct and 8× slow
//   planted.slow_add      priority 30  correct, 40× slow (the static choice
//                                      for small calls)
//   planted.wrong_add     priority 20  fast and wrong (a + b + 0.25)
//   planted.fast_add      priority 10  correct and fast: must win
// mul.Tensor (f32, f32) on fakedev:
//   planted.tiled_mul     priority 10  variants "slow" (40×) and "fast"
#include <cstdint>
#include <cstring>

#include "fake_device.h"
#include "switchyard/plugin.hpp"

namespace {

using sy::plugin::DataPtr;
using sy::plugin::ForEachStridedRun;
using sy::plugin::Shape;

int64_t Numel(const sy_tensor_view_t& v) {
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.shape[d];
  return n;
}

// out = a op b (+ bias), `repeats` times over, each pass written out so the
// compiler cannot fold them.
template <bool kMul>
sy_error_t* Elementwise(const sy_kernel_call_t* call, int repeats, float bias) {
  if (call->flags & SY_KERNEL_CALL_QUERY) return nullptr;
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  const float* pa = DataPtr<const float>(a);
  const float* pb = DataPtr<const float>(b);
  float* po = DataPtr<float>(out);
  for (int r = 0; r < repeats; ++r) {
    ForEachStridedRun<3>(Shape(out), {out.strides, a.strides, b.strides},
                         [&](const auto& at, int64_t n, const auto& step) {
                           for (int64_t i = 0; i < n; ++i) {
                             const float x = pa[at[1] + i * step[1]];
                             const float y = pb[at[2] + i * step[2]];
                             po[at[0] + i * step[0]] = (kMul ? x * y : x + y) + bias;
                           }
                         });
    asm volatile("" ::: "memory");
  }
  return nullptr;
}

sy_error_t* SlowAdd(const sy_kernel_call_t* call) { return Elementwise<false>(call, 40, 0); }
sy_error_t* WrongAdd(const sy_kernel_call_t* call) { return Elementwise<false>(call, 1, 0.25f); }
sy_error_t* FastAdd(const sy_kernel_call_t* call) { return Elementwise<false>(call, 1, 0); }
sy_error_t* DeclinerAdd(const sy_kernel_call_t* call) {
  if (Numel(call->outputs[0]) < 4096) return sy::plugin::Decline("numel < 4096");
  return Elementwise<false>(call, 8, 0);
}
sy_error_t* TiledMul(const sy_kernel_call_t* call) {
  int32_t repeats = 1;
  if (call->variant_config != nullptr) {
    std::memcpy(&repeats, call->variant_config, sizeof repeats);
  }
  return Elementwise<true>(call, repeats, 0);
}

constexpr sy_dtype_t kF32F32[] = {SY_DTYPE_F32, SY_DTYPE_F32};

constexpr sy::plugin::KernelSpec kAddKernels[] = {
    {"add.Tensor", "planted.decliner_add", kF32F32, 40, DeclinerAdd, nullptr,
     SY_KERNEL_FLAG_MAY_DECLINE},
    {"add.Tensor", "planted.slow_add", kF32F32, 30, SlowAdd},
    {"add.Tensor", "planted.wrong_add", kF32F32, 20, WrongAdd},
    {"add.Tensor", "planted.fast_add", kF32F32, 10, FastAdd},
};

sy_error_t* RegisterTiledMul(const sy_host_api_t* host, sy_host_context_t* context) {
  static const int32_t kRepeats[] = {40, 1};
  static const sy_kernel_variant_t kVariants[] = {
      {sizeof(sy_kernel_variant_t), nullptr, "slow", &kRepeats[0], sizeof(int32_t)},
      {sizeof(sy_kernel_variant_t), nullptr, "fast", &kRepeats[1], sizeof(int32_t)},
  };
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof desc;
  desc.op = "mul.Tensor";
  desc.device_type = "fakedev";
  desc.name = "planted.tiled_mul";
  desc.dtypes = kF32F32;
  desc.num_dtypes = 2;
  desc.priority = 10;
  desc.fn = TiledMul;
  desc.variants = kVariants;
  desc.num_variants = 2;
  return host->register_kernel(context, &desc);
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  return sy::plugin::Guard(host, "planted: load", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        host->register_device(context, sy_test::FakeDeviceApi(host)));
    SY_PLUGIN_RETURN_IF_ERROR(
        sy::plugin::RegisterKernels(host, context, "fakedev", kAddKernels));
    return RegisterTiledMul(host, context);
  });
}

void Unload() { sy::plugin::SetHost(nullptr); }

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 1,  // declining
    .name = "planted",
    .version = PLANTED_VERSION,
    .load = Load,
    .unload = Unload,
    .flags = 0,
    .num_options = 0,
    .options = nullptr,
};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(host, out_plugin, kPluginApi, "planted");
}
