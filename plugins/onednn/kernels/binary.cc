// Binary .Tensor ops over oneDNN's binary primitive: add, sub, mul, div on
// equal dtypes. The core hands elementwise ops their inputs already
// broadcast to the output's shape (stride 0 on stretched dims); oneDNN
// broadcasts src1 by itself, so src1's stride-0 dims become size 1. src0
// must have the output's dims: a broadcast src0 is swapped with src1 for the
// commutative add and mul, and copied densely otherwise.
//
// maximum and minimum are not registered: oneDNN computes them as
// `a > b ? a : b`, which drops a NaN in `a`, where the core op set
// propagates NaN. The .Scalar overloads stay with the cpu plugin too
// (oneDNN would round the Scalar to f32 before using it, which the core op
// set does not do). bf16 is not registered: oneDNN's native bf16
// conversions flush subnormals to zero, where the op set keeps them.
#include <string_view>
#include <utility>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

struct BinaryOp {
  std::string_view op;
  std::string_view where;
  dnnl::algorithm alg;
  bool commutative;
};

constexpr BinaryOp kBinaryOps[] = {
    {"add.Tensor", "onednn plugin: add.Tensor", dnnl::algorithm::binary_add, true},
    {"sub.Tensor", "onednn plugin: sub.Tensor", dnnl::algorithm::binary_sub, false},
    {"mul.Tensor", "onednn plugin: mul.Tensor", dnnl::algorithm::binary_mul, true},
    {"div.Tensor", "onednn plugin: div.Tensor", dnnl::algorithm::binary_div, false},
};

bool HasBroadcastDim(const sy_tensor_view_t& v) {
  for (int d = 0; d < v.ndim; ++d) {
    if (v.shape[d] > 1 && v.strides[d] == 0) return true;
  }
  return false;
}

sy_error_t* Binary(const sy_kernel_call_t* call) {
  const auto* op = OpData<BinaryOp>(call);
  return RunKernel(op->where, call, Work::kElements, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 2, 1, 0));
    const sy_tensor_view_t* a = &call->inputs[0];
    const sy_tensor_view_t* b = &call->inputs[1];
    const sy_tensor_view_t& out = call->outputs[0];
    if (a->ndim != out.ndim || b->ndim != out.ndim) {
      return OpError(op->where, "inputs are not broadcast to the output's "
                                "rank; the host is damaged");
    }
    if (plugin::NumElements(out) == 0) return nullptr;
    if (op->commutative && HasBroadcastDim(*a) && !HasBroadcastDim(*b)) {
      std::swap(a, b);
    }
    Scratch scratch;
    const Operand src0 = Input(*a, scratch, ZeroStride::kCopy);
    const Operand src1 = Input(*b, scratch, ZeroStride::kBroadcast);
    const Operand dst = Output(out);
    const dnnl::binary::primitive_desc pd(
        {op->alg, src0.desc(), src1.desc(), dst.desc()}, Engine());
    Execute(dnnl::binary(pd), {{DNNL_ARG_SRC_0, src0.memory()},
                               {DNNL_ARG_SRC_1, src1.memory()},
                               {DNNL_ARG_DST, dst.memory()}});
    return nullptr;
  });
}

}  // namespace

void AddBinaryKernels(KernelList& list, bool /*bf16*/) {
  for (sy_dtype_t d : {SY_DTYPE_F32}) {
    for (const BinaryOp& op : kBinaryOps) {
      list.Add(op.op, {d, d}, Binary, const_cast<BinaryOp*>(&op));
    }
  }
}

}  // namespace sy::onednn
