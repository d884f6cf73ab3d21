// softmax, log_softmax, layer_norm and rms_norm through the ABI: shapes,
// dims and layouts against a float64 reference, numerical stability (large
// and very negative inputs), NaN rows, f16/bf16/f64, optional weight and
// bias, rows large enough to run in parallel, and bad calls.
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

// Row-major values of `shape`, seen as [outer, len, inner] around `dim`.
struct Rows {
  int64_t outer = 1, len = 1, inner = 1;
  Rows(const std::vector<int64_t>& shape, int dim) {
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      (d < dim ? outer : d == dim ? len : inner) *= shape[d];
    }
  }
  int64_t at(int64_t o, int64_t r, int64_t i) const {
    return (o * len + r) * inner + i;
  }
};

std::vector<double> SoftmaxReference(const std::vector<double>& x,
                                     const std::vector<int64_t>& shape, int dim,
                                     bool log) {
  const Rows rows(shape, shape.empty() ? 0 : dim);
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < rows.outer; ++o) {
    for (int64_t i = 0; i < rows.inner; ++i) {
      double max = -INFINITY, sum = 0;
      for (int64_t r = 0; r < rows.len; ++r)
        max = std::max(max, x[rows.at(o, r, i)]);
      for (int64_t r = 0; r < rows.len; ++r)
        sum += std::exp(x[rows.at(o, r, i)] - max);
      for (int64_t r = 0; r < rows.len; ++r) {
        const double v = x[rows.at(o, r, i)] - max;
        y[rows.at(o, r, i)] = log ? v - std::log(sum) : std::exp(v) / sum;
      }
    }
  }
  return y;
}

// layer_norm (rms = false) or rms_norm over the last `k` dims; w and b
// optional (empty).
std::vector<double> NormReference(const std::vector<double>& x, int64_t row,
                                  const std::vector<double>& w,
                                  const std::vector<double>& b, double eps,
                                  bool rms) {
  std::vector<double> y(x.size());
  for (size_t base = 0; base < x.size(); base += row) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < row; ++j) mean += x[base + j];
    mean = rms ? 0 : mean / row;
    for (int64_t j = 0; j < row; ++j)
      var += (x[base + j] - mean) * (x[base + j] - mean);
    const double rstd = 1 / std::sqrt(var / row + eps);
    for (int64_t j = 0; j < row; ++j) {
      double v = (x[base + j] - mean) * rstd;
      if (!w.empty()) v *= w[j];
      if (!b.empty()) v += b[j];
      y[base + j] = v;
    }
  }
  return y;
}

class NormTest : public CpuPluginTest {
 protected:
  // Calls the kernel registered for (op, key) with grouped inputs.
  Status Call(std::string_view op, std::vector<sy_dtype_t> key,
              const std::vector<const TypedTensor*>& inputs,
              const std::vector<int32_t>& offsets, const TypedTensor& out,
              const std::vector<sy_attr_t>& attrs) {
    const RegisteredKernel* kernel = host_->FindKernel(op, key);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    std::vector<sy_tensor_view_t> views;
    for (const TypedTensor* t : inputs) views.push_back(t->view());
    return RunCall(*kernel, views, offsets, out.view(), attrs, stream_);
  }
  Status Softmax(bool log, const TypedTensor& x, const TypedTensor& out,
                 int64_t dim) {
    return Call(log ? "log_softmax" : "softmax", {x.dtype()}, {&x}, {0, 1}, out,
                {IntAttr(dim)});
  }
};

// Relative error against `want`, with an absolute floor of `floor`.
::testing::AssertionResult Close(double got, double want, double rel,
                                 double floor = 0) {
  return Near(got, want, rel, std::max(std::fabs(want), floor));
}

struct SoftmaxCase {
  std::vector<int64_t> shape;
  int64_t dim;
};

class SoftmaxTest : public NormTest,
                    public ::testing::WithParamInterface<
                        std::tuple<SoftmaxCase, Layout, Layout>> {};

