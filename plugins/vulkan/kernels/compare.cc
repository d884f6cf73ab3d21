// Comparisons (shaders/compare.comp) → bool, .Tensor and .Scalar, and
// where (shaders/where.comp). Need 8-bit storage for the bool results.
#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

constexpr const char* kTensorOps[] = {"eq.Tensor", "ne.Tensor", "lt.Tensor",
                                      "le.Tensor", "gt.Tensor", "ge.Tensor"};
constexpr const char* kScalarOps[] = {"eq.Scalar", "ne.Scalar", "lt.Scalar",
                                      "le.Scalar", "gt.Scalar", "ge.Scalar"};

template <int kOp, bool kScalar>
sy_error_t* Compare(const sy_kernel_call_t* call) {
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
      const bool floating = dtype == SY_DTYPE_F32 || dtype == SY_DTYPE_F16;
      if (!floating && b.is_float && b.f != static_cast<double>(static_cast<int64_t>(b.f))) {
        return plugin::MakeError(
            SY_STATUS_UNIMPLEMENTED,
            StrCat("vulkan plugin: ", op, ": a ", plugin::DtypeName(dtype),
                   " tensor against a fractional float Scalar has no vulkan "
                   "kernel; cast the tensor to f32 first"));
      }
      push.scalar_f = static_cast<float>(b.AsDouble());
      const int64_t i = b.is_float ? static_cast<int64_t>(b.f) : b.i;
      push.scalar_i = static_cast<int32_t>(i);
      push.scalar_lo = static_cast<uint32_t>(static_cast<uint64_t>(i));
      push.scalar_hi = static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32);
    } else {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[1], op, "input 'b'", dtype, *stream));
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", SY_DTYPE_BOOL, *stream));
    const uint32_t spec[] = {kOp};
    return RunSimple(*stream, call, op,
                     StrCat(kScalar ? "compare_scalar_" : "compare_", ShaderDtype(dtype)),
                     spec, kScalar ? 1 : 2, push);
  });
}

sy_error_t* Where(const sy_kernel_call_t* call) {
  return plugin::Guard("vulkan plugin: where", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, "where", 3, 1, 0, &stream));
    const sy_dtype_t dtype = call->inputs[1].dtype;
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], "where", "input 'condition'",
                                        SY_DTYPE_BOOL, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[1], "where", "input 'a'", dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[2], "where", "input 'b'", dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->outputs[0], "where", "output", dtype, *stream));
    return RunSimple(*stream, call, "where", StrCat("where_", ShaderDtype(dtype)),
                     {}, 3);
  });
}

template <int kOp>
void AddOp(KernelList& list, const sy_dtype_t (&pair)[2], const sy_dtype_t (&one)[1]) {
  list.Add(kTensorOps[kOp], pair, Compare<kOp, false>);
  list.Add(kScalarOps[kOp], one, Compare<kOp, true>);
}

}  // namespace

void AddCompareKernels(const Caps& caps, KernelList& list) {
  if (!caps.storage8) return;  // bool results
  static constexpr sy_dtype_t kPairs[][2] = {
      {SY_DTYPE_F32, SY_DTYPE_F32}, {SY_DTYPE_F16, SY_DTYPE_F16},
      {SY_DTYPE_I32, SY_DTYPE_I32}, {SY_DTYPE_I64, SY_DTYPE_I64},
      {SY_DTYPE_BOOL, SY_DTYPE_BOOL}};
  static constexpr sy_dtype_t kOnes[][1] = {
      {SY_DTYPE_F32}, {SY_DTYPE_F16}, {SY_DTYPE_I32}, {SY_DTYPE_I64}, {SY_DTYPE_BOOL}};
  static constexpr sy_dtype_t kWhere[][3] = {
      {SY_DTYPE_BOOL, SY_DTYPE_F32, SY_DTYPE_F32},
      {SY_DTYPE_BOOL, SY_DTYPE_F16, SY_DTYPE_F16},
      {SY_DTYPE_BOOL, SY_DTYPE_I32, SY_DTYPE_I32},
      {SY_DTYPE_BOOL, SY_DTYPE_I64, SY_DTYPE_I64},
      {SY_DTYPE_BOOL, SY_DTYPE_BOOL, SY_DTYPE_BOOL}};
  for (int i = 0; i < 5; ++i) {
    if (i == 1 && !caps.storage16) continue;
    AddOp<0>(list, kPairs[i], kOnes[i]);
    AddOp<1>(list, kPairs[i], kOnes[i]);
    AddOp<2>(list, kPairs[i], kOnes[i]);
    AddOp<3>(list, kPairs[i], kOnes[i]);
    AddOp<4>(list, kPairs[i], kOnes[i]);
    AddOp<5>(list, kPairs[i], kOnes[i]);
    list.Add("where", kWhere[i], Where);
  }
}

}  // namespace sy::vulkan
