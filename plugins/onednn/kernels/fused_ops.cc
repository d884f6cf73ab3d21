// The plugin's own ops: a linear or matmul with the op that usually follows
// it fused in as a oneDNN post-op, computed on the f32 accumulator before
// the single rounding to the output dtype. They exist for the fusion pass
// (pattern substitution, patterns.h: matmul → add (→ gelu), linear →
// gelu; nothing → relu, whose NaN differs), and can be called by name like
// any op:
//
//   onednn::linear_relu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
//   onednn::linear_gelu(Tensor input, Tensor weight, Tensor? bias=None, str approximate="none") -> Tensor
//   onednn::matmul_add(Tensor a, Tensor b, Tensor c) -> Tensor
//   onednn::matmul_add_gelu(Tensor a, Tensor b, Tensor c, str approximate="none") -> Tensor
//
// linear_* follow `linear` (weight [out, in]) then relu / gelu; matmul_add
// is matmul(a, b) + c, where c broadcasts to matmul's result without
// growing it, and matmul_add_gelu gelu of that (a linear with a bias and
// gelu, as the fusion pass sees it once linear is decomposed). Shapes and
// dtypes are checked here (the core calls these shape functions); kernels
// exist for f32 and, with native bf16, bf16.
#include <algorithm>
#include <array>
#include <string_view>

#include "context.h"
#include "kernels/kernel_list.h"
#include "kernels/matmul.h"

namespace sy::onednn {
namespace {

using plugin::DtypeName;
using plugin::ShapeToString;
using plugin::StrCat;

sy_error_t* ShapeError(std::string_view op, std::string_view what) {
  return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                           StrCat("onednn::", op, ": ", what));
}

std::span<const int64_t> MetaShape(const sy_tensor_meta_t& m) {
  return {m.shape, static_cast<size_t>(m.ndim)};
}

bool IsFloating(sy_dtype_t d) {
  return d == SY_DTYPE_F32 || d == SY_DTYPE_BF16 || d == SY_DTYPE_F16 ||
         d == SY_DTYPE_F64;
}

// The tensor argument k of a shape call, or NULL when omitted.
const sy_tensor_meta_t* MetaArg(const sy_shape_call_t* call, int k) {
  const int32_t begin = call->input_offsets[k];
  return call->input_offsets[k + 1] > begin ? &call->inputs[begin] : nullptr;
}

sy_error_t* CheckShapeCall(const sy_shape_call_t* call, std::string_view op,
                           int num_tensor_args, int num_attrs) {
  if (call == nullptr || call->struct_size < sizeof(sy_shape_call_t) ||
      call->num_tensor_args != num_tensor_args || call->input_offsets == nullptr ||
      call->num_attrs != num_attrs || call->num_outputs != 1 ||
      call->outputs == nullptr || (num_attrs > 0 && call->attrs == nullptr)) {
    return ShapeError(op, "malformed shape call; the host is damaged");
  }
  return nullptr;
}

// A gelu's `approximate` attribute as text ("" when it is not a string).
std::string_view Approximate(const sy_attr_t& a) {
  return a.kind == SY_ATTR_STRING
             ? std::string_view(a.value.str.data, static_cast<size_t>(a.value.str.size))
             : std::string_view();
}

sy_error_t* CheckApproximate(const sy_shape_call_t* call, std::string_view op) {
  const std::string_view approximate = Approximate(call->attrs[0]);
  if (approximate != "none" && approximate != "tanh") {
    return ShapeError(op, StrCat("argument 'approximate' is \"", approximate,
                                 "\"; pass \"none\" or \"tanh\""));
  }
  return nullptr;
}

// Shared by linear_relu and linear_gelu.
sy_error_t* LinearShape(const sy_shape_call_t* call, std::string_view op,
                        int num_attrs) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckShapeCall(call, op, 3, num_attrs));
  const sy_tensor_meta_t* x = MetaArg(call, 0);
  const sy_tensor_meta_t* w = MetaArg(call, 1);
  const sy_tensor_meta_t* b = MetaArg(call, 2);
  if (x == nullptr || w == nullptr) {
    return ShapeError(op, "arguments 'input' and 'weight' are required");
  }
  if (!IsFloating(x->dtype) || w->dtype != x->dtype ||
      (b != nullptr && b->dtype != x->dtype)) {
    return ShapeError(op, StrCat("argument 'weight' (", DtypeName(w->dtype),
                                 ") and 'bias' must have input's floating "
                                 "dtype (", DtypeName(x->dtype),
                                 "); cast them first"));
  }
  if (x->ndim < 1 || w->ndim != 2 || w->shape[1] != x->shape[x->ndim - 1]) {
    return ShapeError(op, StrCat("argument 'weight' has shape ",
                                 ShapeToString(MetaShape(*w)),
                                 " but must be [out, in] with in = the last "
                                 "dim of 'input' ",
                                 ShapeToString(MetaShape(*x))));
  }
  if (b != nullptr && (b->ndim != 1 || b->shape[0] != w->shape[0])) {
    return ShapeError(op, StrCat("argument 'bias' has shape ",
                                 ShapeToString(MetaShape(*b)), " but must be [",
                                 w->shape[0], "]"));
  }
  sy_tensor_meta_t& out = call->outputs[0];
  out = *x;
  out.shape[out.ndim - 1] = w->shape[0];
  return nullptr;
}

