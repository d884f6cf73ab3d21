// Shape functions of matmul, linear, conv2d, embedding and
// scaled_dot_product_attention.
#include <string>

#include "gtest/gtest.h"
#include "tests/ops/shape_test_util.h"

namespace sy::testing {
namespace {

constexpr sy_dtype_t kF32 = SY_DTYPE_F32, kF16 = SY_DTYPE_F16,
                     kI32 = SY_DTYPE_I32, kI64 = SY_DTYPE_I64,
                     kI8 = SY_DTYPE_I8, kBool = SY_DTYPE_BOOL;

// ---- matmul ------------------------------------------------------------

TEST(MatmulShapeTest, NumpyRules) {
  const struct {
    Shape a, b, out;
  } cases[] = {
      {{3}, {3}, {}},                           // dot
      {{2, 3}, {3}, {2}},                       // matrix @ vector
      {{3}, {3, 4}, {4}},                       // vector @ matrix
      {{2, 3}, {3, 4}, {2, 4}},                 // matrix @ matrix
      {{5, 2, 3}, {3, 4}, {5, 2, 4}},           // batch @ matrix
      {{3}, {5, 3, 4}, {5, 4}},                 // vector @ batch
      {{5, 2, 3}, {3}, {5, 2}},                 // batch @ vector
      {{7, 1, 2, 3}, {5, 3, 4}, {7, 5, 2, 4}},  // broadcast batch dims
      {{0, 3}, {3, 0}, {0, 0}},
      {{2, 0}, {0, 4}, {2, 4}},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(
        IsMeta(Infer("matmul", {T(kF32, c.a), T(kF32, c.b)}), kF32, c.out));
  }
  EXPECT_TRUE(
      IsMeta(Infer("matmul", {T(kI8, {2, 2}), T(kI8, {2, 2})}), kI8, {2, 2}));
}

TEST(MatmulShapeTest, Errors) {
  EXPECT_TRUE(IsError(Infer("matmul", {T(kF32, {2, 3}), T(kF32, {4, 5})}),
                      "matmul: argument 'b' has shape [4, 5], but 'a' has "
                      "shape [2, 3]: the last dim of 'a' (3) must equal the "
                      "second-to-last dim of 'b' (4)"));
  EXPECT_TRUE(IsError(Infer("matmul", {T(kF32, {2, 3}), T(kF32, {4})}),
                      "matmul: argument 'b' has shape [4], but 'a' has shape "
                      "[2, 3]: the last dim of 'a' (3) must equal the only "
                      "dim of 'b' (4)"));
  EXPECT_TRUE(IsError(
      Infer("matmul", {T(kF32, {2, 2, 3}), T(kF32, {3, 3, 4})}),
      "matmul: argument 'b' has shape [3, 3, 4], whose batch dims [3] do not "
      "broadcast with the batch dims [2] of 'a' (shape [2, 2, 3]): at batch "
      "dim -1 the sizes are 3 and 2; they must be equal or 1"));
  EXPECT_TRUE(IsError(Infer("matmul", {T(kF32, {2, 3}), T(kF16, {3, 4})}),
                      "matmul: argument 'b' has dtype f16 but 'a' has f32; "
                      "matmul needs equal dtypes, so cast one of them"));
  EXPECT_TRUE(IsError(Infer("matmul", {T(kF32, {}), T(kF32, {3})}),
                      "matmul: argument 'a' has shape [] (rank 0), but matmul "
                      "needs at least 1 dim"));
  EXPECT_TRUE(IsInvalid(Infer("matmul", {T(kBool, {2, 2}), T(kBool, {2, 2})})));
}

// ---- linear ------------------------------------------------------------

TEST(LinearShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(Infer("linear", {T(kF32, {2, 5, 3}), T(kF32, {4, 3})}),
                     kF32, {2, 5, 4}));
  EXPECT_TRUE(
      IsMeta(Infer("linear", {T(kF16, {3}), T(kF16, {4, 3}), T(kF16, {4})}),
             kF16, {4}));
  EXPECT_TRUE(IsError(Infer("linear", {T(kF32, {2, 3}), T(kF32, {4, 5})}),
                      "linear: argument 'weight' has shape [4, 5] "
                      "([out_features, in_features]), but the last dim of "
                      "'x' (shape [2, 3]) is 3; in_features must equal it"));
  EXPECT_TRUE(IsError(
      Infer("linear", {T(kF32, {2, 3}), T(kF32, {4, 3}), T(kF32, {3})}),
      "linear: argument 'bias' has shape [3], but it must be [4]: one value "
      "per output feature (the first dim of 'weight')"));
  EXPECT_TRUE(IsError(Infer("linear", {T(kF32, {2, 3}), T(kF32, {3})}),
                      "linear: argument 'weight' has shape [3] (rank 1), but "
                      "linear needs rank 2: [out_features, in_features]"));
  EXPECT_TRUE(IsInvalid(
      Infer("linear", {T(kF32, {2, 3}), T(kF32, {4, 3}), T(kF16, {4})})));
  EXPECT_TRUE(IsInvalid(Infer("linear", {T(kF32, {}), T(kF32, {4, 3})})));
}

// ---- conv2d ------------------------------------------------------------

TEST(Conv2dShapeTest, OutputSizes) {
  EXPECT_TRUE(
      IsMeta(Infer("conv2d", {T(kF32, {1, 3, 32, 32}), T(kF32, {8, 3, 3, 3})}),
             kF32, {1, 8, 30, 30}));
  EXPECT_TRUE(
      IsMeta(Infer("conv2d",
                   {T(kF32, {2, 4, 32, 31}), T(kF32, {6, 2, 3, 5}),
                    T(kF32, {6}), Ints({2, 1}), Ints({1, 2}), Ints({1, 2}), 2}),
             kF32, {2, 6, 16, 27}));
  // Depthwise, with dilation: (10 + 0 - 2*(3-1) - 1) / 3 + 1 = 2.
  EXPECT_TRUE(IsMeta(
      Infer("conv2d", {T(kF16, {0, 4, 10, 10}), T(kF16, {4, 1, 3, 3}), None(),
                       Ints({3, 3}), Ints({0, 0}), Ints({2, 2}), 4}),
      kF16, {0, 4, 2, 2}));
}

TEST(Conv2dShapeTest, Errors) {
  const sy_tensor_meta_t x = T(kF32, {1, 4, 5, 5});
  EXPECT_TRUE(IsError(Infer("conv2d", {x, T(kF32, {8, 3, 3, 3})}),
                      "conv2d: argument 'weight' has shape [8, 3, 3, 3], so "
                      "it takes 3 input channels per group, but 'x' (shape "
                      "[1, 4, 5, 5]) has 4 channels in 1 group; the second "
                      "dim of 'weight' must be 4"));
  EXPECT_TRUE(IsError(Infer("conv2d", {x, T(kF32, {8, 4, 7, 3})}),
                      "conv2d: the output height would be 0: the input height "
                      "5 plus padding 2 * 0 is smaller than the dilated "
                      "kernel height 7 (dilation 1 * (7 - 1) + 1); pad more, "
                      "or use a smaller kernel or dilation"));
  EXPECT_TRUE(IsMeta(Infer("conv2d", {x, T(kF32, {8, 4, 7, 3}), None(),
                                      Ints({1, 1}), Ints({1, 0})}),
                     kF32, {1, 8, 1, 3}));
  EXPECT_TRUE(
      IsError(Infer("conv2d", {x, T(kF32, {6, 1, 3, 3}), None(), Ints({1, 1}),
                               Ints({0, 0}), Ints({1, 1}), 3}),
              "conv2d: argument 'x' has 4 channels (shape [1, 4, 5, "
              "5]), which is not a multiple of groups=3; pass a groups value "
              "that divides the channels"));
  EXPECT_TRUE(
      IsError(Infer("conv2d", {x, T(kF32, {6, 1, 3, 3}), None(), Ints({1, 1}),
                               Ints({0, 0}), Ints({1, 1}), 4}),
              "conv2d: argument 'weight' has 6 output channels (shape "
              "[6, 1, 3, 3]), which is not a multiple of groups=4; pass a "
              "groups value that divides the output channels"));
  EXPECT_TRUE(
      IsError(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(), Ints({0, 1})}),
              "conv2d: argument 'stride' is [0, 1]; each value must "
              "be >= 1"));
  EXPECT_TRUE(IsError(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(),
                                       Ints({1, 1}), Ints({1})}),
                      "conv2d: argument 'padding' is [1]; it needs exactly 2 "
                      "values: [height, width]"));
  EXPECT_TRUE(
      IsError(Infer("conv2d", {T(kF32, {4, 5, 5}), T(kF32, {8, 4, 3, 3})}),
              "conv2d: argument 'x' has shape [4, 5, 5] (rank 3), but "
              "conv2d needs rank 4: [N, C, H, W]"));
  EXPECT_TRUE(IsError(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), T(kF32, {4})}),
                      "conv2d: argument 'bias' has shape [4], but it must be "
                      "[8]: one value per output channel"));
  EXPECT_TRUE(IsInvalid(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(),
                                         Ints({1, 1}), Ints({-1, 0})})));
  EXPECT_TRUE(
      IsInvalid(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(), Ints({1, 1}),
                                 Ints({0, 0}), Ints({1, 0})})));
  EXPECT_TRUE(
      IsInvalid(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(), Ints({1, 1}),
                                 Ints({0, 0}), Ints({1, 1}), 0})));
  EXPECT_TRUE(IsInvalid(Infer("conv2d", {x, T(kF32, {8, 4, 0, 3})})));
  EXPECT_TRUE(IsInvalid(Infer("conv2d", {x, T(kF16, {8, 4, 3, 3})})));
  EXPECT_TRUE(
      IsInvalid(Infer("conv2d", {x, T(kF32, {8, 4, 3, 3}), None(), Ints({1, 1}),
                                 Ints({int64_t{1} << 62, 0})})));
}

