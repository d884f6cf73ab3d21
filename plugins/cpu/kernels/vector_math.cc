// Runtime dispatch of the array math in vector_math.h (Note [Vector math]).
//
// A vector variant such as _ZGVeN16v_expf follows the x86-64 vector function
// ABI: a plain call taking and returning one vector register. The loops
// below are compiled for that ISA (target attribute, so the rest of the
// plugin keeps its baseline flags) and call the variant through a pointer
// found by dlsym; the partial last vector goes through a zero-padded buffer.
#include "kernels/vector_math.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__x86_64__) && defined(__GNUC__)
#include <dlfcn.h>
#include <cpuid.h>
#include <immintrin.h>
#define SY_CPU_X86 1
#endif

namespace sy::cpu {
namespace {

constexpr int kNumFns = static_cast<int>(VecFn::kSqrt) + 1;

// libm's name of each VecFn for float; the double name drops the 'f'.
constexpr std::string_view kFloatNames[kNumFns] = {
    "expf", "logf", "sinf", "cosf", "tanhf", "erff", "erfcf", "sqrtf"};

using FloatFn = float (*)(float);
using DoubleFn = double (*)(double);

// The scalar fallbacks, in VecFn order.
constexpr FloatFn kScalarFloat[kNumFns] = {
    [](float v) { return std::exp(v); },  [](float v) { return std::log(v); },
    [](float v) { return std::sin(v); },  [](float v) { return std::cos(v); },
    [](float v) { return std::tanh(v); }, [](float v) { return std::erf(v); },
    [](float v) { return std::erfc(v); }, [](float v) { return std::sqrt(v); },
};
constexpr DoubleFn kScalarDouble[kNumFns] = {
    [](double v) { return std::exp(v); },  [](double v) { return std::log(v); },
    [](double v) { return std::sin(v); },  [](double v) { return std::cos(v); },
    [](double v) { return std::tanh(v); }, [](double v) { return std::erf(v); },
    [](double v) { return std::erfc(v); }, [](double v) { return std::sqrt(v); },
};

// A loop over an array that calls `fn`, a vector variant, a vector at a time.
template <class T>
using UnaryLoop = void (*)(const void* fn, int64_t n, T* out, const T* x);
template <class T>
using BinaryLoop = void (*)(const void* fn, int64_t n, T* out, const T* x,
                            const T* y);

#if SY_CPU_X86

// Defines Unary<NAME> and Binary<NAME>, the loops for one vector type V of
// LANES elements of T, compiled for TARGET.
#define SY_VECTOR_LOOPS(NAME, TARGET, T, V, LANES, LOADU, STOREU)             \
  __attribute__((target(TARGET))) void Unary##NAME(                           \
      const void* fn, int64_t n, T* out, const T* x) {                        \
    const auto f = reinterpret_cast<V (*)(V)>(const_cast<void*>(fn));                            \
    int64_t i = 0;                                                            \
    for (; i + LANES <= n; i += LANES) STOREU(out + i, f(LOADU(x + i)));      \
    if (i < n) {                                                              \
      T a[LANES] = {};                                                        \
      std::memcpy(a, x + i, (n - i) * sizeof(T));                             \
      STOREU(a, f(LOADU(a)));                                                 \
      std::memcpy(out + i, a, (n - i) * sizeof(T));                           \
    }                                                                         \
  }                                                                           \
  __attribute__((target(TARGET))) void Binary##NAME(                          \
      const void* fn, int64_t n, T* out, const T* x, const T* y) {            \
    const auto f = reinterpret_cast<V (*)(V, V)>(const_cast<void*>(fn));                         \
    int64_t i = 0;                                                            \
    for (; i + LANES <= n; i += LANES) {                                      \
      STOREU(out + i, f(LOADU(x + i), LOADU(y + i)));                         \
    }                                                                         \
    if (i < n) {                                                              \
      T a[LANES] = {}, b[LANES] = {};                                         \
      std::memcpy(a, x + i, (n - i) * sizeof(T));                             \
      std::memcpy(b, y + i, (n - i) * sizeof(T));                             \
      STOREU(a, f(LOADU(a), LOADU(b)));                                       \
      std::memcpy(out + i, a, (n - i) * sizeof(T));                           \
    }                                                                         \
  }

