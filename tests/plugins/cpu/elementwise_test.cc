// The cpu plugin's elementwise kernels (creation, unary, binary, compare,
// where) through the ABI: f32 ops on random inputs of many shapes and
// layouts against a float64 reference; then what the full op harness
// (sdk/conformance/harness/) does not pin down: the kernel list per dtype, integer
// wrapping and division errors, NaN/Inf, Scalar rules, cast and fill
// semantics, f16/bf16, results across the parallel threshold, accuracy in
// the tails, and bad calls with their exact messages.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"
#include "typed_tensor.h"

namespace sy::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- f32 on shapes and layouts --------------------------------------------------

struct OpInfo {
  std::string op;
  bool binary;
  double (*reference)(double a, double b);
};

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const OpInfo kOps[] = {
    {"add.Tensor", true, [](double a, double b) { return a + b; }},
    {"sub.Tensor", true, [](double a, double b) { return a - b; }},
    {"mul.Tensor", true, [](double a, double b) { return a * b; }},
    {"div.Tensor", true, [](double a, double b) { return a / b; }},
    {"maximum.Tensor", true, [](double a, double b) { return std::max(a, b); }},
    {"relu", false, [](double a, double) { return a < 0 ? 0.0 : a; }},
    {"copy", false, [](double a, double) { return a; }},
    {"exp", false, [](double a, double) { return std::exp(a); }},
    {"sigmoid", false, [](double a, double) { return Sigmoid(a); }},
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

// ---- Any dtype ------------------------------------------------------------------

sy_attr_t StringAttr(const char* value) {
  sy_attr_t a{};
  a.kind = SY_ATTR_STRING;
  a.value.str.data = value;
  a.value.str.size = static_cast<int64_t>(std::char_traits<char>::length(value));
  return a;
}

sy_attr_t DtypeAttr(sy_dtype_t dtype) {
  sy_attr_t a{};
  a.kind = SY_ATTR_DTYPE;
  a.value.dtype = dtype;
  return a;
}

constexpr sy_dtype_t kAllDtypes[] = {
    SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
    SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

class ElementwiseDtypeTest : public CpuPluginTest {
 protected:
  // Runs the kernel registered for `op` and the inputs' dtypes.
  Status Call(std::string_view op, const std::vector<TypedTensor>& inputs,
              const TypedTensor& out, const std::vector<sy_attr_t>& attrs = {}) {
    std::vector<sy_dtype_t> dtypes;
    std::vector<sy_tensor_view_t> views;
    for (const TypedTensor& t : inputs) {
      dtypes.push_back(t.dtype());
      views.push_back(t.view());
    }
    const RegisteredKernel* kernel = host_->FindKernel(op, dtypes);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    const sy_tensor_view_t output = out.view();
    return RunKernel(*kernel, views, {&output, 1}, attrs, stream_);
  }

  // Runs a kernel that must succeed and returns its output's values.
  std::vector<double> Values(std::string_view op,
                             const std::vector<TypedTensor>& inputs,
                             sy_dtype_t out_dtype,
                             const std::vector<sy_attr_t>& attrs = {}) {
    const TypedTensor out = TypedTensor::Make(out_dtype, inputs[0].shape());
    const Status status = Call(op, inputs, out, attrs);
    EXPECT_TRUE(status.ok()) << op << ": " << status.message;
    return out.Values();
  }

  static TypedTensor Vec(sy_dtype_t dtype, const std::vector<double>& values) {
    return TypedTensor::From(dtype, {static_cast<int64_t>(values.size())},
                             values);
  }
};

// NaN-aware equality of value lists.
::testing::AssertionResult Same(const std::vector<double>& got,
                                const std::vector<double>& want) {
  if (got.size() == want.size()) {
    bool same = true;
    for (size_t i = 0; i < got.size(); ++i) {
      same = same && (std::isnan(want[i]) ? std::isnan(got[i])
                                          : got[i] == want[i]);
    }
    if (same) return ::testing::AssertionSuccess();
  }
  auto failure = ::testing::AssertionFailure() << "got";
  for (double v : got) failure << " " << v;
  failure << "; want";
  for (double v : want) failure << " " << v;
  return failure;
}

TEST_F(ElementwiseDtypeTest, RegistersEveryOpForTheDtypesItsSchemaAccepts) {
  std::map<std::string, int> count;
  for (const RegisteredKernel& k : host_->kernels()) ++count[k.op];
  for (const char* op : {"fill.Scalar", "copy", "cast", "exp", "log", "sqrt",
                         "rsqrt", "sin", "cos", "tanh", "sigmoid", "silu",
                         "erf", "reciprocal", "gelu", "add.Tensor",
                         "mul.Tensor", "maximum.Tensor", "minimum.Tensor",
                         "add.Scalar", "sub.Scalar", "div.Scalar",
                         "pow.Scalar", "eq.Tensor", "ne.Scalar", "lt.Tensor",
                         "le.Scalar", "gt.Tensor", "ge.Scalar", "where"}) {
    EXPECT_EQ(count[op], 9) << op;
  }
  // Not for bool: their schemas refuse two bool tensors.
  for (const char* op : {"neg", "abs", "relu", "square", "sub.Tensor",
                         "div.Tensor", "pow.Tensor"}) {
    EXPECT_EQ(count[op], 8) << op;
  }
  const sy_dtype_t where[] = {SY_DTYPE_BOOL, SY_DTYPE_F16, SY_DTYPE_F16};
  ASSERT_NE(host_->FindKernel("where", where), nullptr);
  EXPECT_EQ(host_->FindKernel("where", where)->name, "where.bool.f16.f16");
  const sy_dtype_t f32[] = {SY_DTYPE_F32, SY_DTYPE_F32};
  EXPECT_EQ(host_->FindKernel("add.Tensor", f32)->name, "add.Tensor.f32.f32");
}

TEST_F(ElementwiseDtypeTest, IntegerArithmeticWrapsAndTruncates) {
  const double kMax = INT32_MAX, kMin = INT32_MIN;
  const TypedTensor a = Vec(SY_DTYPE_I32, {kMax, kMin, -7, 7, kMin, 3});
  const TypedTensor b = Vec(SY_DTYPE_I32, {1, -1, 2, -2, -1, 40});
  EXPECT_TRUE(Same(Values("add.Tensor", {a, b}, SY_DTYPE_I32),
                   {kMin, kMax, -5, 5, kMax, 43}));
  EXPECT_TRUE(Same(Values("sub.Tensor", {a, b}, SY_DTYPE_I32),
                   {kMax - 1, kMin + 1, -9, 9, kMin + 1, -37}));
  EXPECT_TRUE(Same(Values("mul.Tensor", {a, b}, SY_DTYPE_I32),
                   {kMax, kMin, -14, -14, kMin, 120}));
  // Toward zero; INT_MIN / -1 wraps to INT_MIN instead of trapping.
  EXPECT_TRUE(Same(Values("div.Tensor", {a, b}, SY_DTYPE_I32),
                   {kMax, kMin, -3, -3, kMin, 0}));
  EXPECT_TRUE(Same(Values("neg", {a}, SY_DTYPE_I32),
                   {-kMax, kMin, 7, -7, kMin, -3}));
  EXPECT_TRUE(Same(Values("abs", {a}, SY_DTYPE_I32),
                   {kMax, kMin, 7, 7, kMin, 3}));
  EXPECT_TRUE(Same(Values("square", {Vec(SY_DTYPE_I8, {-128, 16, -11})},
                          SY_DTYPE_I8),
                   {0, 0, 121}));
  EXPECT_TRUE(Same(Values("neg", {Vec(SY_DTYPE_U8, {0, 1, 255})}, SY_DTYPE_U8),
                   {0, 255, 1}));
  // pow wraps modulo 2^32: 3^40 mod 2^32, computed independently.
  uint32_t p = 1;
  for (int i = 0; i < 40; ++i) p *= 3u;
  const TypedTensor base = Vec(SY_DTYPE_I32, {3, 2, -2, 0, -1, 3});
  const TypedTensor exponent = Vec(SY_DTYPE_I32, {4, 31, 3, 0, 7, 40});
  EXPECT_TRUE(Same(Values("pow.Tensor", {base, exponent}, SY_DTYPE_I32),
                   {81, kMin, -8, 1, -1,
                    static_cast<double>(static_cast<int32_t>(p))}));
  EXPECT_TRUE(Same(Values("maximum.Tensor", {a, b}, SY_DTYPE_I32),
                   {kMax, -1, 2, 7, -1, 40}));
}

TEST_F(ElementwiseDtypeTest, IntegerDivisionByZeroAndNegativePowersAreErrors) {
  const TypedTensor a = Vec(SY_DTYPE_I32, {1, 2, 3});
  const TypedTensor b = Vec(SY_DTYPE_I32, {1, 0, 3});
  const TypedTensor out = TypedTensor::Make(SY_DTYPE_I32, {3});
  Status status = Call("div.Tensor", {a, b}, out);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: div.Tensor: input 'b' has a zero element, and "
            "integer division (i32) by zero has no result; divide by nonzero "
            "values, or cast the inputs to a floating dtype to get "
            "infinities");
  status = Call("div.Scalar", {a}, out, {IntAttr(0)});
  EXPECT_EQ(status.message,
            "cpu plugin: div.Scalar: attribute 'b' is 0, and integer division "
            "(i32) by zero has no result; divide by nonzero values, or cast "
            "the inputs to a floating dtype to get infinities");
  const TypedTensor a64 = Vec(SY_DTYPE_I64, {2, 2});
  const TypedTensor e64 = Vec(SY_DTYPE_I64, {1, -1});
  status = Call("pow.Tensor", {a64, e64}, TypedTensor::Make(SY_DTYPE_I64, {2}));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: pow.Tensor: input 'b' has a negative element, and an "
            "integer input 'a' (i64) cannot be raised to a negative power; "
            "use nonnegative exponents, or cast 'a' to a floating dtype "
            "first");
  status = Call("pow.Scalar", {a}, out, {IntAttr(-2)});
  EXPECT_EQ(status.message,
            "cpu plugin: pow.Scalar: attribute 'b' is -2, and an integer "
            "input 'a' (i32) cannot be raised to a negative power; use "
            "nonnegative exponents, or cast 'a' to a floating dtype first");
  // A float divisor makes it floating-point division: no error.
  EXPECT_TRUE(Same(Values("div.Scalar", {a}, SY_DTYPE_F32, {FloatAttr(0.0)}),
                   {kInf, kInf, kInf}));
}

