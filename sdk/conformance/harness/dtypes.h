// The harness's own view of the nine dtypes of core op set v1: names,
// categories, the promotion rule of docs/ops.md, machine constants, and
// rounding a float64 value to what a dtype stores.
//
// Written independently of dispatcher/ops/dtype.h on purpose: the harness
// checks the core's promotion, so it must not borrow it.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_DTYPES_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_DTYPES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "switchyard/common.h"

namespace sy::op_harness {

// All nine, floating first; the order tests are registered in.
inline constexpr sy_dtype_t kAllDtypes[] = {
    SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
    SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};
inline constexpr sy_dtype_t kFloatDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64,
                                              SY_DTYPE_F16, SY_DTYPE_BF16};
// Every dtype but bool: what matmul, linear, conv2d, neg, abs … accept.
inline constexpr sy_dtype_t kNumericDtypes[] = {
    SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16,
    SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8};

// "f32", "bf16", "bool"; "none" for SY_DTYPE_NONE; "invalid" otherwise.
std::string_view DtypeName(sy_dtype_t dtype);
// "f32_i32": the dtypes joined by '_' (test names use this).
std::string DtypesName(std::span<const sy_dtype_t> dtypes);

size_t DtypeSize(sy_dtype_t dtype);  // bytes per element; 0 if invalid
bool IsFloating(sy_dtype_t dtype);   // f32 f64 f16 bf16
bool IsIntegral(sy_dtype_t dtype);   // i32 i64 i8 u8 (not bool)

// docs/ops.md: bool < integers < floating; within a category the wider
// wins; u8 with i8 gives i32; f16 with bf16 gives f32.
sy_dtype_t Promote(sy_dtype_t a, sy_dtype_t b);

// The gap between 1 and the next value (f32 2^-23, f64 2^-52, f16 2^-10,
// bf16 2^-7); 0 for integers and bool.
double Epsilon(sy_dtype_t dtype);
// The smallest positive subnormal of a floating dtype; 0 otherwise.
double MinSubnormal(sy_dtype_t dtype);
// The smallest positive normal of a floating dtype; 0 otherwise.
double MinNormal(sy_dtype_t dtype);
// Largest finite value (floating) or largest value (integers; bool 1).
double MaxValue(sy_dtype_t dtype);
// Smallest value: -MaxValue for floating dtypes, the minimum for integers,
// 0 for bool and u8.
double LowestValue(sy_dtype_t dtype);

// `value` as `dtype` stores it:
// - f64: itself; f32: rounded to nearest even; f16 and bf16: rounded to
//   float first and then through sy::plugin::Half / BFloat16, exactly as a
//   kernel that computes in f32 and rounds once stores its result.
// - integers: truncated toward zero, then wrapped modulo 2^bits (two's
//   complement), as a cast between integer widths wraps. NaN gives 0 and
//   values beyond int64 saturate first (C++ leaves both undefined; the
//   harness never feeds such values to an integer cast).
// - bool: 1 when value != 0 (NaN included), else 0.
double RoundTo(sy_dtype_t dtype, double value);

// `value` wrapped modulo 2^bits into an integer dtype (i8 i32 i64 u8) or
// made 0/1 for bool.
int64_t WrapInt(sy_dtype_t dtype, int64_t value);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_DTYPES_H_