// ---- embedding ---------------------------------------------------------

TEST(EmbeddingShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(Infer("embedding", {T(kF16, {100, 16}), T(kI64, {2, 7})}),
                     kF16, {2, 7, 16}));
  EXPECT_TRUE(
      IsMeta(Infer("embedding", {T(kF32, {10, 4}), T(kI32, {})}), kF32, {4}));
  EXPECT_TRUE(IsError(Infer("embedding", {T(kF32, {10, 4}), T(kF32, {3})}),
                      "embedding: argument 'indices' has dtype f32, but it "
                      "must be i32 or i64; cast it, e.g. cast(indices, i64)"));
  EXPECT_TRUE(IsError(Infer("embedding", {T(kF32, {10}), T(kI64, {3})}),
                      "embedding: argument 'weight' has shape [10] (rank 1), "
                      "but embedding needs rank 2: [num_embeddings, "
                      "embedding_dim]"));
  EXPECT_TRUE(IsError(
      Infer("embedding", {T(kF32, {10, 4}), T(kI64, {1, 1, 1, 1, 1, 1, 1, 1})}),
      "embedding: the result would have rank 9, but tensors "
      "have at most 8 dims (SY_MAX_RANK)"));
}

// ---- scaled_dot_product_attention ---------------------------------------

