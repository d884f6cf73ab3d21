// Elementwise kernels: add.Tensor, mul.Tensor, relu, copy (f32).
//
// The core broadcasts inputs to the output's shape before the call (stride 0
// on stretched dims), so every operand has the output's shape and only the
// strides differ. ForEachStridedRun merges what is dense and hands over
// innermost runs; the branches below give the compiler unit-stride loops
// (and a scalar operand for a broadcast last dim) to vectorize.
#include <array>
#include <cstdint>
#include <string_view>

#include "kernels/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::DataPtr;
using ::sy::plugin::ForEachStridedRun;
using ::sy::plugin::Guard;
using ::sy::plugin::Shape;

constexpr std::string_view kBroadcastAdvice =
    "elementwise kernels take inputs already broadcast to the output's shape "
    "(stride 0 on stretched dims), as the dispatcher passes them";

template <size_t N>
sy_error_t* CheckElementwise(const sy_kernel_call_t* call, std::string_view op,
                             const std::array<std::string_view, N>& inputs) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op, N, 1, 0));
  const sy_tensor_view_t& out = call->outputs[0];
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", SY_DTYPE_F32));
  for (size_t k = 0; k < N; ++k) {
    const sy_tensor_view_t& in = call->inputs[k];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(in, op, inputs[k], SY_DTYPE_F32));
    SY_PLUGIN_RETURN_IF_ERROR(CheckShape(in, Shape(out), op, inputs[k],
                                         "the output has shape",
                                         kBroadcastAdvice));
  }
  return nullptr;
}

template <class Op>
void UnaryRun(float* __restrict out, const float* __restrict x, int64_t n,
              int64_t so, int64_t sx, Op op) {
  if (so == 1 && sx == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(x[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i * so] = op(x[i * sx]);
  }
}

template <class Op>
void BinaryRun(float* __restrict out, const float* __restrict a,
               const float* __restrict b, int64_t n,
               const std::array<int64_t, 3>& s, Op op) {
  if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
    const float y = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], y);
  } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
    const float x = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = op(x, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i * s[0]] = op(a[i * s[1]], b[i * s[2]]);
  }
}

template <class Op>
sy_error_t* Unary(const sy_kernel_call_t* call, std::string_view op,
                  std::string_view input, Op fn) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckElementwise<1>(call, op, {input}));
  const sy_tensor_view_t& out = call->outputs[0];
  const sy_tensor_view_t& x = call->inputs[0];
  float* po = DataPtr<float>(out);
  const float* px = DataPtr<const float>(x);
  ForEachStridedRun<2>(Shape(out), {out.strides, x.strides},
                       [&](const auto& off, int64_t n, const auto& st) {
                         UnaryRun(po + off[0], px + off[1], n, st[0], st[1],
                                  fn);
                       });
  return nullptr;
}

template <class Op>
sy_error_t* Binary(const sy_kernel_call_t* call, std::string_view op, Op fn) {
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckElementwise<2>(call, op, {"input 'a'", "input 'b'"}));
  const sy_tensor_view_t& out = call->outputs[0];
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  float* po = DataPtr<float>(out);
  const float* pa = DataPtr<const float>(a);
  const float* pb = DataPtr<const float>(b);
  ForEachStridedRun<3>(Shape(out), {out.strides, a.strides, b.strides},
                       [&](const auto& off, int64_t n, const auto& st) {
                         BinaryRun(po + off[0], pa + off[1], pb + off[2], n, st,
                                   fn);
                       });
  return nullptr;
}

}  // namespace

// Nothing below allocates, but every ABI entry point is guarded all the same:
// it costs nothing and keeps the no-exception rule visible at the boundary.

sy_error_t* AddF32(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: add.Tensor", [&] {
    return Binary(call, "add.Tensor", [](float a, float b) { return a + b; });
  });
}

sy_error_t* MulF32(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: mul.Tensor", [&] {
    return Binary(call, "mul.Tensor", [](float a, float b) { return a * b; });
  });
}

sy_error_t* ReluF32(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: relu", [&] {
    // `x < 0 ? 0 : x` rather than fmaxf(x, 0): NaN stays NaN, as in PyTorch.
    return Unary(call, "relu", "input 'x'",
                 [](float x) { return x < 0.0f ? 0.0f : x; });
  });
}

sy_error_t* CopyF32(const sy_kernel_call_t* call) {
  return Guard("cpu plugin: copy", [&] {
    return Unary(call, "copy", "input 'self'", [](float x) { return x; });
  });
}

}  // namespace sy::cpu