TEST_P(SoftmaxTest, MatchesFloat64Reference) {
  const auto& [c, in_layout, out_layout] = GetParam();
  const TypedTensor x =
      TypedTensor::Random(SY_DTYPE_F32, c.shape, 3, in_layout, -8, 8);
  const int rank = static_cast<int>(c.shape.size());
  const int dim =
      rank == 0 ? 0 : static_cast<int>(c.dim < 0 ? c.dim + rank : c.dim);
  for (bool log : {false, true}) {
    SCOPED_TRACE(log ? "log_softmax" : "softmax");
    TypedTensor out = TypedTensor::Make(SY_DTYPE_F32, c.shape, out_layout);
    const Status status = Softmax(log, x, out, c.dim);
    ASSERT_TRUE(status.ok()) << status.message;
    const std::vector<double> want =
        SoftmaxReference(x.Values(), c.shape, dim, log);
    const std::vector<double> got = out.Values();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(Close(got[i], want[i], 1e-5, log ? 1.0 : 0.0)) << i;
    }
    EXPECT_TRUE(out.Untouched());
  }
}

const SoftmaxCase kSoftmaxCases[] = {
    {{}, -1},       {{5}, 0},        {{3, 4}, -1},     {{3, 4}, 0},
    {{2, 3, 4}, 1}, {{0, 3}, 1},     {{3, 0}, 1},      {{2, 70}, 1},
    {{70, 33}, 0},  {{4, 1000}, -1}, {{5, 1, 17}, -2}, {{37, 3, 19}, 0},
};

std::string SoftmaxName(
    const ::testing::TestParamInfo<SoftmaxTest::ParamType>& p) {
  const auto& [c, in_layout, out_layout] = p.param;
  std::string name = "x";
  for (int64_t d : c.shape) name += std::to_string(d) + "_";
  name += "dim" + std::string(c.dim < 0 ? "m" : "") +
          std::to_string(std::abs(c.dim));
  return name + "_" + LayoutName(in_layout) + "_" + LayoutName(out_layout);
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, SoftmaxTest,
    ::testing::Combine(::testing::ValuesIn(kSoftmaxCases),
                       ::testing::Values(Layout::kContiguous,
                                         Layout::kTransposed, Layout::kPadded),
                       ::testing::Values(Layout::kContiguous, Layout::kPadded)),
    SoftmaxName);

TEST_F(NormTest, SoftmaxIsStableForLargeAndVeryNegativeInputs) {
  const TypedTensor x = TypedTensor::From(SY_DTYPE_F32, {2, 3},
                                          {1000, 1001, 1002, 0, -1000, -1e30});
  TypedTensor y = TypedTensor::Make(SY_DTYPE_F32, {2, 3});
  ASSERT_TRUE(Softmax(false, x, y, -1).ok());
  const std::vector<double> want =
      SoftmaxReference(x.Values(), {2, 3}, 1, false);
  std::vector<double> got = y.Values();
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(Close(got[i], want[i], 1e-6)) << i;
  // log_softmax keeps the exact offsets where exp underflows to 0.
  ASSERT_TRUE(Softmax(true, x, y, -1).ok());
  got = y.Values();
  EXPECT_TRUE(Close(got[0], -2.4076059644443806, 1e-6));
  EXPECT_EQ(got[3], 0.0);
  EXPECT_EQ(got[4], -1000.0);
  EXPECT_EQ(got[5], -1e30f);
}

TEST_F(NormTest, NaNRowsStayNaN) {
  TypedTensor x = TypedTensor::Random(SY_DTYPE_F32, {2, 100}, 4);
  const int64_t at[] = {0, 77};
  x.Set(at, kNaN);
  for (bool log : {false, true}) {
    TypedTensor y = TypedTensor::Make(SY_DTYPE_F32, {2, 100});
    ASSERT_TRUE(Softmax(log, x, y, 1).ok());
    const std::vector<double> got = y.Values();
    for (int j = 0; j < 200; ++j) EXPECT_EQ(std::isnan(got[j]), j < 100) << j;
  }
}

