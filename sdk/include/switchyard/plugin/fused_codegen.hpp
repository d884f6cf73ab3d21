// sy::plugin::fused: the language-neutral half of a code generator for the
// fused-kernel IR (Note [Fused-kernel IR] in switchyard/plugin.h), shared by
// every plugin that turns the IR into C-like source (the cuda plugin's CUDA
// C, the vulkan plugin's GLSL):
//   - CodeWriter: indented lines and braces;
//   - PlanOperands: each input and output as the generator walks it (its
//     strides over the domain, 0 on dims of size 1, and whether it is
//     unit, zero or broadcast along the innermost dim);
//   - ValueName / SplitStages: the names of SSA values ("v3" per element,
//     "r5" per row) and each stage's per-row and per-element instructions;
//   - EmitOffsets: the element offset of every operand from a linear index
//     over some of the domain's dims, in the language's index type;
//   - OpExpr: an arithmetic op as an expression over its operands'
//     expressions, C operators where C, CUDA and GLSL agree and the
//     language's Dialect for the rest (math functions, literals).
// A generator adds what is its own: storage types, loads and stores, the
// launch shape and the reductions' combining.
//
// Header-only. Thread-safety: pure functions; a CodeWriter is one caller's.
#ifndef SWITCHYARD_PLUGIN_FUSED_CODEGEN_HPP_
#define SWITCHYARD_PLUGIN_FUSED_CODEGEN_HPP_

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin/fused_ir.hpp"