constexpr const char* kSdpa = "scaled_dot_product_attention";

TEST(SdpaShapeTest, Good) {
  const sy_tensor_meta_t q = T(kF16, {2, 8, 5, 64});
  const sy_tensor_meta_t k = T(kF16, {2, 8, 7, 64});
  const sy_tensor_meta_t v = T(kF16, {2, 8, 7, 32});
  EXPECT_TRUE(IsMeta(Infer(kSdpa, {q, k, v}), kF16, {2, 8, 5, 32}));
  EXPECT_TRUE(
      IsMeta(Infer(kSdpa, {q, k, v, T(kBool, {5, 7})}), kF16, {2, 8, 5, 32}));
  EXPECT_TRUE(IsMeta(Infer(kSdpa, {q, k, v, T(kF16, {2, 1, 1, 7})}), kF16,
                     {2, 8, 5, 32}));
  EXPECT_TRUE(IsMeta(Infer(kSdpa, {q, k, v, None(), true, 0.125}), kF16,
                     {2, 8, 5, 32}));
  // Batch dims broadcast as the decomposition's matmuls broadcast them.
  EXPECT_TRUE(IsMeta(
      Infer(kSdpa, {T(kF32, {3, 4, 8}), T(kF32, {1, 6, 8}), T(kF32, {6, 2})}),
      kF32, {3, 4, 2}));
}

