// Binary arithmetic (shaders/binary.comp): add sub mul div pow maximum
// minimum, .Tensor (inputs already broadcast by the core) and .Scalar.
// f32/f16 everywhere (pow in double: shaderFloat64); i32/i64 for all but
// div and pow, whose integer forms must report a zero divisor or a
// negative exponent, which a shader cannot do without a read-back (the
// core's decomposition or cpu fallback serves them; docs/vulkan.md).
#include <bit>

#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

constexpr const char* kTensorOps[] = {"add.Tensor", "sub.Tensor", "mul.Tensor",
                                      "div.Tensor", "pow.Tensor",
                                      "maximum.Tensor", "minimum.Tensor"};
constexpr const char* kScalarOps[] = {"add.Scalar", "sub.Scalar", "mul.Scalar",
                                      "div.Scalar", "pow.Scalar",
                                      "maximum.Scalar", "minimum.Scalar"};

template <int kOp, bool kScalar>
sy_error_t* Binary(const sy_kernel_call_t* call) {
  const std::string_view op = kScalar ? kScalarOps[kOp] : kTensorOps[kOp];
  return plugin::Guard(StrCat("vulkan plugin: ", op), [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(
        BeginCall(call, op, kScalar ? 1 : 2, 1, kScalar ? 1 : 0, &stream));
    const sy_dtype_t dtype = call->inputs[0].dtype;
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, "input 'a'", dtype, *stream));
    ElementwisePush push;
    if constexpr (kScalar) {
      ScalarValue b;
      SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, "b", b));
      push.scalar_f = static_cast<float>(b.AsDouble());
      const int64_t i = b.is_float ? static_cast<int64_t>(b.f) : b.i;
      push.scalar_i = static_cast<int32_t>(i);
      push.scalar_lo = static_cast<uint32_t>(static_cast<uint64_t>(i));
      push.scalar_hi = static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32);
    } else {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[1], op, "input 'b'", dtype, *stream));
    }
    if (call->outputs[0].dtype != dtype) {
      // An integer tensor with a float Scalar: the result is f32.
      return plugin::MakeError(
          SY_STATUS_UNIMPLEMENTED,
          StrCat("vulkan plugin: ", op, ": a ", plugin::DtypeName(dtype),
                 " tensor with a float Scalar (", plugin::DtypeName(call->outputs[0].dtype),
                 " result) has no vulkan kernel; cast the tensor to f32 first"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->outputs[0], op, "output", dtype, *stream));
    const uint32_t spec[] = {kOp};
    return RunSimple(*stream, call, op,
                     StrCat(kScalar ? "binary_scalar_" : "binary_", ShaderDtype(dtype)),
                     spec, kScalar ? 1 : 2, push);
  });
}

template <int kOp>
void AddOp(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kT[][2] = {{SY_DTYPE_F32, SY_DTYPE_F32},
                                         {SY_DTYPE_F16, SY_DTYPE_F16},
                                         {SY_DTYPE_I32, SY_DTYPE_I32},
                                         {SY_DTYPE_I64, SY_DTYPE_I64}};
  static constexpr sy_dtype_t kS[][1] = {
      {SY_DTYPE_F32}, {SY_DTYPE_F16}, {SY_DTYPE_I32}, {SY_DTYPE_I64}};
  if (kOp == 4 && !caps.float64) return;
  for (int i = 0; i < 4; ++i) {
    if (i == 1 && !caps.storage16) continue;
    if (i >= 2 && (kOp == 3 || kOp == 4)) continue;  // integer div/pow
    list.Add(kTensorOps[kOp], kT[i], Binary<kOp, false>);
    // A float Scalar on an integer tensor gives f32: not this kernel's
    // output dtype, so only float tensors take .Scalar with either kind.
    list.Add(kScalarOps[kOp], kS[i], Binary<kOp, true>);
  }
}

}  // namespace

void AddBinaryKernels(const Caps& caps, KernelList& list) {
  AddOp<0>(caps, list);
  AddOp<1>(caps, list);
  AddOp<2>(caps, list);
  AddOp<3>(caps, list);
  AddOp<4>(caps, list);
  AddOp<5>(caps, list);
  AddOp<6>(caps, list);
}

}  // namespace sy::vulkan
