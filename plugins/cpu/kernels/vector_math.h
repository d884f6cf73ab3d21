// Array math for the elementwise kernels: out[i] = f(x[i]) over whole
// arrays, using SIMD where the CPU has it.
//
// Note [Vector math]: a scalar libm call per element does not vectorize, so
// the transcendental functions come from glibc's libmvec, the vector
// variants GCC itself calls under -ffast-math (_ZGVeN16v_expf: AVX-512, 16
// floats; _ZGVdN8v_expf: AVX2, 8 floats; _ZGVbN4v_expf: SSE, 4 floats).
// glibc documents them at a few ulp (1-4) from the correctly rounded result
// for every finite input, including the subnormal range, so an f32 result
// stays within ~5e-7 relative of a float64 reference. They are looked up at
// run time (dlopen of libmvec.so.1), once per process, choosing the widest
// variant the CPU runs; this keeps the plugin loadable on any x86-64, and on
// a C library without libmvec every function falls back to a scalar libm
// loop (same results, slower). SWITCHYARD_CPU_ISA=generic|avx2 caps the
// choice, as it caps the matmul micro-kernel (ignored under setuid).
//
// sqrt is here too: GCC does not vectorize std::sqrt without
// -fno-math-errno, so it gets the same treatment with the sqrtps
// instructions (correctly rounded, like std::sqrt).
//
// Every function is thread-safe; `out` may be the same array as an input
// but must not overlap it otherwise. n may be 0.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_

#include <cstdint>
#include <string_view>

#include "switchyard/plugin.hpp"

namespace sy::cpu {

enum class VecFn { kExp, kLog, kSin, kCos, kTanh, kErf, kErfc, kSqrt };

// out[i] = fn(x[i]) for i in [0, n).
void VecMath(VecFn fn, int64_t n, float* out, const float* x);
void VecMath(VecFn fn, int64_t n, double* out, const double* x);

// out[i] = pow(x[i], y[i]) with C's pow semantics (pow(x, 0) = 1 even for
// NaN x; a negative x to a non-integer power is NaN).
void VecPow(int64_t n, float* out, const float* x, const float* y);
void VecPow(int64_t n, double* out, const double* x, const double* y);

// f16 <-> f32 over arrays, with the F16C instructions where the CPU has
// them (GCC does not vectorize plugin::Half's bit manipulation). Rounding
// is to nearest even either way; NaN stays NaN (the payload may differ).
void HalfToFloat(int64_t n, float* out, const plugin::Half* x);
void FloatToHalf(int64_t n, plugin::Half* out, const float* x);

// Which variants VecMath uses: "avx512", "avx2", "sse2", or "scalar" when
// libmvec is missing. For logs and tests.
std::string_view VecMathIsa();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
