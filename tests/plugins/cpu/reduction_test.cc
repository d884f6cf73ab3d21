// sum, mean, max, min and argmax through the ABI: every dims/keepdim
// combination of several shapes and layouts against a float64 reference,
// typed cases (integers, bool, f16, bf16, f64), NaN propagation, reductions
// large enough to cross the parallel thresholds, and bad calls with their
// exact messages. (The op harness covers every dtype through the runtime;
// these check the kernels themselves.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"
#include "typed_tensor.h"

namespace sy::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ReduceCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;
};

const ReduceCase kCases[] = {
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

void PrintTo(const ReduceCase& c, std::ostream* os) {
  *os << "x" << ShapeString(c.shape) << " dims" << ShapeString(c.dims);
}

// Which dims a case reduces, and the output shape.
std::vector<int64_t> ReducedShape(const std::vector<int64_t>& shape,
                                  const std::vector<int64_t>& dims,
                                  bool keepdim, std::vector<bool>* reduce) {
  const int rank = static_cast<int>(shape.size());
  reduce->assign(rank, dims.empty());
  for (int64_t d : dims) {
    if (rank > 0) (*reduce)[d < 0 ? d + rank : d] = true;
  }
  std::vector<int64_t> out;
  for (int d = 0; d < rank; ++d) {
    if (!(*reduce)[d]) {
      out.push_back(shape[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

// The float64 reference of `op` over the reduced dims, dense over the
// output's shape; `count` is the number of elements per output.
std::vector<double> Reference(std::string_view op, const TestTensor& x,
                              const std::vector<bool>& reduce, int64_t outputs,
                              int64_t* count) {
  const bool extreme = op == "max" || op == "min";
  std::vector<double> want(outputs, extreme ? kNaN : 0.0);
  *count = outputs == 0 ? 0 : (x.numel() / outputs);
  ForEachIndex(x.shape(), [&](std::span<const int64_t> i) {
    int64_t flat = 0;
    for (size_t d = 0; d < i.size(); ++d) {
      if (!reduce[d]) flat = flat * x.shape()[d] + i[d];
    }
    const double v = x.at(i);
    double& w = want[flat];
    if (!extreme) {
      w += v;
    } else if (std::isnan(w) || (op == "max" ? v > w : v < w)) {
      w = v;
    }
  });
  if (op == "mean") {
    for (double& w : want) w /= static_cast<double>(*count);
  }
  return want;
}

class ReduceTest : public CpuPluginTest,
                   public ::testing::WithParamInterface<
                       std::tuple<ReduceCase, bool, Layout, Layout>> {};

TEST_P(ReduceTest, MatchesFloat64Reference) {
  const auto& [c, keepdim, in_layout, out_layout] = GetParam();
  const TestTensor x = TestTensor::Random(c.shape, 7, in_layout);
  std::vector<bool> reduce;
  const std::vector<int64_t> out_shape =
      ReducedShape(c.shape, c.dims, keepdim, &reduce);
  bool empty_reduction = false;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    empty_reduction = empty_reduction || (reduce[d] && c.shape[d] == 0);
  }
  for (std::string_view op : {"sum", "mean", "max", "min"}) {
    SCOPED_TRACE(op);
    TestTensor out = TestTensor::Make(out_shape, out_layout);
    const Status status =
        Run(op, {x.view()}, out.view(), {IntsAttr(c.dims), BoolAttr(keepdim)});
    if ((op == "max" || op == "min") && empty_reduction) {
      EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
      EXPECT_NE(status.message.find("of size 0 has no result"),
                std::string::npos)
          << status.message;
      continue;
    }
    ASSERT_TRUE(status.ok()) << status.message;
    int64_t count = 0;
    const std::vector<double> want =
        Reference(op, x, reduce, out.numel(), &count);
    int64_t flat = 0;
    ForEachIndex(out_shape, [&](std::span<const int64_t> i) {
      ASSERT_TRUE(Near(out.at(i), want[flat++], 1e-5)) << ShapeString(i);
    });
    EXPECT_TRUE(out.OutsideUntouched());
  }
}

std::string CaseName(const ReduceCase& c) {
  std::string name = "x";
  for (int64_t d : c.shape) name += std::to_string(d) + "_";
  name += "dims";
  for (int64_t d : c.dims) {
    if (d < 0) name += "m";
    name += std::to_string(std::abs(d));
  }
  return name;
}

std::string ReduceName(
    const ::testing::TestParamInfo<ReduceTest::ParamType>& p) {
  const auto& [c, keepdim, in_layout, out_layout] = p.param;
  return CaseName(c) + (keepdim ? "_keep_" : "_") + LayoutName(in_layout) +
         "_" + LayoutName(out_layout);
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, ReduceTest,
    ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool(),
                       ::testing::Values(Layout::kContiguous,
                                         Layout::kTransposed, Layout::kPadded),
                       ::testing::Values(Layout::kContiguous, Layout::kPadded)),
    ReduceName);

// ---- Typed, special and large cases ---------------------------------------

class ReduceSpecialTest : public CpuPluginTest {
 protected:
  // Runs the kernel for (op, dtype of x).
  Status RunTyped(std::string_view op, const TypedTensor& x,
                  const TypedTensor& out, const std::vector<int64_t>& dims,
                  bool keepdim = false) {
    const sy_dtype_t key[] = {x.dtype()};
    const RegisteredKernel* kernel = host_->FindKernel(op, key);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    const sy_tensor_view_t in = x.view();
    const sy_tensor_view_t o = out.view();
    const sy_attr_t attrs[] = {IntsAttr(dims), BoolAttr(keepdim)};
    return RunKernel(*kernel, {&in, 1}, {&o, 1}, attrs, stream_);
  }
};

TEST_F(ReduceSpecialTest, SumsABroadcastInput) {
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
// by far more than 1e-5. Crosses the parallel block threshold.
TEST_F(ReduceSpecialTest, SixteenMillionElementsStayAccurate) {
  const int64_t n = int64_t{1} << 24;
  const TestTensor x = TestTensor::Random({n}, 11, Layout::kContiguous, 0, 1);
  double want = 0.0;
  float want_max = -1.0f;
  for (int64_t i = 0; i < n; ++i) {
    want += x.at({&i, 1});
    want_max = std::max(want_max, x.at({&i, 1}));
  }
  TestTensor out = TestTensor::Make({});
  ASSERT_TRUE(
      Run("sum", {x.view()}, out.view(), {IntsAttr({}), BoolAttr(false)}).ok());
  EXPECT_TRUE(Near(out.at({}), want, 1e-5));
  ASSERT_TRUE(
      Run("mean", {x.view()}, out.view(), {IntsAttr({}), BoolAttr(false)})
          .ok());
  EXPECT_TRUE(Near(out.at({}), want / static_cast<double>(n), 1e-5));
  ASSERT_TRUE(
      Run("max", {x.view()}, out.view(), {IntsAttr({}), BoolAttr(false)}).ok());
  EXPECT_EQ(out.at({}), want_max);
}

// Few outputs with long rows take the blocked path; many outputs split the
// kept dim. Both must match the reference, in any layout.
TEST_F(ReduceSpecialTest, LargeReductionsMatchTheReference) {
  struct Large {
    std::vector<int64_t> shape, dims;
    Layout layout;
  };
  const Large cases[] = {{{3, 300000}, {1}, Layout::kContiguous},
                         {{3, 300000}, {1}, Layout::kTransposed},
                         {{300000, 3}, {0}, Layout::kContiguous},
                         {{512, 1024}, {0}, Layout::kContiguous},
                         {{512, 1024}, {1}, Layout::kPadded},
                         {{64, 64, 64}, {0, 2}, Layout::kTransposed}};
  for (const Large& c : cases) {
    SCOPED_TRACE(ShapeString(c.shape) + " dims " + ShapeString(c.dims) + " " +
                 LayoutName(c.layout));
    const TestTensor x = TestTensor::Random(c.shape, 5, c.layout);
    std::vector<bool> reduce;
    const std::vector<int64_t> out_shape =
        ReducedShape(c.shape, c.dims, false, &reduce);
    for (std::string_view op : {"sum", "max"}) {
      TestTensor out = TestTensor::Make(out_shape);
      ASSERT_TRUE(
          Run(op, {x.view()}, out.view(), {IntsAttr(c.dims), BoolAttr(false)})
              .ok());
      int64_t count = 0;
      const std::vector<double> want =
          Reference(op, x, reduce, out.numel(), &count);
      int64_t flat = 0;
      ForEachIndex(out_shape, [&](std::span<const int64_t> i) {
        const double w = want[flat++];
        ASSERT_TRUE(Near(out.at(i), w, 1e-5, std::max(std::fabs(w), 1e-3)))
            << op;
      });
    }
  }
}

TEST_F(ReduceSpecialTest, NaNPropagatesLikeNumPy) {
  // Row 0 has a NaN inside the vector loop's range, row 1 in its tail,
  // row 2 none.
  const int64_t n = 200;
  TypedTensor x = TypedTensor::Random(SY_DTYPE_F32, {3, n}, 9);
  const int64_t at0[] = {0, 70}, at1[] = {1, n - 1};
  x.Set(at0, kNaN);
  x.Set(at1, kNaN);
  for (std::string_view op : {"sum", "mean", "max", "min"}) {
    SCOPED_TRACE(op);
    TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, {3});
    ASSERT_TRUE(RunTyped(op, x, out, {1}).ok());
    const std::vector<double> got = out.Values();
    EXPECT_TRUE(std::isnan(got[0]));
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_FALSE(std::isnan(got[2]));
    // Over dim 0: only columns 70 and n-1 see a NaN.
    TypedTensor cols = TypedTensor::Make(SY_DTYPE_F32, {n});
    ASSERT_TRUE(RunTyped(op, x, cols, {0}).ok());
    const std::vector<double> c = cols.Values();
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(std::isnan(c[j]), j == 70 || j == n - 1) << j;
    }
  }
}

TEST_F(ReduceSpecialTest, IntegerSumsWidenToI64AndWrap) {
  for (sy_dtype_t dtype : {SY_DTYPE_I8, SY_DTYPE_U8, SY_DTYPE_I32}) {
    SCOPED_TRACE(plugin::DtypeName(dtype));
    const double lo = dtype == SY_DTYPE_U8 ? 0 : -128;
    const TypedTensor x =
        TypedTensor::Random(dtype, {4, 300}, 3, Layout::kPadded, lo, 256 + lo);
    TypedTensor out = TypedTensor::Make(SY_DTYPE_I64, {4});
    ASSERT_TRUE(RunTyped("sum", x, out, {-1}).ok());
    const std::vector<double> v = x.Values();
    for (int64_t r = 0; r < 4; ++r) {
      int64_t want = 0;
      for (int64_t j = 0; j < 300; ++j)
        want += static_cast<int64_t>(v[r * 300 + j]);
      EXPECT_EQ(out.GetI64({&r, 1}), want);
    }
  }
  // i64 wraps modulo 2^64 (as NumPy), without undefined behaviour.
  TypedTensor x = TypedTensor::Make(SY_DTYPE_I64, {3});
  for (int64_t i = 0; i < 3; ++i) {
    x.SetI64({&i, 1}, i == 0 ? std::numeric_limits<int64_t>::max() : 1);
  }
  TypedTensor out = TypedTensor::Make(SY_DTYPE_I64, {});
  ASSERT_TRUE(RunTyped("sum", x, out, {}).ok());
  EXPECT_EQ(out.GetI64({}), std::numeric_limits<int64_t>::min() + 1);
}

TEST_F(ReduceSpecialTest, IntegerMaxMinAreExact) {
  const TypedTensor x = TypedTensor::Random(SY_DTYPE_I64, {5, 100}, 4,
                                            Layout::kTransposed, -1e6, 1e6);
  const std::vector<double> v = x.Values();
  for (std::string_view op : {"max", "min"}) {
    TypedTensor out = TypedTensor::Make(SY_DTYPE_I64, {5, 1});
    ASSERT_TRUE(RunTyped(op, x, out, {1}, /*keepdim=*/true).ok());
    for (int64_t r = 0; r < 5; ++r) {
      double want = v[r * 100];
      for (int64_t j = 0; j < 100; ++j) {
        want = op == "max" ? std::max(want, v[r * 100 + j])
                           : std::min(want, v[r * 100 + j]);
      }
      const int64_t at[] = {r, 0};
      EXPECT_EQ(out.Get(at), want) << op;
    }
  }
}

// bool tensors may hold bytes other than 0 and 1: they count as true.
TEST_F(ReduceSpecialTest, BoolCountsNonzeroBytes) {
  TypedTensor x = TypedTensor::Make(SY_DTYPE_BOOL, {2, 3});
  const uint8_t bytes[2][3] = {{0, 2, 255}, {1, 7, 1}};
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      const int64_t at[] = {r, c};
      x.SetByte(at, bytes[r][c]);
    }
  }
  TypedTensor sum = TypedTensor::Make(SY_DTYPE_I64, {2});
  ASSERT_TRUE(RunTyped("sum", x, sum, {1}).ok());
  EXPECT_EQ(sum.Values(), (std::vector<double>{2, 3}));
  TypedTensor any = TypedTensor::Make(SY_DTYPE_BOOL, {3});
  ASSERT_TRUE(RunTyped("max", x, any, {0}).ok());
  EXPECT_EQ(any.Values(), (std::vector<double>{1, 1, 1}));
  TypedTensor all = TypedTensor::Make(SY_DTYPE_BOOL, {2});
  ASSERT_TRUE(RunTyped("min", x, all, {1}).ok());
  EXPECT_EQ(all.Values(), (std::vector<double>{0, 1}));
}

// f16/bf16 compute in float (sums in double) and round once; f64 keeps
// double precision.
TEST_F(ReduceSpecialTest, HalfPrecisionAndDoubleResults) {
  struct Typed {
    sy_dtype_t dtype;
    double tolerance;  // half an ulp of the result type, relative
  };
  for (const Typed t :
       {Typed{SY_DTYPE_F16, 0.5 / 1024}, Typed{SY_DTYPE_BF16, 0.5 / 128},
        Typed{SY_DTYPE_F64, 1e-14}}) {
    SCOPED_TRACE(plugin::DtypeName(t.dtype));
    const TypedTensor x =
        TypedTensor::Random(t.dtype, {6, 500}, 8, Layout::kTransposed, 0, 1);
    const std::vector<double> v = x.Values();
    for (std::string_view op : {"sum", "mean", "max"}) {
      TypedTensor out = TypedTensor::Make(t.dtype, {6});
      ASSERT_TRUE(RunTyped(op, x, out, {1}).ok()) << op;
      for (int64_t r = 0; r < 6; ++r) {
        double sum = 0, max = 0;
        for (int64_t j = 0; j < 500; ++j) {
          sum += v[r * 500 + j];
          max = std::max(max, v[r * 500 + j]);
        }
        const double want = op == "sum" ? sum : op == "mean" ? sum / 500 : max;
        EXPECT_TRUE(Near(out.Get({&r, 1}), want, op == "max" ? 0 : t.tolerance))
            << op << " row " << r;
      }
    }
  }
}

// ---- argmax ---------------------------------------------------------------

struct ArgmaxCase {
  std::vector<int64_t> shape;
  bool has_dim;
  int64_t dim;
};

class ArgmaxTest : public CpuPluginTest,
                   public ::testing::WithParamInterface<
                       std::tuple<ArgmaxCase, bool, Layout>> {};

// Values drawn from {0, 1, 2, 3} so ties are common: the first index wins.
TEST_P(ArgmaxTest, MatchesReferenceWithTies) {
  const auto& [c, keepdim, layout] = GetParam();
  TypedTensor x = TypedTensor::Random(SY_DTYPE_F32, c.shape, 21, layout, 0, 4);
  {
    std::vector<double> v = x.Values();
    size_t k = 0;
    ForEachIndex(c.shape, [&](std::span<const int64_t> i) {
      x.Set(i, std::floor(v[k++]));
    });
  }
  const int rank = static_cast<int>(c.shape.size());
  std::vector<bool> reduce;
  std::vector<int64_t> dims;
  if (c.has_dim && rank > 0) dims.push_back(c.dim);
  std::vector<int64_t> out_shape = ReducedShape(
      c.shape, c.has_dim ? dims : std::vector<int64_t>{}, keepdim, &reduce);
  if (c.has_dim && rank == 0) out_shape = {};
  TypedTensor out = TypedTensor::Make(SY_DTYPE_I64, out_shape);
  const sy_attr_t attrs[] = {c.has_dim ? IntAttr(c.dim) : NoneAttr(),
                             BoolAttr(keepdim)};
  const sy_tensor_view_t in = x.view(), o = out.view();
  const Status status = RunKernel(*host_->FindKernel("argmax"), {&in, 1},
                                  {&o, 1}, attrs, stream_);
  ASSERT_TRUE(status.ok()) << status.message;
  // Reference: scan in row-major order; the flat index over reduced dims.
  const int64_t outputs = static_cast<int64_t>(out.Values().size());
  std::vector<double> best(outputs, -1);
  std::vector<int64_t> index(outputs, 0), seen(outputs, 0);
  ForEachIndex(c.shape, [&](std::span<const int64_t> i) {
    int64_t flat = 0;
    for (size_t d = 0; d < i.size(); ++d) {
      if (!reduce[d]) flat = flat * c.shape[d] + i[d];
    }
    const double v = x.Get(i);
    if (v > best[flat]) {
      best[flat] = v;
      index[flat] = seen[flat];
    }
    ++seen[flat];
  });
  int64_t flat = 0;
  ForEachIndex(out_shape, [&](std::span<const int64_t> i) {
    EXPECT_EQ(out.GetI64(i), index[flat++]) << ShapeString(i);
  });
  EXPECT_TRUE(out.Untouched());
}

const ArgmaxCase kArgmaxCases[] = {
    {{}, false, 0},       {{}, true, -1},       {{7}, false, 0},
    {{7}, true, 0},       {{3, 5}, false, 0},   {{3, 5}, true, 0},
    {{3, 5}, true, -1},   {{2, 3, 4}, true, 1}, {{2, 3, 4}, false, 0},
    {{100, 70}, true, 0}, {{100, 70}, true, 1}, {{40000}, false, 0},
};

std::string ArgmaxName(
    const ::testing::TestParamInfo<ArgmaxTest::ParamType>& p) {
  const auto& [c, keepdim, layout] = p.param;
  std::string name = "x";
  for (int64_t d : c.shape) name += std::to_string(d) + "_";
  name += c.has_dim ? "dim" + std::string(c.dim < 0 ? "m" : "") +
                          std::to_string(std::abs(c.dim))
                    : "none";
  return name + (keepdim ? "_keep_" : "_") + LayoutName(layout);
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, ArgmaxTest,
    ::testing::Combine(::testing::ValuesIn(kArgmaxCases), ::testing::Bool(),
                       ::testing::Values(Layout::kContiguous,
                                         Layout::kTransposed, Layout::kPadded)),
    ArgmaxName);

TEST_F(ReduceSpecialTest, ArgmaxReturnsTheFirstNaNAndFirstTrue) {
  TypedTensor x = TypedTensor::Random(SY_DTYPE_F32, {2, 300}, 2);
  const int64_t a[] = {0, 150}, b[] = {0, 200}, big[] = {1, 10};
  x.Set(a, kNaN);
  x.Set(b, kNaN);
  x.Set(big, 5.0);
  TypedTensor out = TypedTensor::Make(SY_DTYPE_I64, {2});
  const sy_attr_t attrs[] = {IntAttr(1), BoolAttr(false)};
  const sy_dtype_t f32[] = {SY_DTYPE_F32};
  sy_tensor_view_t in = x.view(), o = out.view();
  ASSERT_TRUE(RunKernel(*host_->FindKernel("argmax", f32), {&in, 1}, {&o, 1},
                        attrs, stream_)
                  .ok());
  EXPECT_EQ(out.Values(), (std::vector<double>{150, 10}));
  // Flattened: the first NaN overall.
  TypedTensor all = TypedTensor::Make(SY_DTYPE_I64, {});
  o = all.view();
  const sy_attr_t none[] = {NoneAttr(), BoolAttr(false)};
  ASSERT_TRUE(RunKernel(*host_->FindKernel("argmax", f32), {&in, 1}, {&o, 1},
                        none, stream_)
                  .ok());
  EXPECT_EQ(all.GetI64({}), 150);

  TypedTensor flags = TypedTensor::Make(SY_DTYPE_BOOL, {4});
  const uint8_t bytes[] = {0, 7, 1, 255};
  for (int64_t i = 0; i < 4; ++i) flags.SetByte({&i, 1}, bytes[i]);
  const sy_dtype_t boolean[] = {SY_DTYPE_BOOL};
  in = flags.view();
  o = all.view();
  ASSERT_TRUE(RunKernel(*host_->FindKernel("argmax", boolean), {&in, 1},
                        {&o, 1}, none, stream_)
                  .ok());
  EXPECT_EQ(all.GetI64({}), 1);
}

// ---- Bad calls --------------------------------------------------------------

using ReduceErrorTest = CpuPluginTest;

TEST_F(ReduceErrorTest, RejectsBadDims) {
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
      Run("mean", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(false)});
  EXPECT_EQ(status.message,
            "cpu plugin: mean: attribute 'dims' = [1, -1] names dim 1 more "
            "than once; name each dim once");
  sy_attr_t broken = IntsAttr(dims);
  broken.value.ints.data = nullptr;
  status = Run("max", {x.view()}, out.view(), {broken, BoolAttr(false)});
  EXPECT_EQ(status.message,
            "cpu plugin: max: attribute 'dims' has size 2 and data (nil); pass "
            "a size >= 0 and its values");
}