sy_error_t* LinearReluShape(const sy_shape_call_t* call) {
  return plugin::Guard("onednn::linear_relu shape", [&] {
    return LinearShape(call, "linear_relu", 0);
  });
}

sy_error_t* LinearGeluShape(const sy_shape_call_t* call) {
  return plugin::Guard("onednn::linear_gelu shape", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(LinearShape(call, "linear_gelu", 1));
    return CheckApproximate(call, "linear_gelu");
  });
}

// Shared by matmul_add and matmul_add_gelu (`num_attrs`: its approximate).
sy_error_t* MatmulAddShapeOf(const sy_shape_call_t* call, std::string_view op,
                             int num_attrs) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckShapeCall(call, op, 3, num_attrs));
  const sy_tensor_meta_t* a = MetaArg(call, 0);
  const sy_tensor_meta_t* b = MetaArg(call, 1);
  const sy_tensor_meta_t* c = MetaArg(call, 2);
  if (a == nullptr || b == nullptr || c == nullptr) {
    return ShapeError(op, "arguments 'a', 'b' and 'c' are required");
  }
  if (!IsFloating(a->dtype) || b->dtype != a->dtype || c->dtype != a->dtype) {
    return ShapeError(op, StrCat("arguments must share one floating dtype, "
                                  "got ", DtypeName(a->dtype), ", ",
                                  DtypeName(b->dtype), ", ",
                                  DtypeName(c->dtype), "; cast them first"));
  }
  if (a->ndim < 1 || b->ndim < 1) {
    return ShapeError(op, "arguments 'a' and 'b' must have rank >= 1");
  }
  const int64_t k_a = a->shape[a->ndim - 1];
  const int64_t k_b = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
  if (k_a != k_b) {
    return ShapeError(op, StrCat("'a' ", ShapeToString(MetaShape(*a)),
                                  " and 'b' ", ShapeToString(MetaShape(*b)),
                                  " do not agree on the contracted dim; "
                                  "pass a [..., M, K] and b [..., K, N]"));
  }
  // Batch dims broadcast as in NumPy's matmul.
  const int batch_a = std::max(a->ndim - 2, 0);
  const int batch_b = std::max(b->ndim - 2, 0);
  const int batch = std::max(batch_a, batch_b);
  sy_tensor_meta_t out{};
  out.dtype = a->dtype;
  for (int i = 0; i < batch; ++i) {
    const int ia = i - (batch - batch_a), ib = i - (batch - batch_b);
    const int64_t da = ia >= 0 ? a->shape[ia] : 1;
    const int64_t db = ib >= 0 ? b->shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      return ShapeError(op, StrCat("batch dims of 'a' ",
                                    ShapeToString(MetaShape(*a)), " and 'b' ",
                                    ShapeToString(MetaShape(*b)),
                                    " do not broadcast"));
    }
    out.shape[out.ndim++] = da == 1 ? db : da;
  }
  if (a->ndim >= 2) out.shape[out.ndim++] = a->shape[a->ndim - 2];
  if (b->ndim >= 2) out.shape[out.ndim++] = b->shape[b->ndim - 1];
  bool fits = c->ndim <= out.ndim;
  for (int i = 0; fits && i < c->ndim; ++i) {
    const int64_t dc = c->shape[c->ndim - 1 - i];
    fits = dc == 1 || dc == out.shape[out.ndim - 1 - i];
  }
  if (!fits) {
    return ShapeError(op, StrCat("argument 'c' ", ShapeToString(MetaShape(*c)),
                                  " must broadcast to matmul's result ",
                                  ShapeToString(MetaShape(out)),
                                  " without growing it"));
  }
  call->outputs[0] = out;
  return nullptr;
}

