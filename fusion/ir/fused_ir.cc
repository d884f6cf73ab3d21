#include "fusion/ir/fused_ir.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fusion/ir/dtypes.h"

namespace sy::fusion {
namespace {

// Generous caps that keep a hostile kernel (a corrupt cache file) from
// asking for absurd work; the pass never comes near them.
constexpr int kMaxOperands = 4096;
constexpr int kMaxInstrs = 1 << 20;

absl::Status Bad(const FusedKernel& k, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("fused kernel '", k.name, "': ", what,
                   " (a Switchyard bug if the fusion pass built it; a "
                   "corrupt cache entry if it was read from disk)"));
}

bool IsPerRow(const sy_fused_instr_t& in) {
  return in.row_level == 1 || IsFusedReduce(in.op);
}

bool OperandsEqual(const std::vector<sy_fused_operand_t>& a,
                   const std::vector<sy_fused_operand_t>& b, int ndim) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype != b[i].dtype) return false;
    for (int d = 0; d < ndim; ++d) {
      if (a[i].strides[d] != b[i].strides[d]) return false;
    }
  }
  return true;
}

}  // namespace

sy_fused_kernel_t FusedKernel::Abi() const {
  sy_fused_kernel_t k{};
  k.struct_size = sizeof(k);
  k.name = name.c_str();
  k.ndim = ndim;
  k.reduce_ndim = reduce_ndim;
  for (int d = 0; d < SY_MAX_RANK; ++d) k.shape[d] = shape[d];
  k.num_inputs = static_cast<int32_t>(inputs.size());
  k.num_outputs = static_cast<int32_t>(outputs.size());
  k.inputs = inputs.data();
  k.outputs = outputs.data();
  k.num_instrs = static_cast<int32_t>(instrs.size());
  k.num_stages = num_stages;
  k.instrs = instrs.data();
  return k;
}

int64_t FusedKernel::rows() const {
  int64_t n = 1;
  for (int d = 0; d < ndim - reduce_ndim; ++d) n *= shape[d];
  return n;
}

int64_t FusedKernel::row_length() const {
  int64_t n = 1;
  for (int d = ndim - reduce_ndim; d < ndim; ++d) n *= shape[d];
  return n;
}

bool FusedKernel::operator==(const FusedKernel& o) const {
  if (name != o.name || ndim != o.ndim || reduce_ndim != o.reduce_ndim ||
      num_stages != o.num_stages || instrs.size() != o.instrs.size()) {
    return false;
  }
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] != o.shape[d]) return false;
  }
  if (!OperandsEqual(inputs, o.inputs, ndim) ||
      !OperandsEqual(outputs, o.outputs, ndim)) {
    return false;
  }
  for (size_t i = 0; i < instrs.size(); ++i) {
    const sy_fused_instr_t& a = instrs[i];
    const sy_fused_instr_t& b = o.instrs[i];
    if (a.op != b.op || a.dtype != b.dtype || a.a != b.a || a.b != b.b ||
        a.c != b.c || a.index != b.index || a.stage != b.stage ||
        a.row_level != b.row_level ||
        std::memcmp(&a.imm, &b.imm, sizeof(double)) != 0) {
      return false;
    }
  }
  return true;
}

sy_fused_instr_t Instr(sy_fused_op_t op, sy_dtype_t dtype, int32_t a, int32_t b,
                       int32_t c) {
  sy_fused_instr_t in{};
  in.op = op;
  in.dtype = dtype;
  in.a = a;
  in.b = b;
  in.c = c;
  return in;
}

int FusedOpArity(int32_t op) {
  switch (op) {
    case SY_FUSED_LOAD:
    case SY_FUSED_CONST:
      return 0;
    case SY_FUSED_STORE:
    case SY_FUSED_CAST:
      return 1;
    case SY_FUSED_WHERE:
      return 3;
    default:
      break;
  }
  if (op >= SY_FUSED_NEG && op <= SY_FUSED_GELU_TANH) return 1;
  if (op >= SY_FUSED_ADD && op <= SY_FUSED_MINIMUM) return 2;
  if (op >= SY_FUSED_EQ && op <= SY_FUSED_GE) return 2;
  if (op >= SY_FUSED_REDUCE_SUM && op <= SY_FUSED_REDUCE_MIN) return 1;
  return -1;
}

bool IsFusedReduce(int32_t op) {
  return op >= SY_FUSED_REDUCE_SUM && op <= SY_FUSED_REDUCE_MIN;
}

