// sy::plugin dtypes: Half and BFloat16 (storage types converting to float),
// DtypeTraits / CType / kDtypeOf, DtypeName, DtypeSize, StatusName. Part of
// plugin.hpp (read its rules first).
#ifndef SWITCHYARD_PLUGIN_DTYPES_HPP_
#define SWITCHYARD_PLUGIN_DTYPES_HPP_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "switchyard/plugin.h"

namespace sy::plugin {

// ---- Dtypes --------------------------------------------------------------

// IEEE binary16 and bfloat16 as stored (C++20 has no standard type for
// either). They convert to and from float; compute in float and round once
// on the way out, as the core op set asks of f16/bf16 kernels. Conversions
// round to nearest even, keep NaN a (quiet) NaN, and overflow to infinity.
struct Half {
  uint16_t bits = 0;

  Half() = default;
  explicit Half(float value) noexcept : bits(FromFloat(value)) {}
  operator float() const noexcept { return ToFloat(bits); }

  static constexpr uint16_t FromFloat(float value) noexcept {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (f >> 16) & 0x8000u;
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // Inf or NaN; NaN keeps a payload bit
      return static_cast<uint16_t>(sign | 0x7c00u |
                                   (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) {  // rounds to 65520 or more: infinity
      return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
      // Adding 0.5 lets the FPU round the mantissa at 2^-24 granularity.
      const float scaled = std::bit_cast<float>(abs) + 0.5f;
      return static_cast<uint16_t>(sign |
                                   (std::bit_cast<uint32_t>(scaled) - 0x3f000000u));
    }
    const uint32_t odd = (abs >> 13) & 1u;  // round half to even
    const uint32_t rounded = abs + 0xc8000fffu + odd;  // rebias and round
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }

  static constexpr float ToFloat(uint16_t h) noexcept {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1fu) {  // Inf or NaN
      return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    }
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exactly
      const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
      return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) |
                                (mantissa << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value) noexcept : bits(FromFloat(value)) {}
  operator float() const noexcept { return ToFloat(bits); }

  static constexpr uint16_t FromFloat(float value) noexcept {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it quiet
      return static_cast<uint16_t>((f >> 16) | 0x40u);
    }
    const uint32_t odd = (f >> 16) & 1u;  // round half to even
    return static_cast<uint16_t>((f + 0x7fffu + odd) >> 16);
  }

  static constexpr float ToFloat(uint16_t b) noexcept {
    return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

// DtypeTraits<D>::type is the C++ element type of dtype D. bool tensors hold
// one byte per element (DLPack's bool is 8 bits), read here as uint8_t so
// that a byte other than 0 or 1 is not undefined behaviour: test it with != 0.
template <sy_dtype_t D>
struct DtypeTraits;
// clang-format off
template <> struct DtypeTraits<SY_DTYPE_F16> { using type = Half; };
template <> struct DtypeTraits<SY_DTYPE_BF16> { using type = BFloat16; };
template <> struct DtypeTraits<SY_DTYPE_F32> { using type = float; };
template <> struct DtypeTraits<SY_DTYPE_F64> { using type = double; };
template <> struct DtypeTraits<SY_DTYPE_I32> { using type = int32_t; };
template <> struct DtypeTraits<SY_DTYPE_I64> { using type = int64_t; };
template <> struct DtypeTraits<SY_DTYPE_I8> { using type = int8_t; };
template <> struct DtypeTraits<SY_DTYPE_U8> { using type = uint8_t; };
template <> struct DtypeTraits<SY_DTYPE_BOOL> { using type = uint8_t; };

template <sy_dtype_t D>
using CType = typename DtypeTraits<D>::type;

// The dtype of C++ type T (bool → SY_DTYPE_BOOL; uint8_t → SY_DTYPE_U8).
template <class T>
inline constexpr sy_dtype_t kDtypeOf = SY_DTYPE_NONE;
template <> inline constexpr sy_dtype_t kDtypeOf<Half> = SY_DTYPE_F16;
template <> inline constexpr sy_dtype_t kDtypeOf<BFloat16> = SY_DTYPE_BF16;
template <> inline constexpr sy_dtype_t kDtypeOf<float> = SY_DTYPE_F32;
template <> inline constexpr sy_dtype_t kDtypeOf<double> = SY_DTYPE_F64;
template <> inline constexpr sy_dtype_t kDtypeOf<int32_t> = SY_DTYPE_I32;
template <> inline constexpr sy_dtype_t kDtypeOf<int64_t> = SY_DTYPE_I64;
template <> inline constexpr sy_dtype_t kDtypeOf<int8_t> = SY_DTYPE_I8;
template <> inline constexpr sy_dtype_t kDtypeOf<uint8_t> = SY_DTYPE_U8;
template <> inline constexpr sy_dtype_t kDtypeOf<bool> = SY_DTYPE_BOOL;
// clang-format on

// "f32", "bf16", "bool", …; "none" for SY_DTYPE_NONE; "invalid" otherwise.
// clang-format off
constexpr std::string_view DtypeName(sy_dtype_t dtype) noexcept {
  switch (dtype) {
    case SY_DTYPE_NONE: return "none";
    case SY_DTYPE_F32: return "f32";
    case SY_DTYPE_F64: return "f64";
    case SY_DTYPE_F16: return "f16";
    case SY_DTYPE_BF16: return "bf16";
    case SY_DTYPE_I32: return "i32";
    case SY_DTYPE_I64: return "i64";
    case SY_DTYPE_I8: return "i8";
    case SY_DTYPE_U8: return "u8";
    case SY_DTYPE_BOOL: return "bool";
    default: return "invalid";
  }
}
// clang-format on

// "OK", "INVALID_ARGUMENT", …: the status code's name, as absl spells it;
// "UNKNOWN_CODE" for a value outside sy_status_code_t.
// clang-format off
constexpr std::string_view StatusName(sy_status_code_t code) noexcept {
  switch (code) {
    case SY_STATUS_OK: return "OK";
    case SY_STATUS_CANCELLED: return "CANCELLED";
    case SY_STATUS_UNKNOWN: return "UNKNOWN";
    case SY_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case SY_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case SY_STATUS_NOT_FOUND: return "NOT_FOUND";
    case SY_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case SY_STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case SY_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case SY_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case SY_STATUS_ABORTED: return "ABORTED";
    case SY_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case SY_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case SY_STATUS_INTERNAL: return "INTERNAL";
    case SY_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case SY_STATUS_DATA_LOSS: return "DATA_LOSS";
  }
  return "UNKNOWN_CODE";
}
// clang-format on

// Bytes per element of a single-lane dtype (bits / 8); 0 for SY_DTYPE_NONE.
constexpr size_t DtypeSize(sy_dtype_t dtype) noexcept {
  return SY_DTYPE_BITS(dtype) / 8;
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_DTYPES_HPP_
