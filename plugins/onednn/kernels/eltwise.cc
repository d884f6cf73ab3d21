// Unary ops over oneDNN's eltwise primitive.
//
// Registered only where oneDNN's algorithm computes the op as docs/ops.md
// defines it, within the op harness's tolerances: abs, sqrt, tanh, sigmoid
// (logistic), silu (swish, alpha 1), square, neg (linear, alpha -1) and gelu
// (gelu_erf or gelu_tanh by `approximate`), f32 only. Left to the cpu
// plugin, with the reason (docs/onednn.md):
//   relu  oneDNN's relu maps NaN to 0; the op set propagates NaN;
//   exp   exp(NaN) gives inf;
//   log   about 3e-6 relative error, over the 1e-6 allowed;
//   rsqrt reciprocal erf sin cos: no exact eltwise algorithm (oneDNN's
//         pow goes through exp/log);
//   bf16  oneDNN's native bf16 conversions flush subnormals to zero, where
//         the op set keeps them: a unary op on bf16 is memory-bound anyway.
#include <string_view>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

struct UnaryOp {
  std::string_view op;     // schema name
  std::string_view where;  // "onednn plugin: relu"
  dnnl::algorithm alg;
  float alpha;
  float beta;
};

constexpr UnaryOp kUnaryOps[] = {
    {"neg", "onednn plugin: neg", dnnl::algorithm::eltwise_linear, -1.f, 0.f},
    {"abs", "onednn plugin: abs", dnnl::algorithm::eltwise_abs, 0.f, 0.f},
    {"square", "onednn plugin: square", dnnl::algorithm::eltwise_square, 0.f, 0.f},
    {"sqrt", "onednn plugin: sqrt", dnnl::algorithm::eltwise_sqrt, 0.f, 0.f},
    {"tanh", "onednn plugin: tanh", dnnl::algorithm::eltwise_tanh, 0.f, 0.f},
    {"sigmoid", "onednn plugin: sigmoid", dnnl::algorithm::eltwise_logistic, 0.f, 0.f},
    {"silu", "onednn plugin: silu", dnnl::algorithm::eltwise_swish, 1.f, 0.f},
};

// dst = alg(src; alpha, beta) elementwise; equal shapes and dtypes, any
// strides. oneDNN's eltwise wants one layout for both, so when the layouts
// differ src is first reordered into dst and the primitive runs in place.
void RunEltwise(dnnl::algorithm alg, float alpha, float beta,
                const sy_tensor_view_t& src_view,
                const sy_tensor_view_t& dst_view) {
  if (plugin::NumElements(dst_view) == 0) return;
  Scratch scratch;
  const Operand src = Input(src_view, scratch);
  const Operand dst = Output(dst_view);
  const dnnl::memory dst_mem = dst.memory();
  dnnl::memory src_mem = dst_mem;
  if (src.strides == dst.strides) {
    src_mem = src.memory();
  } else {
    Reorder(src.memory(), dst_mem);
  }
  const dnnl::eltwise_forward::primitive_desc pd(
      {dnnl::prop_kind::forward_inference, alg, dst.desc(), alpha, beta},
      Engine());
  Execute(dnnl::eltwise_forward(pd),
          {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}});
}

sy_error_t* Unary(const sy_kernel_call_t* call) {
  const auto* op = OpData<UnaryOp>(call);
  return RunKernel(op->where, call, Work::kElements, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 1, 1, 0));
    RunEltwise(op->alg, op->alpha, op->beta, call->inputs[0], call->outputs[0]);
    return nullptr;
  });
}

sy_error_t* Gelu(const sy_kernel_call_t* call) {
  constexpr std::string_view kWhere = "onednn plugin: gelu";
  return RunKernel(kWhere, call, Work::kElements, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kWhere, 1, 1, 1));
    const sy_attr_t& attr = call->attrs[0];
    const std::string_view approximate =
        attr.kind == SY_ATTR_STRING
            ? std::string_view(attr.value.str.data,
                               static_cast<size_t>(attr.value.str.size))
            : std::string_view();
    dnnl::algorithm alg;
    if (approximate == "none") {
      alg = dnnl::algorithm::eltwise_gelu_erf;
    } else if (approximate == "tanh") {
      alg = dnnl::algorithm::eltwise_gelu_tanh;
    } else {
      return OpError(kWhere, "argument 'approximate' must be \"none\" or "
                             "\"tanh\"; pass one of them");
    }
    RunEltwise(alg, 0.f, 0.f, call->inputs[0], call->outputs[0]);
    return nullptr;
  });
}

}  // namespace

void AddEltwiseKernels(KernelList& list, bool /*bf16*/) {
  for (sy_dtype_t d : {SY_DTYPE_F32}) {
    for (const UnaryOp& op : kUnaryOps) {
      list.Add(op.op, {d}, Unary, const_cast<UnaryOp*>(&op));
    }
    list.Add("gelu", {d}, Gelu);
  }
}

}  // namespace sy::onednn
