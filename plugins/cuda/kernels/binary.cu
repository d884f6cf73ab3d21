// Binary arithmetic kernels with two tensors (.Tensor): add sub mul div pow
// maximum minimum, inputs of one dtype, already broadcast by the core.
// Semantics in binary_ops.cuh.
#include "kernels/binary_ops.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::StrCat;

template <class Op, sy_dtype_t D>
sy_error_t* TensorKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kTensor;
  return plugin::Guard(StrCat("cuda plugin: ", op), [&]() -> sy_error_t* {
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
  constexpr std::string_view op = Op::kTensor;
  l.Add(op, DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>, TensorKernel<Op, SY_DTYPE_F32>);
  l.Add(op, DtypeList<SY_DTYPE_F16, SY_DTYPE_F16>, TensorKernel<Op, SY_DTYPE_F16>);
  l.Add(op, DtypeList<SY_DTYPE_BF16, SY_DTYPE_BF16>, TensorKernel<Op, SY_DTYPE_BF16>);
  if constexpr (Op::kInt) {
    l.Add(op, DtypeList<SY_DTYPE_I32, SY_DTYPE_I32>, TensorKernel<Op, SY_DTYPE_I32>);
    l.Add(op, DtypeList<SY_DTYPE_I64, SY_DTYPE_I64>, TensorKernel<Op, SY_DTYPE_I64>);
  }
  if constexpr (Op::kBool) {
    l.Add(op, DtypeList<SY_DTYPE_BOOL, SY_DTYPE_BOOL>, TensorKernel<Op, SY_DTYPE_BOOL>);
  }
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

}  // namespace sy::cuda
