// The rocm plugin's own GEMM (Note [ROCm GEMM]) on rocm:0 against a
// float64 reference on the host, for each dtype and each way of choosing
// the kernel: the device's default (MFMA on gfx90a, tiled elsewhere) and
// each variant forced as an autotune verdict would force it ("tiled",
// "mfma" — the latter falls back to tiled without matrix cores). Shapes
// cross the kernels' tile edges (64 and 128 in M and N, 16 in K); operands
// come transposed, batch-broadcast and strided; K = 0 gives zeros (plus the
// bias). Inputs are random; the check is the relative L2 error.
//
// Skips without an AMD GPU, i.e. everywhere so far (docs/rocm.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "dispatcher/registry/kernel_table.h"
#include "rocm_test_env.h"
#include "switchyard/plugin.hpp"

namespace sy::rocm_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly
namespace {

struct Matrix {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major, as rounded to the dtype
};

// Random values rounded to `dtype`, uploaded to rocm:0.
Tensor Upload(sy_dtype_t dtype, std::vector<int64_t> shape, uint32_t seed,
              Matrix* host) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const std::vector<float> v = RandomFloats(static_cast<size_t>(n), seed);
  host->shape = shape;
  host->values.resize(v.size());
  Runtime& rt = *Env().runtime;
  if (dtype == SY_DTYPE_F32) {
    for (size_t i = 0; i < v.size(); ++i) host->values[i] = v[i];
    return rt.FromHost(*Env().rocm, dtype, shape, v.data(), v.size() * 4).value();
  }
  std::vector<uint16_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == SY_DTYPE_F16) {
      bits[i] = plugin::Half::FromFloat(v[i]);
      host->values[i] = plugin::Half::ToFloat(bits[i]);
    } else {
      bits[i] = plugin::BFloat16::FromFloat(v[i]);
      host->values[i] = plugin::BFloat16::ToFloat(bits[i]);
    }
  }
  return rt.FromHost(*Env().rocm, dtype, shape, bits.data(), bits.size() * 2)
      .value();
}

std::vector<double> Download(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  Runtime& rt = *Env().runtime;
  if (t.dtype() == SY_DTYPE_F32) {
    std::vector<float> f(out.size());
    EXPECT_TRUE(rt.ToHost(t, f.data(), f.size() * 4).ok());
    for (size_t i = 0; i < f.size(); ++i) out[i] = f[i];
    return out;
  }
  std::vector<uint16_t> bits(out.size());
  EXPECT_TRUE(rt.ToHost(t, bits.data(), bits.size() * 2).ok());
  for (size_t i = 0; i < bits.size(); ++i) {
    out[i] = t.dtype() == SY_DTYPE_F16 ? plugin::Half::ToFloat(bits[i])
                                       : plugin::BFloat16::ToFloat(bits[i]);
  }
  return out;
}

