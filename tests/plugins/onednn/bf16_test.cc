// bf16 kernels (registered only with native bf16) within the op set's bf16
// tolerances of a float64 reference computed from the same bf16 inputs:
// contractions 2ε relative and of the L2 scale, normalizations 2ε relative
// with ε/16 absolute (ε = 2⁻⁷), as docs/testing.md.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

constexpr double kEps = 1.0 / 128;

class OnednnBf16 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ExpectBf16Kernels()) GTEST_SKIP() << "no native bf16 on this CPU";
  }
};

TEST_F(OnednnBf16, MatmulAndConv) {
  std::mt19937 gen(Seed() + 30);
  for (int iter = 0; iter < 6; ++iter) {
    const int64_t m = 3 + iter * 7, k = 5 + iter * 11, n = 4 + iter * 5;
    const HostTensor a = Random(gen, SY_DTYPE_BF16, {2, m, k});
    const HostTensor b = Random(gen, SY_DTYPE_BF16, {k, n});
    std::vector<double> scale;
    HostTensor want = RefMatmul(a, b, &scale);
    for (double& v : want.values) v = RoundTo(SY_DTYPE_BF16, v);
    const Tensor out = CallOne("matmul", {Upload(a), Upload(b)});
    EXPECT_NE(Explain("matmul", {Upload(a), Upload(b)}).find("onednn::"), std::string::npos);
    ExpectNear(Download(out), want, scale, 2 * kEps, 0, 2 * kEps,
               "bf16 matmul m=" + std::to_string(m) + " k=" + std::to_string(k));
  }
  const HostTensor x = Random(gen, SY_DTYPE_BF16, {1, 16, 12, 12});
  const HostTensor w = Random(gen, SY_DTYPE_BF16, {24, 16, 3, 3});
  const HostTensor bias = Random(gen, SY_DTYPE_BF16, {24});
  std::vector<double> scale;
  HostTensor want = RefConv2d(x, w, &bias, {1, 1}, {1, 1}, {1, 1}, 1, &scale);
  for (double& v : want.values) v = RoundTo(SY_DTYPE_BF16, v);
  const Tensor out = CallOne("conv2d", {Upload(x), Upload(w), Upload(bias)},
                             {Attr({1, 1}), Attr({1, 1})});
  ExpectNear(Download(out), want, scale, 2 * kEps, 0, 2 * kEps, "bf16 conv2d");
}

TEST_F(OnednnBf16, LayerNormWithF32AffineAndSoftmax) {
  std::mt19937 gen(Seed() + 31);
  const int64_t rows = 9, cols = 130;
  const HostTensor x = Random(gen, SY_DTYPE_BF16, {rows, cols}, -4, 4);
  const HostTensor w = Random(gen, SY_DTYPE_F32, {cols});
  const HostTensor b = Random(gen, SY_DTYPE_F32, {cols});
  HostTensor want = x, want_sm = x;
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0, mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) mean += x.values[static_cast<size_t>(r * cols + c)];
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c) {
      const double v = x.values[static_cast<size_t>(r * cols + c)];
      var += (v - mean) * (v - mean);
      mx = std::max(mx, v);
    }
    var /= cols;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x.values[static_cast<size_t>(r * cols + c)] - mx);
    for (int64_t c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(r * cols + c);
      want.values[i] = RoundTo(SY_DTYPE_BF16, (x.values[i] - mean) / std::sqrt(var + 1e-5) *
                                                  w.values[static_cast<size_t>(c)] +
                                              b.values[static_cast<size_t>(c)]);
      want_sm.values[i] = RoundTo(SY_DTYPE_BF16, std::exp(x.values[i] - mx) / sum);
    }
  }
  const int64_t shape[] = {cols};
  const Tensor tx = Upload(x), tw = Upload(w), tb = Upload(b);
  EXPECT_NE(Explain("layer_norm", {tx, tw, tb}, {Attr(absl::Span<const int64_t>(shape)), Attr(1e-5)})
                .find("onednn::layer_norm.bf16.f32.f32"),
            std::string::npos);
  ExpectNear(Download(CallOne("layer_norm", {tx, tw, tb},
                              {Attr(absl::Span<const int64_t>(shape)), Attr(1e-5)})),
             want, {}, 2 * kEps, kEps / 16, 0, "bf16 layer_norm, f32 weight/bias");
  ExpectNear(Download(CallOne("softmax", {tx}, {Attr(int64_t{-1})})), want_sm, {},
             2 * kEps, kEps / 16, 0, "bf16 softmax");
}

}  // namespace
}  // namespace sy::onednn_test