TEST(SdpaShapeTest, Bad) {
  const sy_tensor_meta_t q = T(kF32, {2, 5, 64});
  const sy_tensor_meta_t k = T(kF32, {2, 7, 64});
  const sy_tensor_meta_t v = T(kF32, {2, 7, 32});
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, T(kF32, {2, 7, 32}), v}),
                      "scaled_dot_product_attention: argument 'k' has shape "
                      "[2, 7, 32], but its last dim (E) must equal the last "
                      "dim of 'q' (shape [2, 5, 64])"));
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, k, T(kF32, {2, 6, 32})}),
                      "scaled_dot_product_attention: argument 'v' has shape "
                      "[2, 6, 32], but its second-to-last dim (Lk) must "
                      "equal that of 'k' (shape [2, 7, 64])"));
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, T(kF32, {3, 7, 64}), v}),
                      "scaled_dot_product_attention: argument 'k' has shape "
                      "[3, 7, 64], whose batch dims [3] do not broadcast with "
                      "the batch dims [2] of 'q' (shape [2, 5, 64]); each "
                      "batch dim must be equal or 1"));
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, k, v, T(kBool, {5, 6})}),
                      "scaled_dot_product_attention: argument 'mask' has "
                      "shape [5, 6], which does not broadcast to the "
                      "attention scores' shape [2, 5, 7] ([..., Lq, Lk]); "
                      "each of its dims must equal the scores' or be 1"));
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, k, v, T(kBool, {5, 7}), true}),
                      "scaled_dot_product_attention: got both 'mask' and "
                      "causal=True; pass one of them (causal=True applies "
                      "the lower-triangular mask by itself)"));
  EXPECT_TRUE(IsError(Infer(kSdpa, {q, k, v, T(kI32, {5, 7})}),
                      "scaled_dot_product_attention: argument 'mask' has "
                      "dtype i32, but it must be bool (True = keep) or the "
                      "dtype of 'q', f32 (added to the scores)"));
  // A mask may not grow the scores' batch dims.
  EXPECT_TRUE(IsInvalid(Infer(kSdpa, {q, k, v, T(kBool, {4, 2, 5, 7})})));
  EXPECT_TRUE(IsInvalid(Infer(kSdpa, {q, k, T(kF16, {2, 7, 32})})));
  EXPECT_TRUE(IsInvalid(
      Infer(kSdpa, {T(kI32, {5, 4}), T(kI32, {5, 4}), T(kI32, {5, 4})})));
  EXPECT_TRUE(IsInvalid(Infer(kSdpa, {T(kF32, {4}), k, v})));
  EXPECT_TRUE(IsInvalid(Infer(kSdpa, {q, k, v, None(), false, 1e300 * 1e300})));
}

}  // namespace
}  // namespace sy::testing
