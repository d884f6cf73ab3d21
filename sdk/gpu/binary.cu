// Binary arithmetic kernels with two tensors (.Tensor): add sub mul div pow
// maximum minimum, inputs of one dtype, already broadcast by the core.
// Semantics in binary_ops.cuh. Integer div and pow check their divisor or
// exponent on the device: elements without a result become 0 and raise the
// stream's flag, so the stream's next synchronization fails (or, with
// SWITCHYARD_GPU_SYNC_CHECKS=1, the call, with the cpu plugin's message)
// instead of returning garbage (Note [Deferred device checks]).
#include <string>

#include "switchyard/gpu/binary_ops.cuh"
#include "switchyard/gpu/device_checks.h"
#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

// What went wrong when an integer div or pow met a b without a result
// (the cpu plugin's words).
template <class Op>
std::string RefusedMessage(std::string_view b, sy_dtype_t dtype) {
  if constexpr (std::is_same_v<Op, DivOp>) {
    return StrCat(b, ", and integer division (", plugin::DtypeName(dtype),
                  ") by zero has no result; divide by nonzero values, or cast "
                  "the inputs to a floating dtype to get infinities");
  } else {
    return StrCat(b, ", and an integer input 'a' (", plugin::DtypeName(dtype),
                  ") cannot be raised to a negative power; use nonnegative "
                  "exponents, or cast 'a' to a floating dtype first");
  }
}

// Integer div/pow .Tensor: the op with its b checked on the device.
template <class Op, sy_dtype_t D>
sy_error_t* CheckedIntKernel(const sy_kernel_call_t* call,
                             const Stream& stream) {
  constexpr std::string_view op = Op::kTensor;
  using S = Storage<D>;
  constexpr DeviceCheck check = std::is_same_v<Op, DivOp>
                                    ? DeviceCheck::kIntegerDivisor
                                    : DeviceCheck::kIntegerExponent;
  SY_PLUGIN_RETURN_IF_ERROR((LaunchElementwise<S, S, S>(
      Checked<Op>{Op{}, CheckFlag(stream, check)}, stream, call->outputs[0],
      {&call->inputs[0], &call->inputs[1]}, op)));
  return FinishCheckedCall(stream, check, op, [] {
    return RefusedMessage<Op>(std::is_same_v<Op, DivOp>
                                  ? "input 'b' has a zero element"
                                  : "input 'b' has a negative element",
                              D);
  });
}

template <class Op, sy_dtype_t D>
sy_error_t* TensorKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kTensor;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], op, "input 'a'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[1], op, "input 'b'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", D, *stream));
    using S = Storage<D>;
    if constexpr (kIsInt<S> && requires { Op::Refuses(S{}); }) {
      return CheckedIntKernel<Op, D>(call, *stream);
    } else {
      return LaunchElementwise<S, S, S>(Op{}, *stream, call->outputs[0],
                                        {&call->inputs[0], &call->inputs[1]},
                                        op);
    }
  });
}

template <class Op>
void Add(KernelList& l) {
  const auto add = [&]<sy_dtype_t D>() {
    l.Add(Op::kTensor, DtypeList<D, D>, TensorKernel<Op, D>);
  };
  ForEachDtype<kFloatDtypes>(add);
  if constexpr (Op::kInt) ForEachDtype<kIntDtypes>(add);
  if constexpr (Op::kBool) ForEachDtype<kBoolDtypes>(add);
}

}  // namespace

std::span<const plugin::KernelSpec> BinaryKernels() {
  static const KernelList list = [] {
    KernelList l;
    Add<AddOp>(l);
    Add<SubOp>(l);
    Add<MulOp>(l);
    Add<DivOp>(l);
    Add<PowOp>(l);
    Add<MaximumOp>(l);
    Add<MinimumOp>(l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
