// Element types on the GPU and conversions between them (the semantics of
// `cast`), for the cuda plugin's CUDA sources.
//
// Storage types: float, __half, __nv_bfloat16, int32_t, int64_t, and bool
// as one byte (uint8_t, DLPack's bool; written as 0 or 1, read as != 0).
// f16 and bf16 compute in float and round once on the way out.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_DEVICE_TYPES_CUH_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_DEVICE_TYPES_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "switchyard/common.h"

namespace sy::cuda {

using BoolByte = uint8_t;  // u8 has no kernels here, so the byte is bool

template <sy_dtype_t D> struct StorageOf;
template <> struct StorageOf<SY_DTYPE_F32> { using type = float; };
template <> struct StorageOf<SY_DTYPE_F16> { using type = __half; };
template <> struct StorageOf<SY_DTYPE_BF16> { using type = __nv_bfloat16; };
template <> struct StorageOf<SY_DTYPE_I32> { using type = int32_t; };
template <> struct StorageOf<SY_DTYPE_I64> { using type = int64_t; };
template <> struct StorageOf<SY_DTYPE_BOOL> { using type = BoolByte; };
template <sy_dtype_t D>
using Storage = typename StorageOf<D>::type;

template <class T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
inline constexpr bool kIsFloating = kIsHalfLike<T> || std::is_floating_point_v<T>;

// The type arithmetic runs in: float for the 16-bit floats, bool for bool.
template <class S> struct ComputeOf { using type = S; };
template <> struct ComputeOf<__half> { using type = float; };
template <> struct ComputeOf<__nv_bfloat16> { using type = float; };
template <> struct ComputeOf<BoolByte> { using type = bool; };
template <class S>
using Compute = typename ComputeOf<S>::type;

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
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<From, bool>) {
    return Convert<To>(static_cast<int32_t>(v ? 1 : 0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, BoolByte>) {
    return static_cast<BoolByte>(v != From(0) ? 1 : 0);
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Reads a bool byte as bool: any nonzero byte is true.
template <class S>
__device__ __forceinline__ Compute<S> Load(const S* p) {
  if constexpr (std::is_same_v<S, BoolByte>) {
    return *p != 0;
  } else {
    return Convert<Compute<S>>(*p);
  }
}

// A vector of V storage elements, loaded and stored as one access.
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_DEVICE_TYPES_CUH_
