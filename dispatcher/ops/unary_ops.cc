// Shape functions of the unary ops: one input, the result has its shape.
#include <string_view>

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

constexpr int kX = 0;

// neg abs relu square keep x's dtype. On bool they would either change the
// dtype (PyTorch's neg refuses bool for that reason) or be meaningless.
absl::Status SameDTypeNotBool(const ShapeContext& ctx,
                              absl::Span<sy_tensor_meta_t> outputs) {
  if (absl::Status s = RequireNotBool(ctx, kX); !s.ok()) return s;
  outputs[0] = ctx.tensor(kX);
  return absl::OkStatus();
}

// Transcendental ops compute in floating point: integer and bool inputs
// give f32, as PyTorch's default dtype.
absl::Status FloatResult(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  outputs[0] = ctx.tensor(kX);
  if (!IsFloatingPoint(outputs[0].dtype)) outputs[0].dtype = SY_DTYPE_F32;
  return absl::OkStatus();
}

absl::Status GeluShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kApproximate = 0;
  const std::string_view approximate = ctx.string_attr(kApproximate);
  if (approximate != "none" && approximate != "tanh") {
    return ctx.AttrError(kApproximate,
                         absl::StrCat("is \"", AsAbsl(approximate),
                                      "\"; expected \"none\" (exact, with "
                                      "erf) or \"tanh\" (the tanh "
                                      "approximation)"));
  }
  return FloatResult(ctx, outputs);
}

// Note [Elementwise output layout] (shape_context.h): the result has x's
// layout where x is channels-last.
constexpr CoreOpDef Unary(const char* schema, CoreShapeFn fn) {
  return {schema, fn, OpKind::kGeneral, OutputLayout::kLikeFirstFullInput};
}

constexpr CoreOpDef kOps[] = {
    Unary("neg(Tensor x) -> Tensor", &Checked<SameDTypeNotBool>),
    Unary("abs(Tensor x) -> Tensor", &Checked<SameDTypeNotBool>),
    Unary("relu(Tensor x) -> Tensor", &Checked<SameDTypeNotBool>),
    Unary("square(Tensor x) -> Tensor", &Checked<SameDTypeNotBool>),
    Unary("exp(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("log(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("sqrt(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("rsqrt(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("sin(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("cos(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("tanh(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("sigmoid(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("silu(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("erf(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("reciprocal(Tensor x) -> Tensor", &Checked<FloatResult>),
    Unary("gelu(Tensor x, str approximate=\"none\") -> Tensor", &Checked<GeluShape>),
};

}  // namespace

absl::Span<const CoreOpDef> UnaryOps() { return kOps; }

}  // namespace sy::core::op_set
