// Shape functions of the reductions (sum mean max min argmax) and the
// normalizations (softmax log_softmax layer_norm rms_norm).
#include <string>

#include "gtest/gtest.h"
#include "tests/ops/shape_test_util.h"

namespace sy::testing {
namespace {

constexpr sy_dtype_t kF32 = SY_DTYPE_F32, kF16 = SY_DTYPE_F16,
                     kBF16 = SY_DTYPE_BF16, kI32 = SY_DTYPE_I32,
                     kI64 = SY_DTYPE_I64, kU8 = SY_DTYPE_U8,
                     kBool = SY_DTYPE_BOOL;

// ---- reductions --------------------------------------------------------

TEST(ReduceShapeTest, DimsKeepdimAndAllDims) {
  for (const char* op : {"sum", "mean", "max", "min"}) {
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF32, {2, 3, 4})}), kF32, {})) << op;
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF32, {2, 3, 4}), Ints({}), true}), kF32,
                       {1, 1, 1}));
    EXPECT_TRUE(
        IsMeta(Infer(op, {T(kF32, {2, 3, 4}), Ints({1})}), kF32, {2, 4}));
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF32, {2, 3, 4}), Ints({-1, 0}), true}),
                       kF32, {1, 3, 1}));
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF16, {}), Ints({0})}), kF16, {}));
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF16, {}), Ints({-1}), true}), kF16, {}));
    EXPECT_TRUE(IsInvalid(Infer(op, {T(kF32, {2, 3}), Ints({2})})));
    EXPECT_TRUE(IsInvalid(Infer(op, {T(kF32, {2, 3}), Ints({0, -2})})));
  }
}

TEST(ReduceShapeTest, DTypes) {
  EXPECT_TRUE(IsMeta(Infer("sum", {T(kI32, {5})}), kI64, {}));
  EXPECT_TRUE(IsMeta(Infer("sum", {T(kBool, {5})}), kI64, {}));
  EXPECT_TRUE(IsMeta(Infer("sum", {T(kU8, {5})}), kI64, {}));
  EXPECT_TRUE(IsMeta(Infer("sum", {T(kBF16, {5})}), kBF16, {}));
  EXPECT_TRUE(IsMeta(Infer("max", {T(kU8, {5})}), kU8, {}));
  EXPECT_TRUE(IsMeta(Infer("min", {T(kBool, {5})}), kBool, {}));
  EXPECT_TRUE(IsError(Infer("mean", {T(kI32, {5})}),
                      "mean: argument 'x' has dtype i32, but mean needs a "
                      "floating dtype (f32, f64, f16 or bf16); cast it first, "
                      "e.g. cast(x, f32)"));
}

TEST(ReduceShapeTest, DimErrorsGiveTheRange) {
  EXPECT_TRUE(IsError(Infer("sum", {T(kF32, {2, 3}), Ints({0, 2})}),
                      "sum: argument 'dims' has 2 at index 1, out of range "
                      "for 'x' of rank 2; expected dims in [-2, 1]"));
  EXPECT_TRUE(IsError(Infer("mean", {T(kF32, {2, 3}), Ints({1, -1})}),
                      "mean: argument 'dims' lists dim 1 twice (as 1 and as "
                      "-1 at index 1); list each dim once"));
  EXPECT_TRUE(IsError(Infer("sum", {T(kF32, {}), Ints({1})}),
                      "sum: argument 'dims' has 1 at index 0, out of range "
                      "for 'x' of rank 0; expected dims in [-1, 0]"));
}

TEST(ReduceShapeTest, MaxMinNeedNonEmptyReducedDims) {
  EXPECT_TRUE(IsError(Infer("max", {T(kF32, {2, 0}), Ints({1})}),
                      "max: argument 'x' has shape [2, 0], and max over dim 1 "
                      "of size 0 has no result; reduce over non-empty dims "
                      "only"));
  EXPECT_TRUE(IsInvalid(Infer("min", {T(kF32, {0, 3})})));
  // Reducing a non-empty dim of an empty tensor is fine: the result is empty.
  EXPECT_TRUE(IsMeta(Infer("max", {T(kF32, {0, 3}), Ints({1})}), kF32, {0}));
  EXPECT_TRUE(IsMeta(Infer("sum", {T(kF32, {0, 3})}), kF32, {}));
  EXPECT_TRUE(IsMeta(Infer("mean", {T(kF32, {0, 3}), Ints({0})}), kF32, {3}));
}

TEST(ArgmaxShapeTest, DimNoneFlattens) {
  EXPECT_TRUE(IsMeta(Infer("argmax", {T(kF32, {2, 3})}), kI64, {}));
  EXPECT_TRUE(
      IsMeta(Infer("argmax", {T(kF32, {2, 3}), None(), true}), kI64, {1, 1}));
  EXPECT_TRUE(IsMeta(Infer("argmax", {T(kU8, {2, 3}), 1}), kI64, {2}));
  EXPECT_TRUE(
      IsMeta(Infer("argmax", {T(kF32, {2, 3}), -2, true}), kI64, {1, 3}));
  EXPECT_TRUE(IsMeta(Infer("argmax", {T(kF32, {}), 0}), kI64, {}));
  EXPECT_TRUE(IsMeta(Infer("argmax", {T(kF32, {0, 3}), 1}), kI64, {0}));
  EXPECT_TRUE(IsError(Infer("argmax", {T(kF32, {2, 3}), 2}),
                      "argmax: argument 'dim' is 2, out of range for 'x' of "
                      "rank 2; expected a dim in [-2, 1]"));
  EXPECT_TRUE(IsError(Infer("argmax", {T(kF32, {4, 0})}),
                      "argmax: argument 'x' has shape [4, 0], and argmax over "
                      "dim 1 of size 0 has no result; reduce over non-empty "
                      "dims only"));
  EXPECT_TRUE(IsInvalid(Infer("argmax", {T(kF32, {0, 3}), 0})));
}