TEST_F(ReduceErrorTest, RejectsAttributesOfTheWrongKind) {
  const TestTensor x = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({});
  Status status =
      Run("sum", {x.view()}, out.view(), {BoolAttr(true), BoolAttr(false)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: attribute 'dims' is a bool (kind 3) but sum "
            "takes an int list (kind 4); the call does not match sum's "
            "schema");
  status = Run("sum", {x.view()}, out.view(), {IntsAttr({})});
  EXPECT_EQ(status.message,
            "cpu plugin: sum: expects 2 attributes but the call has 1; the "
            "call does not match the op's schema");
  TypedTensor index = TypedTensor::Make(SY_DTYPE_I64, {});
  status =
      Run("argmax", {x.view()}, index.view(), {IntsAttr({}), BoolAttr(false)});
  EXPECT_EQ(status.message,
            "cpu plugin: argmax: attribute 'dim' is an int list (kind 4) but "
            "argmax takes an int (kind 1); the call does not match argmax's "
            "schema");
}

TEST_F(ReduceErrorTest, RejectsAWrongOutputShapeOrDtype) {
  const TestTensor x = TestTensor::Random({2, 3}, 1);
  TestTensor out = TestTensor::Make({3});
  const std::vector<int64_t> dims = {1};
  Status status =
      Run("sum", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(true)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: output has shape [3] but sum of input 'x' "
            "(shape [2, 3]) over dims [1] with keepdim=true has shape [2, 1]; "
            "allocate the output from sum's shape function");
  EXPECT_TRUE(out.OutsideUntouched());
  // An integer sum's output is i64.
  const TypedTensor xi = TypedTensor::Random(SY_DTYPE_I32, {2, 3}, 1);
  TypedTensor wrong = TypedTensor::Make(SY_DTYPE_I32, {2});
  const sy_dtype_t i32[] = {SY_DTYPE_I32};
  const sy_tensor_view_t in = xi.view(), o = wrong.view();
  const sy_attr_t attrs[] = {IntsAttr(dims), BoolAttr(false)};
  status = RunKernel(*host_->FindKernel("sum", i32), {&in, 1}, {&o, 1}, attrs,
                     stream_);
  EXPECT_EQ(status.message,
            "cpu plugin: sum: output has dtype i32 but this kernel was "
            "registered for i64; the call does not match the kernel's key");
}

TEST_F(ReduceErrorTest, RejectsMaxAndArgmaxOverAnEmptyDim) {
  const TestTensor x = TestTensor::Make({2, 0});
  TestTensor out = TestTensor::Make({2});
  const std::vector<int64_t> dims = {-1};
  Status status =
      Run("min", {x.view()}, out.view(), {IntsAttr(dims), BoolAttr(false)});
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: min: input 'x' has shape [2, 0], and min over dim 1 "
            "of size 0 has no result; reduce over non-empty dims only");
  TypedTensor index = TypedTensor::Make(SY_DTYPE_I64, {});
  const sy_tensor_view_t in = x.view(), o = index.view();
  const sy_attr_t attrs[] = {NoneAttr(), BoolAttr(false)};
  status = RunKernel(*host_->FindKernel("argmax"), {&in, 1}, {&o, 1}, attrs,
                     stream_);
  EXPECT_EQ(status.message,
            "cpu plugin: argmax: input 'x' has shape [2, 0], and argmax over "
            "dim 1 of size 0 has no result; reduce over non-empty dims only");
  // A sum over nothing is 0 and a mean NaN.
  TestTensor sum = TestTensor::Make({2});
  ASSERT_TRUE(
      Run("sum", {x.view()}, sum.view(), {IntsAttr(dims), BoolAttr(false)})
          .ok());
  EXPECT_EQ(sum.at(std::vector<int64_t>{1}), 0.0f);
  ASSERT_TRUE(
      Run("mean", {x.view()}, sum.view(), {IntsAttr(dims), BoolAttr(false)})
          .ok());
  EXPECT_TRUE(std::isnan(sum.at(std::vector<int64_t>{1})));
}

}  // namespace
}  // namespace sy::testing