sy_error_t* MatmulAddShape(const sy_shape_call_t* call) {
  return plugin::Guard("onednn::matmul_add shape",
                       [&] { return MatmulAddShapeOf(call, "matmul_add", 0); });
}

sy_error_t* MatmulAddGeluShape(const sy_shape_call_t* call) {
  return plugin::Guard("onednn::matmul_add_gelu shape", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(MatmulAddShapeOf(call, "matmul_add_gelu", 1));
    return CheckApproximate(call, "matmul_add_gelu");
  });
}

// ---- Kernels ---------------------------------------------------------------

// gelu's oneDNN algorithm from its `approximate` attribute.
sy_error_t* GeluAlgorithm(const sy_attr_t& a, std::string_view where, dnnl::algorithm* alg) {
  const std::string_view approximate = Approximate(a);
  if (approximate == "tanh") {
    *alg = dnnl::algorithm::eltwise_gelu_tanh;
  } else if (approximate == "none") {
    *alg = dnnl::algorithm::eltwise_gelu_erf;
  } else {
    return OpError(where, "argument 'approximate' must be \"none\" or \"tanh\"");
  }
  return nullptr;
}

struct LinearPostOp {
  std::string_view where;
  dnnl::algorithm alg;  // for linear_gelu, from `approximate` instead
  int num_attrs;
};

constexpr LinearPostOp kLinearRelu = {"onednn plugin: onednn::linear_relu",
                                      dnnl::algorithm::eltwise_relu, 0};
constexpr LinearPostOp kLinearGelu = {"onednn plugin: onednn::linear_gelu",
                                      dnnl::algorithm::eltwise_gelu_erf, 1};

sy_error_t* LinearWithPostOp(const sy_kernel_call_t* call) {
  const auto* op = OpData<LinearPostOp>(call);
  return RunKernel(op->where, call, Work::kAlways, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 3, 1, op->num_attrs));
    if (call->inputs[0].ndim < 1 || call->inputs[1].ndim != 2) {
      return OpError(op->where, "input must have rank >= 1 and weight rank 2");
    }
    dnnl::algorithm alg = op->alg;
    if (op->num_attrs == 1) {
      SY_PLUGIN_RETURN_IF_ERROR(GeluAlgorithm(call->attrs[0], op->where, &alg));
    }
    if (plugin::NumElements(call->outputs[0]) == 0) return nullptr;
    Scratch scratch;
    const MatmulOperands layout = LinearLayout(
        call->inputs[0], call->inputs[1], Arg(call, 2), call->outputs[0], scratch);
    dnnl::post_ops post_ops;
    post_ops.append_eltwise(1.f, alg, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(post_ops);
    RunMatmul(layout, attr);
    return nullptr;
  });
}

