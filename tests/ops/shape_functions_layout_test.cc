// Shape functions of the layout ops: reshape permute transpose slice expand
// contiguous concat.
#include <cstdint>
#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "tests/ops/shape_test_util.h"

namespace sy::testing {
namespace {

constexpr sy_dtype_t kF32 = SY_DTYPE_F32, kF16 = SY_DTYPE_F16,
                     kI64 = SY_DTYPE_I64;

TEST(ReshapeShapeTest, GoodAndInferred) {
  EXPECT_TRUE(IsMeta(Infer("reshape", {T(kF32, {2, 3, 4}), Ints({6, 4})}), kF32,
                     {6, 4}));
  EXPECT_TRUE(
      IsMeta(Infer("reshape", {T(kF32, {2, 3, 4}), Ints({-1})}), kF32, {24}));
  EXPECT_TRUE(IsMeta(Infer("reshape", {T(kI64, {2, 3, 4}), Ints({4, -1, 2})}),
                     kI64, {4, 3, 2}));
  EXPECT_TRUE(IsMeta(Infer("reshape", {T(kF32, {1}), Ints({})}), kF32, {}));
  EXPECT_TRUE(IsMeta(Infer("reshape", {T(kF32, {0, 3}), Ints({3, 0, 5})}), kF32,
                     {3, 0, 5}));
}

TEST(ReshapeShapeTest, Errors) {
  EXPECT_TRUE(IsError(Infer("reshape", {T(kF32, {2, 3}), Ints({4, 2})}),
                      "reshape: argument 'shape' is [4, 2] (8 elements), but "
                      "'x' (shape [2, 3]) has 6; the element counts must "
                      "match"));
  EXPECT_TRUE(IsError(Infer("reshape", {T(kF32, {2, 3}), Ints({-1, -1})}),
                      "reshape: argument 'shape' is [-1, -1]; at most one "
                      "size may be -1 (inferred)"));
  EXPECT_TRUE(IsError(Infer("reshape", {T(kF32, {2, 3}), Ints({4, -1})}),
                      "reshape: argument 'shape' is [4, -1], but 'x' (shape "
                      "[2, 3]) has 6 elements, not a multiple of 4, the "
                      "product of the other sizes"));
  EXPECT_TRUE(IsError(Infer("reshape", {T(kF32, {0, 3}), Ints({0, -1})}),
                      "reshape: argument 'shape' is [0, -1], but 'x' (shape "
                      "[0, 3]) has 0 elements, and the -1 cannot be inferred "
                      "when the other sizes multiply to 0"));
  EXPECT_TRUE(IsError(Infer("reshape", {T(kF32, {6}), Ints({-2, -3})}),
                      "reshape: argument 'shape' has -2 at index 0; sizes "
                      "must be >= 0, or -1 for one inferred size"));
  EXPECT_TRUE(IsError(
      Infer("reshape", {T(kF32, {1}), Ints({1, 1, 1, 1, 1, 1, 1, 1, 1})}),
      "reshape: the result would have rank 9, but tensors "
      "have at most 8 dims (SY_MAX_RANK)"));
  EXPECT_TRUE(IsInvalid(Infer(
      "reshape", {T(kF32, {1}), Ints({int64_t{1} << 40, int64_t{1} << 40})})));
  // No element, but sizes whose strides would overflow (found by the C API
  // fuzzer: the view's strides were computed from them).
  EXPECT_TRUE(IsError(
      Infer("reshape", {T(kF32, {0}), Ints({0, int64_t{1} << 62, 49})}),
      "reshape: the result would have shape [0, 4611686018427387904, 49], too "
      "large to address (the product of its nonzero sizes exceeds 2^56); use "
      "smaller sizes"));
}

TEST(PermuteShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(Infer("permute", {T(kF32, {2, 3, 4}), Ints({2, 0, 1})}),
                     kF32, {4, 2, 3}));
  EXPECT_TRUE(IsMeta(Infer("permute", {T(kF32, {2, 3, 4}), Ints({-1, 1, 0})}),
                     kF32, {4, 3, 2}));
  EXPECT_TRUE(IsMeta(Infer("permute", {T(kF32, {}), Ints({})}), kF32, {}));
  EXPECT_TRUE(IsError(Infer("permute", {T(kF32, {2, 3, 4}), Ints({0, 1})}),
                      "permute: argument 'dims' is [0, 1] with 2 entries, but "
                      "'x' (shape [2, 3, 4]) has 3 dims; list each dim of 'x' "
                      "exactly once"));
  EXPECT_TRUE(IsError(Infer("permute", {T(kF32, {2, 3, 4}), Ints({0, 2, -1})}),
                      "permute: argument 'dims' lists dim 2 twice (as 2 and "
                      "as -1 at index 2); list each dim once"));
  EXPECT_TRUE(IsInvalid(Infer("permute", {T(kF32, {2, 3}), Ints({0, 2})})));
}

TEST(TransposeShapeTest, GoodAndBad) {
  EXPECT_TRUE(
      IsMeta(Infer("transpose", {T(kF32, {2, 3, 4}), 0, -1}), kF32, {4, 3, 2}));
  EXPECT_TRUE(
      IsMeta(Infer("transpose", {T(kF32, {2, 3}), 1, 1}), kF32, {2, 3}));
  EXPECT_TRUE(IsError(Infer("transpose", {T(kF32, {2, 3}), 0, 2}),
                      "transpose: argument 'dim1' is 2, out of range for 'x' "
                      "of rank 2; expected a dim in [-2, 1]"));
  EXPECT_TRUE(IsError(Infer("transpose", {T(kF32, {}), 0, 0}),
                      "transpose: argument 'dim0' is 0, but 'x' is a scalar "
                      "(rank 0) and has no dims"));
}

// Python's slicing of range(size), the reference for slice's length.
int64_t PythonSliceLength(int64_t size, int64_t start, bool has_end,
                          int64_t end, int64_t step) {
  auto clamp = [&](int64_t b) {
    if (b < 0) b += size;
    return b < 0 ? 0 : (b > size ? size : b);
  };
  const int64_t lo = clamp(start), hi = has_end ? clamp(end) : size;
  int64_t n = 0;
  for (int64_t i = lo; i < hi; i += step) ++n;
  return n;
}

TEST(SliceShapeTest, ClampsLikePython) {
  EXPECT_TRUE(
      IsMeta(Infer("slice", {T(kF32, {10, 4}), 0, 2, 5}), kF32, {3, 4}));
  EXPECT_TRUE(IsMeta(Infer("slice", {T(kF32, {10, 4}), 0, 1, None(), 3}), kF32,
                     {3, 4}));
  EXPECT_TRUE(
      IsMeta(Infer("slice", {T(kF32, {10, 4}), -1, -3}), kF32, {10, 3}));
  EXPECT_TRUE(IsMeta(Infer("slice", {T(kF32, {10}), 0, 8, 2}), kF32, {0}));
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t small = std::numeric_limits<int64_t>::min();
  EXPECT_TRUE(
      IsMeta(Infer("slice", {T(kF32, {10}), 0, small, big, big}), kF32, {1}));

  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    const int64_t size = rng() % 12;
    const int64_t start = static_cast<int64_t>(rng() % 31) - 15;
    const int64_t end = static_cast<int64_t>(rng() % 31) - 15;
    const int64_t step = 1 + rng() % 5;
    const bool has_end = rng() % 4 != 0;
    const int64_t want = PythonSliceLength(size, start, has_end, end, step);
    const Value end_value = has_end ? Value(end) : None();
    EXPECT_TRUE(
        IsMeta(Infer("slice", {T(kF16, {3, size}), 1, start, end_value, step}),
               kF16, {3, want}))
        << "size " << size << " [" << start << ":" << end << ":" << step << "]";
  }
}