double RelativeError(const std::vector<double>& got,
                     const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// FP32 accumulation throughout; 16-bit results are rounded once.
double Tolerance(sy_dtype_t dtype) { return dtype == SY_DTYPE_F32 ? 1e-6 : 1e-2; }

Tensor Transposed(const Tensor& t) {
  Runtime& rt = *Env().runtime;
  return rt.Call(rt.FindOp("transpose").value(), {t}, {Attr(0), Attr(1)})
      .value()[0];
}

// (dtype, variant): variant -1 is the plugin's own choice.
class RocmGemmTest
    : public ::testing::TestWithParam<std::tuple<sy_dtype_t, int>> {
 protected:
  void SetUp() override {
    SY_SKIP_WITHOUT_ROCM();
    dtype_ = std::get<0>(GetParam());
    const int variant = std::get<1>(GetParam());
    if (variant < 0) return;
    // As the autotuner's verdict: this kernel, this variant, every key.
    Runtime& rt = *Env().runtime;
    const uint16_t type = Env().rocm->type().id();
    const std::string dt(plugin::DtypeName(dtype_));
    const auto tune = [&](const char* op, const std::string& name,
                          std::vector<sy_dtype_t> dtypes) {
      OpDef* def = rt.FindOp(op).value().def();
      ASSERT_TRUE(rt.state()
                      .kernels
                      .SetTunedChoice(def, MakeDispatchKey(type, dtypes), std::nullopt,
                                      "rocm::" + name, variant)
                      .ok());
    };
    tune("matmul", "matmul." + dt + "." + dt, {dtype_, dtype_});
    tune("linear", "linear." + dt + "." + dt + "." + dt,
         {dtype_, dtype_, dtype_});
    tune("linear", "linear." + dt + "." + dt + ".none",
         {dtype_, dtype_, SY_DTYPE_NONE});
  }

  // C = A·B for row-major host matrices (batch of A broadcast when
  // a_batch is 1).
  static std::vector<double> Reference(const Matrix& a, int64_t a_batch,
                                       const std::vector<double>& b_kn,
                                       int64_t batch, int64_t m, int64_t k,
                                       int64_t n) {
    std::vector<double> c(batch * m * n, 0.0);
    for (int64_t z = 0; z < batch; ++z)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          const int64_t za = a_batch == 1 ? 0 : z;
          for (int64_t x = 0; x < k; ++x) {
            s += a.values[(za * m + i) * k + x] * b_kn[x * n + j];
          }
          c[(z * m + i) * n + j] = s;
        }
    return c;
  }

  sy_dtype_t dtype_ = SY_DTYPE_F32;
};

// a [1, M, K] broadcast over 3 batches of b; b given transposed (a view of
// [N, K], so its unit stride is along K).
TEST_P(RocmGemmTest, MatmulBroadcastBatchTransposedB) {
  Runtime& rt = *Env().runtime;
  const int64_t B = 3, M = 37, K = 129, N = 130;
  Matrix a, bt;
  Tensor ta = Upload(dtype_, {1, M, K}, 11, &a);
  Tensor tbt = Upload(dtype_, {B, N, K}, 12, &bt);
  Tensor tb = rt.Call(rt.FindOp("transpose").value(), {tbt}, {Attr(1), Attr(2)})
                  .value()[0];
  std::vector<Tensor> out = rt.Call(rt.FindOp("matmul").value(), {ta, tb}).value();
  ASSERT_EQ(out[0].ndim(), 3);
  std::vector<double> want;
  for (int64_t z = 0; z < B; ++z) {
    std::vector<double> b_kn(K * N);
    for (int64_t x = 0; x < K; ++x)
      for (int64_t j = 0; j < N; ++j) b_kn[x * N + j] = bt.values[(z * N + j) * K + x];
    const std::vector<double> c = Reference(a, 1, b_kn, 1, M, K, N);
    want.insert(want.end(), c.begin(), c.end());
  }
  EXPECT_LT(RelativeError(Download(out[0]), want), Tolerance(dtype_));
}

// A given transposed (column-major), past two MFMA tiles in M and N.
TEST_P(RocmGemmTest, MatmulColumnMajorAAcrossTiles) {
  const int64_t M = 257, K = 33, N = 131;
  Matrix at, b;
  Tensor tat = Upload(dtype_, {K, M}, 21, &at);
  Tensor tb = Upload(dtype_, {K, N}, 22, &b);
  Runtime& rt = *Env().runtime;
  std::vector<Tensor> out =
      rt.Call(rt.FindOp("matmul").value(), {Transposed(tat), tb}).value();
  Matrix a;
  a.values.resize(M * K);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t x = 0; x < K; ++x) a.values[i * K + x] = at.values[x * M + i];
  EXPECT_LT(RelativeError(Download(out[0]),
                          Reference(a, 1, b.values, 1, M, K, N)),
            Tolerance(dtype_));
}

