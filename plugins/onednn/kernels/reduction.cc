// sum over dims (keepdim or not) on f32/bf16, over oneDNN's
// reduction primitive. The output keeps the input's rank for oneDNN: without
// keepdim the reduced dims are put back as size 1 (the output's memory is
// the same).
//
// Not registered: max and min (oneDNN's max/min reductions drop NaN, where
// the core op set propagates it) and mean (oneDNN sums in f32 and then
// divides, so a mean of values near FLT_MAX overflows to inf where the op
// set gives the finite mean).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

struct ReduceOp {
  std::string_view op;
  std::string_view where;
  dnnl::algorithm alg;
  float empty_value;  // the result over no elements
};

const ReduceOp kReduceOps[] = {
    {"sum", "onednn plugin: sum", dnnl::algorithm::reduction_sum, 0.f},
};

void Fill(const sy_tensor_view_t& out, float value) {
  const plugin::BFloat16 bf(value);
  auto body = [&](const std::array<int64_t, 1>& off, int64_t n,
                  const std::array<int64_t, 1>& step) {
    for (int64_t i = 0; i < n; ++i) {
      if (out.dtype == SY_DTYPE_BF16) {
        plugin::DataPtr<plugin::BFloat16>(out)[off[0] + i * step[0]] = bf;
      } else {
        plugin::DataPtr<float>(out)[off[0] + i * step[0]] = value;
      }
    }
  };
  plugin::ForEachStridedRun<1>(plugin::Shape(out), {out.strides}, body);
}

sy_error_t* Reduce(const sy_kernel_call_t* call) {
  const auto* op = OpData<ReduceOp>(call);
  return RunKernel(op->where, call, Work::kReduction, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 1, 1, 2));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    const sy_attr_t& dims_attr = call->attrs[0];
    const sy_attr_t& keep_attr = call->attrs[1];
    if (dims_attr.kind != SY_ATTR_INTS || keep_attr.kind != SY_ATTR_BOOL) {
      return OpError(op->where, "attributes must be (int[] dims, bool "
                                "keepdim); the host is damaged");
    }
    if (plugin::NumElements(out) == 0) return nullptr;
    if (plugin::NumElements(x) == 0) {
      Fill(out, op->empty_value);
      return nullptr;
    }
    const int rank = x.ndim;
    std::vector<bool> reduced(static_cast<size_t>(std::max(rank, 1)),
                              dims_attr.value.ints.size == 0);
    for (int64_t i = 0; i < dims_attr.value.ints.size; ++i) {
      int64_t d = dims_attr.value.ints.data[i];
      if (d < 0) d += std::max(rank, 1);
      if (d < 0 || d >= std::max(rank, 1)) {
        return OpError(op->where, plugin::StrCat("dim ", dims_attr.value.ints.data[i],
                                                 " is out of range for rank ",
                                                 rank));
      }
      reduced[static_cast<size_t>(d)] = true;
    }
    Scratch scratch;
    const Operand src = Input(x, scratch);
    Operand dst = Output(out);
    if (rank > 0 && !keep_attr.value.b) {
      if (out.ndim == 0) dst.dims.clear(), dst.strides.clear();  // not [1]
      for (int d = 0; d < rank; ++d) {
        if (reduced[static_cast<size_t>(d)]) dst = Unsqueeze(dst, d);
      }
    }
    if (dst.rank() != src.rank()) {
      return OpError(op->where, "the output's shape does not match the "
                                "reduction; the host is damaged");
    }
    if (src.dims == dst.dims) {  // nothing to reduce: a copy
      Reorder(src.memory(), dst.memory());
      return nullptr;
    }
    const dnnl::reduction::primitive_desc pd(
        {op->alg, src.desc(), dst.desc(), 0.f, 0.f}, Engine());
    Execute(dnnl::reduction(pd),
            {{DNNL_ARG_SRC, src.memory()}, {DNNL_ARG_DST, dst.memory()}});
    return nullptr;
  });
}

}  // namespace

void AddReductionKernels(KernelList& list, bool bf16) {
  for (sy_dtype_t d : FloatDtypes(bf16)) {
    for (const ReduceOp& op : kReduceOps) {
      list.Add(op.op, {d}, Reduce, const_cast<ReduceOp*>(&op));
    }
  }
}

}  // namespace sy::onednn
