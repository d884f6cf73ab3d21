// The core op table, and the shape functions of the creation, unary,
// binary, compare and where families.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "gtest/gtest.h"
#include "tests/ops/shape_test_util.h"

namespace sy::testing {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

constexpr sy_dtype_t kF32 = SY_DTYPE_F32, kF64 = SY_DTYPE_F64,
                     kF16 = SY_DTYPE_F16, kBF16 = SY_DTYPE_BF16,
                     kI32 = SY_DTYPE_I32, kI64 = SY_DTYPE_I64,
                     kI8 = SY_DTYPE_I8, kU8 = SY_DTYPE_U8,
                     kBool = SY_DTYPE_BOOL;

TEST(CoreOpsTest, TableListsTheOpSetInOrderWithKinds) {
  std::vector<std::string> names;
  std::vector<std::string> elementwise, views, collectives;
  for (const CoreOpDef& op : CoreOps()) {
    absl::StatusOr<Schema> s = ParseSchema(op.schema);
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_NE(op.shape_fn, nullptr) << op.schema;
    names.push_back(s->FullName());
    if (op.kind == OpKind::kElementwise) elementwise.push_back(s->FullName());
    if (op.kind == OpKind::kView) views.push_back(s->FullName());
    if (op.kind == OpKind::kCollective) collectives.push_back(s->FullName());
  }
  std::vector<std::string> want = {
      "fill.Scalar", "copy", "cast", "neg",        "abs", "relu", "square",
      "exp",         "log",  "sqrt", "rsqrt",      "sin", "cos",  "tanh",
      "sigmoid",     "silu", "erf",  "reciprocal", "gelu"};
  std::vector<std::string> want_elementwise;
  for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum",
                         "minimum", "eq", "ne", "lt", "le", "gt", "ge"}) {
    for (const char* overload : {".Tensor", ".Scalar"}) {
      want.push_back(std::string(op) + overload);
      want_elementwise.push_back(want.back());
    }
  }
  want.push_back("where");
  want_elementwise.push_back("where");
  for (const char* op :
       {"sum",         "mean",       "max",
        "min",         "argmax",     "softmax",
        "log_softmax", "layer_norm", "rms_norm",
        "matmul",      "linear",     "conv2d",
        "reshape",     "permute",    "transpose",
        "slice",       "expand",     "contiguous",
        "concat",      "embedding",  "scaled_dot_product_attention"}) {
    want.push_back(op);
  }
  const std::vector<std::string> want_collectives = {
      "all_reduce", "all_gather", "reduce_scatter", "broadcast",
      "send",       "recv",       "barrier"};
  want.insert(want.end(), want_collectives.begin(), want_collectives.end());
  EXPECT_EQ(names, want);
  EXPECT_EQ(collectives, want_collectives);
  EXPECT_EQ(elementwise, want_elementwise);
  EXPECT_EQ(views, (std::vector<std::string>{"reshape", "permute", "transpose",
                                             "slice", "expand"}));
}

