// Binary arithmetic kernels with two tensors (.Tensor): add sub mul div pow
// maximum minimum, inputs of one dtype, already broadcast by the core.
// Semantics in binary_ops.cuh.
#include <string>

#include "switchyard/gpu/binary_ops.cuh"
#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

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
    return LaunchElementwise<S, S, S>(Op{}, *stream, call->outputs[0],
                                      {&call->inputs[0], &call->inputs[1]}, op);
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