SY_VECTOR_LOOPS(Avx512F, "avx512f", float, __m512, 16, _mm512_loadu_ps,
                _mm512_storeu_ps)
SY_VECTOR_LOOPS(Avx512D, "avx512f", double, __m512d, 8, _mm512_loadu_pd,
                _mm512_storeu_pd)
SY_VECTOR_LOOPS(Avx2F, "avx2", float, __m256, 8, _mm256_loadu_ps,
                _mm256_storeu_ps)
SY_VECTOR_LOOPS(Avx2D, "avx2", double, __m256d, 4, _mm256_loadu_pd,
                _mm256_storeu_pd)
SY_VECTOR_LOOPS(Sse2F, "sse2", float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps)
SY_VECTOR_LOOPS(Sse2D, "sse2", double, __m128d, 2, _mm_loadu_pd,
                _mm_storeu_pd)
#undef SY_VECTOR_LOOPS

// sqrt as "vector variants" of our own, so it shares the loops above.
__attribute__((target("avx512f"))) __m512 Sqrt512F(__m512 v) {
  return _mm512_maskz_sqrt_ps(0xffff, v);  // maskz: GCC 12 warns on the unmasked form
}
__attribute__((target("avx512f"))) __m512d Sqrt512D(__m512d v) {
  return _mm512_maskz_sqrt_pd(0xff, v);
}
__attribute__((target("avx2"))) __m256 Sqrt256F(__m256 v) {
  return _mm256_sqrt_ps(v);
}
__attribute__((target("avx2"))) __m256d Sqrt256D(__m256d v) {
  return _mm256_sqrt_pd(v);
}
__m128 Sqrt128F(__m128 v) { return _mm_sqrt_ps(v); }
__m128d Sqrt128D(__m128d v) { return _mm_sqrt_pd(v); }

__attribute__((target("avx,f16c"))) void HalfToFloatF16c(
    int64_t n, float* out, const plugin::Half* x) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = x[i];
}

__attribute__((target("avx,f16c"))) void FloatToHalfF16c(
    int64_t n, plugin::Half* out, const float* x) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i),
                                      _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = plugin::Half(x[i]);
}

#endif  // SY_CPU_X86

// What VecMath uses, chosen once per process.
struct Dispatch {
  std::string_view isa = "scalar";
  UnaryLoop<float> unary_f = nullptr;
  UnaryLoop<double> unary_d = nullptr;
  BinaryLoop<float> binary_f = nullptr;
  BinaryLoop<double> binary_d = nullptr;
  // The vector variant of each VecFn, or NULL for the scalar fallback.
  const void* fn_f[kNumFns] = {};
  const void* fn_d[kNumFns] = {};
  const void* pow_f = nullptr;
  const void* pow_d = nullptr;
  bool f16c = false;
};

#if SY_CPU_X86

// SWITCHYARD_CPU_ISA, read as cpu_plugin.cc reads it (an unknown value is
// logged there and means no cap).
int IsaCap() {
#if defined(__GLIBC__)
  const char* value = secure_getenv("SWITCHYARD_CPU_ISA");
#else
  const char* value = std::getenv("SWITCHYARD_CPU_ISA");
#endif
  const std::string_view cap = value == nullptr ? "" : value;
  if (cap == "generic") return 0;
  if (cap == "avx2") return 1;
  return 2;
}