bool IsFusedCompare(int32_t op) { return op >= SY_FUSED_EQ && op <= SY_FUSED_GE; }

std::string FusedOpName(int32_t op) {
  static constexpr const char* kUnary[] = {
      "neg",     "abs", "relu",    "square", "exp",  "log",        "sqrt",
      "rsqrt",   "sin", "cos",     "tanh",   "sigmoid", "silu",    "erf",
      "reciprocal", "gelu", "gelu_tanh"};
  static constexpr const char* kBinary[] = {"add", "sub",     "mul",    "div",
                                            "pow", "maximum", "minimum"};
  static constexpr const char* kCompare[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static constexpr const char* kReduce[] = {"reduce_sum", "reduce_max",
                                            "reduce_min"};
  switch (op) {
    case SY_FUSED_LOAD: return "load";
    case SY_FUSED_STORE: return "store";
    case SY_FUSED_CONST: return "const";
    case SY_FUSED_CAST: return "cast";
    case SY_FUSED_WHERE: return "where";
    default: break;
  }
  if (op >= SY_FUSED_NEG && op <= SY_FUSED_GELU_TANH) return kUnary[op - SY_FUSED_NEG];
  if (op >= SY_FUSED_ADD && op <= SY_FUSED_MINIMUM) return kBinary[op - SY_FUSED_ADD];
  if (op >= SY_FUSED_EQ && op <= SY_FUSED_GE) return kCompare[op - SY_FUSED_EQ];
  if (IsFusedReduce(op)) return kReduce[op - SY_FUSED_REDUCE_SUM];
  return absl::StrCat("op#", op);
}

absl::Status Validate(const FusedKernel& k) {
  if (k.ndim < 0 || k.ndim > SY_MAX_RANK) {
    return Bad(k, absl::StrCat("rank ", k.ndim, " is outside 0..", SY_MAX_RANK));
  }
  if (k.reduce_ndim < 0 || k.reduce_ndim > k.ndim) {
    return Bad(k, absl::StrCat("reduce_ndim ", k.reduce_ndim,
                               " is outside 0..", k.ndim));
  }
  int64_t numel = 1;
  for (int d = 0; d < k.ndim; ++d) {
    if (k.shape[d] < 0) return Bad(k, absl::StrCat("dim ", d, " is negative"));
    if (k.shape[d] > 0 && numel > (int64_t{1} << 62) / k.shape[d]) {
      return Bad(k, "the domain has more than 2^62 elements");
    }
    numel *= k.shape[d];
  }
  if (k.inputs.size() > kMaxOperands || k.outputs.size() > kMaxOperands) {
    return Bad(k, "more than 4096 inputs or outputs");
  }
  if (k.outputs.empty()) return Bad(k, "no outputs");
  if (k.instrs.empty() || k.instrs.size() > kMaxInstrs) {
    return Bad(k, "no instructions, or more than 2^20");
  }
  if (k.num_stages < 1 || k.num_stages > static_cast<int32_t>(k.instrs.size())) {
    return Bad(k, absl::StrCat("num_stages ", k.num_stages, " is outside 1..",
                               k.instrs.size()));
  }
  if (k.reduce_ndim == 0 && k.num_stages != 1) {
    return Bad(k, "an elementwise kernel (reduce_ndim 0) has one stage");
  }
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const sy_fused_operand_t& o = (*list)[i];
      const char* what = list == &k.inputs ? "input" : "output";
      if (!IsKnownDtype(o.dtype)) {
        return Bad(k, absl::StrCat(what, " ", i, " has an unknown dtype"));
      }
      for (int d = 0; d < k.ndim; ++d) {
        if (o.strides[d] < 0) {
          return Bad(k, absl::StrCat(what, " ", i, " has a negative stride"));
        }
      }
    }
  }
  std::vector<int> stores(k.outputs.size(), 0);
  int32_t stage = 0;
  const int32_t n = static_cast<int32_t>(k.instrs.size());
  for (int32_t i = 0; i < n; ++i) {
    const sy_fused_instr_t& in = k.instrs[i];
    const std::string at = absl::StrCat("instruction %", i, " (", FusedOpName(in.op), ")");
    const int arity = FusedOpArity(in.op);
    if (arity < 0) return Bad(k, absl::StrCat(at, ": unknown op"));
    if (!IsKnownDtype(in.dtype)) return Bad(k, absl::StrCat(at, ": unknown dtype"));
    if (in.stage < stage || in.stage >= k.num_stages) {
      return Bad(k, absl::StrCat(at, ": stage ", in.stage,
                                 " is out of order or outside 0..",
                                 k.num_stages - 1));
    }
    stage = in.stage;
    if (in.row_level != 0 && in.row_level != 1) {
      return Bad(k, absl::StrCat(at, ": row_level must be 0 or 1"));
    }
    if (in.row_level == 1 && k.reduce_ndim == 0) {
      return Bad(k, absl::StrCat(at, ": per-row in an elementwise kernel"));
    }
    const int32_t operands[3] = {in.a, in.b, in.c};
    for (int j = 0; j < 3; ++j) {
      const int32_t o = operands[j];
      if (j >= arity) {
        if (o != -1) return Bad(k, absl::StrCat(at, ": unused operand ", j, " is not -1"));
        continue;
      }
      if (o < 0 || o >= i) {
        return Bad(k, absl::StrCat(at, ": operand ", j, " (%", o,
                                   ") is not an earlier instruction"));
      }
      const sy_fused_instr_t& src = k.instrs[o];
      if (src.op == SY_FUSED_STORE) {
        return Bad(k, absl::StrCat(at, ": operand ", j, " is a store"));
      }
      if (IsPerRow(src)) {
        const bool ready = IsFusedReduce(src.op) ? in.stage > src.stage
                                                 : in.stage >= src.stage;
        if (!ready) {
          return Bad(k, absl::StrCat(at, ": uses per-row %", o,
                                     " before its stage is over"));
        }
      } else if (in.row_level == 1 || src.stage != in.stage) {
        return Bad(k, absl::StrCat(at, ": uses per-element %", o,
                                   in.row_level == 1 ? " in a per-row instruction"
                                                     : " from another stage"));
      }
    }
    const sy_dtype_t da = in.a >= 0 && arity >= 1 ? k.instrs[in.a].dtype : 0;
    const sy_dtype_t db = in.b >= 0 && arity >= 2 ? k.instrs[in.b].dtype : 0;
    const sy_dtype_t dc = in.c >= 0 && arity >= 3 ? k.instrs[in.c].dtype : 0;
    // Integer values only pass through: they come from a LOAD and go into a
    // CAST or a STORE.
    for (int j = 0; j < arity; ++j) {
      const sy_dtype_t d = j == 0 ? da : j == 1 ? db : dc;
      if (!IsValueDtype(d) && in.op != SY_FUSED_CAST && in.op != SY_FUSED_STORE) {
        return Bad(k, absl::StrCat(at, ": operand ", j, " has dtype ",
                                   DtypeText(d), ", which only CAST and STORE take"));
      }
    }
    switch (in.op) {
      case SY_FUSED_LOAD: {
        if (in.index < 0 || in.index >= static_cast<int32_t>(k.inputs.size())) {
          return Bad(k, absl::StrCat(at, ": input ", in.index, " does not exist"));
        }
        const sy_fused_operand_t& src = k.inputs[in.index];
        if (src.dtype != in.dtype) return Bad(k, absl::StrCat(at, ": dtype differs from its input's"));
        if (in.row_level == 1) {
          for (int d = k.ndim - k.reduce_ndim; d < k.ndim; ++d) {
            if (src.strides[d] != 0 && k.shape[d] > 1) {
              return Bad(k, absl::StrCat(at, ": a per-row load of an input "
                                             "that varies along the row"));
            }
          }
        }
        break;
      }
      case SY_FUSED_STORE: {
        if (in.index < 0 || in.index >= static_cast<int32_t>(k.outputs.size())) {
          return Bad(k, absl::StrCat(at, ": output ", in.index, " does not exist"));
        }
        const sy_fused_operand_t& dst = k.outputs[in.index];
        if (dst.dtype != in.dtype || da != in.dtype) {
          return Bad(k, absl::StrCat(at, ": dtype differs from its output's or operand's"));
        }
        const bool per_row = IsPerRow(k.instrs[in.a]);
        if (per_row != (in.row_level == 1)) {
          return Bad(k, absl::StrCat(at, ": a store is per row exactly when "
                                         "its operand is"));
        }
        if (per_row) {
          for (int d = k.ndim - k.reduce_ndim; d < k.ndim; ++d) {
            if (dst.strides[d] != 0 && k.shape[d] > 1) {
              return Bad(k, absl::StrCat(at, ": a per-row store into an output "
                                             "that varies along the row"));
            }
          }
        }
        if (++stores[in.index] > 1) {
          return Bad(k, absl::StrCat(at, ": output ", in.index, " is stored twice"));
        }
        break;
      }
      case SY_FUSED_CONST:
        if (!IsValueDtype(in.dtype) || in.index != 0) {
          return Bad(k, absl::StrCat(at, ": a constant is f32, f64, f16, bf16 or bool"));
        }
        break;
      case SY_FUSED_CAST:
        break;
      case SY_FUSED_WHERE:
        if (da != SY_DTYPE_BOOL || db != in.dtype || dc != in.dtype) {
          return Bad(k, absl::StrCat(at, ": where takes a bool and two values of its dtype"));
        }
        break;
      default:
        if (IsFusedCompare(in.op)) {
          if (in.dtype != SY_DTYPE_BOOL || da != db || !IsFloatDtype(da)) {
            return Bad(k, absl::StrCat(at, ": a compare takes two floating values of one dtype and gives bool"));
          }
        } else if (IsFusedReduce(in.op)) {
          if (k.reduce_ndim == 0 || in.row_level != 0 || !IsFloatDtype(in.dtype) ||
              da != in.dtype || IsPerRow(k.instrs[in.a])) {
            return Bad(k, absl::StrCat(at, ": a reduction is per element, of a "
                                           "per-element floating value of its dtype, "
                                           "in a kernel with reduced dims"));
          }
        } else {  // unary and binary arithmetic
          if (!IsFloatDtype(in.dtype) || da != in.dtype ||
              (arity == 2 && db != in.dtype)) {
            return Bad(k, absl::StrCat(at, ": arithmetic takes and gives one floating dtype"));
          }
        }
        break;
    }
    if (in.op != SY_FUSED_LOAD && in.op != SY_FUSED_STORE && in.index != 0) {
      return Bad(k, absl::StrCat(at, ": index must be 0"));
    }
    if (in.op != SY_FUSED_CONST && in.imm != 0.0) {
      return Bad(k, absl::StrCat(at, ": imm must be 0"));
    }
  }
  for (size_t o = 0; o < stores.size(); ++o) {
    if (stores[o] != 1) return Bad(k, absl::StrCat("output ", o, " is never stored"));
  }
  return absl::OkStatus();
}

