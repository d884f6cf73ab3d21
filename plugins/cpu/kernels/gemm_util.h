// Helpers shared by the GEMM-based kernels (matmul.cc, conv2d.cc): the
// compute type of each storage dtype, and the dtype check of a kernel that
// is registered once per dtype.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_UTIL_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_UTIL_H_

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// What a product of T is computed in: f32 for f32, f16 and bf16 (converted
// while packing, rounded once at the end); f64 for f64; for integers the
// unsigned type of at least T's width, so that every sum and product wraps
// modulo 2^32 or 2^64 (defined behaviour) and the result, truncated to T,
// is the exact product modulo 2^bits(T), as NumPy's wrapping integer matmul.
template <class T>
struct GemmComputeOf {
  using type = float;
};
template <>
struct GemmComputeOf<double> {
  using type = double;
};
template <>
struct GemmComputeOf<int64_t> {
  using type = uint64_t;
};
template <>
struct GemmComputeOf<int32_t> {
  using type = uint32_t;
};
template <>
struct GemmComputeOf<int8_t> {
  using type = uint32_t;
};
template <>
struct GemmComputeOf<uint8_t> {
  using type = uint32_t;
};
template <class T>
using GemmCompute = typename GemmComputeOf<T>::type;

// True when C can be accumulated in place: T has its compute type's size
// (f32, f64, i32 through uint32, i64 through uint64; the signed and unsigned
// types of one width may alias).
template <class T>
inline constexpr bool kGemmInPlace = sizeof(T) == sizeof(GemmCompute<T>) &&
                                     !std::is_same_v<T, plugin::Half> &&
                                     !std::is_same_v<T, plugin::BFloat16>;

// A kernel registered for `want` checks that the call really has it: the
// dispatcher picks kernels by dtype, so a mismatch is a host bug.
inline sy_error_t* CheckKernelDtype(const sy_tensor_view_t& view,
                                    std::string_view op, std::string_view arg,
                                    sy_dtype_t want) {
  if (view.dtype == want) return nullptr;
  const std::string_view name = plugin::DtypeName(want);
  return OpError(
      op, plugin::StrCat(arg, " has dtype ", plugin::DtypeName(view.dtype),
                         " but this is the ", name,
                         " kernel, which takes "
                         "every tensor in ",
                         name,
                         "; pass tensors of one dtype (the dispatcher picks "
                         "the kernel by dtype)"));
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_UTIL_H_
