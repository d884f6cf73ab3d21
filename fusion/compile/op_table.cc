#include "fusion/compile/op_table.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "fusion/ir/dtypes.h"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::fusion {
namespace {

enum class Form { kUnary, kBinary, kBinaryScalar, kCompare, kCompareScalar,
                  kWhere, kCast, kCopy, kFill };

struct ElementwiseOp {
  std::string_view name;
  sy_fused_op_t op;
  Form form;
};

constexpr ElementwiseOp kElementwise[] = {
    {"neg", SY_FUSED_NEG, Form::kUnary},
    {"abs", SY_FUSED_ABS, Form::kUnary},
    {"relu", SY_FUSED_RELU, Form::kUnary},
    {"square", SY_FUSED_SQUARE, Form::kUnary},
    {"exp", SY_FUSED_EXP, Form::kUnary},
    {"log", SY_FUSED_LOG, Form::kUnary},
    {"sqrt", SY_FUSED_SQRT, Form::kUnary},
    {"rsqrt", SY_FUSED_RSQRT, Form::kUnary},
    {"sin", SY_FUSED_SIN, Form::kUnary},
    {"cos", SY_FUSED_COS, Form::kUnary},
    {"tanh", SY_FUSED_TANH, Form::kUnary},
    {"sigmoid", SY_FUSED_SIGMOID, Form::kUnary},
    {"silu", SY_FUSED_SILU, Form::kUnary},
    {"erf", SY_FUSED_ERF, Form::kUnary},
    {"reciprocal", SY_FUSED_RECIPROCAL, Form::kUnary},
    {"gelu", SY_FUSED_GELU, Form::kUnary},
    {"add.Tensor", SY_FUSED_ADD, Form::kBinary},
    {"sub.Tensor", SY_FUSED_SUB, Form::kBinary},
    {"mul.Tensor", SY_FUSED_MUL, Form::kBinary},
    {"div.Tensor", SY_FUSED_DIV, Form::kBinary},
    {"pow.Tensor", SY_FUSED_POW, Form::kBinary},
    {"maximum.Tensor", SY_FUSED_MAXIMUM, Form::kBinary},
    {"minimum.Tensor", SY_FUSED_MINIMUM, Form::kBinary},
    {"add.Scalar", SY_FUSED_ADD, Form::kBinaryScalar},
    {"sub.Scalar", SY_FUSED_SUB, Form::kBinaryScalar},
    {"mul.Scalar", SY_FUSED_MUL, Form::kBinaryScalar},
    {"div.Scalar", SY_FUSED_DIV, Form::kBinaryScalar},
    {"pow.Scalar", SY_FUSED_POW, Form::kBinaryScalar},
    {"maximum.Scalar", SY_FUSED_MAXIMUM, Form::kBinaryScalar},
    {"minimum.Scalar", SY_FUSED_MINIMUM, Form::kBinaryScalar},
    {"eq.Tensor", SY_FUSED_EQ, Form::kCompare},
    {"ne.Tensor", SY_FUSED_NE, Form::kCompare},
    {"lt.Tensor", SY_FUSED_LT, Form::kCompare},
    {"le.Tensor", SY_FUSED_LE, Form::kCompare},
    {"gt.Tensor", SY_FUSED_GT, Form::kCompare},
    {"ge.Tensor", SY_FUSED_GE, Form::kCompare},
    {"eq.Scalar", SY_FUSED_EQ, Form::kCompareScalar},
    {"ne.Scalar", SY_FUSED_NE, Form::kCompareScalar},
    {"lt.Scalar", SY_FUSED_LT, Form::kCompareScalar},
    {"le.Scalar", SY_FUSED_LE, Form::kCompareScalar},
    {"gt.Scalar", SY_FUSED_GT, Form::kCompareScalar},
    {"ge.Scalar", SY_FUSED_GE, Form::kCompareScalar},
    {"where", SY_FUSED_WHERE, Form::kWhere},
    {"cast", SY_FUSED_CAST, Form::kCast},
    {"copy", SY_FUSED_CAST, Form::kCopy},
    {"fill.Scalar", SY_FUSED_CONST, Form::kFill},
};

const ElementwiseOp* FindElementwise(const core::OpDef& op) {
  if (!op.owner().empty()) return nullptr;  // plugin ops are opaque
  const std::string& name = op.full_name();
  for (const ElementwiseOp& e : kElementwise) {
    if (e.name == std::string_view(name)) return &e;
  }
  return nullptr;
}

bool IsReductionName(const std::string& name) {
  return name == "sum" || name == "mean" || name == "max" || name == "min";
}

bool ScalarOf(const sy_attr_t& attr, double* out) {
  switch (attr.kind) {
    case SY_ATTR_INT: *out = static_cast<double>(attr.value.i); return true;
    case SY_ATTR_FLOAT: *out = attr.value.f; return true;
    case SY_ATTR_BOOL: *out = attr.value.b ? 1.0 : 0.0; return true;
    default: return false;
  }
}

// A Scalar compared with a floating tensor is first rounded to the
// tensor's dtype (the kernels' rule: comparisons are exact).
double RoundTo(double value, sy_dtype_t dtype) {
  if (dtype == SY_DTYPE_F32) return static_cast<float>(value);
  if (dtype == SY_DTYPE_F16) return static_cast<float>(plugin::Half(static_cast<float>(value)));
  if (dtype == SY_DTYPE_BF16) {
    return static_cast<float>(plugin::BFloat16(static_cast<float>(value)));
  }
  return value;
}

sy_dtype_t DtypeOf(const OpGraph& g, int value) { return g.values[value].meta.dtype; }

}  // namespace

