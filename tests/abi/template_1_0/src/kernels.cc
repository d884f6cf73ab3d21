// myvendor's kernels: elementwise f32 ops, each a few lines over the SDK's
// strided walker. The host has already checked dtypes against the kernel's
// key and broadcast every input to the output's shape (broadcast dims have
// stride 0), so a kernel walks input and output views together.
#include "kernels.h"

#include <array>

namespace myvendor {
namespace {

using sy::plugin::DataPtr;
using sy::plugin::ForEachStridedRun;
using sy::plugin::KernelSpec;
using sy::plugin::Shape;

// The counts a kernel relies on; the host guarantees them, so a mismatch is
// a host bug worth a clear error rather than a crash.
sy_error_t* CheckArity(const sy_kernel_call_t* call, int inputs, const char* op) {
  if (call->num_inputs == inputs && call->num_outputs == 1) return nullptr;
  return sy::plugin::MakeError(
      SY_STATUS_INTERNAL,
      sy::plugin::StrCat("myvendor: ", op, ": expected ", inputs,
                         " inputs and 1 output, got ", call->num_inputs, " and ",
                         call->num_outputs, "; the host and plugin disagree"));
}

// out = f(a, b) elementwise.
template <float (*F)(float, float)>
sy_error_t* Binary(const sy_kernel_call_t* call) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckArity(call, 2, "binary op"));
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& out = call->outputs[0];
  const float* pa = DataPtr<const float>(a);
  const float* pb = DataPtr<const float>(b);
  float* po = DataPtr<float>(out);
  ForEachStridedRun<3>(Shape(out), {out.strides, a.strides, b.strides},
                       [&](const auto& at, int64_t n, const auto& step) {
                         for (int64_t i = 0; i < n; ++i) {
                           po[at[0] + i * step[0]] =
                               F(pa[at[1] + i * step[1]], pb[at[2] + i * step[2]]);
                         }
                       });
  return nullptr;
}

// out = f(x) elementwise.
template <float (*F)(float)>
sy_error_t* Unary(const sy_kernel_call_t* call) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckArity(call, 1, "unary op"));
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  const float* px = DataPtr<const float>(x);
  float* po = DataPtr<float>(out);
  ForEachStridedRun<2>(Shape(out), {out.strides, x.strides},
                       [&](const auto& at, int64_t n, const auto& step) {
                         for (int64_t i = 0; i < n; ++i) {
                           po[at[0] + i * step[0]] = F(px[at[1] + i * step[1]]);
                         }
                       });
  return nullptr;
}

float Add(float a, float b) { return a + b; }
float Mul(float a, float b) { return a * b; }
float Relu(float x) { return x > 0.0f ? x : (x == x ? 0.0f : x); }  // NaN stays NaN
float Neg(float x) { return -x; }

constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32};
constexpr sy_dtype_t kF32F32[] = {SY_DTYPE_F32, SY_DTYPE_F32};

// Priority 10: above the cpu plugin's reference kernels (0), should this
// plugin ever register kernels for a device type another plugin provides.
constexpr KernelSpec kKernels[] = {
    {"add.Tensor", "myvendor.add.f32", kF32F32, 10, Binary<Add>},
    {"mul.Tensor", "myvendor.mul.f32", kF32F32, 10, Binary<Mul>},
    {"relu", "myvendor.relu.f32", kF32, 10, Unary<Relu>},
    {"neg", "myvendor.neg.f32", kF32, 10, Unary<Neg>},
};

}  // namespace

std::span<const KernelSpec> Kernels() { return kKernels; }

}  // namespace myvendor