TEST_F(NormTest, SoftmaxInHalfPrecisionAndDouble) {
  struct Typed {
    sy_dtype_t dtype;
    double rel;
  };
  for (const Typed t :
       {Typed{SY_DTYPE_F16, 1.0 / 1024}, Typed{SY_DTYPE_BF16, 1.0 / 128},
        Typed{SY_DTYPE_F64, 1e-13}}) {
    SCOPED_TRACE(plugin::DtypeName(t.dtype));
    const TypedTensor x =
        TypedTensor::Random(t.dtype, {6, 50}, 5, Layout::kTransposed, -4, 4);
    for (int64_t dim : {0, 1}) {
      for (bool log : {false, true}) {
        TypedTensor y = TypedTensor::Make(t.dtype, {6, 50}, Layout::kPadded);
        ASSERT_TRUE(Softmax(log, x, y, dim).ok());
        const std::vector<double> want =
            SoftmaxReference(x.Values(), {6, 50}, static_cast<int>(dim), log);
        const std::vector<double> got = y.Values();
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_TRUE(Close(got[i], want[i], t.rel, log ? 1.0 : 0.0)) << i;
        }
      }
    }
  }
  // f16 inputs near its largest value do not overflow.
  const TypedTensor big = TypedTensor::From(SY_DTYPE_F16, {2}, {60000, 0});
  TypedTensor y = TypedTensor::Make(SY_DTYPE_F16, {2});
  ASSERT_TRUE(Softmax(false, big, y, 0).ok());
  EXPECT_EQ(y.Values(), (std::vector<double>{1, 0}));
}

// Rows split across threads, over the last dim (in place) and over dim 0
// (gathered in tiles).
TEST_F(NormTest, LargeSoftmaxMatchesTheReference) {
  const std::vector<int64_t> shape = {256, 2048};
  const TypedTensor x =
      TypedTensor::Random(SY_DTYPE_F32, shape, 6, Layout::kContiguous, -10, 10);
  for (int dim : {0, 1}) {
    TypedTensor y = TypedTensor::Make(SY_DTYPE_F32, shape);
    ASSERT_TRUE(Softmax(false, x, y, dim).ok());
    const std::vector<double> want =
        SoftmaxReference(x.Values(), shape, dim, false);
    const std::vector<double> got = y.Values();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(Close(got[i], want[i], 1e-5)) << i;
    }
  }
}

// ---- layer_norm and rms_norm ------------------------------------------------

struct LayerNormCase {
  std::vector<int64_t> shape;
  int k;  // trailing dims normalized
  bool weight, bias;
  Layout layout;
};

TEST_F(NormTest, LayerNormMatchesFloat64Reference) {
  const LayerNormCase cases[] = {
      {{3, 8}, 1, true, true, Layout::kContiguous},
      {{3, 8}, 1, false, false, Layout::kContiguous},
      {{3, 8}, 1, true, false, Layout::kTransposed},
      {{3, 8}, 1, false, true, Layout::kPadded},
      {{2, 3, 4}, 2, true, true, Layout::kTransposed},
      {{2, 3, 4}, 3, true, true, Layout::kPadded},
      {{5}, 1, true, true, Layout::kContiguous},
      {{0, 4}, 1, true, true, Layout::kContiguous},
      {{300, 1024}, 1, true, true, Layout::kContiguous},
  };
  for (const LayerNormCase& c : cases) {
    SCOPED_TRACE(ShapeString(c.shape) + " k=" + std::to_string(c.k) +
                 (c.weight ? " w" : "") + (c.bias ? " b" : "") + " " +
                 LayoutName(c.layout));
    const std::vector<int64_t> normalized(c.shape.end() - c.k, c.shape.end());
    int64_t row = 1;
    for (int64_t d : normalized) row *= d;
    const TypedTensor x =
        TypedTensor::Random(SY_DTYPE_F32, c.shape, 1, c.layout, -3, 5);
    const TypedTensor w =
        TypedTensor::Random(SY_DTYPE_F32, normalized, 2, Layout::kPadded);
    const TypedTensor b = TypedTensor::Random(SY_DTYPE_F32, normalized, 3);
    TypedTensor y = TypedTensor::Make(SY_DTYPE_F32, c.shape, c.layout);
    std::vector<const TypedTensor*> inputs = {&x};
    std::vector<int32_t> offsets = {0, 1};
    if (c.weight) inputs.push_back(&w);
    offsets.push_back(static_cast<int32_t>(inputs.size()));
    if (c.bias) inputs.push_back(&b);
    offsets.push_back(static_cast<int32_t>(inputs.size()));
    const std::vector<sy_dtype_t> key = {
        SY_DTYPE_F32, c.weight ? SY_DTYPE_F32 : SY_DTYPE_NONE,
        c.bias ? SY_DTYPE_F32 : SY_DTYPE_NONE};
    const Status status = Call("layer_norm", key, inputs, offsets, y,
                               {IntsAttr(normalized), FloatAttr(1e-5)});
    ASSERT_TRUE(status.ok()) << status.message;
    const std::vector<double> want = NormReference(
        x.Values(), row, c.weight ? w.Values() : std::vector<double>{},
        c.bias ? b.Values() : std::vector<double>{}, 1e-5, false);
    const std::vector<double> got = y.Values();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(Close(got[i], want[i], 1e-5, 1.0)) << i;
    }
    EXPECT_TRUE(y.Untouched());
  }
}

