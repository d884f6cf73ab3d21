// add.Tensor, mul.Tensor, relu, copy on random inputs of many shapes and
// layouts (incl. rank 0, empty, transposed, padded and stride-0 broadcast
// operands) against a float64 reference, and on bad calls.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"

namespace sy::testing {
namespace {

struct OpInfo {
  std::string op;
  bool binary;
  double (*reference)(double a, double b);
};

const OpInfo kOps[] = {
    {"add.Tensor", true, [](double a, double b) { return a + b; }},
    {"mul.Tensor", true, [](double a, double b) { return a * b; }},
    {"relu", false, [](double a, double) { return a < 0 ? 0.0 : a; }},
    {"copy", false, [](double a, double) { return a; }},
};

// The output's shape and the shapes the inputs are broadcast from.
struct ShapeCase {
  std::vector<int64_t> out, a, b;
};

const ShapeCase kShapes[] = {
    {{}, {}, {}},
    {{0}, {0}, {0}},
    {{7}, {7}, {7}},
    {{7}, {7}, {1}},
    {{33, 65}, {33, 65}, {}},
    {{3, 5}, {3, 5}, {5}},
    {{3, 5}, {3, 1}, {1, 5}},
    {{2, 0, 3}, {2, 0, 3}, {3}},
    {{4, 1, 6}, {4, 1, 6}, {4, 1, 6}},
    {{2, 3, 4, 5}, {2, 3, 4, 5}, {3, 1, 5}},
    {{2, 1, 2, 1, 2, 1, 2, 3}, {2, 1, 2, 1, 2, 1, 2, 3}, {3}},
    {{1000}, {1000}, {1000}},
};

void PrintTo(const OpInfo& op, std::ostream* os) { *os << op.op; }
void PrintTo(const ShapeCase& c, std::ostream* os) {
  *os << ShapeString(c.out) << " from " << ShapeString(c.a) << ", "
      << ShapeString(c.b);
}

// Layouts of (a, b, output).
using Layouts = std::tuple<Layout, Layout, Layout>;
const Layouts kLayouts[] = {
    {Layout::kContiguous, Layout::kContiguous, Layout::kContiguous},
    {Layout::kTransposed, Layout::kPadded, Layout::kContiguous},
    {Layout::kPadded, Layout::kTransposed, Layout::kTransposed},
    {Layout::kContiguous, Layout::kContiguous, Layout::kPadded},
};

class ElementwiseTest : public CpuPluginTest,
                        public ::testing::WithParamInterface<
                            std::tuple<OpInfo, ShapeCase, Layouts>> {};

TEST_P(ElementwiseTest, MatchesFloat64Reference) {
  const auto& [info, shapes, layouts] = GetParam();
  const auto& [la, lb, lo] = layouts;
  // Unary ops read a broadcast input too: an expanded view is legal input.
  const TestTensor a =
      TestTensor::Random(shapes.a, 1, la, -4.0f, 4.0f).BroadcastTo(shapes.out);
  const TestTensor b =
      TestTensor::Random(shapes.b, 2, lb, -4.0f, 4.0f).BroadcastTo(shapes.out);
  TestTensor out = TestTensor::Make(shapes.out, lo);
  std::vector<sy_tensor_view_t> inputs = {a.view()};
  if (info.binary) inputs.push_back(b.view());
  const Status status = Run(info.op, inputs, out.view());
  ASSERT_TRUE(status.ok()) << status.message;
  ForEachIndex(shapes.out, [&](std::span<const int64_t> i) {
    const double want = info.reference(a.at(i), b.at(i));
    ASSERT_TRUE(Near(out.at(i), want, 1e-6)) << "at " << ShapeString(i);
  });
  EXPECT_TRUE(out.OutsideUntouched());
}

std::string CaseName(
    const ::testing::TestParamInfo<ElementwiseTest::ParamType>& p) {
  const auto& [info, shapes, layouts] = p.param;
  std::string name = info.op.substr(0, info.op.find('.')) + "_";
  for (int64_t d : shapes.out) name += std::to_string(d) + "x";
  name += "_a";
  for (int64_t d : shapes.a) name += std::to_string(d);
  name += "_b";
  for (int64_t d : shapes.b) name += std::to_string(d);
  const auto& [la, lb, lo] = layouts;
  return name + "_" + LayoutName(la).substr(0, 1) +
         LayoutName(lb).substr(0, 1) + LayoutName(lo).substr(0, 1) + "_" +
         std::to_string(p.index);
}

INSTANTIATE_TEST_SUITE_P(Cpu, ElementwiseTest,
                         ::testing::Combine(::testing::ValuesIn(kOps),
                                            ::testing::ValuesIn(kShapes),
                                            ::testing::ValuesIn(kLayouts)),
                         CaseName);

using ElementwiseSpecialTest = CpuPluginTest;

TEST_F(ElementwiseSpecialTest, PropagatesNanAndInf) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor a = TestTensor::Make({4});
  TestTensor b = TestTensor::Make({4});
  const float av[] = {inf, nan, -1.0f, -0.5f};
  const float bv[] = {-inf, 1.0f, inf, 2.0f};
  for (int64_t i = 0; i < 4; ++i) {
    a.set({&i, 1}, av[i]);
    b.set({&i, 1}, bv[i]);
  }
  TestTensor sum = TestTensor::Make({4});
  TestTensor relu = TestTensor::Make({4});
  ASSERT_TRUE(Run("add.Tensor", {a.view(), b.view()}, sum.view()).ok());
  ASSERT_TRUE(Run("relu", {a.view()}, relu.view()).ok());
  const int64_t i0 = 0, i1 = 1, i2 = 2, i3 = 3;
  EXPECT_TRUE(std::isnan(sum.at({&i0, 1})));
  EXPECT_TRUE(std::isnan(sum.at({&i1, 1})));
  EXPECT_EQ(sum.at({&i2, 1}), inf);
  EXPECT_EQ(relu.at({&i0, 1}), inf);
  EXPECT_TRUE(std::isnan(relu.at({&i1, 1})));
  EXPECT_EQ(relu.at({&i3, 1}), 0.0f);
}

using ElementwiseErrorTest = CpuPluginTest;

TEST_F(ElementwiseErrorTest, RejectsUnbroadcastInputs) {
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  const TestTensor b = TestTensor::Random({3}, 2);
  TestTensor out = TestTensor::Make({2, 3});
  const Status status = Run("add.Tensor", {a.view(), b.view()}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: add.Tensor: input 'b' has shape [3] but the output "
            "has shape [2, 3]; elementwise kernels take inputs already "
            "broadcast to the output's shape (stride 0 on stretched dims), as "
            "the dispatcher passes them");
  EXPECT_TRUE(out.OutsideUntouched());
}

TEST_F(ElementwiseErrorTest, RejectsOtherDtypesAndDevices) {
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({2, 3});
  sy_tensor_view_t f64 = a.view();
  f64.dtype = SY_DTYPE_F64;
  Status status = Run("mul.Tensor", {f64, a.view()}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: mul.Tensor: input 'a' has dtype f64 but the cpu "
            "plugin implements mul.Tensor for f32 only; cast the tensor to "
            "f32");
  sy_tensor_view_t cuda = out.view();
  cuda.device = {2, 0};
  status = Run("copy", {a.view()}, cuda);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: copy: output is on DLPack device type 2, not the cpu "
            "device (1); copy it to the cpu device first");
}