// ---- normalizations ----------------------------------------------------

TEST(SoftmaxShapeTest, KeepsShapeAndNeedsFloating) {
  for (const char* op : {"softmax", "log_softmax"}) {
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF16, {2, 3})}), kF16, {2, 3}));
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF32, {2, 3}), 0}), kF32, {2, 3}));
    EXPECT_TRUE(IsMeta(Infer(op, {T(kF32, {})}), kF32, {}));
    EXPECT_TRUE(IsInvalid(Infer(op, {T(kI64, {2})})));
    EXPECT_TRUE(IsInvalid(Infer(op, {T(kF32, {2}), 1})));
  }
  EXPECT_TRUE(IsError(Infer("softmax", {T(kF32, {2, 3}), -3}),
                      "softmax: argument 'dim' is -3, out of range for 'x' of "
                      "rank 2; expected a dim in [-2, 1]"));
  EXPECT_TRUE(IsError(Infer("log_softmax", {T(kBool, {2})}),
                      "log_softmax: argument 'x' has dtype bool, but "
                      "log_softmax needs a floating dtype (f32, f64, f16 or "
                      "bf16); cast it first, e.g. cast(x, f32)"));
}

TEST(LayerNormShapeTest, Good) {
  EXPECT_TRUE(IsMeta(Infer("layer_norm", {T(kF32, {2, 3, 4}), Ints({4})}), kF32,
                     {2, 3, 4}));
  EXPECT_TRUE(
      IsMeta(Infer("layer_norm", {T(kBF16, {2, 3, 4}), Ints({3, 4}),
                                  T(kBF16, {3, 4}), T(kF32, {3, 4}), 1e-6}),
             kBF16, {2, 3, 4}));
  EXPECT_TRUE(IsMeta(
      Infer("layer_norm", {T(kF32, {4}), Ints({4}), None(), T(kF32, {4}), 0}),
      kF32, {4}));
}

TEST(LayerNormShapeTest, Bad) {
  EXPECT_TRUE(IsError(
      Infer("layer_norm", {T(kF32, {2, 3}), Ints({4})}),
      "layer_norm: argument 'normalized_shape' is [4], but the last 1 dims "
      "of 'x' (shape [2, 3]) are [3]; they must be equal"));
  EXPECT_TRUE(IsError(
      Infer("layer_norm", {T(kF32, {3}), Ints({2, 3})}),
      "layer_norm: argument 'normalized_shape' is [2, 3], more dims than "
      "'x' (shape [3]) has; it must equal the trailing dims of 'x'"));
  EXPECT_TRUE(IsError(
      Infer("layer_norm", {T(kF32, {2, 3}), Ints({})}),
      "layer_norm: argument 'normalized_shape' is [], but it must list the "
      "trailing dims of 'x' (shape [2, 3]) to normalize over, e.g. [3]"));
  EXPECT_TRUE(IsError(
      Infer("layer_norm", {T(kF32, {2, 3}), Ints({3}), T(kF32, {2, 3})}),
      "layer_norm: argument 'weight' has shape [2, 3], but it must equal "
      "normalized_shape [3]"));
  EXPECT_TRUE(IsError(
      Infer("layer_norm",
            {T(kF32, {2, 3}), Ints({3}), None(), T(kF32, {3}), -1e-5}),
      "layer_norm: argument 'eps' is -1e-05; it must be a finite number >= "
      "0, such as 1e-05"));
  EXPECT_TRUE(IsInvalid(Infer("layer_norm", {T(kI32, {2, 3}), Ints({3})})));
  EXPECT_TRUE(IsInvalid(Infer("layer_norm", {T(kF32, {}), Ints({})})));
  EXPECT_TRUE(IsInvalid(
      Infer("layer_norm", {T(kF32, {2, 3}), Ints({3}), T(kI32, {3})})));
}

TEST(RmsNormShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(Infer("rms_norm", {T(kF16, {2, 5, 8}), T(kF16, {8})}),
                     kF16, {2, 5, 8}));
  EXPECT_TRUE(
      IsMeta(Infer("rms_norm", {T(kF32, {8}), T(kF32, {8}), 1}), kF32, {8}));
  EXPECT_TRUE(IsError(Infer("rms_norm", {T(kF32, {2, 3}), T(kF32, {2, 3})}),
                      "rms_norm: argument 'weight' has shape [2, 3], but it "
                      "must be [3]: one scale per element of the last dim of "
                      "'x' (shape [2, 3])"));
  EXPECT_TRUE(IsError(Infer("rms_norm", {T(kF32, {}), T(kF32, {1})}),
                      "rms_norm: argument 'x' has shape [] (rank 0), but "
                      "rms_norm needs at least 1 dim"));
  EXPECT_TRUE(IsInvalid(Infer("rms_norm", {T(kI64, {3}), T(kF32, {3})})));
  EXPECT_TRUE(IsInvalid(
      Infer("rms_norm", {T(kF32, {3}), T(kF32, {3}), 1e300 * 1e300})));
}

}  // namespace
}  // namespace sy::testing