TEST_F(NormTest, RmsNormMatchesFloat64Reference) {
  struct Typed {
    sy_dtype_t x, w;
    double rel;
  };
  for (const Typed t : {Typed{SY_DTYPE_F32, SY_DTYPE_F32, 1e-5},
                        Typed{SY_DTYPE_F64, SY_DTYPE_F64, 1e-12},
                        Typed{SY_DTYPE_F16, SY_DTYPE_F16, 1.0 / 1024},
                        Typed{SY_DTYPE_BF16, SY_DTYPE_F32, 1.0 / 128}}) {
    for (Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
      SCOPED_TRACE(std::string(plugin::DtypeName(t.x)) + "/" +
                   std::string(plugin::DtypeName(t.w)) + " " +
                   LayoutName(layout));
      const std::vector<int64_t> shape = {37, 3, 96};
      const TypedTensor x = TypedTensor::Random(t.x, shape, 7, layout, -2, 2);
      const TypedTensor w = TypedTensor::Random(t.w, {96}, 8, Layout::kPadded);
      TypedTensor y = TypedTensor::Make(t.x, shape, Layout::kPadded);
      const Status status = Call("rms_norm", {t.x, t.w}, {&x, &w}, {0, 1, 2}, y,
                                 {FloatAttr(1e-3)});
      ASSERT_TRUE(status.ok()) << status.message;
      const std::vector<double> want =
          NormReference(x.Values(), 96, w.Values(), {}, 1e-3, true);
      const std::vector<double> got = y.Values();
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(Close(got[i], want[i], t.rel, 1.0)) << i;
      }
    }
  }
}

TEST_F(NormTest, LayerNormInHalfPrecisionWithFloatWeights) {
  const TypedTensor x =
      TypedTensor::Random(SY_DTYPE_F16, {4, 64}, 9, Layout::kContiguous, -2, 2);
  const TypedTensor w = TypedTensor::Random(SY_DTYPE_F32, {64}, 10);
  TypedTensor y = TypedTensor::Make(SY_DTYPE_F16, {4, 64});
  const std::vector<int64_t> normalized = {64};
  ASSERT_TRUE(Call("layer_norm", {SY_DTYPE_F16, SY_DTYPE_F32, SY_DTYPE_NONE},
                   {&x, &w}, {0, 1, 2, 2}, y,
                   {IntsAttr(normalized), FloatAttr(1e-5)})
                  .ok());
  const std::vector<double> want =
      NormReference(x.Values(), 64, w.Values(), {}, 1e-5, false);
  const std::vector<double> got = y.Values();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(Close(got[i], want[i], 1.0 / 1024, 1.0)) << i;
  }
}

// ---- Bad calls --------------------------------------------------------------