FusedRole Classify(const OpGraph& g, const Node& node, const FusionBackend& backend,
                   std::string* why) {
  auto no = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return FusedRole::kNone;
  };
  if (node.outputs.size() != 1) return no("has several outputs");
  if (node.route == core::Route::kCpuFallback) return no("runs through the cpu fallback");
  const sy_dtype_t out = DtypeOf(g, node.outputs[0]);
  for (int v : node.inputs) {
    if (!backend.Accepts(DtypeOf(g, v))) {
      return no(absl::StrCat("reads ", DtypeText(DtypeOf(g, v)), ", which ",
                             backend.Describe(), " does not fuse"));
    }
  }
  if (!backend.Accepts(out)) {
    return no(absl::StrCat("writes ", DtypeText(out), ", which ",
                           backend.Describe(), " does not fuse"));
  }
  if (const ElementwiseOp* e = FindElementwise(*node.op)) {
    double scalar = 0;
    switch (e->form) {
      case Form::kUnary:
      case Form::kBinary:
        if (!IsFloatDtype(out)) return no("integer arithmetic stays with its kernel");
        if (node.op->full_name() == "gelu") {
          const sy_attr_t& a = node.attrs[0];
          const std::string_view mode(a.value.str.data, a.value.str.size);
          if (mode != "none" && mode != "tanh") return no("unknown gelu approximation");
        }
        break;
      case Form::kBinaryScalar:
        if (!IsFloatDtype(out) || !ScalarOf(node.attrs[0], &scalar)) {
          return no("integer arithmetic stays with its kernel");
        }
        break;
      case Form::kCompare:
        for (int v : node.inputs) {
          if (!IsFloatDtype(DtypeOf(g, v))) return no("compares integers");
        }
        break;
      case Form::kCompareScalar:
        if (!IsFloatDtype(DtypeOf(g, node.inputs[0])) || !ScalarOf(node.attrs[0], &scalar)) {
          return no("compares integers");
        }
        break;
      case Form::kWhere:
        if (DtypeOf(g, node.inputs[0]) != SY_DTYPE_BOOL || !IsValueDtype(out)) {
          return no("selects integers");
        }
        break;
      case Form::kCast:
        if (!IsValueDtype(out)) return no("casts to an integer dtype");
        break;
      case Form::kCopy:
        break;
      case Form::kFill:
        if (!IsValueDtype(out) || !ScalarOf(node.attrs[0], &scalar)) {
          return no("fills an integer tensor");
        }
        break;
    }
    return FusedRole::kElementwise;
  }
  if (node.op->owner().empty() && IsReductionName(node.op->full_name())) {
    if (!backend.row_reductions) {
      return no(absl::StrCat(backend.Describe(), " does not fuse reductions"));
    }
    const Value& x = g.values[node.inputs[0]];
    if (!IsFloatDtype(x.meta.dtype) || out != x.meta.dtype) {
      return no("reduces integers");
    }
    if (x.meta.ndim == 0) return no("reduces a scalar");
    return FusedRole::kReduction;
  }
  return no("is not elementwise or a reduction");
}