TEST_F(ElementwiseDtypeTest, PropagatesNanAndInfinityLikeNumPy) {
  const TypedTensor a = Vec(SY_DTYPE_F32, {kNan, 1, kInf, -kInf, kNan, 0});
  const TypedTensor b = Vec(SY_DTYPE_F32, {1, kNan, -kInf, -kInf, kNan, -0.0});
  EXPECT_TRUE(Same(Values("maximum.Tensor", {a, b}, SY_DTYPE_F32),
                   {kNan, kNan, kInf, -kInf, kNan, 0}));
  EXPECT_TRUE(Same(Values("minimum.Tensor", {a, b}, SY_DTYPE_F32),
                   {kNan, kNan, -kInf, -kInf, kNan, 0}));
  EXPECT_TRUE(Same(Values("add.Tensor", {a, b}, SY_DTYPE_F32),
                   {kNan, kNan, kNan, -kInf, kNan, 0}));
  EXPECT_TRUE(Same(Values("eq.Tensor", {a, b}, SY_DTYPE_BOOL),
                   {0, 0, 0, 1, 0, 1}));
  EXPECT_TRUE(Same(Values("ne.Tensor", {a, b}, SY_DTYPE_BOOL),
                   {1, 1, 1, 0, 1, 0}));
  EXPECT_TRUE(Same(Values("le.Tensor", {a, b}, SY_DTYPE_BOOL),
                   {0, 0, 0, 1, 0, 1}));
  EXPECT_TRUE(Same(Values("gt.Scalar", {a}, SY_DTYPE_BOOL, {FloatAttr(kNan)}),
                   {0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(Same(Values("ne.Scalar", {a}, SY_DTYPE_BOOL, {FloatAttr(kNan)}),
                   {1, 1, 1, 1, 1, 1}));
  EXPECT_TRUE(Same(Values("maximum.Scalar", {a}, SY_DTYPE_F32, {IntAttr(0)}),
                   {kNan, 1, kInf, 0, kNan, 0}));
  EXPECT_TRUE(Same(Values("relu", {a}, SY_DTYPE_F32),
                   {kNan, 1, kInf, 0, kNan, 0}));
  const TypedTensor x = Vec(SY_DTYPE_F32, {kNan, kInf, -kInf, 0, -1});
  const std::vector<double> ex = Values("exp", {x}, SY_DTYPE_F32);
  EXPECT_TRUE(Same({ex[0], ex[1], ex[2], ex[3]}, {kNan, kInf, 0, 1}));
  EXPECT_TRUE(Same(Values("log", {x}, SY_DTYPE_F32),
                   {kNan, kInf, kNan, -kInf, kNan}));
  EXPECT_TRUE(Same(Values("sqrt", {x}, SY_DTYPE_F32),
                   {kNan, kInf, kNan, 0, kNan}));
  EXPECT_TRUE(Same(Values("rsqrt", {x}, SY_DTYPE_F32),
                   {kNan, 0, kNan, kInf, kNan}));
  EXPECT_TRUE(Same(Values("reciprocal", {x}, SY_DTYPE_F32),
                   {kNan, 0, -0.0, kInf, -1}));
  const std::vector<double> s = Values("sigmoid", {x}, SY_DTYPE_F32);
  EXPECT_TRUE(Same({s[0], s[1], s[2], s[3]}, {kNan, 1, 0, 0.5}));
  const std::vector<double> t = Values("tanh", {x}, SY_DTYPE_F32);
  EXPECT_TRUE(Same({t[0], t[1], t[2], t[3]}, {kNan, 1, -1, 0}));
  const std::vector<double> e = Values("erf", {x}, SY_DTYPE_F32);
  EXPECT_TRUE(Same({e[0], e[1], e[2], e[3]}, {kNan, 1, -1, 0}));
  const std::vector<double> g =
      Values("gelu", {x}, SY_DTYPE_F32, {StringAttr("none")});
  EXPECT_TRUE(Same({g[0], g[1], g[3]}, {kNan, kInf, 0}));
  // The most negative floats give -0, the limit (no inf·0 inside).
  const double lowest = std::numeric_limits<float>::lowest();
  for (const char* approximate : {"none", "tanh"}) {
    EXPECT_TRUE(Same(Values("gelu", {Vec(SY_DTYPE_F32, {lowest, -1e30})},
                            SY_DTYPE_F32, {StringAttr(approximate)}),
                     {0, 0}));
  }
  EXPECT_TRUE(Same(Values("silu", {Vec(SY_DTYPE_F32, {lowest})}, SY_DTYPE_F32),
                   {0}));
}

TEST_F(ElementwiseDtypeTest, ScalarsKeepTheTensorDtypeUnlessTheyAreFloat) {
  const TypedTensor i = Vec(SY_DTYPE_I32, {1, -2, 3});
  EXPECT_TRUE(Same(Values("add.Scalar", {i}, SY_DTYPE_I32, {IntAttr(5)}),
                   {6, 3, 8}));
  // A float Scalar on an integer tensor computes in f32 and gives f32.
  EXPECT_TRUE(Same(Values("add.Scalar", {i}, SY_DTYPE_F32, {FloatAttr(2.5)}),
                   {3.5, 0.5, 5.5}));
  EXPECT_TRUE(Same(Values("pow.Scalar", {i}, SY_DTYPE_F32, {FloatAttr(2.0)}),
                   {1, 4, 9}));
  const TypedTensor flags = Vec(SY_DTYPE_BOOL, {0, 1, 1});
  EXPECT_TRUE(Same(Values("mul.Scalar", {flags}, SY_DTYPE_BOOL, {IntAttr(3)}),
                   {0, 1, 1}));
  EXPECT_TRUE(Same(Values("add.Scalar", {flags}, SY_DTYPE_BOOL,
                          {BoolAttr(false)}),
                   {0, 1, 1}));
  EXPECT_TRUE(Same(Values("sub.Scalar", {flags}, SY_DTYPE_F32,
                          {FloatAttr(0.5)}),
                   {-0.5, 0.5, 0.5}));
  Status status = Call("sub.Scalar", {flags},
                       TypedTensor::Make(SY_DTYPE_BOOL, {3}), {IntAttr(1)});
  EXPECT_EQ(status.message,
            "cpu plugin: sub.Scalar: input 'a' is bool, and sub.Scalar of a "
            "bool tensor and a bool or integer Scalar has no bool result; "
            "cast 'a' to a numeric dtype first");
  const TypedTensor bytes = Vec(SY_DTYPE_U8, {0, 200, 255});
  status = Call("add.Scalar", {bytes}, TypedTensor::Make(SY_DTYPE_U8, {3}),
                {IntAttr(300)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: add.Scalar: attribute 'b' is 300, which does not fit "
            "in u8 (range [0, 255]) of input 'a'; pass a value in range, or "
            "cast input 'a' to a wider dtype first");
  // Comparisons are exact, not limited to the tensor's range.
  EXPECT_TRUE(Same(Values("lt.Scalar", {bytes}, SY_DTYPE_BOOL, {IntAttr(300)}),
                   {1, 1, 1}));
  EXPECT_TRUE(Same(Values("ge.Scalar", {bytes}, SY_DTYPE_BOOL, {IntAttr(-1)}),
                   {1, 1, 1}));
  EXPECT_TRUE(Same(Values("eq.Scalar", {i}, SY_DTYPE_BOOL, {FloatAttr(-2.5)}),
                   {0, 0, 0}));
  EXPECT_TRUE(Same(Values("gt.Scalar", {i}, SY_DTYPE_BOOL, {FloatAttr(-2.5)}),
                   {1, 1, 1}));
  // A float Scalar is rounded to a floating tensor's dtype first, so
  // f16(0.1) equals 0.1.
  EXPECT_TRUE(Same(Values("eq.Scalar", {Vec(SY_DTYPE_F16, {0.1, 0.2})},
                          SY_DTYPE_BOOL, {FloatAttr(0.1)}),
                   {1, 0}));
}

TEST_F(ElementwiseDtypeTest, CastTruncatesSaturatesAndRoundsOnce) {
  const TypedTensor f = Vec(SY_DTYPE_F32, {-2.7, 2.7, kNan, 1e10, -1e10, kInf});
  const double kMax = INT32_MAX, kMin = INT32_MIN;
  EXPECT_TRUE(Same(Values("cast", {f}, SY_DTYPE_I32, {DtypeAttr(SY_DTYPE_I32)}),
                   {-2, 2, 0, kMax, kMin, kMax}));
  EXPECT_TRUE(Same(Values("cast", {f}, SY_DTYPE_U8, {DtypeAttr(SY_DTYPE_U8)}),
                   {0, 2, 0, 255, 0, 255}));
  EXPECT_TRUE(Same(Values("cast", {f}, SY_DTYPE_BOOL,
                          {DtypeAttr(SY_DTYPE_BOOL)}),
                   {1, 1, 1, 1, 1, 1}));
  EXPECT_TRUE(Same(Values("cast", {Vec(SY_DTYPE_F64, {0.0, -0.0, 0.5})},
                          SY_DTYPE_BOOL, {DtypeAttr(SY_DTYPE_BOOL)}),
                   {0, 0, 1}));
  EXPECT_TRUE(Same(Values("cast", {Vec(SY_DTYPE_I32, {300, -129, 127})},
                          SY_DTYPE_I8, {DtypeAttr(SY_DTYPE_I8)}),
                   {44, 127, 127}));
  // A bool tensor reads any byte but 0 as true.
  TypedTensor flags = TypedTensor::Make(SY_DTYPE_BOOL, {4});
  const uint8_t raw[] = {0, 1, 2, 255};
  for (int64_t k = 0; k < 4; ++k) flags.SetByte({&k, 1}, raw[k]);
  EXPECT_TRUE(Same(Values("cast", {flags}, SY_DTYPE_I32,
                          {DtypeAttr(SY_DTYPE_I32)}),
                   {0, 1, 1, 1}));
  EXPECT_TRUE(Same(Values("copy", {flags}, SY_DTYPE_BOOL), {0, 1, 1, 1}));
  // 1 + 2^-11 + 2^-40 is just above a tie for f16 and bf16 alike; rounding
  // through f32 first would lose the 2^-40 and round the tie to even.
  const TypedTensor d =
      Vec(SY_DTYPE_F64, {1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40});
  EXPECT_TRUE(Same(Values("cast", {d}, SY_DTYPE_F16, {DtypeAttr(SY_DTYPE_F16)}),
                   {1 + 0x1p-10, 1 + 0x1p-8}));
  EXPECT_TRUE(Same(Values("cast", {d}, SY_DTYPE_BF16,
                          {DtypeAttr(SY_DTYPE_BF16)}),
                   {1, 1 + 0x1p-7}));
  EXPECT_TRUE(Same(Values("cast", {Vec(SY_DTYPE_I64, {70000, -3})},
                          SY_DTYPE_F16, {DtypeAttr(SY_DTYPE_F16)}),
                   {kInf, -3}));
}

TEST_F(ElementwiseDtypeTest, CastsBetweenEveryPairOfDtypes) {
  for (sy_dtype_t from : kAllDtypes) {
    for (sy_dtype_t to : kAllDtypes) {
      const TypedTensor x =
          TypedTensor::From(from, {2, 3}, {0, 1, 5, 0, 1, 5}, Layout::kPadded);
      const TypedTensor out = TypedTensor::Make(to, {2, 3}, Layout::kTransposed);
      const Status status = Call("cast", {x}, out, {DtypeAttr(to)});
      ASSERT_TRUE(status.ok()) << status.message;
      const double five = to == SY_DTYPE_BOOL || from == SY_DTYPE_BOOL ? 1 : 5;
      EXPECT_TRUE(Same(out.Values(), {0, 1, five, 0, 1, five}))
          << plugin::DtypeName(from) << " -> " << plugin::DtypeName(to);
      EXPECT_TRUE(out.Untouched());
    }
  }
}

TEST_F(ElementwiseDtypeTest, FillsEveryDtypeAndRefusesValuesThatDoNotFit) {
  for (sy_dtype_t dtype : kAllDtypes) {
    const TypedTensor self = TypedTensor::Make(dtype, {3, 4});
    const TypedTensor out = TypedTensor::Make(dtype, {3, 4}, Layout::kPadded);
    ASSERT_TRUE(Call("fill.Scalar", {self}, out, {IntAttr(7)}).ok());
    const double want = dtype == SY_DTYPE_BOOL ? 1 : 7;
    EXPECT_TRUE(Same(out.Values(), std::vector<double>(12, want)))
        << plugin::DtypeName(dtype);
    EXPECT_TRUE(out.Untouched());
  }
  EXPECT_TRUE(Same(Values("fill.Scalar", {Vec(SY_DTYPE_I32, {0, 0})},
                          SY_DTYPE_I32, {FloatAttr(-2.9)}),
                   {-2, -2}));
  EXPECT_TRUE(Same(Values("fill.Scalar", {Vec(SY_DTYPE_F16, {0})},
                          SY_DTYPE_F16, {FloatAttr(0.1)}),
                   {static_cast<float>(plugin::Half(0.1f))}));
  const TypedTensor bytes = Vec(SY_DTYPE_U8, {0});
  Status status = Call("fill.Scalar", {bytes}, bytes, {IntAttr(300)});
  EXPECT_EQ(status.message,
            "cpu plugin: fill.Scalar: attribute 'value' is 300, which does not "
            "fit in u8 (range [0, 255]) of input 'self'; pass a value in "
            "range, or cast input 'self' to a wider dtype first");
  status = Call("fill.Scalar", {Vec(SY_DTYPE_I64, {0})},
                TypedTensor::Make(SY_DTYPE_I64, {1}), {FloatAttr(1e300)});
  EXPECT_EQ(status.message,
            "cpu plugin: fill.Scalar: attribute 'value' is 1e+300, which does "
            "not fit in i64 of input 'self'; pass a value in range, or cast "
            "input 'self' to a floating dtype first");
}

TEST_F(ElementwiseDtypeTest, WhereSelectsAcrossBroadcastOperands) {
  const TypedTensor cond = TypedTensor::From(SY_DTYPE_BOOL, {3, 1}, {1, 0, 1});
  const TypedTensor a = TypedTensor::From(SY_DTYPE_F16, {3, 2},
                                          {0.1, 0.2, 0.3, 0.4, 0.5, 0.6},
                                          Layout::kTransposed);
  const TypedTensor b = TypedTensor::From(SY_DTYPE_F16, {}, {-7.5});
  // Broadcast views: stride 0 on the stretched dims.
  sy_tensor_view_t vc = cond.view(), vb = b.view();
  const int64_t shape[] = {3, 2};
  const int64_t cond_strides[] = {cond.view().strides[0], 0};
  const int64_t b_strides[] = {0, 0};
  vc.shape = shape;
  vc.strides = cond_strides;
  vb.ndim = 2;
  vb.shape = shape;
  vb.strides = b_strides;
  const TypedTensor out = TypedTensor::Make(SY_DTYPE_F16, {3, 2});
  const sy_dtype_t dtypes[] = {SY_DTYPE_BOOL, SY_DTYPE_F16, SY_DTYPE_F16};
  const sy_tensor_view_t inputs[] = {vc, a.view(), vb};
  const sy_tensor_view_t output = out.view();
  ASSERT_TRUE(RunKernel(*host_->FindKernel("where", dtypes), inputs,
                        {&output, 1}, {}, stream_)
                  .ok());
  const auto h = [](double v) {
    return static_cast<double>(static_cast<float>(plugin::Half(float(v))));
  };
  EXPECT_TRUE(Same(out.Values(), {h(0.1), h(0.2), -7.5, -7.5, h(0.5), h(0.6)}));
}

// f16/bf16 compute in f32 and round once: within half an ulp of the
// float64 result, plus the f32 math's own error.
TEST_F(ElementwiseDtypeTest, HalfAndBFloat16ComputeInFloat) {
  for (sy_dtype_t dtype : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    const double ulp = dtype == SY_DTYPE_F16 ? 0x1p-10 : 0x1p-7;
    const TypedTensor a =
        TypedTensor::Random(dtype, {5, 40}, 3, Layout::kPadded, -3, 3);
    const TypedTensor b = TypedTensor::Random(dtype, {5, 40}, 4,
                                              Layout::kTransposed, -3, 3);
    const auto check = [&](std::string_view op, std::vector<TypedTensor> in,
                           std::vector<sy_attr_t> attrs, auto reference) {
      const TypedTensor out = TypedTensor::Make(dtype, {5, 40}, Layout::kPadded);
      const Status status = Call(op, in, out, attrs);
      ASSERT_TRUE(status.ok()) << status.message;
      const std::vector<double> got = out.Values(), x = a.Values(),
                                y = b.Values();
      for (size_t i = 0; i < got.size(); ++i) {
        const double want = reference(x[i], y[i]);
        ASSERT_TRUE(Near(got[i], want, ulp, std::max(std::fabs(want), 1e-3)))
            << op << " " << plugin::DtypeName(dtype) << " at " << i;
      }
      EXPECT_TRUE(out.Untouched());
    };
    check("add.Tensor", {a, b}, {}, [](double x, double y) { return x + y; });
    check("div.Tensor", {a, b}, {}, [](double x, double y) { return x / y; });
    check("exp", {a}, {}, [](double x, double) { return std::exp(x); });
    check("gelu", {a}, {StringAttr("none")}, [](double x, double) {
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    });
    check("mul.Scalar", {a}, {FloatAttr(1.5)},
          [](double x, double) { return x * 1.5; });
  }
}

// 100003 elements: more than kParallelGrain, so the work is split across
// threads (SWITCHYARD_NUM_THREADS unset: all CPUs), including runs that
// start and end inside rows.
TEST_F(ElementwiseDtypeTest, LargeTensorsMatchTheReferenceAcrossThreads) {
  const std::vector<int64_t> shape = {317, 317};  // 100489 elements
  const TypedTensor a = TypedTensor::Random(SY_DTYPE_F32, shape, 5,
                                            Layout::kTransposed, -6, 6);
  const TypedTensor row = TypedTensor::Random(SY_DTYPE_F32, {317}, 6,
                                              Layout::kContiguous, -6, 6);
  sy_tensor_view_t vb = row.view();
  const int64_t b_strides[] = {0, 1};
  vb.ndim = 2;
  vb.shape = shape.data();
  vb.strides = b_strides;
  const TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, shape, Layout::kPadded);
  const sy_dtype_t f32[] = {SY_DTYPE_F32, SY_DTYPE_F32};
  const sy_tensor_view_t inputs[] = {a.view(), vb};
  const sy_tensor_view_t output = out.view();
  ASSERT_TRUE(RunKernel(*host_->FindKernel("add.Tensor", f32), inputs,
                        {&output, 1}, {}, stream_)
                  .ok());
  const std::vector<double> x = a.Values(), y = row.Values(), got = out.Values();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(Near(got[i], x[i] + y[i % 317], 1e-6)) << i;
  }
  EXPECT_TRUE(out.Untouched());

  const TypedTensor big = TypedTensor::Random(SY_DTYPE_F32, {100003}, 7,
                                              Layout::kContiguous, -8, 8);
  const std::vector<double> v = big.Values();
  const std::vector<double> g = Values("gelu", {big}, SY_DTYPE_F32,
                                       {StringAttr("tanh")});
  for (size_t i = 0; i < v.size(); ++i) {
    const double z = std::sqrt(2 / M_PI) * (v[i] + 0.044715 * v[i] * v[i] * v[i]);
    const double want = v[i] / (1 + std::exp(-2 * z));
    ASSERT_TRUE(Near(g[i], want, 1e-6, std::max(std::fabs(want), 1e-30))) << i;
  }
  const TypedTensor ints = TypedTensor::Random(SY_DTYPE_I64, {100003}, 8,
                                               Layout::kPadded, -80, 80);
  const std::vector<double> n = ints.Values();
  const std::vector<double> sq = Values("square", {ints}, SY_DTYPE_I64);
  for (size_t i = 0; i < n.size(); ++i) ASSERT_EQ(sq[i], n[i] * n[i]) << i;
  const std::vector<double> e = Values("exp", {ints}, SY_DTYPE_F32);
  for (size_t i = 0; i < n.size(); ++i) {
    ASSERT_TRUE(Near(e[i], std::exp(n[i]), 1e-6)) << i;
  }
}

// Where cancellation or overflow would hurt: very negative gelu and silu
// inputs, sigmoid beyond exp's range, erf and tanh near 0.
TEST_F(ElementwiseDtypeTest, F32TranscendentalsStayWithin1e6OfFloat64) {
  std::vector<double> x;
  for (double v = -13.5; v <= 9; v += 0.00271) x.push_back(v);
  for (double v : {1e-30, -1e-20, 1e-8, -3e-5}) x.push_back(v);
  const TypedTensor t = Vec(SY_DTYPE_F32, x);
  const std::vector<double> xf = t.Values();  // rounded to f32
  const auto check = [&](std::string_view op, std::vector<sy_attr_t> attrs,
                         double (*reference)(double)) {
    const std::vector<double> got = Values(op, {t}, SY_DTYPE_F32, attrs);
    for (size_t i = 0; i < got.size(); ++i) {
      const double want = reference(xf[i]);
      if (std::fabs(want) < 1.2e-38) continue;  // subnormal results
      ASSERT_TRUE(Near(got[i], want, 1e-6)) << op << " at x = " << xf[i];
    }
  };
  check("gelu", {StringAttr("none")},
        [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); });
  check("gelu", {StringAttr("tanh")}, [](double v) {
    const double z = std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
    return v / (1 + std::exp(-2 * z));
  });
  check("silu", {}, [](double v) { return v / (1 + std::exp(-v)); });
  check("sigmoid", {}, [](double v) { return 1 / (1 + std::exp(-v)); });
  check("tanh", {}, [](double v) { return std::tanh(v); });
  check("erf", {}, [](double v) { return std::erf(v); });
  check("exp", {}, [](double v) { return std::exp(v); });
  check("sin", {}, [](double v) { return std::sin(v); });
  check("cos", {}, [](double v) { return std::cos(v); });
  check("rsqrt", {}, [](double v) { return 1 / std::sqrt(v); });
  check("log", {}, [](double v) { return std::log(v); });
}

// ---- Bad calls -----------------------------------------------------------------

using ElementwiseErrorTest = ElementwiseDtypeTest;

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
            "cpu plugin: mul.Tensor: input 'a' has dtype f64 but this kernel "
            "(mul.Tensor.f32.f32) takes f32; call the kernel registered for "
            "the inputs' dtypes");
  sy_tensor_view_t cuda = out.view();
  cuda.device = {2, 0};
  status = Run("copy", {a.view()}, cuda);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: copy: output is on DLPack device type 2, not the "
            "kernel's device type (1); copy it to the kernel's device first");
  // exp of an integer tensor writes f32.
  const TypedTensor i = Vec(SY_DTYPE_I32, {1, 2});
  status = Call("exp", {i}, i);
  EXPECT_EQ(status.message,
            "cpu plugin: exp: output has dtype i32 but exp of i32 gives f32; "
            "allocate the output with the dtype the op's shape function "
            "gives");
  status = Call("add.Scalar", {i}, i, {FloatAttr(0.5)});
  EXPECT_EQ(status.message,
            "cpu plugin: add.Scalar: output has dtype i32 but add.Scalar of "
            "i32 and a float Scalar gives f32; allocate the output with the "
            "dtype the op's shape function gives");
  status = Call("cast", {i}, i, {DtypeAttr(SY_DTYPE_F64)});
  EXPECT_EQ(status.message,
            "cpu plugin: cast: output has dtype i32 but attribute 'dtype' is "
            "f64; allocate the output with the dtype the op's shape function "
            "gives");
}