TEST_F(NormTest, RejectsBadCalls) {
  const TypedTensor x = TypedTensor::Random(SY_DTYPE_F32, {2, 3}, 1);
  TypedTensor y = TypedTensor::Make(SY_DTYPE_F32, {2, 3});
  Status status = Softmax(false, x, y, 2);
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: softmax: attribute 'dim' = 2 has dim 2, out of range "
            "for input 'x' of rank 2; dims must be in [-2, 1]");
  TypedTensor wrong = TypedTensor::Make(SY_DTYPE_F32, {3, 2});
  status = Softmax(true, x, wrong, -1);
  EXPECT_EQ(status.message,
            "cpu plugin: log_softmax: output has shape [3, 2] but log_softmax "
            "keeps the shape of input 'x', [2, 3]; allocate the output from "
            "log_softmax's shape function");

  const TypedTensor w = TypedTensor::Random(SY_DTYPE_F32, {2}, 2);
  const std::vector<int64_t> good = {3}, bad = {2};
  status = Call("layer_norm", {SY_DTYPE_F32, SY_DTYPE_NONE, SY_DTYPE_NONE},
                {&x}, {0, 1, 1, 1}, y, {IntsAttr(bad), FloatAttr(1e-5)});
  EXPECT_EQ(status.message,
            "cpu plugin: layer_norm: attribute 'normalized_shape' = [2] is not "
            "a non-empty list of the trailing dims of input 'x' (shape "
            "[2, 3]); pass e.g. [3]");
  status = Call("layer_norm", {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_NONE},
                {&x, &w}, {0, 1, 2, 2}, y, {IntsAttr(good), FloatAttr(1e-5)});
  EXPECT_EQ(status.message,
            "cpu plugin: layer_norm: input 'weight' has shape [2] but "
            "attribute 'normalized_shape' is [3]; pass one value per "
            "normalized element");
  status = Call("layer_norm", {SY_DTYPE_F32, SY_DTYPE_NONE, SY_DTYPE_NONE},
                {&x, &w}, {0, 1, 2, 2}, y, {IntsAttr(good), FloatAttr(1e-5)});
  EXPECT_EQ(status.message,
            "cpu plugin: layer_norm: expects 1 input tensors but the call has "
            "2; the call does not match the op's schema");
  status = Call("layer_norm", {SY_DTYPE_F32, SY_DTYPE_NONE, SY_DTYPE_F32},
                {&x, &w}, {0, 1, 2, 2}, y, {IntsAttr(good), FloatAttr(1e-5)});
  EXPECT_EQ(status.message,
            "cpu plugin: layer_norm: tensor argument 'weight' has 1 inputs but "
            "this kernel was registered with weight dtype none (0 inputs); the "
            "call does not match the kernel's key");
  status = Call("layer_norm", {SY_DTYPE_F32, SY_DTYPE_NONE, SY_DTYPE_NONE},
                {&x}, {0, 1, 1, 1}, y, {IntsAttr(good), FloatAttr(-1)});
  EXPECT_EQ(status.message,
            "cpu plugin: layer_norm: attribute 'eps' = -1 must be a finite "
            "number >= 0, such as 1e-05");

  status = Call("rms_norm", {SY_DTYPE_F32, SY_DTYPE_F32}, {&x, &w}, {0, 1, 2},
                y, {FloatAttr(1e-6)});
  EXPECT_EQ(status.message,
            "cpu plugin: rms_norm: input 'weight' has shape [2] but rms_norm "
            "scales each element of the last dim of input 'x' (shape [2, 3]), "
            "so it must be [3]; pass a 1-D weight of that size");
  const TypedTensor scalar = TypedTensor::Random(SY_DTYPE_F32, {}, 1);
  TypedTensor scalar_out = TypedTensor::Make(SY_DTYPE_F32, {});
  status = Call("rms_norm", {SY_DTYPE_F32, SY_DTYPE_F32}, {&scalar, &w},
                {0, 1, 2}, scalar_out, {FloatAttr(1e-6)});
  EXPECT_EQ(status.message,
            "cpu plugin: rms_norm: input 'x' is a scalar (rank 0), but "
            "rms_norm normalizes over the last dim; pass x with at least 1 "
            "dim");
  const TypedTensor half = TypedTensor::Random(SY_DTYPE_F16, {2, 3}, 1);
  status = Softmax(false, half, y, -1);  // f16 kernel, f32 output
  EXPECT_EQ(status.message,
            "cpu plugin: softmax: output has dtype f32 but this kernel was "
            "registered for f16; the call does not match the kernel's key");
}

}  // namespace
}  // namespace sy::testing