ReductionInfo ReductionOf(const OpGraph& g, const Node& node) {
  ReductionInfo info;
  const std::string& name = node.op->full_name();
  info.op = name == "max"   ? SY_FUSED_REDUCE_MAX
            : name == "min" ? SY_FUSED_REDUCE_MIN
                            : SY_FUSED_REDUCE_SUM;
  info.mean = name == "mean";
  const int ndim = g.values[node.inputs[0]].meta.ndim;
  const sy_attr_t& dims = node.attrs[0];
  if (dims.kind == SY_ATTR_INTS && dims.value.ints.size > 0) {
    for (int64_t i = 0; i < dims.value.ints.size; ++i) {
      int64_t d = dims.value.ints.data[i];
      if (d < 0) d += ndim;
      info.dims.push_back(static_cast<int>(d));
    }
  } else {
    for (int d = 0; d < ndim; ++d) info.dims.push_back(d);
  }
  std::sort(info.dims.begin(), info.dims.end());
  info.dims.erase(std::unique(info.dims.begin(), info.dims.end()), info.dims.end());
  info.keepdim = node.attrs.size() > 1 && node.attrs[1].kind == SY_ATTR_BOOL &&
                 node.attrs[1].value.b != 0;
  return info;
}

int32_t EmitCast(FusedKernel& k, int32_t value, sy_dtype_t dtype, int32_t stage,
                 int32_t row_level) {
  if (k.instrs[value].dtype == dtype) return value;
  sy_fused_instr_t in = Instr(SY_FUSED_CAST, dtype, value);
  in.stage = stage;
  in.row_level = row_level;
  return k.Add(in);
}

int32_t EmitConst(FusedKernel& k, double value, sy_dtype_t dtype, int32_t stage,
                  int32_t row_level) {
  sy_fused_instr_t in = Instr(SY_FUSED_CONST, dtype);
  in.imm = value;
  in.stage = stage;
  in.row_level = row_level;
  return k.Add(in);
}

int32_t EmitElementwise(FusedKernel& k, const OpGraph& g, const Node& node,
                        absl::Span<const int32_t> ops, int32_t stage,
                        int32_t row_level) {
  const ElementwiseOp& e = *FindElementwise(*node.op);
  const sy_dtype_t out = DtypeOf(g, node.outputs[0]);
  auto add = [&](sy_fused_op_t op, sy_dtype_t dtype, int32_t a, int32_t b = -1,
                 int32_t c = -1) {
    sy_fused_instr_t in = Instr(op, dtype, a, b, c);
    in.stage = stage;
    in.row_level = row_level;
    return k.Add(in);
  };
  auto cast = [&](int32_t v, sy_dtype_t d) { return EmitCast(k, v, d, stage, row_level); };
  double scalar = 0;
  switch (e.form) {
    case Form::kUnary: {
      sy_fused_op_t op = e.op;
      if (op == SY_FUSED_GELU) {
        const sy_attr_t& a = node.attrs[0];
        if (std::string_view(a.value.str.data, a.value.str.size) == "tanh") {
          op = SY_FUSED_GELU_TANH;
        }
      }
      return add(op, out, cast(ops[0], out));
    }
    case Form::kBinary:
      return add(e.op, out, cast(ops[0], out), cast(ops[1], out));
    case Form::kBinaryScalar:
      ScalarOf(node.attrs[0], &scalar);
      return add(e.op, out, cast(ops[0], out),
                 EmitConst(k, scalar, out, stage, row_level));
    case Form::kCompare: {
      const sy_dtype_t p = core::PromoteTypes(k.instrs[ops[0]].dtype, k.instrs[ops[1]].dtype);
      return add(e.op, SY_DTYPE_BOOL, cast(ops[0], p), cast(ops[1], p));
    }
    case Form::kCompareScalar: {
      const sy_dtype_t p = k.instrs[ops[0]].dtype;
      ScalarOf(node.attrs[0], &scalar);
      return add(e.op, SY_DTYPE_BOOL, ops[0],
                 EmitConst(k, RoundTo(scalar, p), p, stage, row_level));
    }
    case Form::kWhere:
      return add(SY_FUSED_WHERE, out, cast(ops[0], SY_DTYPE_BOOL), cast(ops[1], out),
                 cast(ops[2], out));
    case Form::kCast:
      return cast(ops[0], out);
    case Form::kCopy:
      return ops[0];
    case Form::kFill:
      ScalarOf(node.attrs[0], &scalar);
      return EmitConst(k, scalar, out, stage, row_level);
  }
  return ops[0];
}

}  // namespace sy::fusion