std::string ToText(const FusedKernel& k) {
  std::vector<int64_t> shape(k.shape, k.shape + k.ndim);
  std::string out = absl::StrCat(
      "kernel ", k.name, " domain [", absl::StrJoin(shape, ", "), "]",
      k.reduce_ndim > 0 ? absl::StrCat(" rows over the last ", k.reduce_ndim, " dim(s)") : "",
      ", ", k.num_stages, " stage(s)\n");
  auto operands = [&](const char* what, const std::vector<sy_fused_operand_t>& list) {
    for (size_t i = 0; i < list.size(); ++i) {
      std::vector<int64_t> strides(list[i].strides, list[i].strides + k.ndim);
      absl::StrAppend(&out, "  ", what, i, ": ", DtypeText(list[i].dtype),
                      " strides [", absl::StrJoin(strides, ", "), "]\n");
    }
  };
  operands("in", k.inputs);
  operands("out", k.outputs);
  for (size_t i = 0; i < k.instrs.size(); ++i) {
    const sy_fused_instr_t& in = k.instrs[i];
    absl::StrAppend(&out, "  ", in.op == SY_FUSED_STORE ? "     " : absl::StrCat("%", i, " = "),
                    FusedOpName(in.op), " ", DtypeText(in.dtype));
    const int arity = FusedOpArity(in.op);
    const int32_t ops[3] = {in.a, in.b, in.c};
    for (int j = 0; j < arity && j < 3; ++j) absl::StrAppend(&out, j ? ", %" : " %", ops[j]);
    if (in.op == SY_FUSED_LOAD) absl::StrAppend(&out, " in", in.index);
    if (in.op == SY_FUSED_STORE) absl::StrAppend(&out, " -> out", in.index);
    if (in.op == SY_FUSED_CONST) absl::StrAppend(&out, " ", in.imm);
    absl::StrAppend(&out, "  [stage ", in.stage, in.row_level ? ", per row" : "", "]\n");
  }
  return out;
}

}  // namespace sy::fusion
