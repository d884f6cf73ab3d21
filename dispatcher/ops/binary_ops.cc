// Shape functions of the elementwise binary ops (arithmetic with Tensor and
// Scalar overloads), the comparisons and where. All broadcast like NumPy;
// the core then hands kernels inputs already expanded to the result's shape.
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

constexpr int kA = 0, kB = 1;  // tensor arguments of the Tensor overloads
constexpr int kScalarB = 0;    // attribute b of the Scalar overloads

enum class Arith { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum };

// add/mul/maximum/minimum on bools are or/and/or/and; sub, div and pow have
// no bool meaning (PyTorch refuses them too).
constexpr bool AcceptsBool(Arith op) {
  return op != Arith::kSub && op != Arith::kDiv && op != Arith::kPow;
}

// Docs/ops.md: a Scalar does not widen the tensor's dtype within its
// category, but a float Scalar on an integer or bool tensor gives f32.
sy_dtype_t ScalarResultDType(const ShapeContext& ctx) {
  const sy_dtype_t a = ctx.tensor(kA).dtype;
  const bool float_scalar = ctx.attr(kScalarB).kind == SY_ATTR_FLOAT;
  return float_scalar && !IsFloatingPoint(a) ? SY_DTYPE_F32 : a;
}

template <Arith op>
absl::Status ArithTensorShape(const ShapeContext& ctx,
                              absl::Span<sy_tensor_meta_t> outputs) {
  const sy_dtype_t dtype =
      PromoteTypes(ctx.tensor(kA).dtype, ctx.tensor(kB).dtype);
  if (!AcceptsBool(op) && dtype == SY_DTYPE_BOOL) {
    return ctx.OpError(absl::StrCat(
        "'a' and 'b' are both bool, and ", ctx.schema().BaseName(),
        " does not accept bool; cast one of them to a numeric dtype first, "
        "e.g. cast(a, i32)"));
  }
  constexpr int kArgs[] = {kA, kB};
  if (absl::Status s = BroadcastTensorArgs(ctx, kArgs, outputs[0]); !s.ok()) {
    return s;
  }
  outputs[0].dtype = dtype;
  return absl::OkStatus();
}

template <Arith op>
absl::Status ArithScalarShape(const ShapeContext& ctx,
                              absl::Span<sy_tensor_meta_t> outputs) {
  const sy_dtype_t dtype = ScalarResultDType(ctx);
  if (!AcceptsBool(op) && dtype == SY_DTYPE_BOOL) {
    if (absl::Status s = RequireNotBool(ctx, kA); !s.ok()) return s;
  }
  const bool int_scalar = ctx.attr(kScalarB).kind == SY_ATTR_INT;
  if (op == Arith::kDiv && IsIntegral(dtype) && int_scalar &&
      ctx.int_attr(kScalarB) == 0) {
    return ctx.AttrError(kScalarB,
                         absl::StrCat("is 0, and integer division of 'a' (",
                                      AsAbsl(DTypeName(dtype)),
                                      ") by zero has no result; divide by a "
                                      "nonzero value or by 0.0 to get "
                                      "floating-point infinities"));
  }
  if (op == Arith::kPow && IsIntegral(dtype) && int_scalar &&
      ctx.int_attr(kScalarB) < 0) {
    return ctx.AttrError(
        kScalarB,
        absl::StrCat("is ", ctx.int_attr(kScalarB), ", and an integer 'a' (",
                     AsAbsl(DTypeName(dtype)),
                     ") cannot be raised to a negative integer power; pass a "
                     "float exponent such as ",
                     ctx.int_attr(kScalarB), ".0 or cast 'a' first"));
  }
  outputs[0] = ctx.tensor(kA);
  outputs[0].dtype = dtype;
  return absl::OkStatus();
}

absl::Status CompareTensorShape(const ShapeContext& ctx,
                                absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kArgs[] = {kA, kB};
  if (absl::Status s = BroadcastTensorArgs(ctx, kArgs, outputs[0]); !s.ok()) {
    return s;
  }
  outputs[0].dtype = SY_DTYPE_BOOL;
  return absl::OkStatus();
}

absl::Status CompareScalarShape(const ShapeContext& ctx,
                                absl::Span<sy_tensor_meta_t> outputs) {
  outputs[0] = ctx.tensor(kA);
  outputs[0].dtype = SY_DTYPE_BOOL;
  return absl::OkStatus();
}

absl::Status WhereShape(const ShapeContext& ctx,
                        absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kCondition = 0, kWhereA = 1, kWhereB = 2;
  const sy_dtype_t cond = ctx.tensor(kCondition).dtype;
  if (cond != SY_DTYPE_BOOL) {
    return ctx.TensorError(
        kCondition, absl::StrCat("has dtype ", AsAbsl(DTypeName(cond)),
                                 ", but it must be bool; make one with a "
                                 "comparison, e.g. ne(condition, 0)"));
  }
  constexpr int kArgs[] = {kCondition, kWhereA, kWhereB};
  if (absl::Status s = BroadcastTensorArgs(ctx, kArgs, outputs[0]); !s.ok()) {
    return s;
  }
  outputs[0].dtype =
      PromoteTypes(ctx.tensor(kWhereA).dtype, ctx.tensor(kWhereB).dtype);
  return absl::OkStatus();
}

// Note [Elementwise output layout] (shape_context.h): a channels-last
// operand keeps its layout through the op.
constexpr CoreOpDef Elementwise(const char* schema, CoreShapeFn fn) {
  return {schema, fn, OpKind::kElementwise, OutputLayout::kLikeFirstFullInput};
}

// Each op's Tensor overload comes first: that is what a bare name finds.
constexpr CoreOpDef kOps[] = {
    Elementwise("add.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kAdd>>),
    Elementwise("add.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kAdd>>),
    Elementwise("sub.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kSub>>),
    Elementwise("sub.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kSub>>),
    Elementwise("mul.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kMul>>),
    Elementwise("mul.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kMul>>),
    Elementwise("div.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kDiv>>),
    Elementwise("div.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kDiv>>),
    Elementwise("pow.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kPow>>),
    Elementwise("pow.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kPow>>),
    Elementwise("maximum.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kMaximum>>),
    Elementwise("maximum.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kMaximum>>),
    Elementwise("minimum.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<ArithTensorShape<Arith::kMinimum>>),
    Elementwise("minimum.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<ArithScalarShape<Arith::kMinimum>>),
    Elementwise("eq.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("eq.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("ne.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("ne.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("lt.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("lt.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("le.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("le.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("gt.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("gt.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("ge.Tensor(Tensor a, Tensor b) -> Tensor",
                &Checked<CompareTensorShape>),
    Elementwise("ge.Scalar(Tensor a, Scalar b) -> Tensor",
                &Checked<CompareScalarShape>),
    Elementwise("where(Tensor condition, Tensor a, Tensor b) -> Tensor",
                &Checked<WhereShape>),
};

}  // namespace

absl::Span<const CoreOpDef> BinaryOps() { return kOps; }

}  // namespace sy::core::op_set