namespace sy::plugin::fused {

class CodeWriter {
 public:
  void Line(const std::string& text) { out_ << std::string(indent_ * 2, ' ') << text << "\n"; }
  // "text {" and one level deeper.
  void Open(const std::string& text) {
    Line(text + " {");
    ++indent_;
  }
  // One level back and "}tail".
  void Close(const std::string& tail = "") {
    --indent_;
    Line("}" + tail);
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  int indent_ = 0;
};

// How a generator sees one operand along the domain.
struct OperandPlan {
  sy_dtype_t dtype = 0;
  bool output = false;
  int index = 0;    // among the inputs or the outputs
  std::string ptr;  // "in0", "out1": its name in the source
  int64_t strides[SY_MAX_RANK] = {};  // 0 along dims of size 1
  bool zero_inner = false;  // stride 0 along the innermost dim
  bool unit_inner = false;  // stride 1 along it
  bool all_zero = false;    // one element for the whole domain
};

// The kernel's inputs, then its outputs, over `domain` (ReadDomain's);
// false with *error for an operand of an unknown dtype.
inline bool PlanOperands(const sy_fused_kernel_t& k, const Domain& domain,
                         std::vector<OperandPlan>* out, std::string* error) {
  out->clear();
  for (int i = 0; i < k.num_inputs + k.num_outputs; ++i) {
    const bool output = i >= k.num_inputs;
    const sy_fused_operand_t& src = output ? k.outputs[i - k.num_inputs] : k.inputs[i];
    if (!IsKnownDtype(src.dtype)) {
      *error = "an operand has an unknown dtype";
      return false;
    }
    OperandPlan p;
    p.dtype = src.dtype;
    p.output = output;
    p.index = output ? i - k.num_inputs : i;
    p.ptr = (output ? "out" : "in") + std::to_string(p.index);
    p.all_zero = true;
    for (int d = 0; d < domain.ndim; ++d) {
      p.strides[d] = k.ndim == 0 || domain.shape[d] == 1 ? 0 : src.strides[d];
      if (p.strides[d] != 0) p.all_zero = false;
    }
    p.zero_inner = p.strides[domain.ndim - 1] == 0;
    p.unit_inner = p.strides[domain.ndim - 1] == 1;
    out->push_back(p);
  }
  return true;
}

// The source name of instruction i's value: "r<i>" for a per-row value (a
// per-row instruction's or a REDUCE's), "v<i>" for a per-element one.
inline std::string ValueName(const sy_fused_kernel_t& k, int i) {
  const sy_fused_instr_t& in = k.instrs[i];
  return (in.row_level == 1 || IsReduce(in.op) ? "r" : "v") + std::to_string(i);
}

// One stage's instructions, in list order.
struct StageSteps {
  std::vector<int> row;   // per row (row_level 1)
  std::vector<int> elem;  // per element, REDUCEs included
};

inline std::vector<StageSteps> SplitStages(const sy_fused_kernel_t& k) {
  std::vector<StageSteps> out(k.num_stages > 0 ? k.num_stages : 1);
  for (int i = 0; i < k.num_instrs; ++i) {
    StageSteps& s = out[k.instrs[i].stage];
    (k.instrs[i].row_level == 1 ? s.row : s.elem).push_back(i);
  }
  return out;
}

// How a language spells index arithmetic.
struct IndexSyntax {
  const char* type;    // "sy_i64", "uint"
  const char* suffix;  // of an integer literal: "LL", "u"
};

// "<prefix>o<ptr> = d0*s0 + …" for every operand (outputs too unless
// !outputs_too), over dims [begin, end) of `shape`, from the linear index
// `index` of those dims (the last dim fastest).
inline void EmitOffsets(CodeWriter& w, const int64_t* shape,
                        const std::vector<OperandPlan>& operands, const IndexSyntax& syntax,
                        const std::string& prefix, const std::string& index, int begin, int end,
                        bool outputs_too = true) {
  const std::string type = syntax.type;
  auto lit = [&](int64_t v) { return std::to_string(v) + syntax.suffix; };
  bool any = false;
  for (int d = begin; d < end; ++d) {
    for (const OperandPlan& p : operands) any = any || p.strides[d] != 0;
  }
  if (any && end > begin) {
    w.Line(type + " " + prefix + "r = " + index + ";");
    for (int d = end - 1; d >= begin; --d) {
      const std::string dn = prefix + "d" + std::to_string(d);
      if (d == begin) {
        w.Line("const " + type + " " + dn + " = " + prefix + "r;");
      } else {
        w.Line("const " + type + " " + dn + " = " + prefix + "r % " + lit(shape[d]) + "; " +
               prefix + "r /= " + lit(shape[d]) + ";");
      }
    }
  }
  for (const OperandPlan& p : operands) {
    if (p.output && !outputs_too) continue;
    std::string sum;
    for (int d = begin; d < end; ++d) {
      if (p.strides[d] == 0) continue;
      if (!sum.empty()) sum += " + ";
      sum += prefix + "d" + std::to_string(d) + " * " + lit(p.strides[d]);
    }
    w.Line("const " + type + " " + prefix + "o" + p.ptr + " = " + (sum.empty() ? lit(0) : sum) +
           ";");
  }
}

// What a language spells its own way in OpExpr.
struct Dialect {
  // Literals of the compute types: float (f32, f16, bf16, bool …) and
  // double (f64, i32, i64). A bool result is one_f or zero_f.
  const char* zero_f;
  const char* one_f;
  const char* zero_d;
  const char* one_d;
  // The function that computes a call-form op (IsCallOp) in float
  // (wide false) or double: "expf", "sy_maxd", …
  const char* (*function)(int32_t op, bool wide);
};

// Ops written as a function call of their operands; every other op is
// written with C operators (identical in C, CUDA and GLSL).
inline bool IsCallOp(int32_t op) {
  switch (op) {
    case SY_FUSED_ABS: case SY_FUSED_EXP: case SY_FUSED_LOG: case SY_FUSED_SQRT:
    case SY_FUSED_SIN: case SY_FUSED_COS: case SY_FUSED_TANH: case SY_FUSED_ERF:
    case SY_FUSED_SIGMOID: case SY_FUSED_SILU: case SY_FUSED_GELU: case SY_FUSED_GELU_TANH:
    case SY_FUSED_POW: case SY_FUSED_MAXIMUM: case SY_FUSED_MINIMUM:
      return true;
    default:
      return false;
  }
}

// The expression of an arithmetic, compare or select op (not LOAD, STORE,
// CONST, CAST or a REDUCE) on its operands' expressions, computing in
// double when `wide`. Compares give the bool value 1 or 0 (as float);
// WHERE's condition is a bool value.
inline std::string OpExpr(int32_t op, bool wide, const Dialect& d, const std::string& a,
                          const std::string& b, const std::string& c) {
  const std::string zero = wide ? d.zero_d : d.zero_f;
  const std::string one = wide ? d.one_d : d.one_f;
  auto cmp = [&](const char* o) {
    return "((" + a + ") " + o + " (" + b + ") ? " + d.one_f + " : " + d.zero_f + ")";
  };
  if (IsCallOp(op)) {
    const std::string f = d.function(op, wide);
    return Arity(op) == 2 ? f + "(" + a + ", " + b + ")" : f + "(" + a + ")";
  }
  switch (op) {
    case SY_FUSED_NEG: return "(-(" + a + "))";
    case SY_FUSED_RELU: return "((" + a + ") < " + zero + " ? " + zero + " : (" + a + "))";
    case SY_FUSED_SQUARE: return "((" + a + ") * (" + a + "))";
    case SY_FUSED_RSQRT: return "(" + one + " / " + d.function(SY_FUSED_SQRT, wide) + "(" + a + "))";
    case SY_FUSED_RECIPROCAL: return "(" + one + " / (" + a + "))";
    case SY_FUSED_ADD: return "((" + a + ") + (" + b + "))";
    case SY_FUSED_SUB: return "((" + a + ") - (" + b + "))";
    case SY_FUSED_MUL: return "((" + a + ") * (" + b + "))";
    case SY_FUSED_DIV: return "((" + a + ") / (" + b + "))";
    case SY_FUSED_EQ: return cmp("==");
    case SY_FUSED_NE: return cmp("!=");
    case SY_FUSED_LT: return cmp("<");
    case SY_FUSED_LE: return cmp("<=");
    case SY_FUSED_GT: return cmp(">");
    case SY_FUSED_GE: return cmp(">=");
    case SY_FUSED_WHERE: return "((" + a + ") != " + d.zero_f + " ? (" + b + ") : (" + c + "))";
    default: return a;
  }
}

}  // namespace sy::plugin::fused

#endif  // SWITCHYARD_PLUGIN_FUSED_CODEGEN_HPP_
