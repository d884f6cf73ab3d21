// onednn kernels on non-contiguous inputs (transposed, sliced with an
// offset and a step, broadcast with stride 0) and a strided output,
// against float64 references on random values.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

enum class Layout { kContiguous, kTransposed, kStrided };

Tensor UploadAs(const HostTensor& t, Layout layout) {
  switch (layout) {
    case Layout::kTransposed: return UploadTransposed(t);
    case Layout::kStrided: return UploadStrided(t);
    default: return Upload(t);
  }
}

const char* Name(Layout l) {
  return l == Layout::kTransposed ? "transposed"
         : l == Layout::kStrided  ? "strided"
                                  : "contiguous";
}

std::vector<sy_dtype_t> Dtypes() {
  if (ExpectBf16Kernels()) return {SY_DTYPE_F32, SY_DTYPE_BF16};
  return {SY_DTYPE_F32};
}

constexpr Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposed,
                               Layout::kStrided};

TEST(OnednnLayouts, MatmulAndLinear) {
  std::mt19937 gen(Seed() + 10);
  for (sy_dtype_t dtype : Dtypes()) {
    for (Layout la : kLayouts) {
      for (Layout lb : kLayouts) {
        const HostTensor a = Random(gen, dtype, {3, 9, 13});
        const HostTensor b = Random(gen, dtype, {13, 11});
        std::vector<double> scale;
        HostTensor want = RefMatmul(a, b, &scale);
        for (double& v : want.values) v = RoundTo(dtype, v);
        const Tensor out = CallOne("matmul", {UploadAs(a, la), UploadAs(b, lb)});
        const double tol = ContractionTol(dtype);
        ExpectNear(Download(out), want, scale, tol, 0, tol,
                   std::string("matmul a ") + Name(la) + ", b " + Name(lb));

        const HostTensor x = Random(gen, dtype, {7, 19});
        const HostTensor w = Random(gen, dtype, {5, 19});
        const HostTensor bias = Random(gen, dtype, {5});
        HostTensor want_l = RefLinear(x, w, &bias, &scale);
        for (double& v : want_l.values) v = RoundTo(dtype, v);
        const Tensor out_l = CallOne(
            "linear", {UploadAs(x, la), UploadAs(w, lb), UploadAs(bias, lb)});
        ExpectNear(Download(out_l), want_l, scale, tol, 0, tol,
                   std::string("linear x ") + Name(la) + ", w/bias " + Name(lb));
      }
    }
  }
}

TEST(OnednnLayouts, MatmulIntoTransposedOutput) {
  std::mt19937 gen(Seed() + 11);
  const HostTensor a = Random(gen, SY_DTYPE_F32, {6, 10});
  const HostTensor b = Random(gen, SY_DTYPE_F32, {10, 4});
  std::vector<double> scale;
  const HostTensor want = RefMatmul(a, b, &scale);
  // A [6, 4] view over [4, 6] storage.
  const Tensor storage = Upload(Random(gen, SY_DTYPE_F32, {4, 6}));
  const Tensor out = CallOne("permute", {storage}, {Attr({1, 0})});
  const Tensor outputs[] = {out};
  const Tensor inputs[] = {Upload(a), Upload(b)};
  const absl::Status status =
      TestRuntime().CallOut(Op("matmul"), inputs, {}, outputs);
  ASSERT_TRUE(status.ok()) << status;
  ExpectNear(Download(out), want, scale, 1e-5, 0, 1e-5, "matmul into a transposed view");
}

TEST(OnednnLayouts, Conv2dGroupedDilated) {
  std::mt19937 gen(Seed() + 12);
  for (sy_dtype_t dtype : Dtypes()) {
    for (Layout lx : kLayouts) {
      const HostTensor x = Random(gen, dtype, {2, 4, 11, 10});
      const HostTensor w = Random(gen, dtype, {6, 2, 3, 3});
      const HostTensor b = Random(gen, dtype, {6});
      std::vector<double> scale;
      HostTensor want = RefConv2d(x, w, &b, {2, 1}, {1, 2}, {1, 2}, 2, &scale);
      for (double& v : want.values) v = RoundTo(dtype, v);
      const Tensor out = CallOne(
          "conv2d", {UploadAs(x, lx), UploadAs(w, Layout::kStrided), UploadAs(b, Layout::kStrided)},
          {Attr({2, 1}), Attr({1, 2}), Attr({1, 2}), Attr(int64_t{2})});
      const double tol = ContractionTol(dtype);
      ExpectNear(Download(out), want, scale, tol, 0, tol,
                 std::string("conv2d x ") + Name(lx));
    }
  }
}

