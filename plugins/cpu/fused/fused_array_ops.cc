#include "fused/fused_array_ops.h"

#include <cmath>
#include <type_traits>

#include "kernels/elementwise_engine.h"
#include "kernels/vector_math.h"

namespace sy::cpu::fusion {
namespace {

// Scratch for the two-pass formulas; n <= kTile (fused_program.h).
constexpr int64_t kMaxN = 1024;

template <class T>
void Sigmoid(int64_t n, T* out, const T* x, bool times_x) {
  // With e = exp(-|x|) (no overflow): 1/(1+e) for x >= 0, e/(1+e) below.
  T e[kMaxN];
  MapLoop([](T v) { return -std::fabs(v); }, n, e, x);
  VecMath(VecFn::kExp, n, e, e);
  // This file is built with -fno-trapping-math (CMakeLists.txt): else GCC
  // keeps the select below a branch per element, unvectorized.
  if (times_x) {
    MapLoop([](T v, T ev) {
      const T s = T{1} / (T{1} + ev);
      return v * (v >= T{0} ? s : ev * s);
    }, n, out, x, e);
  } else {
    MapLoop([](T v, T ev) {
      const T s = T{1} / (T{1} + ev);
      return v >= T{0} ? s : ev * s;
    }, n, out, x, e);
  }
}

// gelu(x) = x/2·erfc(-x/√2), with the f32 correction the plugin's gelu
// kernel applies (kernels/unary.cc explains it).
void GeluErf(int64_t n, float* out, const float* x) {
  constexpr float kHi = 0.70710677f, kLo = 1.21016172e-08f;
  float e[kMaxN];
  MapLoop([](float v) { return -v * kHi; }, n, e, x);
  VecMath(VecFn::kErfc, n, e, e);
  MapLoop([](float v, float erfc_hi) {
    const float t = -v * kHi;
    const float t_lo = std::fma(-v, kHi, -t) - v * kLo;
    const float c = t > 0.0f && t < 16.0f ? t_lo * (2.0f * t) : 0.0f;
    return 0.5f * v * (erfc_hi - erfc_hi * c);
  }, n, out, x, e);
}
void GeluErf(int64_t n, double* out, const double* x) {
  double t[kMaxN];
  MapLoop([](double v) { return -v * 0.70710678118654752440; }, n, t, x);
  VecMath(VecFn::kErfc, n, t, t);
  MapLoop([](double v, double e) { return 0.5 * v * e; }, n, out, x, t);
}

// x / (1 + exp(-2z)), z = √(2/π)(x + 0.044715x³), in double.
template <class T>
void GeluTanh(int64_t n, T* out, const T* x) {
  constexpr double k = 1.59576912160573071176;  // 2√(2/π)
  double e[kMaxN];
  MapLoop([](T v) {
    const double d = v;
    return -k * (d + 0.044715 * d * d * d);
  }, n, e, x);
  VecMath(VecFn::kExp, n, e, e);
  MapLoop([](T v, double ev) { return static_cast<T>(v / (1.0 + ev)); }, n, out, x, e);
}

template <class T>
T NanMax(T a, T b) {
  return a != a ? a : b != b ? b : a > b ? a : b;
}
template <class T>
T NanMin(T a, T b) {
  return a != a ? a : b != b ? b : a < b ? a : b;
}

}  // namespace

template <class T>
void UnaryArray(int32_t op, int64_t n, T* out, const T* a) {
  switch (op) {
    case SY_FUSED_NEG: return MapLoop([](T v) { return -v; }, n, out, a);
    case SY_FUSED_ABS: return MapLoop([](T v) { return std::fabs(v); }, n, out, a);
    case SY_FUSED_RELU: return MapLoop([](T v) { return v < T{0} ? T{0} : v; }, n, out, a);
    case SY_FUSED_SQUARE: return MapLoop([](T v) { return v * v; }, n, out, a);
    case SY_FUSED_EXP: return VecMath(VecFn::kExp, n, out, a);
    case SY_FUSED_LOG: return VecMath(VecFn::kLog, n, out, a);
    case SY_FUSED_SQRT: return VecMath(VecFn::kSqrt, n, out, a);
    case SY_FUSED_RSQRT: {
      T root[kMaxN];
      VecMath(VecFn::kSqrt, n, root, a);
      return MapLoop([](T v) { return T{1} / v; }, n, out, root);
    }
    case SY_FUSED_SIN: return VecMath(VecFn::kSin, n, out, a);
    case SY_FUSED_COS: return VecMath(VecFn::kCos, n, out, a);
    case SY_FUSED_TANH: return VecMath(VecFn::kTanh, n, out, a);
    case SY_FUSED_ERF: return VecMath(VecFn::kErf, n, out, a);
    case SY_FUSED_SIGMOID: return Sigmoid(n, out, a, false);
    case SY_FUSED_SILU: return Sigmoid(n, out, a, true);
    case SY_FUSED_RECIPROCAL: return MapLoop([](T v) { return T{1} / v; }, n, out, a);
    case SY_FUSED_GELU: return GeluErf(n, out, a);
    case SY_FUSED_GELU_TANH: return GeluTanh(n, out, a);
    default: return;
  }
}

template <class T>
void BinaryArray(int32_t op, int64_t n, T* out, const T* a, const T* b) {
  switch (op) {
    case SY_FUSED_ADD: return MapLoop([](T x, T y) { return x + y; }, n, out, a, b);
    case SY_FUSED_SUB: return MapLoop([](T x, T y) { return x - y; }, n, out, a, b);
    case SY_FUSED_MUL: return MapLoop([](T x, T y) { return x * y; }, n, out, a, b);
    case SY_FUSED_DIV: return MapLoop([](T x, T y) { return x / y; }, n, out, a, b);
    case SY_FUSED_POW: return VecPow(n, out, a, b);
    case SY_FUSED_MAXIMUM: return MapLoop([](T x, T y) { return NanMax(x, y); }, n, out, a, b);
    case SY_FUSED_MINIMUM: return MapLoop([](T x, T y) { return NanMin(x, y); }, n, out, a, b);
    default: return;
  }
}

template <class T>
void CompareArray(int32_t op, int64_t n, float* out, const T* a, const T* b) {
  switch (op) {
    case SY_FUSED_EQ: return MapLoop([](T x, T y) { return x == y ? 1.0f : 0.0f; }, n, out, a, b);
    case SY_FUSED_NE: return MapLoop([](T x, T y) { return x != y ? 1.0f : 0.0f; }, n, out, a, b);
    case SY_FUSED_LT: return MapLoop([](T x, T y) { return x < y ? 1.0f : 0.0f; }, n, out, a, b);
    case SY_FUSED_LE: return MapLoop([](T x, T y) { return x <= y ? 1.0f : 0.0f; }, n, out, a, b);
    case SY_FUSED_GT: return MapLoop([](T x, T y) { return x > y ? 1.0f : 0.0f; }, n, out, a, b);
    case SY_FUSED_GE: return MapLoop([](T x, T y) { return x >= y ? 1.0f : 0.0f; }, n, out, a, b);
    default: return;
  }
}

template <class T>
void WhereArray(int64_t n, T* out, const float* cond, const T* a, const T* b) {
  MapLoop([](float c, T x, T y) { return c != 0.0f ? x : y; }, n, out, cond, a, b);
}

template <class T>
T UnaryScalar(int32_t op, T a) {
  T out = a;
  UnaryArray<T>(op, 1, &out, &a);
  return out;
}

template <class T>
T BinaryScalar(int32_t op, T a, T b) {
  T out = a;
  BinaryArray<T>(op, 1, &out, &a, &b);
  return out;
}

template <class T>
bool CompareScalar(int32_t op, T a, T b) {
  float out = 0;
  CompareArray<T>(op, 1, &out, &a, &b);
  return out != 0.0f;
}

void RoundArray(sy_dtype_t dtype, int64_t n, float* v) {
  if (dtype == SY_DTYPE_F16) {
    plugin::Half h[kMaxN];
    FloatToHalf(n, h, v);
    HalfToFloat(n, v, h);
  } else if (dtype == SY_DTYPE_BF16) {
    // In place (MapLoop's operands are __restrict).
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(plugin::BFloat16(v[i]));
  } else if (dtype == SY_DTYPE_BOOL) {
    for (int64_t i = 0; i < n; ++i) v[i] = v[i] != 0.0f ? 1.0f : 0.0f;
  }
}

float RoundScalar(sy_dtype_t dtype, float value) {
  RoundArray(dtype, 1, &value);
  return value;
}

double RoundScalar(sy_dtype_t dtype, double value) {
  if (dtype == SY_DTYPE_F64) return value;
  if (dtype == SY_DTYPE_BOOL) return value != 0.0 ? 1.0 : 0.0;
  return value;
}

template void UnaryArray<float>(int32_t, int64_t, float*, const float*);
template void UnaryArray<double>(int32_t, int64_t, double*, const double*);
template void BinaryArray<float>(int32_t, int64_t, float*, const float*, const float*);
template void BinaryArray<double>(int32_t, int64_t, double*, const double*, const double*);
template void CompareArray<float>(int32_t, int64_t, float*, const float*, const float*);
template void CompareArray<double>(int32_t, int64_t, float*, const double*, const double*);
template void WhereArray<float>(int64_t, float*, const float*, const float*, const float*);
template void WhereArray<double>(int64_t, double*, const float*, const double*, const double*);
template float UnaryScalar<float>(int32_t, float);
template double UnaryScalar<double>(int32_t, double);
template float BinaryScalar<float>(int32_t, float, float);
template double BinaryScalar<double>(int32_t, double, double);
template bool CompareScalar<float>(int32_t, float, float);
template bool CompareScalar<double>(int32_t, double, double);

}  // namespace sy::cpu::fusion