TEST(ShapeContextTest, AccessorsAndErrorBuilders) {
  absl::StatusOr<Schema> schema = ParseSchema(
      "vendor::op.v1(Tensor x, Tensor[] ys, float eps, Scalar s, "
      "int[] dims, str mode) -> Tensor");
  ASSERT_TRUE(schema.ok()) << schema.status();
  const sy_tensor_meta_t inputs[] = {T(kF32, {2}), T(kI32, {3}),
                                     T(kI32, {4})};
  const int32_t offsets[] = {0, 1, 3};
  const int64_t dims[] = {1, -1};
  sy_attr_t attrs[4] = {};
  attrs[0].kind = SY_ATTR_INT;  // an int given for a float argument
  attrs[0].value.i = 3;
  attrs[1].kind = SY_ATTR_FLOAT;
  attrs[1].value.f = 0.25;
  attrs[2].kind = SY_ATTR_INTS;
  attrs[2].value.ints.data = dims;
  attrs[2].value.ints.size = 2;
  attrs[3].kind = SY_ATTR_STRING;
  attrs[3].value.str.data = "fast";
  attrs[3].value.str.size = 4;
  const ShapeContext ctx(*schema, inputs, offsets, attrs);
  EXPECT_EQ(ctx.num_tensors(0), 1);
  EXPECT_EQ(ctx.num_tensors(1), 2);
  EXPECT_EQ(ctx.tensor(1, 1).shape[0], 4);
  EXPECT_EQ(ctx.float_attr(0), 3.0);
  EXPECT_EQ(ctx.float_attr(1), 0.25);
  EXPECT_EQ(ctx.ints_attr(2).size(), 2u);
  EXPECT_EQ(ctx.string_attr(3), "fast");
  EXPECT_EQ(ctx.tensor_name(1), "ys");
  EXPECT_EQ(ctx.attr_name(1), "s");
  const absl::Status t = ctx.TensorError(1, "is empty");
  EXPECT_EQ(t.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(t.message()), "vendor::op.v1: argument 'ys' is empty");
  EXPECT_EQ(std::string(ctx.AttrError(3, "is \"fast\"").message()),
            "vendor::op.v1: argument 'mode' is \"fast\"");
  const absl::Status o = ctx.OpError("went wrong");
  EXPECT_EQ(o.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(o.message()), "vendor::op.v1: went wrong");
}

// ---- creation ----------------------------------------------------------

TEST(CreationShapeTest, FillCopyCast) {
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kI32, {2, 3}), 7}), kI32, {2, 3}));
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kF16, {4}), 0.5}), kF16, {4}));
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kBool, {}), 3}), kBool, {}));
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kU8, {1}), 255}), kU8, {1}));
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kF32, {1}), 1e300 * 1e300}), kF32,
                     {1}));  // inf is a float value
  EXPECT_TRUE(IsMeta(Infer("copy", {T(kBF16, {0, 5})}), kBF16, {0, 5}));
  EXPECT_TRUE(
      IsMeta(Infer("cast", {T(kF32, {2, 2}), DType(kI8)}), kI8, {2, 2}));
}

TEST(CreationShapeTest, FillRefusesValuesTheDTypeCannotHold) {
  EXPECT_TRUE(IsError(Infer("fill.Scalar", {T(kU8, {2}), 300}),
                      "fill.Scalar: argument 'value' is 300, which does not "
                      "fit in u8 (range [0, 255]) of 'self'; pass a value in "
                      "range or cast 'self' to a wider dtype first"));
  EXPECT_TRUE(IsError(Infer("fill.Scalar", {T(kI8, {2}), -1.5e10}),
                      "fill.Scalar: argument 'value' is -1.5e+10, which does "
                      "not fit in i8 (range [-128, 127]) of 'self'; pass a "
                      "value in range or cast 'self' to a wider dtype first"));
  EXPECT_TRUE(IsError(Infer("fill.Scalar", {T(kF16, {2}), 1e5}),
                      "fill.Scalar: argument 'value' is 100000, beyond the "
                      "largest finite f16 (65504) of 'self'; pass a smaller "
                      "value or cast 'self' to a wider dtype first"));
  EXPECT_TRUE(IsInvalid(Infer("fill.Scalar", {T(kI64, {2}), 9.3e18})));
  EXPECT_TRUE(IsInvalid(Infer("fill.Scalar", {T(kI32, {2}), 0.0 / 0.0})));
  EXPECT_TRUE(IsMeta(Infer("fill.Scalar", {T(kI64, {2}), -9.2e18}), kI64, {2}));
}

TEST(CreationShapeTest, CastRefusesInvalidDType) {
  EXPECT_TRUE(IsError(Infer("cast", {T(kF32, {2}), DType(SY_DTYPE_NONE)}),
                      "cast: argument 'dtype' is not a valid dtype (code 0); "
                      "use one of f32 f64 f16 bf16 i32 i64 i8 u8 bool"));
}

