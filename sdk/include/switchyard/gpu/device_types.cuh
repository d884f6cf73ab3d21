// Element types on the GPU and conversions between them (the semantics of
// `cast`), for the shared kernels. CUDA and HIP alike (portability.h).
//
// Storage types: float, double, half, bfloat16, int8/32/64_t, uint8_t, and
// BoolByte for bool (one byte, DLPack's bool; written 0 or 1, read != 0).
// f16 and bf16 compute in float and round once on the way out. Which
// dtypes the kernels are built for is decided in dtypes.h alone; every
// dtype the ABI knows has its types here already.
#ifndef SWITCHYARD_GPU_DEVICE_TYPES_CUH_
#define SWITCHYARD_GPU_DEVICE_TYPES_CUH_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "switchyard/common.h"
#include "switchyard/gpu/portability.h"
#include "switchyard/gpu/scalar_rounding.h"

namespace sy::gpu {

// A bool element: its own type, so that u8 (uint8_t) is never mistaken
// for bool.
struct BoolByte {
  uint8_t bits;
};

template <sy_dtype_t D> struct StorageOf;
template <> struct StorageOf<SY_DTYPE_F32> { using type = float; };
template <> struct StorageOf<SY_DTYPE_F64> { using type = double; };
template <> struct StorageOf<SY_DTYPE_F16> { using type = half; };
template <> struct StorageOf<SY_DTYPE_BF16> { using type = bfloat16; };
template <> struct StorageOf<SY_DTYPE_I32> { using type = int32_t; };
template <> struct StorageOf<SY_DTYPE_I64> { using type = int64_t; };
template <> struct StorageOf<SY_DTYPE_I8> { using type = int8_t; };
template <> struct StorageOf<SY_DTYPE_U8> { using type = uint8_t; };
template <> struct StorageOf<SY_DTYPE_BOOL> { using type = BoolByte; };
template <sy_dtype_t D>
using Storage = typename StorageOf<D>::type;

template <class T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool kIsFloating = kIsHalfLike<T> || std::is_floating_point_v<T>;

// The type arithmetic runs in: float for the 16-bit floats, bool for bool,
// the type itself otherwise.
template <class S> struct ComputeOf { using type = S; };
template <> struct ComputeOf<half> { using type = float; };
template <> struct ComputeOf<bfloat16> { using type = float; };
template <> struct ComputeOf<BoolByte> { using type = bool; };
template <class S>
using Compute = typename ComputeOf<S>::type;

// The type row statistics (norms) accumulate in: double for f64, else
// float.
template <class S>
using Accumulate = std::conditional_t<std::is_same_v<S, double>, double, float>;

// Float to integer truncates toward zero; NaN gives 0 and values beyond the
// range saturate (a plain cast would be undefined).
template <class I, class F>
__host__ __device__ inline I FloatToInt(F v) {
  constexpr F kLo = static_cast<F>(std::numeric_limits<I>::min());
  constexpr F kHi = static_cast<F>(uint64_t{1} << std::numeric_limits<I>::digits);
  if (v != v) return 0;
  if (v <= kLo) return std::numeric_limits<I>::min();
  if (v >= kHi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// Converts between storage and compute types as `cast` does: to bool is
// != 0 (NaN is true); from bool 0 or 1; floating to integer per FloatToInt;
// integer to integer wraps; everything through float for f16/bf16.
template <class To, class From>
__device__ __forceinline__ To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalfLike<From>) {
    return Convert<To>(ToFloat(v));
  } else if constexpr (std::is_same_v<From, BoolByte>) {
    return Convert<To>(v.bits != 0);
  } else if constexpr (std::is_same_v<From, bool>) {
    return Convert<To>(static_cast<int32_t>(v ? 1 : 0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(v != From(0) ? 1 : 0)};
  } else if constexpr (kIsHalfLike<To> && std::is_same_v<From, double>) {
    return Convert<To>(RoundToOddFloat(v));  // rounds once (scalar_rounding.h)
  } else if constexpr (std::is_same_v<To, half>) {
    return HalfFromFloat(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bfloat16>) {
    return Bfloat16FromFloat(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Reads a storage element as its compute type; a bool byte is true when
// any bit is set.
template <class S>
__device__ __forceinline__ Compute<S> Load(const S* p) {
  if constexpr (std::is_same_v<S, BoolByte>) {
    return p->bits != 0;
  } else {
    return Convert<Compute<S>>(*p);
  }
}

// A vector of V storage elements, loaded and stored as one access.
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// ---- Math on compute types ------------------------------------------------
// One name per function for float and double, so that functors written
// over a compute type T serve f64 the day it is added to dtypes.h. The
// float overloads are the single-precision library functions the kernels
// always used (IEEE-accurate within a few ulp; no fast-math).
namespace math {
#define SY_GPU_MATH1(NAME, F32, F64)                                     \
  __device__ __forceinline__ float NAME(float x) { return F32(x); }      \
  __device__ __forceinline__ double NAME(double x) { return F64(x); }
SY_GPU_MATH1(Exp, expf, exp)
SY_GPU_MATH1(Log, logf, log)
SY_GPU_MATH1(Sqrt, sqrtf, sqrt)
SY_GPU_MATH1(Rsqrt, rsqrtf, rsqrt)
SY_GPU_MATH1(Sin, sinf, sin)
SY_GPU_MATH1(Cos, cosf, cos)
SY_GPU_MATH1(Tanh, tanhf, tanh)
SY_GPU_MATH1(Erf, erff, erf)
SY_GPU_MATH1(Abs, fabsf, fabs)
#undef SY_GPU_MATH1
__device__ __forceinline__ float Pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double Pow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float Max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double Max(double a, double b) { return fmax(a, b); }
}  // namespace math

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_DEVICE_TYPES_CUH_
