// Binary arithmetic kernels with two tensors (.Tensor): add sub mul div pow
// maximum minimum, inputs of one dtype, already broadcast by the core.
// Semantics in binary_ops.cuh. Integer div and pow check their divisor or
// exponent on the device: elements without a result become 0 and raise a
// flag that the kernel reads back (one synchronization per call, as
// embedding's index check), so the call fails with the cpu plugin's
// message instead of returning garbage.
#include <string>

#include "switchyard/gpu/binary_ops.cuh"
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

// Integer div/pow .Tensor: the op with its b checked on the device, then
// the flag read back.
template <class Op, sy_dtype_t D>
sy_error_t* CheckedIntKernel(const sy_kernel_call_t* call,
                             const Stream& stream) {
  constexpr std::string_view op = Op::kTensor;
  static const std::string where = Where(op);
  using S = Storage<D>;
  if (plugin::NumElements(call->outputs[0]) == 0) return nullptr;
  int* flag = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(RuntimeError(
      MallocAsync(reinterpret_cast<void**>(&flag), sizeof(int), stream.stream),
      where, "allocating the divisor check flag failed"));
  int refused = 0;
  Error status = MemsetAsync(flag, 0, sizeof(int), stream.stream);
  sy_error_t* launch = nullptr;
  if (status == kSuccess) {
    launch = LaunchElementwise<S, S, S>(Checked<Op>{Op{}, flag}, stream,
                                        call->outputs[0],
                                        {&call->inputs[0], &call->inputs[1]},
                                        op);
  }
  if (status == kSuccess && launch == nullptr) {
    status = MemcpyDeviceToHostAsync(&refused, flag, sizeof(int), stream.stream);
  }
  (void)FreeAsync(flag, stream.stream);
  if (status == kSuccess && launch == nullptr) {
    status = StreamSynchronize(stream.stream);
  }
  if (launch != nullptr) return launch;
  SY_PLUGIN_RETURN_IF_ERROR(
      RuntimeError(status, where, "running the integer kernel failed"));
  if (refused != 0) {
    return OpError(op, RefusedMessage<Op>(std::is_same_v<Op, DivOp>
                                              ? "input 'b' has a zero element"
                                              : "input 'b' has a negative element",
                                          D));
  }
  return nullptr;
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