TEST(CreationShapeTest, MalformedInputMetasAreRefused) {
  sy_tensor_meta_t bad = T(kF32, {2, 3});
  bad.ndim = 9;
  EXPECT_TRUE(IsError(Infer("copy", {bad}),
                      "copy: argument 'self' has rank 9; tensors have 0 to 8 "
                      "dims"));
  bad = T(kF32, {2, -3});
  EXPECT_TRUE(IsError(Infer("copy", {bad}),
                      "copy: argument 'self' has shape [2, -3] with a "
                      "negative size at dim 1; sizes must be >= 0"));
  bad = T(SY_DTYPE_NONE, {2});
  EXPECT_TRUE(IsError(Infer("copy", {bad}),
                      "copy: argument 'self' has an invalid dtype (code 0); "
                      "use one of f32 f64 f16 bf16 i32 i64 i8 u8 bool"));
  EXPECT_TRUE(IsInvalid(
      Infer("copy", {T(kF32, {1 << 30, 1 << 30, 1 << 30, 1 << 30})})));
}

// ---- unary -------------------------------------------------------------

TEST(UnaryShapeTest, KeepDTypeOps) {
  for (const char* op : {"neg", "abs", "relu", "square"}) {
    for (sy_dtype_t dtype : {kF32, kF64, kF16, kBF16, kI32, kI64, kI8, kU8}) {
      EXPECT_TRUE(IsMeta(Infer(op, {T(dtype, {2, 0, 3})}), dtype, {2, 0, 3}))
          << op;
    }
    EXPECT_TRUE(IsInvalid(Infer(op, {T(kBool, {2})}))) << op;
  }
  EXPECT_TRUE(IsError(Infer("neg", {T(kBool, {2})}),
                      "neg: argument 'x' has dtype bool, which neg does not "
                      "accept; cast it to a numeric dtype first, e.g. "
                      "cast(x, i32)"));
}

TEST(UnaryShapeTest, FloatingOpsPromoteIntegersToF32) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
                         "sigmoid", "silu", "erf", "reciprocal", "gelu"}) {
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF64, {3})}), kF64, {3})) << op;
    EXPECT_TRUE(IsMeta(Infer(op, {T(kBF16, {})}), kBF16, {})) << op;
    EXPECT_TRUE(IsMeta(Infer(op, {T(kI64, {2, 2})}), kF32, {2, 2})) << op;
    EXPECT_TRUE(IsMeta(Infer(op, {T(kBool, {1})}), kF32, {1})) << op;
  }
}

TEST(UnaryShapeTest, GeluApproximate) {
  EXPECT_TRUE(IsMeta(Infer("gelu", {T(kF16, {4}), Str("tanh")}), kF16, {4}));
  EXPECT_TRUE(IsMeta(Infer("gelu", {T(kF16, {4}), Str("none")}), kF16, {4}));
  EXPECT_TRUE(IsError(Infer("gelu", {T(kF16, {4}), Str("fast")}),
                      "gelu: argument 'approximate' is \"fast\"; expected "
                      "\"none\" (exact, with erf) or \"tanh\" (the tanh "
                      "approximation)"));
}

// ---- binary ------------------------------------------------------------

const char* const kArith[] = {"add", "sub",     "mul",    "div",
                              "pow", "maximum", "minimum"};
const char* const kCompare[] = {"eq", "ne", "lt", "le", "gt", "ge"};