TEST_F(ElementwiseErrorTest, RejectsMalformedViews) {
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({2, 3});
  sy_tensor_view_t bad = a.view();
  bad.ndim = 9;
  Status status = Run("relu", {bad}, out.view());
  EXPECT_EQ(status.message,
            "cpu plugin: relu: input 'x' has rank 9; tensors have rank 0 to 8");
  bad = a.view();
  bad.data = nullptr;
  status = Run("relu", {bad}, out.view());
  EXPECT_EQ(status.message,
            "cpu plugin: relu: input 'x' has NULL data but 6 elements; pass "
            "the tensor's storage");
  const int64_t negative[] = {2, -3};
  bad = a.view();
  bad.shape = negative;
  status = Run("relu", {bad}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: relu: input 'x' has a negative dimension in shape "
            "[2, -3]; dimensions must be >= 0");
  bad = a.view();
  bad.strides = nullptr;
  status = Run("relu", {bad}, out.view());
  EXPECT_EQ(status.message,
            "cpu plugin: relu: input 'x' has rank 2 but a NULL shape or "
            "strides; pass 2 of each");
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  bad = a.view();
  bad.shape = huge;
  status = Run("relu", {bad}, out.view());
  EXPECT_EQ(status.message,
            "cpu plugin: relu: input 'x' has shape [1099511627776, "
            "1099511627776], whose element count overflows int64");
}

TEST_F(ElementwiseErrorTest, RejectsCallsThatDoNotMatchTheSchema) {
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({2, 3});
  const RegisteredKernel* add = host_->FindKernel("add.Tensor");
  ASSERT_NE(add, nullptr);
  const sy_tensor_view_t one[] = {a.view()};
  const sy_tensor_view_t outs[] = {out.view()};
  Status status = RunKernel(*add, one, outs, {}, stream_);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: add.Tensor: expects 2 input tensors but the call has "
            "1; the call does not match the op's schema");
  const sy_attr_t attrs[] = {BoolAttr(true)};
  status = RunKernel(*host_->FindKernel("relu"), one, outs, attrs, stream_);
  EXPECT_EQ(status.message,
            "cpu plugin: relu: expects 0 attributes but the call has 1; the "
            "call does not match the op's schema");
  status = TakeError(add->fn(nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message, "cpu plugin: add.Tensor: the kernel call is NULL");
  sy_kernel_call_t call{};
  call.struct_size = 16;
  status = TakeError(add->fn(&call));
  EXPECT_EQ(status.message,
            "cpu plugin: add.Tensor: the kernel call's struct_size is 16, "
            "smaller than ABI 1.0's " +
                std::to_string(sizeof(sy_kernel_call_t)) +
                "; the host is damaged or too old");
}

}  // namespace
}  // namespace sy::testing