// Vector operands: [K] · [K, N] and [M, K] · [K].
TEST_P(RocmGemmTest, MatmulWithVectors) {
  const int64_t M = 70, K = 50, N = 20;
  Matrix v, b, a, w;
  Tensor tv = Upload(dtype_, {K}, 31, &v);
  Tensor tb = Upload(dtype_, {K, N}, 32, &b);
  Tensor ta = Upload(dtype_, {M, K}, 33, &a);
  Tensor tw = Upload(dtype_, {K}, 34, &w);
  Runtime& rt = *Env().runtime;
  std::vector<Tensor> vb = rt.Call(rt.FindOp("matmul").value(), {tv, tb}).value();
  std::vector<Tensor> aw = rt.Call(rt.FindOp("matmul").value(), {ta, tw}).value();
  Matrix row{{1, K}, v.values};
  EXPECT_LT(RelativeError(Download(vb[0]), Reference(row, 1, b.values, 1, 1, K, N)),
            Tolerance(dtype_));
  EXPECT_LT(RelativeError(Download(aw[0]), Reference(a, 1, w.values, 1, M, K, 1)),
            Tolerance(dtype_));
}

// x [2, 5, in] · W[out, in]^T + bias, with the bias a strided view (every
// second element of a longer vector), and without a bias.
TEST_P(RocmGemmTest, LinearWithStridedBias) {
  Runtime& rt = *Env().runtime;
  const int64_t in = 96, features = 40;
  Matrix x, w, b2;
  Tensor tx = Upload(dtype_, {2, 5, in}, 41, &x);
  Tensor tw = Upload(dtype_, {features, in}, 42, &w);
  Tensor tb2 = Upload(dtype_, {2 * features}, 43, &b2);
  Tensor tb = rt.Call(rt.FindOp("slice").value(), {tb2},
                      {Attr(0), Attr(0), Attr(2 * features), Attr(2)})
                  .value()[0];
  std::vector<double> with_bias(10 * features), without(10 * features);
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t j = 0; j < features; ++j) {
      double s = 0;
      for (int64_t k = 0; k < in; ++k) s += x.values[r * in + k] * w.values[j * in + k];
      without[r * features + j] = s;
      with_bias[r * features + j] = s + b2.values[2 * j];
    }
  std::vector<Tensor> out = rt.Call(rt.FindOp("linear").value(), {tx, tw, tb}).value();
  EXPECT_LT(RelativeError(Download(out[0]), with_bias), Tolerance(dtype_));
  out = rt.Call(rt.FindOp("linear").value(), {tx, tw, Tensor()}).value();
  EXPECT_LT(RelativeError(Download(out[0]), without), Tolerance(dtype_));
  absl::StatusOr<std::string> how = rt.Explain(rt.FindOp("linear").value(), {tx, tw, tb});
  ASSERT_TRUE(how.ok()) << how.status();
  EXPECT_THAT(*how, ::testing::HasSubstr("rocm"));
}

// An inner dimension of 0: zeros, and the bias alone for linear.
TEST_P(RocmGemmTest, EmptyInnerDimension) {
  Runtime& rt = *Env().runtime;
  Matrix a, b, w, bias, x;
  Tensor ta = Upload(dtype_, {5, 0}, 51, &a);
  Tensor tb = Upload(dtype_, {0, 7}, 52, &b);
  std::vector<Tensor> out = rt.Call(rt.FindOp("matmul").value(), {ta, tb}).value();
  EXPECT_EQ(Download(out[0]), std::vector<double>(35, 0.0));
  Tensor tx = Upload(dtype_, {3, 0}, 53, &x);
  Tensor tw = Upload(dtype_, {4, 0}, 54, &w);
  Tensor tbias = Upload(dtype_, {4}, 55, &bias);
  out = rt.Call(rt.FindOp("linear").value(), {tx, tw, tbias}).value();
  std::vector<double> want;
  for (int r = 0; r < 3; ++r) want.insert(want.end(), bias.values.begin(), bias.values.end());
  EXPECT_EQ(Download(out[0]), want);
}

INSTANTIATE_TEST_SUITE_P(
    DtypesAndVariants, RocmGemmTest,
    ::testing::Combine(::testing::Values(SY_DTYPE_F32, SY_DTYPE_F16,
                                         SY_DTYPE_BF16),
                       ::testing::Values(-1, 0, 1)),
    [](const auto& info) {
      const int variant = std::get<1>(info.param);
      return std::string(plugin::DtypeName(std::get<0>(info.param))) + "_" +
             (variant < 0 ? "default" : variant == 0 ? "tiled" : "mfma");
    });

}  // namespace
}  // namespace sy::rocm_test