TEST(SliceShapeTest, Errors) {
  EXPECT_TRUE(IsError(Infer("slice", {T(kF32, {10}), 0, 0, None(), 0}),
                      "slice: argument 'step' is 0; it must be >= 1 "
                      "(negative steps are not supported)"));
  EXPECT_TRUE(IsError(Infer("slice", {T(kF32, {10}), 1}),
                      "slice: argument 'dim' is 1, out of range for 'x' of "
                      "rank 1; expected a dim in [-1, 0]"));
  EXPECT_TRUE(IsInvalid(Infer("slice", {T(kF32, {}), 0})));
}

TEST(ExpandShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(Infer("expand", {T(kF32, {3, 1}), Ints({2, 3, 4})}), kF32,
                     {2, 3, 4}));
  EXPECT_TRUE(
      IsMeta(Infer("expand", {T(kF32, {3, 1}), Ints({-1, 0})}), kF32, {3, 0}));
  EXPECT_TRUE(IsMeta(Infer("expand", {T(kF32, {}), Ints({5})}), kF32, {5}));
  EXPECT_TRUE(IsError(Infer("expand", {T(kF32, {2, 3}), Ints({2, 4})}),
                      "expand: argument 'shape' has 4 at index 1, but dim 1 "
                      "of 'x' (shape [2, 3]) has size 3; only size-1 dims "
                      "stretch (use -1 or 3 to keep it)"));
  EXPECT_TRUE(IsError(Infer("expand", {T(kF32, {2, 3}), Ints({3})}),
                      "expand: argument 'shape' is [3] with 1 dim, fewer "
                      "than 'x' (shape [2, 3]); expand can add leading dims "
                      "but not drop any"));
  EXPECT_TRUE(IsError(Infer("expand", {T(kF32, {3}), Ints({-1, 3})}),
                      "expand: argument 'shape' has -1 at index 0, a new "
                      "leading dim, which needs an explicit size >= 0"));
  EXPECT_TRUE(IsInvalid(Infer("expand", {T(kF32, {1}), Ints({-2})})));
  EXPECT_TRUE(IsInvalid(
      Infer("expand", {T(kF32, {1}), Ints({1, 1, 1, 1, 1, 1, 1, 1, 1})})));
  // The result would need more bytes than int64 counts.
  EXPECT_TRUE(IsError(
      Infer("expand",
            {T(kF32, {1, 1}), Ints({int64_t{1} << 31, int64_t{1} << 31})}),
      "expand: the result would have shape [2147483648, 2147483648], more "
      "bytes than int64 can count; use smaller sizes"));
}