TEST(BinaryShapeTest, TensorOverloadsBroadcastAndPromote) {
  for (const char* op : kArith) {
    const std::string name = std::string(op) + ".Tensor";
    EXPECT_TRUE(
        IsMeta(Infer(name, {T(kF32, {2, 3}), T(kF32, {3})}), kF32, {2, 3}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kI32, {4, 1, 5}), T(kF16, {3, 1})}), kF16,
                       {4, 3, 5}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kU8, {}), T(kI8, {0})}), kI32, {0}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kF16, {1}), T(kBF16, {1})}), kF32, {1}));
  }
  EXPECT_TRUE(
      IsMeta(Infer("add.Tensor", {T(kBool, {2}), T(kBool, {2})}), kBool, {2}));
  EXPECT_TRUE(
      IsMeta(Infer("sub.Tensor", {T(kBool, {2}), T(kI8, {2})}), kI8, {2}));
}

TEST(BinaryShapeTest, BroadcastErrorNamesBothShapesAndTheDim) {
  EXPECT_TRUE(IsError(Infer("add.Tensor", {T(kF32, {2, 3}), T(kF32, {4})}),
                      "add.Tensor: argument 'b' has shape [4], which does not "
                      "broadcast with shape [2, 3] of 'a': at dim -1 "
                      "(counting from the end) the sizes are 4 and 3; "
                      "broadcast sizes must be equal or 1"));
  EXPECT_TRUE(
      IsError(Infer("mul.Tensor", {T(kF32, {5, 2, 1}), T(kF32, {3, 7})}),
              "mul.Tensor: argument 'b' has shape [3, 7], which does "
              "not broadcast with shape [5, 2, 1] of 'a': at dim -2 "
              "(counting from the end) the sizes are 3 and 2; "
              "broadcast sizes must be equal or 1"));
}

TEST(BinaryShapeTest, BoolOnlyWhereItMeansSomething) {
  EXPECT_TRUE(IsError(Infer("sub.Tensor", {T(kBool, {2}), T(kBool, {2})}),
                      "sub.Tensor: 'a' and 'b' are both bool, and sub does "
                      "not accept bool; cast one of them to a numeric dtype "
                      "first, e.g. cast(a, i32)"));
  EXPECT_TRUE(IsInvalid(Infer("div.Tensor", {T(kBool, {2}), T(kBool, {1})})));
  EXPECT_TRUE(IsInvalid(Infer("pow.Tensor", {T(kBool, {2}), T(kBool, {1})})));
  EXPECT_TRUE(IsInvalid(Infer("sub.Scalar", {T(kBool, {2}), 1})));
  EXPECT_TRUE(IsMeta(Infer("sub.Scalar", {T(kBool, {2}), 1.5}), kF32, {2}));
  EXPECT_TRUE(IsMeta(Infer("maximum.Scalar", {T(kBool, {2}), 1}), kBool, {2}));
}

TEST(BinaryShapeTest, ScalarOverloads) {
  for (const char* op : kArith) {
    const std::string name = std::string(op) + ".Scalar";
    EXPECT_TRUE(IsMeta(Infer(name, {T(kF16, {2, 3}), 2}), kF16, {2, 3}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kF16, {2, 3}), 2.5}), kF16, {2, 3}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kI8, {4}), 3}), kI8, {4}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kI64, {}), 0.5}), kF32, {}));
    EXPECT_TRUE(IsMeta(Infer(name, {T(kU8, {1}), 2.0}), kF32, {1}));
  }
}

TEST(BinaryShapeTest, IntegerDivisionByZeroAndNegativePowers) {
  EXPECT_TRUE(IsError(Infer("div.Scalar", {T(kI32, {3}), 0}),
                      "div.Scalar: argument 'b' is 0, and integer division "
                      "of 'a' (i32) by zero has no result; divide by a "
                      "nonzero value or by 0.0 to get floating-point "
                      "infinities"));
  EXPECT_TRUE(IsMeta(Infer("div.Scalar", {T(kI32, {3}), 0.0}), kF32, {3}));
  EXPECT_TRUE(IsMeta(Infer("div.Scalar", {T(kF32, {3}), 0}), kF32, {3}));
  EXPECT_TRUE(IsError(Infer("pow.Scalar", {T(kI64, {3}), -2}),
                      "pow.Scalar: argument 'b' is -2, and an integer 'a' "
                      "(i64) cannot be raised to a negative integer power; "
                      "pass a float exponent such as -2.0 or cast 'a' first"));
  EXPECT_TRUE(IsMeta(Infer("pow.Scalar", {T(kI64, {3}), 2}), kI64, {3}));
  EXPECT_TRUE(IsMeta(Infer("pow.Scalar", {T(kF32, {3}), -2}), kF32, {3}));
}

