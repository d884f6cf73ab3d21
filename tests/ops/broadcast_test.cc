// shape_util's helpers, and NumPy broadcasting checked on random shapes
// against a reference written here from the NumPy rules.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"
#include "gtest/gtest.h"
#include "tests/ops/shape_test_util.h"

namespace sy::testing {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

// NumPy: "two dimensions are compatible when they are equal, or one of them
// is 1", comparing from the trailing dims; missing dims count as 1.
std::optional<Shape> ReferenceBroadcast(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    Shape padded(rank - s.size(), 1);
    padded.insert(padded.end(), s.begin(), s.end());
    for (size_t d = 0; d < rank; ++d) {
      if (padded[d] == out[d] || padded[d] == 1) continue;
      if (out[d] != 1) return std::nullopt;
      out[d] = padded[d];
    }
  }
  return out;
}

// Shapes that often, but not always, broadcast: sizes drawn from {0,1,2,3}
// and, for the second shape, copied from the first or set to 1 most of the
// time.
class ShapeGen {
 public:
  explicit ShapeGen(uint32_t seed) : rng_(seed) {}
  Shape Fresh() {
    Shape s(rng_() % 5);
    for (int64_t& d : s) d = rng_() % 4;
    return s;
  }
  Shape Related(const Shape& base) {
    Shape s = Fresh();
    for (size_t i = 1; i <= std::min(s.size(), base.size()); ++i) {
      const uint32_t r = rng_() % 4;
      if (r < 2) s[s.size() - i] = base[base.size() - i];
      if (r == 2) s[s.size() - i] = 1;
    }
    return s;
  }

 private:
  std::mt19937 rng_;
};

TEST(BroadcastTest, RandomPairsMatchReference) {
  ShapeGen gen(42);
  int agreed_ok = 0, agreed_error = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const Shape a = gen.Fresh();
    const Shape b = gen.Related(a);
    const std::optional<Shape> want = ReferenceBroadcast({a, b});
    sy_tensor_meta_t out{};
    const absl::Status s = BroadcastShapes(a, b, out);
    const absl::StatusOr<sy_tensor_meta_t> op =
        Infer("add.Tensor", {T(SY_DTYPE_F32, a), T(SY_DTYPE_I32, b)});
    if (want.has_value()) {
      ++agreed_ok;
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(Shape(out.shape, out.shape + out.ndim), *want);
      EXPECT_TRUE(IsMeta(op, SY_DTYPE_F32, *want));
      EXPECT_EQ(FindBroadcastConflict(a, b), 0);
    } else {
      ++agreed_error;
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_TRUE(IsInvalid(op));
      EXPECT_NE(FindBroadcastConflict(a, b), 0);
    }
  }
  // The generator exercises both outcomes.
  EXPECT_GT(agreed_ok, 500);
  EXPECT_GT(agreed_error, 200);
}

TEST(BroadcastTest, RandomTriplesThroughWhereMatchReference) {
  ShapeGen gen(4242);
  for (int iter = 0; iter < 2000; ++iter) {
    const Shape c = gen.Fresh();
    const Shape a = gen.Related(c);
    const Shape b = gen.Related(iter % 2 ? a : c);
    const std::optional<Shape> want = ReferenceBroadcast({c, a, b});
    const absl::StatusOr<sy_tensor_meta_t> got = Infer(
        "where", {T(SY_DTYPE_BOOL, c), T(SY_DTYPE_F16, a), T(SY_DTYPE_F16, b)});
    if (want.has_value()) {
      EXPECT_TRUE(IsMeta(got, SY_DTYPE_F16, *want));
    } else {
      EXPECT_TRUE(IsInvalid(got));
    }
  }
}

TEST(BroadcastTest, ErrorMessageAndAliasing) {
  sy_tensor_meta_t out{};
  const Shape a = {2, 3}, b = {4};
  absl::Status s = BroadcastShapes(a, b, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "shapes [2, 3] and [4] do not broadcast: at dim -1 (counting from "
            "the end) the sizes are 3 and 4; broadcast sizes must be equal or "
            "1");
  EXPECT_EQ(FindBroadcastConflict(Shape{5, 2, 1}, Shape{3, 7}), 2);
  // The output may be one of the inputs.
  sy_tensor_meta_t m = MakeMeta(SY_DTYPE_F32, Shape{3, 1});
  ASSERT_TRUE(BroadcastShapes(ShapeOf(m), Shape{2, 1, 5}, m).ok());
  EXPECT_EQ(Shape(m.shape, m.shape + m.ndim), (Shape{2, 3, 5}));
}

TEST(ShapeUtilTest, FormatAndCount) {
  EXPECT_EQ(FormatShape(Shape{}), "[]");
  EXPECT_EQ(FormatShape(Shape{2, 3}), "[2, 3]");
  EXPECT_EQ(NumElements(Shape{}), 1);
  EXPECT_EQ(NumElements(Shape{2, 0, 5}), 0);
  EXPECT_EQ(NumElements(Shape{2, 3, 4}), 24);
  EXPECT_EQ(NumElements(Shape{int64_t{1} << 32, int64_t{1} << 32}),
            std::nullopt);
  const sy_tensor_meta_t m = MakeMeta(SY_DTYPE_I8, Shape{4, 5});
  EXPECT_EQ(m.dtype, SY_DTYPE_I8);
  EXPECT_EQ(m.ndim, 2);
  EXPECT_EQ(m.shape[1], 5);
  EXPECT_EQ(m.shape[2], 0);
}

TEST(ShapeUtilTest, CheckOutputMetasCatchesBrokenShapeFunctions) {
  absl::StatusOr<Schema> schema = ParseSchema("t::op(Tensor x) -> Tensor");
  ASSERT_TRUE(schema.ok());
  const sy_tensor_meta_t x = MakeMeta(SY_DTYPE_F32, Shape{2});
  const int32_t offsets[] = {0, 1};
  const ShapeContext ctx(*schema, absl::MakeConstSpan(&x, 1), offsets, {});
  EXPECT_TRUE(CheckInputMetas(ctx).ok());
  EXPECT_TRUE(CheckOutputMetas(ctx, {x}).ok());
  sy_tensor_meta_t bad = x;
  bad.ndim = -1;
  absl::Status s = CheckOutputMetas(ctx, {bad});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(std::string(s.message()),
            "t::op: the shape function produced a malformed result 0 (dtype "
            "code 73730, rank -1); this is a bug in the op's shape "
            "function, please report it");
  bad = MakeMeta(SY_DTYPE_F64, Shape{int64_t{1} << 31, int64_t{1} << 31});
  s = CheckOutputMetas(ctx, {bad});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckResultRank(ctx, 8).code(), absl::StatusCode::kOk);
  EXPECT_EQ(CheckResultRank(ctx, 9).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ShapeUtilTest, NormalizeDim) {
  EXPECT_EQ(*NormalizeDim(0, 3), 0);
  EXPECT_EQ(*NormalizeDim(-1, 3), 2);
  EXPECT_EQ(*NormalizeDim(-3, 3), 0);
  EXPECT_EQ(*NormalizeDim(2, 3), 2);
  absl::StatusOr<int> bad = NormalizeDim(3, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(bad.status().message()),
            "dim 3 is out of range for rank 3; expected a dim in [-3, 2]");
  bad = NormalizeDim(-4, 3);
  EXPECT_FALSE(bad.ok());
  bad = NormalizeDim(0, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()),
            "dim 0 is out of range for rank 0; a scalar has no dims");
  EXPECT_FALSE(NormalizeDim(std::numeric_limits<int64_t>::min(), 8).ok());
}

}  // namespace
}  // namespace sy::testing
