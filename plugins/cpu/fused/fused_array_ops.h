// The array functions of the tiled evaluator (Note [Tiled evaluator] in
// fused_program.h): out[i] = op(a[i], …) over n <= kTile elements, T float
// or double, with the semantics of the core ops the IR's opcodes name (the
// same formulas as the plugin's unary and binary kernels: sigmoid through
// exp(-|x|), gelu through erfc, maximum/minimum propagating NaN). Bool
// values are floats 0 or 1. `out` must not overlap an input.
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_ARRAY_OPS_H_
#define SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_ARRAY_OPS_H_

#include <cstdint>

#include "switchyard/plugin.h"

namespace sy::cpu::fusion {

template <class T>
void UnaryArray(int32_t op, int64_t n, T* out, const T* a);
template <class T>
void BinaryArray(int32_t op, int64_t n, T* out, const T* a, const T* b);
// out[i] = (a[i] op b[i]) ? 1 : 0.
template <class T>
void CompareArray(int32_t op, int64_t n, float* out, const T* a, const T* b);
// out[i] = cond[i] != 0 ? a[i] : b[i].
template <class T>
void WhereArray(int64_t n, T* out, const float* cond, const T* a, const T* b);

// The same on one value (per-row instructions).
template <class T>
T UnaryScalar(int32_t op, T a);
template <class T>
T BinaryScalar(int32_t op, T a, T b);
template <class T>
bool CompareScalar(int32_t op, T a, T b);

// Rounds float values to `dtype` in place: f16 and bf16 to their nearest,
// bool to 0/1 (v != 0); f32 leaves them.
void RoundArray(sy_dtype_t dtype, int64_t n, float* values);
float RoundScalar(sy_dtype_t dtype, float value);
double RoundScalar(sy_dtype_t dtype, double value);

}  // namespace sy::cpu::fusion

#endif  // SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_ARRAY_OPS_H_
