// softmax and log_softmax over one dim, f32/bf16, over oneDNN's softmax_v2
// (softmax_accurate subtracts the row maximum, as the core op set asks;
// softmax_log gives log_softmax). Source and destination keep their own
// layouts. log_softmax is registered for bf16 only: oneDNN's f32 log is
// about 3e-6 off (relative), over the op set's 1e-5/1e-6 f32 allowance in
// log_softmax's small outputs, while within bf16's.
#include <string_view>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

struct SoftmaxOp {
  std::string_view op;
  std::string_view where;
  dnnl::algorithm alg;
};

constexpr SoftmaxOp kSoftmaxOps[] = {
    {"softmax", "onednn plugin: softmax", dnnl::algorithm::softmax_accurate},
    {"log_softmax", "onednn plugin: log_softmax", dnnl::algorithm::softmax_log},
};

sy_error_t* Softmax(const sy_kernel_call_t* call) {
  const auto* op = OpData<SoftmaxOp>(call);
  return RunKernel(op->where, call, Work::kElements, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 1, 1, 1));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    if (call->attrs[0].kind != SY_ATTR_INT) {
      return OpError(op->where, "attribute 'dim' must be an int; the host is "
                                "damaged");
    }
    const int rank = x.ndim > 0 ? x.ndim : 1;
    int64_t dim = call->attrs[0].value.i;
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank) {
      return OpError(op->where, plugin::StrCat("argument 'dim' ",
                                               call->attrs[0].value.i,
                                               " is out of range for rank ",
                                               x.ndim));
    }
    if (plugin::NumElements(out) == 0) return nullptr;
    Scratch scratch;
    const Operand src = Input(x, scratch);
    const Operand dst = Output(out);
    const dnnl::softmax_v2_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, op->alg, src.desc(), dst.desc(),
         static_cast<int>(dim)},
        Engine());
    Execute(dnnl::softmax_v2_forward(pd),
            {{DNNL_ARG_SRC, src.memory()}, {DNNL_ARG_DST, dst.memory()}});
    return nullptr;
  });
}

}  // namespace

void AddSoftmaxKernels(KernelList& list, bool bf16) {
  for (sy_dtype_t d : FloatDtypes(bf16)) {
    for (const SoftmaxOp& op : kSoftmaxOps) {
      if (op.alg == dnnl::algorithm::softmax_log && d == SY_DTYPE_F32) continue;
      list.Add(op.op, {d}, Softmax, const_cast<SoftmaxOp*>(&op));
    }
  }
}

}  // namespace sy::onednn
