// Shape functions of fill, copy and cast.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core::op_set {
namespace {

// The values an integer dtype holds; false for the other dtypes.
bool IntegralRange(sy_dtype_t dtype, int64_t& lo, int64_t& hi) {
  switch (dtype) {
    case SY_DTYPE_I8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      return true;
    case SY_DTYPE_U8:
      lo = 0;
      hi = UINT8_MAX;
      return true;
    case SY_DTYPE_I32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      return true;
    case SY_DTYPE_I64:
      lo = INT64_MIN;
      hi = INT64_MAX;
      return true;
    default:
      return false;
  }
}

// Largest finite value of the narrow floating dtypes.
double MaxFinite(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F16:
      return 65504.0;
    case SY_DTYPE_BF16:
      return 3.38953138925153547590e38;
    case SY_DTYPE_F32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::infinity();
  }
}

// A value that does not fit the tensor's dtype would make the kernel's
// conversion undefined behaviour (float to int out of range, or NaN to
// int), so it is refused here, as PyTorch refuses it.
absl::Status FillShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kSelf = 0, kValue = 0;
  const sy_tensor_meta_t& self = ctx.tensor(kSelf);
  const sy_dtype_t dtype = self.dtype;
  const bool is_float = ctx.attr(kValue).kind == SY_ATTR_FLOAT;
  int64_t lo = 0, hi = 0;
  if (IntegralRange(dtype, lo, hi)) {
    const std::string range = absl::StrCat("[", lo, ", ", hi, "]");
    bool fits;
    std::string shown;
    if (is_float) {
      const double v = ctx.float_attr(kValue);
      // 2^63 is exactly representable; every double below it truncates
      // into int64.
      fits = std::isfinite(v) && std::trunc(v) >= static_cast<double>(lo) &&
             (dtype == SY_DTYPE_I64 ? v < 9223372036854775808.0
                                    : std::trunc(v) <= static_cast<double>(hi));
      shown = absl::StrCat(v);
    } else {
      const int64_t v = ctx.int_attr(kValue);
      fits = v >= lo && v <= hi;
      shown = absl::StrCat(v);
    }
    if (!fits) {
      return ctx.AttrError(
          kValue, absl::StrCat("is ", shown, ", which does not fit in ",
                               AsAbsl(DTypeName(dtype)), " (range ", range,
                               ") of 'self'; pass a value in range or cast "
                               "'self' to a wider dtype first"));
    }
  } else if (is_float && IsFloatingPoint(dtype)) {
    const double v = ctx.float_attr(kValue);
    if (std::isfinite(v) && std::fabs(v) > MaxFinite(dtype)) {
      return ctx.AttrError(
          kValue, absl::StrCat("is ", v, ", beyond the largest finite ",
                               AsAbsl(DTypeName(dtype)), " (", MaxFinite(dtype),
                               ") of 'self'; pass a smaller value or cast "
                               "'self' to a wider dtype first"));
    }
  }
  outputs[0] = self;
  return absl::OkStatus();
}

absl::Status CopyShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  outputs[0] = ctx.tensor(0);
  return absl::OkStatus();
}

absl::Status CastShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kSelf = 0, kDType = 0;
  const sy_dtype_t dtype = ctx.dtype_attr(kDType);
  if (!IsValidDType(dtype)) {
    return ctx.AttrError(
        kDType, absl::StrCat("is not a valid dtype (code ", dtype,
                             "); use one of f32 f64 f16 bf16 i32 i64 i8 u8 "
                             "bool"));
  }
  outputs[0] = ctx.tensor(kSelf);
  outputs[0].dtype = dtype;
  return absl::OkStatus();
}

constexpr CoreOpDef kOps[] = {
    {"fill.Scalar(Tensor self, Scalar value) -> Tensor", &Checked<FillShape>},
    {"copy(Tensor self) -> Tensor", &Checked<CopyShape>},
    // A cast keeps a channels-last input's layout, as PyTorch's .to(dtype)
    // keeps the memory format (Note [Elementwise output layout]); copy
    // stays contiguous: the core densifies views with it.
    {"cast(Tensor self, ScalarType dtype) -> Tensor", &Checked<CastShape>, OpKind::kGeneral,
     OutputLayout::kLikeFirstFullInput},
};

}  // namespace

absl::Span<const CoreOpDef> CreationOps() { return kOps; }

}  // namespace sy::core::op_set
