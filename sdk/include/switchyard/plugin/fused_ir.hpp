// sy::plugin::fused: reading the fused-kernel IR (Note [Fused-kernel IR] in
// switchyard/plugin.h) the same way in every plugin that compiles it — the
// ops' kinds and arities, the compute type of a dtype, and the kernel's
// domain (rank 0 runs as [1]; rows and row length). Header-only; used by
// the cpu plugin's evaluator and the cuda plugin's code generator.
//
// The host validates every kernel before a plugin sees it; ReadDomain
// still refuses what would make a plugin index out of range.
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_PLUGIN_FUSED_IR_HPP_
#define SWITCHYARD_PLUGIN_FUSED_IR_HPP_

#include <cstdint>
#include <string>

#include "switchyard/plugin.h"

namespace sy::plugin::fused {

inline bool IsReduce(int32_t op) {
  return op == SY_FUSED_REDUCE_SUM || op == SY_FUSED_REDUCE_MAX || op == SY_FUSED_REDUCE_MIN;
}

inline bool IsCompare(int32_t op) { return op >= SY_FUSED_EQ && op <= SY_FUSED_GE; }

// Whether `op` is one of sy_fused_op_t's values.
inline bool IsKnownOp(int32_t op) {
  return (op >= SY_FUSED_LOAD && op <= SY_FUSED_CAST) ||
         (op >= SY_FUSED_NEG && op <= SY_FUSED_GELU_TANH) ||
         (op >= SY_FUSED_ADD && op <= SY_FUSED_MINIMUM) || IsCompare(op) ||
         op == SY_FUSED_WHERE || IsReduce(op);
}

// How many of a, b, c an op reads (STORE, CAST and REDUCE read a).
inline int Arity(int32_t op) {
  if (op == SY_FUSED_LOAD || op == SY_FUSED_CONST) return 0;
  if (op == SY_FUSED_WHERE) return 3;
  if ((op >= SY_FUSED_ADD && op <= SY_FUSED_MINIMUM) || IsCompare(op)) return 2;
  return 1;
}

// Values of `dtype` compute in double (f64, and i32/i64, which float
// cannot hold exactly) or else in float (f32, f16, bf16, bool, i8, u8).
inline bool ComputesInDouble(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F64 || dtype == SY_DTYPE_I32 || dtype == SY_DTYPE_I64;
}

// The storage dtypes the IR's operands may have.
inline bool IsKnownDtype(sy_dtype_t d) {
  return d == SY_DTYPE_F32 || d == SY_DTYPE_F64 || d == SY_DTYPE_F16 || d == SY_DTYPE_BF16 ||
         d == SY_DTYPE_I32 || d == SY_DTYPE_I64 || d == SY_DTYPE_I8 || d == SY_DTYPE_U8 ||
         d == SY_DTYPE_BOOL;
}

struct Domain {
  int ndim = 1;  // >= 1: a rank-0 kernel runs as [1]
  int reduce_ndim = 0;
  int64_t shape[SY_MAX_RANK] = {};
  int64_t numel = 1;
  int64_t rows = 1;        // product of the leading ndim - reduce_ndim dims
  int64_t row_length = 1;  // product of the trailing reduce_ndim dims
};

// The kernel's domain; false with *error when its rank, reduced dims,
// stages or instruction count are out of range, or an instruction has an
// unknown op or a stage outside 0 .. num_stages-1.
inline bool ReadDomain(const sy_fused_kernel_t& k, Domain* out, std::string* error) {
  if (k.ndim < 0 || k.ndim > SY_MAX_RANK || k.reduce_ndim < 0 || k.reduce_ndim > k.ndim ||
      k.num_instrs <= 0 || k.num_stages <= 0 || k.num_inputs < 0 || k.num_outputs < 0) {
    *error = "the kernel's rank, stages or instruction count is out of range";
    return false;
  }
  for (int32_t i = 0; i < k.num_instrs; ++i) {
    if (!IsKnownOp(k.instrs[i].op) || k.instrs[i].stage < 0 ||
        k.instrs[i].stage >= k.num_stages) {
      *error = "an instruction has an unknown op or stage";
      return false;
    }
  }
  Domain d;
  d.ndim = k.ndim == 0 ? 1 : k.ndim;
  d.reduce_ndim = k.reduce_ndim;
  for (int i = 0; i < d.ndim; ++i) {
    d.shape[i] = k.ndim == 0 ? 1 : k.shape[i];
    d.numel *= d.shape[i];
  }
  for (int i = 0; i < d.ndim - d.reduce_ndim; ++i) d.rows *= d.shape[i];
  for (int i = d.ndim - d.reduce_ndim; i < d.ndim; ++i) d.row_length *= d.shape[i];
  *out = d;
  return true;
}

}  // namespace sy::plugin::fused

#endif  // SWITCHYARD_PLUGIN_FUSED_IR_HPP_