TEST(OnednnLayouts, SoftmaxLayerNormSumBinary) {
  std::mt19937 gen(Seed() + 13);
  const int64_t rows = 6, cols = 23;
  for (Layout lx : kLayouts) {
    const HostTensor x = Random(gen, SY_DTYPE_F32, {rows, cols}, -8, 8);
    for (int64_t dim : {0, 1}) {
      HostTensor want = x;
      const int64_t outer = dim == 1 ? rows : cols, inner = dim == 1 ? cols : rows;
      for (int64_t o = 0; o < outer; ++o) {
        auto at = [&](int64_t i) -> size_t {
          return static_cast<size_t>(dim == 1 ? o * cols + i : i * cols + o);
        };
        double mx = -INFINITY, sum = 0;
        for (int64_t i = 0; i < inner; ++i) mx = std::max(mx, x.values[at(i)]);
        for (int64_t i = 0; i < inner; ++i) sum += std::exp(x.values[at(i)] - mx);
        for (int64_t i = 0; i < inner; ++i) {
          want.values[at(i)] = std::exp(x.values[at(i)] - mx) / sum;
        }
      }
      ExpectNear(Download(CallOne("softmax", {UploadAs(x, lx)}, {Attr(dim)})), want, {},
                 1e-5, 1e-6, 0, std::string("softmax dim ") + std::to_string(dim) + " " + Name(lx));
    }
    // layer_norm over the last dim, weight and bias strided.
    const HostTensor w = Random(gen, SY_DTYPE_F32, {cols});
    const HostTensor b = Random(gen, SY_DTYPE_F32, {cols});
    HostTensor want = x;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += x.values[static_cast<size_t>(r * cols + c)];
      mean /= cols;
      for (int64_t c = 0; c < cols; ++c) {
        const double d = x.values[static_cast<size_t>(r * cols + c)] - mean;
        var += d * d;
      }
      var /= cols;
      for (int64_t c = 0; c < cols; ++c) {
        const size_t i = static_cast<size_t>(r * cols + c);
        want.values[i] = (x.values[i] - mean) / std::sqrt(var + 1e-5) *
                             w.values[static_cast<size_t>(c)] + b.values[static_cast<size_t>(c)];
      }
    }
    ExpectNear(Download(CallOne("layer_norm",
                                {UploadAs(x, lx), UploadStrided(w), UploadStrided(b)},
                                {Attr({cols}), Attr(1e-5)})),
               want, {}, 1e-5, 1e-5, 0, std::string("layer_norm ") + Name(lx));
    // sum over dim 0, keepdim.
    HostTensor want_sum{SY_DTYPE_F32, {1, cols}, std::vector<double>(cols, 0.0)};
    std::vector<double> scale(cols, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const double v = x.values[static_cast<size_t>(r * cols + c)];
        want_sum.values[static_cast<size_t>(c)] += v;
        scale[static_cast<size_t>(c)] += v * v;
      }
    }
    for (double& s : scale) s = std::sqrt(s);
    ExpectNear(Download(CallOne("sum", {UploadAs(x, lx)}, {Attr({0}), Attr(true)})),
               want_sum, scale, 1e-5, 0, 1e-5, std::string("sum ") + Name(lx));
    // sub with a broadcast (stride-0) first operand: [1, cols] expanded.
    const HostTensor row = Random(gen, SY_DTYPE_F32, {1, cols});
    const Tensor expanded = CallOne("expand", {Upload(row)}, {Attr({rows, cols})});
    HostTensor want_sub = x;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const size_t i = static_cast<size_t>(r * cols + c);
        want_sub.values[i] = RoundTo(SY_DTYPE_F32, row.values[static_cast<size_t>(c)] - x.values[i]);
      }
    }
    ExpectNear(Download(CallOne("sub.Tensor", {expanded, UploadAs(x, lx)})), want_sub, {},
               1e-6, 0, 0, std::string("sub broadcast - ") + Name(lx));
  }
}

}  // namespace
}  // namespace sy::onednn_test