Dispatch MakeDispatch() {
  Dispatch d;
  __builtin_cpu_init();
  d.f16c = __builtin_cpu_supports("avx") && [] {
    unsigned a = 0, b = 0, c = 0, dx = 0;
    return __get_cpuid(1, &a, &b, &c, &dx) && (c & bit_F16C) != 0;
  }();
  const int cap = IsaCap();
  // The vector ABI's ISA letter and lanes for float; double has half.
  char letter;
  int lanes;
  if (cap >= 2 && __builtin_cpu_supports("avx512f")) {
    d.isa = "avx512";
    letter = 'e';
    lanes = 16;
    d.unary_f = UnaryAvx512F;
    d.unary_d = UnaryAvx512D;
    d.binary_f = BinaryAvx512F;
    d.binary_d = BinaryAvx512D;
    d.fn_f[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt512F);
    d.fn_d[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt512D);
  } else if (cap >= 1 && __builtin_cpu_supports("avx2")) {
    d.isa = "avx2";
    letter = 'd';
    lanes = 8;
    d.unary_f = UnaryAvx2F;
    d.unary_d = UnaryAvx2D;
    d.binary_f = BinaryAvx2F;
    d.binary_d = BinaryAvx2D;
    d.fn_f[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt256F);
    d.fn_d[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt256D);
  } else {
    d.isa = "sse2";
    letter = 'b';
    lanes = 4;
    d.unary_f = UnarySse2F;
    d.unary_d = UnarySse2D;
    d.binary_f = BinarySse2F;
    d.binary_d = BinarySse2D;
    d.fn_f[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt128F);
    d.fn_d[kNumFns - 1] = reinterpret_cast<const void*>(Sqrt128D);
  }
  // Kept open for the life of the process: the pointers below point into it.
  void* mvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (mvec == nullptr) {
    d.isa = "scalar";  // sqrt keeps its SIMD loop; the rest is libm
    return d;
  }
  // "_ZGVeN16v_expf": the variant for `letter`, `n` lanes, `args` vector
  // arguments; NULL when this glibc lacks it (e.g. erf before 2.35).
  const auto find = [&](std::string_view name, int n, int args) {
    std::string symbol = "_ZGV";
    symbol += letter;
    symbol += 'N';
    symbol += std::to_string(n);
    symbol.append(static_cast<size_t>(args), 'v');
    symbol += '_';
    symbol += name;
    return static_cast<const void*>(dlsym(mvec, symbol.c_str()));
  };
  for (int k = 0; k + 1 < kNumFns; ++k) {
    const std::string_view name = kFloatNames[k];
    d.fn_f[k] = find(name, lanes, 1);
    d.fn_d[k] = find(name.substr(0, name.size() - 1), lanes / 2, 1);
  }
  d.pow_f = find("powf", lanes, 2);
  d.pow_d = find("pow", lanes / 2, 2);
  return d;
}

#else

Dispatch MakeDispatch() { return {}; }

#endif  // SY_CPU_X86

const Dispatch& GetDispatch() {
  static const Dispatch dispatch = MakeDispatch();
  return dispatch;
}

}  // namespace

void VecMath(VecFn fn, int64_t n, float* out, const float* x) {
  const Dispatch& d = GetDispatch();
  const int k = static_cast<int>(fn);
  if (d.fn_f[k] != nullptr) return d.unary_f(d.fn_f[k], n, out, x);
  const FloatFn f = kScalarFloat[k];
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}

void VecMath(VecFn fn, int64_t n, double* out, const double* x) {
  const Dispatch& d = GetDispatch();
  const int k = static_cast<int>(fn);
  if (d.fn_d[k] != nullptr) return d.unary_d(d.fn_d[k], n, out, x);
  const DoubleFn f = kScalarDouble[k];
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}

void VecPow(int64_t n, float* out, const float* x, const float* y) {
  const Dispatch& d = GetDispatch();
  if (d.pow_f != nullptr) return d.binary_f(d.pow_f, n, out, x, y);
  for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], y[i]);
}

void VecPow(int64_t n, double* out, const double* x, const double* y) {
  const Dispatch& d = GetDispatch();
  if (d.pow_d != nullptr) return d.binary_d(d.pow_d, n, out, x, y);
  for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], y[i]);
}

void HalfToFloat(int64_t n, float* out, const plugin::Half* x) {
#if SY_CPU_X86
  if (GetDispatch().f16c) return HalfToFloatF16c(n, out, x);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = x[i];
}

void FloatToHalf(int64_t n, plugin::Half* out, const float* x) {
#if SY_CPU_X86
  if (GetDispatch().f16c) return FloatToHalfF16c(n, out, x);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = plugin::Half(x[i]);
}

std::string_view VecMathIsa() { return GetDispatch().isa; }

}  // namespace sy::cpu
