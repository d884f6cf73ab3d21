// sum over every dims/keepdim combination of several shapes and layouts,
// against a float64 reference; a 16M-element accuracy check; bad calls.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"

namespace sy::testing {
namespace {

struct SumCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;
};

const SumCase kCases[] = {
    {{}, {}},
    {{}, {0}},
    {{}, {-1}},
    {{5}, {}},
    {{5}, {0}},
    {{5}, {-1}},
    {{0}, {}},
    {{0, 3}, {0}},
    {{3, 0}, {0}},
    {{3, 4}, {}},
    {{3, 4}, {0}},
    {{3, 4}, {1}},
    {{3, 4}, {1, 0}},
    {{2, 3, 4}, {1}},
    {{2, 3, 4}, {0, 2}},
    {{2, 3, 4}, {-1}},
    {{2, 3, 4}, {-3, -2}},
    {{4, 1, 5, 3}, {1, 3}},
    {{2, 3, 2, 3, 2}, {0, 2, 4}},
    {{37, 129}, {0}},
    {{37, 129}, {1}},
};

void PrintTo(const SumCase& c, std::ostream* os) {
  *os << "x" << ShapeString(c.shape) << " dims" << ShapeString(c.dims);
}

// Reference: the reduced shape (keepdim) and a double sum per output.
std::vector<int64_t> ReducedShape(const SumCase& c, bool keepdim,
                                  std::vector<bool>* reduce) {
  const int rank = static_cast<int>(c.shape.size());
  reduce->assign(rank, c.dims.empty());
  for (int64_t d : c.dims) {
    if (rank > 0) (*reduce)[d < 0 ? d + rank : d] = true;
  }
  std::vector<int64_t> out;
  for (int d = 0; d < rank; ++d) {
    if (!(*reduce)[d])
      out.push_back(c.shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

class SumTest : public CpuPluginTest,
                public ::testing::WithParamInterface<
                    std::tuple<SumCase, bool, Layout, Layout>> {};

TEST_P(SumTest, MatchesFloat64Reference) {
  const auto& [c, keepdim, in_layout, out_layout] = GetParam();
  const TestTensor x = TestTensor::Random(c.shape, 7, in_layout);
  std::vector<bool> reduce;
  const std::vector<int64_t> out_shape = ReducedShape(c, keepdim, &reduce);
  TestTensor out = TestTensor::Make(out_shape, out_layout);
  const Status status =
      Run("sum", {x.view()}, out.view(), {IntsAttr(c.dims), BoolAttr(keepdim)});
  ASSERT_TRUE(status.ok()) << status.message;

  // Accumulate x into a dense double array over the output's shape.
  std::vector<double> want(out.numel(), 0.0);
  ForEachIndex(c.shape, [&](std::span<const int64_t> i) {
    int64_t flat = 0;
    for (size_t d = 0; d < i.size(); ++d) {
      if (!reduce[d]) flat = flat * c.shape[d] + i[d];
    }
    want[flat] += x.at(i);
  });
  int64_t flat = 0;
  ForEachIndex(out_shape, [&](std::span<const int64_t> i) {
    ASSERT_TRUE(Near(out.at(i), want[flat++], 1e-5)) << ShapeString(i);
  });
  EXPECT_TRUE(out.OutsideUntouched());
}

std::string SumName(const ::testing::TestParamInfo<SumTest::ParamType>& p) {
  const auto& [c, keepdim, in_layout, out_layout] = p.param;
  std::string name = "x";
  for (int64_t d : c.shape) name += std::to_string(d) + "_";
  name += "dims";
  for (int64_t d : c.dims) {
    if (d < 0) name += "m";
    name += std::to_string(std::abs(d));
  }
  return name + (keepdim ? "_keep_" : "_") + LayoutName(in_layout) + "_" +
         LayoutName(out_layout);
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, SumTest,
    ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool(),
                       ::testing::Values(Layout::kContiguous,
                                         Layout::kTransposed, Layout::kPadded),
                       ::testing::Values(Layout::kContiguous, Layout::kPadded)),
    SumName);

using SumSpecialTest = CpuPluginTest;

TEST_F(SumSpecialTest, SumsABroadcastInput) {
  // [3, 1] expanded to [3, 1000] (stride 0), summed over the stretched dim.
  const TestTensor x = TestTensor::Random({3, 1}, 3).BroadcastTo({3, 1000});
  TestTensor out = TestTensor::Make({3});
  const std::vector<int64_t> dims = {1};
  ASSERT_TRUE(
      Run("sum", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(false)})
          .ok());
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t xi[] = {i, 0};
    EXPECT_TRUE(Near(out.at({&i, 1}), 1000.0 * x.at(xi), 1e-6));
  }
}

// Uniform [0, 1) values: a float accumulator would stall near 2^24 and be off
// by far more than 1e-5.
TEST_F(SumSpecialTest, SixteenMillionElementsStayAccurate) {
  const int64_t n = int64_t{1} << 24;
  const TestTensor x = TestTensor::Random({n}, 11, Layout::kContiguous, 0, 1);
  double want = 0.0;
  for (int64_t i = 0; i < n; ++i) want += x.at({&i, 1});
  TestTensor out = TestTensor::Make({});
  ASSERT_TRUE(
      Run("sum", {x.view()}, out.view(), {IntsAttr({}), BoolAttr(false)}).ok());
  EXPECT_TRUE(Near(out.at({}), want, 1e-5));
}

using SumErrorTest = CpuPluginTest;

TEST_F(SumErrorTest, RejectsBadDims) {
  const TestTensor x = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({2});
  std::vector<int64_t> dims = {1, 2};
  Status status =
      Run("sum", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(false)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: attribute 'dims' = [1, 2] has dim 2, out of "
            "range for input 'x' of rank 2; dims must be in [-2, 1]");
  dims = {1, -1};
  status =
      Run("sum", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(false)});
  EXPECT_EQ(status.message,
            "cpu plugin: sum: attribute 'dims' = [1, -1] names dim 1 more than "
            "once; name each dim once");
  sy_attr_t broken = IntsAttr(dims);
  broken.value.ints.data = nullptr;
  status = Run("sum", {x.view()}, out.view(), {broken, BoolAttr(false)});
  EXPECT_EQ(status.message,
            "cpu plugin: sum: attribute 'dims' has size 2 and data (nil); pass "
            "a size >= 0 and its values");
}

TEST_F(SumErrorTest, RejectsAttributesOfTheWrongKind) {
  const TestTensor x = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({});
  Status status =
      Run("sum", {x.view()}, out.view(), {BoolAttr(true), BoolAttr(false)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: attributes have kinds 3 and 3 but sum takes an "
            "int list (4) and a bool (3); the call does not match sum's "
            "schema");
  status = Run("sum", {x.view()}, out.view(), {IntsAttr({})});
  EXPECT_EQ(status.message,
            "cpu plugin: sum: expects 2 attributes but the call has 1; the "
            "call does not match the op's schema");
}

TEST_F(SumErrorTest, RejectsAWrongOutputShape) {
  const TestTensor x = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({3});
  const std::vector<int64_t> dims = {1};
  const Status status =
      Run("sum", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(true)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: output has shape [3] but summing input 'x' of "
            "shape [2, 3] over dims [1] with keepdim=true gives [2, 1]; "
            "allocate the output from sum's shape function");
  EXPECT_TRUE(out.OutsideUntouched());
}

}  // namespace
}  // namespace sy::testing