// ---- compare and where -------------------------------------------------

TEST(CompareShapeTest, GiveBoolAndBroadcast) {
  for (const char* op : kCompare) {
    const std::string tensor = std::string(op) + ".Tensor";
    const std::string scalar = std::string(op) + ".Scalar";
    EXPECT_TRUE(IsMeta(Infer(tensor, {T(kF32, {2, 1}), T(kI32, {1, 5})}), kBool,
                       {2, 5}));
    EXPECT_TRUE(
        IsMeta(Infer(tensor, {T(kBool, {3}), T(kBool, {})}), kBool, {3}));
    EXPECT_TRUE(IsMeta(Infer(scalar, {T(kI8, {3, 4}), 2.5}), kBool, {3, 4}));
    EXPECT_TRUE(IsInvalid(Infer(tensor, {T(kF32, {2}), T(kF32, {3})})));
  }
  EXPECT_TRUE(IsError(Infer("lt.Tensor", {T(kF32, {2, 2}), T(kF32, {3, 1})}),
                      "lt.Tensor: argument 'b' has shape [3, 1], which does "
                      "not broadcast with shape [2, 2] of 'a': at dim -2 "
                      "(counting from the end) the sizes are 3 and 2; "
                      "broadcast sizes must be equal or 1"));
}

TEST(WhereShapeTest, ThreeWayBroadcastAndPromotion) {
  EXPECT_TRUE(IsMeta(
      Infer("where", {T(kBool, {4, 1, 1}), T(kI32, {3, 1}), T(kF16, {5})}),
      kF16, {4, 3, 5}));
  EXPECT_TRUE(IsMeta(Infer("where", {T(kBool, {}), T(kU8, {2}), T(kI8, {2})}),
                     kI32, {2}));
  EXPECT_TRUE(IsError(
      Infer("where", {T(kF32, {2}), T(kF32, {2}), T(kF32, {2})}),
      "where: argument 'condition' has dtype f32, but it must be bool; make "
      "one with a comparison, e.g. ne(condition, 0)"));
  // The conflict is between b and condition; a broadcasts with both.
  EXPECT_TRUE(IsError(
      Infer("where", {T(kBool, {2, 3}), T(kF32, {1, 3}), T(kF32, {4, 1})}),
      "where: argument 'b' has shape [4, 1], which does not broadcast with "
      "shape [2, 3] of 'condition': at dim -2 (counting from the end) the "
      "sizes are 4 and 2; broadcast sizes must be equal or 1"));
  EXPECT_TRUE(IsError(
      Infer("where", {T(kBool, {3}), T(kF32, {1}), T(kF32, {4})}),
      "where: argument 'b' has shape [4], which does not broadcast with "
      "shape [3] of 'condition': at dim -1 (counting from the end) the "
      "sizes are 4 and 3; broadcast sizes must be equal or 1"));
}

TEST(ShapeTestHelpersTest, MisuseIsNotMistakenForAnOpError) {
  // Guards the helpers themselves: a wrong call must fail every check.
  EXPECT_FALSE(IsInvalid(Infer("nosuchop", {T(kF32, {1})})));
  EXPECT_FALSE(IsInvalid(Infer("neg", {Str("x")})));
  EXPECT_FALSE(IsMeta(Infer("neg", {T(kF32, {1})}), kF32, {2}));
  EXPECT_FALSE(IsError(Infer("neg", {T(kBool, {1})}), "other message"));
}

}  // namespace
}  // namespace sy::testing