TEST_F(ElementwiseErrorTest, RejectsAttributesOfTheWrongKind) {
  const TypedTensor x = Vec(SY_DTYPE_F32, {1, 2});
  Status status = Call("add.Scalar", {x}, x, {IntsAttr({1})});
  EXPECT_EQ(status.message,
            "cpu plugin: add.Scalar: attribute 'b' has attribute kind 4 but a "
            "Scalar is passed as SY_ATTR_INT, SY_ATTR_FLOAT or SY_ATTR_BOOL; "
            "the call does not match the op's schema");
  status = Call("gelu", {x}, x, {StringAttr("fast")});
  EXPECT_EQ(status.message,
            "cpu plugin: gelu: attribute 'approximate' is not the string "
            "\"none\" or \"tanh\" (kind 5); the call does not match the op's "
            "schema");
  status = Call("cast", {x}, x, {IntAttr(1)});
  EXPECT_EQ(status.message,
            "cpu plugin: cast: attribute 'dtype' has attribute kind 1 but a "
            "ScalarType is passed as SY_ATTR_DTYPE; the call does not match "
            "the op's schema");
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
  sy_tensor_view_t no_out = out.view();
  no_out.data = nullptr;
  status = Run("sigmoid", {a.view()}, no_out);
  EXPECT_EQ(status.message,
            "cpu plugin: sigmoid: output has NULL data but 6 elements; pass "
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
  status = RunKernel(*host_->FindKernel("gelu"), one, outs, {}, stream_);
  EXPECT_EQ(status.message,
            "cpu plugin: gelu: expects 1 attributes but the call has 0; the "
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
                std::to_string(SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data)) +
                "; the host is damaged or too old");
}

}  // namespace
}  // namespace sy::testing
