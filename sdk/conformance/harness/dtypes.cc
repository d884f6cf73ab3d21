#include "sdk/conformance/harness/dtypes.h"

#include <cmath>
#include <limits>

#include "switchyard/plugin.hpp"

namespace sy::op_harness {
namespace {

// `value` rounded to float, to nearest even. Spelled out for values beyond
// the float range, whose conversion C++ leaves undefined: up to half a unit
// past FLT_MAX they round down to it, from there on to infinity.
float ToFloat(double value) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kHalfUnitPast = 0x1.ffffffp127;  // FLT_MAX + ulp/2
  if (std::isfinite(value) && std::fabs(value) > kMax) {
    const float rounded = std::fabs(value) >= kHalfUnitPast
                              ? std::numeric_limits<float>::infinity()
                              : std::numeric_limits<float>::max();
    return std::copysign(rounded, static_cast<float>(value > 0 ? 1 : -1));
  }
  return static_cast<float>(value);
}

// bool < integers < floating.
int Category(sy_dtype_t dtype) {
  if (dtype == SY_DTYPE_BOOL) return 0;
  return IsFloating(dtype) ? 2 : 1;
}

}  // namespace

std::string_view DtypeName(sy_dtype_t dtype) {
  return plugin::DtypeName(dtype);
}

std::string DtypesName(std::span<const sy_dtype_t> dtypes) {
  std::string out;
  for (sy_dtype_t dtype : dtypes) {
    if (!out.empty()) out.push_back('_');
    out.append(DtypeName(dtype));
  }
  return out;
}

size_t DtypeSize(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64:
    case SY_DTYPE_I64:
      return 8;
    case SY_DTYPE_F32:
    case SY_DTYPE_I32:
      return 4;
    case SY_DTYPE_F16:
    case SY_DTYPE_BF16:
      return 2;
    case SY_DTYPE_I8:
    case SY_DTYPE_U8:
    case SY_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

bool IsFloating(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F32 || dtype == SY_DTYPE_F64 ||
         dtype == SY_DTYPE_F16 || dtype == SY_DTYPE_BF16;
}

bool IsIntegral(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_I32 || dtype == SY_DTYPE_I64 ||
         dtype == SY_DTYPE_I8 || dtype == SY_DTYPE_U8;
}

sy_dtype_t Promote(sy_dtype_t a, sy_dtype_t b) {
  if (a == b) return a;
  const int ca = Category(a), cb = Category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    const bool a_u8 = a == SY_DTYPE_U8, b_u8 = b == SY_DTYPE_U8;
    if ((a_u8 && b == SY_DTYPE_I8) || (b_u8 && a == SY_DTYPE_I8)) {
      return SY_DTYPE_I32;  // no i16 in v1
    }
    if (a_u8) return b;  // the other is a wider signed type
    if (b_u8) return a;
  } else if (ca == 2 && DtypeSize(a) == 2 && DtypeSize(b) == 2) {
    return SY_DTYPE_F32;  // f16 with bf16
  }
  return DtypeSize(a) >= DtypeSize(b) ? a : b;
}

double Epsilon(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return 0x1p-52;
    case SY_DTYPE_F32: return 0x1p-23;
    case SY_DTYPE_F16: return 0x1p-10;
    case SY_DTYPE_BF16: return 0x1p-7;
    default: return 0;
  }
}

double MinSubnormal(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return std::numeric_limits<double>::denorm_min();
    case SY_DTYPE_F32: return std::numeric_limits<float>::denorm_min();
    case SY_DTYPE_F16: return 0x1p-24;
    case SY_DTYPE_BF16: return 0x1p-133;
    default: return 0;
  }
}

double MinNormal(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return std::numeric_limits<double>::min();
    case SY_DTYPE_F32: return std::numeric_limits<float>::min();
    case SY_DTYPE_F16: return 0x1p-14;
    case SY_DTYPE_BF16: return 0x1p-126;
    default: return 0;
  }
}

double MaxValue(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return std::numeric_limits<double>::max();
    case SY_DTYPE_F32: return std::numeric_limits<float>::max();
    case SY_DTYPE_F16: return 65504.0;
    case SY_DTYPE_BF16: return 0x1.fep127;
    case SY_DTYPE_I64: return 0x1p63 - 1024.0;  // largest double below 2^63
    case SY_DTYPE_I32: return INT32_MAX;
    case SY_DTYPE_I8: return INT8_MAX;
    case SY_DTYPE_U8: return UINT8_MAX;
    case SY_DTYPE_BOOL: return 1;
    default: return 0;
  }
}

double LowestValue(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_I64: return -0x1p63;
    case SY_DTYPE_I32: return INT32_MIN;
    case SY_DTYPE_I8: return INT8_MIN;
    case SY_DTYPE_U8:
    case SY_DTYPE_BOOL: return 0;
    default: return -MaxValue(dtype);
  }
}

int64_t WrapInt(sy_dtype_t dtype, int64_t value) {
  // Unsigned arithmetic: narrowing is defined modulo 2^bits, and converting
  // back to a signed type is two's complement since C++20.
  const uint64_t bits = static_cast<uint64_t>(value);
  switch (dtype) {
    case SY_DTYPE_I8: return static_cast<int8_t>(static_cast<uint8_t>(bits));
    case SY_DTYPE_U8: return static_cast<uint8_t>(bits);
    case SY_DTYPE_I32: return static_cast<int32_t>(static_cast<uint32_t>(bits));
    case SY_DTYPE_BOOL: return value != 0 ? 1 : 0;
    default: return value;
  }
}

double RoundTo(sy_dtype_t dtype, double value) {
  switch (dtype) {
    case SY_DTYPE_F64:
      return value;
    case SY_DTYPE_F32:
      return ToFloat(value);
    case SY_DTYPE_F16:
      return static_cast<float>(plugin::Half(ToFloat(value)));
    case SY_DTYPE_BF16:
      return static_cast<float>(plugin::BFloat16(ToFloat(value)));
    case SY_DTYPE_BOOL:
      return value != 0 ? 1.0 : 0.0;  // NaN != 0
    default:
      break;
  }
  if (!IsIntegral(dtype) || std::isnan(value)) return 0;
  const double t = std::trunc(value);
  int64_t i;
  if (t >= 0x1p63) {
    i = INT64_MAX;
  } else if (t < -0x1p63) {
    i = INT64_MIN;
  } else {
    i = static_cast<int64_t>(t);
  }
  return static_cast<double>(WrapInt(dtype, i));
}

}  // namespace sy::op_harness
