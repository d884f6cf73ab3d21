#include "dispatcher/ops/dtype.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sy::core {
namespace {

struct DTypeInfo {
  sy_dtype_t dtype;
  std::string_view name;
  size_t size;
};

// Same order as kAllDTypes: DTypeIndex is the position here plus one.
constexpr DTypeInfo kInfo[] = {
    {SY_DTYPE_F32, "f32", 4},   {SY_DTYPE_F64, "f64", 8},
    {SY_DTYPE_F16, "f16", 2},   {SY_DTYPE_BF16, "bf16", 2},
    {SY_DTYPE_I32, "i32", 4},   {SY_DTYPE_I64, "i64", 8},
    {SY_DTYPE_I8, "i8", 1},     {SY_DTYPE_U8, "u8", 1},
    {SY_DTYPE_BOOL, "bool", 1},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) ==
              sizeof(kAllDTypes) / sizeof(kAllDTypes[0]));

// The spellings users bring from PyTorch and NumPy.
struct Alias {
  std::string_view name;
  sy_dtype_t dtype;
};
constexpr Alias kAliases[] = {
    {"float32", SY_DTYPE_F32},   {"float", SY_DTYPE_F32},
    {"float64", SY_DTYPE_F64},   {"double", SY_DTYPE_F64},
    {"float16", SY_DTYPE_F16},   {"half", SY_DTYPE_F16},
    {"bfloat16", SY_DTYPE_BF16}, {"int32", SY_DTYPE_I32},
    {"int", SY_DTYPE_I32},       {"int64", SY_DTYPE_I64},
    {"long", SY_DTYPE_I64},      {"int8", SY_DTYPE_I8},
    {"uint8", SY_DTYPE_U8},
};

const DTypeInfo* Find(sy_dtype_t dtype) {
  for (const DTypeInfo& info : kInfo) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

// bool < integers < floating: the order in which categories win.
int Category(sy_dtype_t dtype) {
  if (dtype == SY_DTYPE_BOOL) return 0;
  return IsFloatingPoint(dtype) ? 2 : 1;
}

}  // namespace

std::string_view DTypeName(sy_dtype_t dtype) {
  if (dtype == SY_DTYPE_NONE) return "none";
  const DTypeInfo* info = Find(dtype);
  return info != nullptr ? info->name : "invalid";
}

std::optional<sy_dtype_t> ParseDType(std::string_view name) {
  for (const DTypeInfo& info : kInfo) {
    if (info.name == name) return info.dtype;
  }
  for (const Alias& alias : kAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

bool IsValidDType(sy_dtype_t dtype) { return Find(dtype) != nullptr; }

size_t DTypeSize(sy_dtype_t dtype) {
  const DTypeInfo* info = Find(dtype);
  return info != nullptr ? info->size : 0;
}

bool IsFloatingPoint(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_F32 || dtype == SY_DTYPE_F64 ||
         dtype == SY_DTYPE_F16 || dtype == SY_DTYPE_BF16;
}

bool IsIntegral(sy_dtype_t dtype) {
  return dtype == SY_DTYPE_I32 || dtype == SY_DTYPE_I64 ||
         dtype == SY_DTYPE_I8 || dtype == SY_DTYPE_U8;
}

uint8_t DTypeIndex(sy_dtype_t dtype) {
  for (size_t i = 0; i < sizeof(kInfo) / sizeof(kInfo[0]); ++i) {
    if (kInfo[i].dtype == dtype) return static_cast<uint8_t>(i + 1);
  }
  return 0;
}

sy_dtype_t PromoteTypes(sy_dtype_t a, sy_dtype_t b) {
  if (!IsValidDType(a) || !IsValidDType(b)) return SY_DTYPE_NONE;
  if (a == b) return a;
  const int ca = Category(a);
  const int cb = Category(b);
  if (ca != cb) return ca > cb ? a : b;
  // Same category and different dtypes, so neither is bool.
  if (ca == 1) {
    // u8 is the only unsigned type: against a wider signed type the signed
    // one holds every value of both; against i8 nothing in v1 below i32 does.
    if (a == SY_DTYPE_U8 || b == SY_DTYPE_U8) {
      const sy_dtype_t other = a == SY_DTYPE_U8 ? b : a;
      return other == SY_DTYPE_I8 ? SY_DTYPE_I32 : other;
    }
  } else if ((a == SY_DTYPE_F16 && b == SY_DTYPE_BF16) ||
             (a == SY_DTYPE_BF16 && b == SY_DTYPE_F16)) {
    // Neither 16-bit format holds the other's range and precision.
    return SY_DTYPE_F32;
  }
  return SY_DTYPE_BITS(a) >= SY_DTYPE_BITS(b) ? a : b;
}

}  // namespace sy::core
