// Data types as the core sees them: the ABI's sy_dtype_t with names, sizes
// and the promotion rules of binary ops.
#ifndef SWITCHYARD_DISPATCHER_OPS_DTYPE_H_
#define SWITCHYARD_DISPATCHER_OPS_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "switchyard/common.h"

namespace sy::core {

// The nine dtypes of core op set v1, in a dense order used for dispatch keys
// (index 0 is "none": an omitted optional tensor).
inline constexpr sy_dtype_t kAllDTypes[] = {
    SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
    SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

// "f32", "bf16", "bool", … ; "none" for SY_DTYPE_NONE; "invalid" otherwise.
std::string_view DTypeName(sy_dtype_t dtype);

// Inverse of DTypeName for the nine valid dtypes ("none" is not one: no
// tensor has it); also accepts the PyTorch/NumPy spellings "float32",
// "float", "float64", "double", "float16", "half", "bfloat16", "int32",
// "int", "int64", "long", "int8", "uint8". Case-sensitive. nullopt if unknown.
std::optional<sy_dtype_t> ParseDType(std::string_view name);

// True for the nine dtypes above.
bool IsValidDType(sy_dtype_t dtype);

// Bytes per element (bool and u8/i8 are 1). 0 for an invalid dtype.
size_t DTypeSize(sy_dtype_t dtype);

bool IsFloatingPoint(sy_dtype_t dtype);  // f32 f64 f16 bf16
bool IsIntegral(sy_dtype_t dtype);       // i32 i64 i8 u8 (not bool)

// 1..9 for the valid dtypes in kAllDTypes order, 0 for SY_DTYPE_NONE and
// anything invalid. Used to pack dispatch keys into one integer.
uint8_t DTypeIndex(sy_dtype_t dtype);

// The result dtype of a binary op on `a` and `b`, following PyTorch's
// category rules for tensors of equal standing: bool < integers < floating;
// within a category the wider wins; u8 with i8 gives i16, which core v1 does
// not have, so it promotes to i32; f16 with bf16 gives f32.
// SY_DTYPE_NONE when either argument is not a valid dtype.
sy_dtype_t PromoteTypes(sy_dtype_t a, sy_dtype_t b);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_OPS_DTYPE_H_