// matmul_add, and matmul_add_gelu with gelu after the add (num_attrs 1:
// its approximate).
struct MatmulPostOp {
  std::string_view where;
  int num_attrs;
};

constexpr MatmulPostOp kMatmulAdd = {"onednn plugin: onednn::matmul_add", 0};
constexpr MatmulPostOp kMatmulAddGelu = {"onednn plugin: onednn::matmul_add_gelu", 1};

sy_error_t* MatmulWithPostOps(const sy_kernel_call_t* call) {
  const auto* op = OpData<MatmulPostOp>(call);
  return RunKernel(op->where, call, Work::kAlways, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, op->where, 3, 1, op->num_attrs));
    if (call->inputs[0].ndim < 1 || call->inputs[1].ndim < 1) {
      return OpError(op->where, "both 'a' and 'b' must have rank >= 1");
    }
    dnnl::algorithm gelu = dnnl::algorithm::eltwise_gelu_erf;
    if (op->num_attrs == 1) {
      SY_PLUGIN_RETURN_IF_ERROR(GeluAlgorithm(call->attrs[0], op->where, &gelu));
    }
    if (plugin::NumElements(call->outputs[0]) == 0) return nullptr;
    Scratch scratch;
    const MatmulOperands layout = MatmulLayout(call->inputs[0], call->inputs[1],
                                               call->outputs[0], scratch);
    const Operand c = AlignToDst(call->inputs[2], layout, scratch);
    dnnl::post_ops post_ops;
    post_ops.append_binary(dnnl::algorithm::binary_add, c.desc());
    if (op->num_attrs == 1) post_ops.append_eltwise(1.f, gelu, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(post_ops);
    RunMatmul(layout, attr,
              {{DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, c.memory()}});
    return nullptr;
  });
}

constexpr std::array<sy_schema_desc_t, 4> kSchemas = {{
    {sizeof(sy_schema_desc_t), nullptr,
     "onednn::linear_relu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
     LinearReluShape, nullptr},
    {sizeof(sy_schema_desc_t), nullptr,
     "onednn::linear_gelu(Tensor input, Tensor weight, Tensor? bias=None, "
     "str approximate=\"none\") -> Tensor",
     LinearGeluShape, nullptr},
    {sizeof(sy_schema_desc_t), nullptr,
     "onednn::matmul_add(Tensor a, Tensor b, Tensor c) -> Tensor",
     MatmulAddShape, nullptr},
    {sizeof(sy_schema_desc_t), nullptr,
     "onednn::matmul_add_gelu(Tensor a, Tensor b, Tensor c, str approximate=\"none\") -> Tensor",
     MatmulAddGeluShape, nullptr},
}};

}  // namespace

std::span<const sy_schema_desc_t> FusedSchemas() { return kSchemas; }

void AddFusedKernels(KernelList& list, bool bf16) {
  // The plugin's own ops: no other kernel could run them, so they never
  // decline and need no query.
  list.set_flags(0);
  for (sy_dtype_t d : FloatDtypes(bf16)) {
    for (const LinearPostOp* op : {&kLinearRelu, &kLinearGelu}) {
      const std::string_view name = op == &kLinearRelu ? "onednn::linear_relu"
                                                       : "onednn::linear_gelu";
      list.Add(name, {d, d, d}, LinearWithPostOp, const_cast<LinearPostOp*>(op));
      list.Add(name, {d, d, SY_DTYPE_NONE}, LinearWithPostOp,
               const_cast<LinearPostOp*>(op));
    }
    list.Add("onednn::matmul_add", {d, d, d}, MatmulWithPostOps,
             const_cast<MatmulPostOp*>(&kMatmulAdd));
    list.Add("onednn::matmul_add_gelu", {d, d, d}, MatmulWithPostOps,
             const_cast<MatmulPostOp*>(&kMatmulAddGelu));
  }
}

}  // namespace sy::onednn