TEST(ContiguousShapeTest, KeepsMeta) {
  EXPECT_TRUE(
      IsMeta(Infer("contiguous", {T(kF16, {2, 0, 7})}), kF16, {2, 0, 7}));
}

TEST(ConcatShapeTest, GoodAndBad) {
  EXPECT_TRUE(IsMeta(
      Infer("concat",
            {TensorList({T(kF32, {2, 3}), T(kF32, {4, 3}), T(kF32, {0, 3})})}),
      kF32, {6, 3}));
  EXPECT_TRUE(IsMeta(
      Infer("concat", {TensorList({T(kF32, {2, 3}), T(kF32, {2, 5})}), -1}),
      kF32, {2, 8}));
  EXPECT_TRUE(IsMeta(Infer("concat", {TensorList({T(kI64, {7})})}), kI64, {7}));
  EXPECT_TRUE(IsError(Infer("concat", {TensorList({})}),
                      "concat: argument 'tensors' is an empty list; concat "
                      "needs at least one tensor"));
  EXPECT_TRUE(
      IsError(Infer("concat", {TensorList({T(kF32, {2, 3}), T(kF32, {2, 4})})}),
              "concat: argument 'tensors' element 1 has shape [2, 4] "
              "but element 0 has [2, 3]; all dims except dim 0 must "
              "be equal"));
  EXPECT_TRUE(
      IsError(Infer("concat", {TensorList({T(kF32, {2}), T(kF16, {2})})}),
              "concat: argument 'tensors' element 1 has dtype f16 but "
              "element 0 has f32; concat needs equal dtypes, so cast "
              "first"));
  EXPECT_TRUE(IsError(Infer("concat", {TensorList({T(kF32, {})})}),
                      "concat: argument 'tensors' element 0 is a scalar "
                      "(shape []); concat needs tensors with at least 1 dim"));
  EXPECT_TRUE(
      IsError(Infer("concat", {TensorList({T(kF32, {2}), T(kF32, {2})}), 1}),
              "concat: argument 'dim' is 1, out of range for "
              "'tensors' of rank 1; expected a dim in [-1, 0]"));
  EXPECT_TRUE(IsInvalid(
      Infer("concat", {TensorList({T(kF32, {2, 3}), T(kF32, {2})})})));
  sy_tensor_meta_t bad = T(kF32, {2});
  bad.ndim = 12;
  EXPECT_TRUE(IsError(Infer("concat", {TensorList({T(kF32, {2}), bad})}),
                      "concat: argument 'tensors' element 1 has rank 12; "
                      "tensors have 0 to 8 dims"));
}

}  // namespace
}  // namespace sy::testing
