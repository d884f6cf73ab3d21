// The plugin's fused ops (onednn::linear_relu, linear_gelu, matmul_add)
// against a float64 reference on random shapes and values, f32 and — where
// the CPU has native bf16 — bf16.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

std::vector<sy_dtype_t> Dtypes() {
  if (ExpectBf16Kernels()) return {SY_DTYPE_F32, SY_DTYPE_BF16};
  return {SY_DTYPE_F32};
}

// Leading dims of x: rank 1..3 in total.
std::vector<int64_t> RandomLeading(std::mt19937& gen) {
  std::uniform_int_distribution<int> rank(0, 2), dim(1, 6);
  std::vector<int64_t> lead;
  for (int i = rank(gen); i > 0; --i) lead.push_back(dim(gen));
  return lead;
}

TEST(OnednnFusedOps, LinearWithActivationMatchesReference) {
  std::mt19937 gen(Seed());
  std::uniform_int_distribution<int> size(1, 40);
  for (sy_dtype_t dtype : Dtypes()) {
    for (int iter = 0; iter < 24; ++iter) {
      const int64_t k = size(gen), n = size(gen);
      std::vector<int64_t> x_shape = RandomLeading(gen);
      x_shape.push_back(k);
      const HostTensor x = Random(gen, dtype, x_shape);
      const HostTensor w = Random(gen, dtype, {n, k});
      const HostTensor b = Random(gen, dtype, {n});
      const bool with_bias = iter % 2 == 0;
      const int act = iter % 3;  // relu, gelu erf, gelu tanh
      std::vector<double> scale;
      HostTensor want = RefLinear(x, w, with_bias ? &b : nullptr, &scale);
      for (double& v : want.values) {
        v = act == 0 ? std::max(v, 0.0) : Gelu(v, act == 2);
        v = RoundTo(dtype, v);
      }
      const char* op = act == 0 ? "onednn::linear_relu" : "onednn::linear_gelu";
      std::vector<Attr> attrs;
      if (act != 0) attrs.push_back(Attr(act == 2 ? "tanh" : "none"));
      const Tensor out = CallOne(op, {Upload(x), Upload(w), with_bias ? Upload(b) : Tensor()},
                                 attrs);
      const double tol = ContractionTol(dtype);
      ExpectNear(Download(out), want, scale, tol, 1e-6, tol,
                 std::string(op) + " x" + ::testing::PrintToString(x_shape) +
                     " n=" + std::to_string(n) + (with_bias ? " bias" : ""));
    }
  }
}

// matmul_add, and matmul_add_gelu (gelu of the same sum, tanh or erf),
// each rounded once.
TEST(OnednnFusedOps, MatmulAddBroadcastsC) {
  std::mt19937 gen(Seed() + 1);
  std::uniform_int_distribution<int> size(1, 24);
  for (sy_dtype_t dtype : Dtypes()) {
    for (int iter = 0; iter < 24; ++iter) {
      const int64_t m = size(gen), k = size(gen), n = size(gen);
      const int64_t batch = iter % 3 == 0 ? 1 + iter % 4 : 0;
      std::vector<int64_t> a_shape = {m, k}, b_shape = {k, n};
      if (batch > 0) a_shape.insert(a_shape.begin(), batch);
      // c: [n], [m, 1], [1], or the full result.
      std::vector<int64_t> c_shape;
      switch (iter % 4) {
        case 0: c_shape = {n}; break;
        case 1: c_shape = {m, 1}; break;
        case 2: c_shape = {1}; break;
        default: c_shape = a_shape; c_shape.back() = n; break;
      }
      const HostTensor a = Random(gen, dtype, a_shape);
      const HostTensor b = Random(gen, dtype, b_shape);
      const HostTensor c = Random(gen, dtype, c_shape);
      std::vector<double> scale;
      HostTensor want = RefMatmul(a, b, &scale);
      const int64_t total = want.numel();
      std::vector<double> sums(static_cast<size_t>(total));
      for (int64_t i = 0; i < total; ++i) {
        // Broadcast c by its trailing dims.
        int64_t rest = i, ci = 0, cstride = 1;
        for (size_t d = 0; d < want.shape.size(); ++d) {
          const size_t wd = want.shape.size() - 1 - d;
          const int64_t idx = rest % want.shape[wd];
          rest /= want.shape[wd];
          if (d < c.shape.size()) {
            const int64_t cd = c.shape[c.shape.size() - 1 - d];
            if (cd > 1) ci += idx * cstride;
            cstride *= cd;
          }
        }
        const double cv = c.values[static_cast<size_t>(ci)];
        sums[static_cast<size_t>(i)] = want.values[static_cast<size_t>(i)] + cv;
        want.values[static_cast<size_t>(i)] = RoundTo(dtype, sums[static_cast<size_t>(i)]);
        scale[static_cast<size_t>(i)] += std::abs(cv);
      }
      const Tensor out = CallOne("onednn::matmul_add", {Upload(a), Upload(b), Upload(c)});
      const double tol = ContractionTol(dtype);
      const std::string shapes = " a" + ::testing::PrintToString(a_shape) + " b" +
                                 ::testing::PrintToString(b_shape) + " c" +
                                 ::testing::PrintToString(c_shape);
      ExpectNear(Download(out), want, scale, tol, 1e-6, tol, "matmul_add" + shapes);
      const bool tanh = iter % 2 == 1;
      for (int64_t i = 0; i < total; ++i) {
        want.values[static_cast<size_t>(i)] =
            RoundTo(dtype, Gelu(sums[static_cast<size_t>(i)], tanh));
      }
      const Tensor gelu = CallOne("onednn::matmul_add_gelu", {Upload(a), Upload(b), Upload(c)},
                                  {Attr(tanh ? "tanh" : "none")});
      // gelu's slope is at most 1.13: the sum's error bound holds.
      ExpectNear(Download(gelu), want, scale, tol, 1e-6, tol,
                 std::string("matmul_add_gelu ") + (tanh ? "tanh" : "erf") + shapes);
    }
  }
}

TEST(OnednnFusedOps, FusedEqualsUnfusedChain) {
  // linear_gelu(x, w, b) against gelu(linear(x, w, b)) through the core ops:
  // the same up to one rounding of the intermediate.
  std::mt19937 gen(Seed() + 2);
  const HostTensor x = Random(gen, SY_DTYPE_F32, {5, 33});
  const HostTensor w = Random(gen, SY_DTYPE_F32, {17, 33});
  const HostTensor b = Random(gen, SY_DTYPE_F32, {17});
  const Tensor tx = Upload(x), tw = Upload(w), tb = Upload(b);
  const HostTensor fused = Download(CallOne("onednn::linear_gelu", {tx, tw, tb}));
  const HostTensor chain =
      Download(CallOne("gelu", {CallOne("linear", {tx, tw, tb})}, {Attr("none")}));
  ExpectNear(fused, chain, {}, 1e-5, 1e-5, 0, "linear_gelu vs gelu(linear)");
}

}  // namespace
}  // namespace sy::onednn_test
