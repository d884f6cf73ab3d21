// Rounding a double once to f16 or bf16 on the host, for Scalars that
// kernels bind into their functors (fill values, compare operands).
//
// CUDA has __double2half and __double2bfloat16 for this; HIP (ROCm 5.2)
// has neither, and going through float would round twice: a double just
// above a halfway point between two halves can round to float exactly onto
// that halfway point, and then to even, the wrong neighbour. Rounding to
// float with round-to-odd first (truncate, then set the last bit when
// anything was dropped) keeps the information a second rounding needs, as
// long as float has at least two more bits than the target, which it has
// for both (24 vs 11 and 8). The second rounding is plugin.hpp's Half and
// BFloat16, round to nearest even.
//
// Pure host C++; tests/plugins/rocm/scalar_rounding_test.cc checks them
// against an exhaustive nearest-value search.
#ifndef SWITCHYARD_GPU_SCALAR_ROUNDING_H_
#define SWITCHYARD_GPU_SCALAR_ROUNDING_H_

#include <bit>
#include <cstdint>

#include "switchyard/plugin.hpp"

namespace sy::gpu {

// Host and device (Convert in device_types.cuh uses it for f64 → f16).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SY_GPU_ROUNDING_FN __host__ __device__ inline
#else
#define SY_GPU_ROUNDING_FN inline
#endif

// `v` as a float, rounded toward zero and then made odd when inexact
// ("round to odd"). NaN stays NaN; values beyond float's range give
// ±FLT_MAX (odd), which any narrower format still rounds to infinity.
SY_GPU_ROUNDING_FN float RoundToOddFloat(double v) noexcept {
  const float f = static_cast<float>(v);  // to nearest even
  if (f != f || static_cast<double>(f) == v) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  // Rounded away from zero (|f| > |v|, so f is not 0): one step back. The
  // pattern of a float counts its magnitude, infinity's included.
  const double back = static_cast<double>(f);
  if ((back < 0 ? -back : back) > (v < 0 ? -v : v)) bits -= 1;
  return std::bit_cast<float>(bits | 1u);
}

// IEEE binary16 bits of `v`, rounded once to nearest even.
inline uint16_t HalfBitsFromDouble(double v) noexcept {
  return plugin::Half::FromFloat(RoundToOddFloat(v));
}

// bfloat16 bits of `v`, rounded once to nearest even.
inline uint16_t Bfloat16BitsFromDouble(double v) noexcept {
  return plugin::BFloat16::FromFloat(RoundToOddFloat(v));
}

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_SCALAR_ROUNDING_H_
