// GEMMs on cuda:0 against a float64 reference on the host: matmul with
// batch broadcasting and transposed operands, linear with a bias, and the
// plugin's fused cuda::linear_gelu (bias and tanh-GELU in cuBLASLt's
// epilogue). Inputs are random; the check is the relative L2 error, with
// bounds for FP32 (no TF32) and for bf16 operands with f32 accumulation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda_test_env.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda_test {
namespace {

struct Matrix {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major, as rounded to the dtype
};

// Random values rounded to `dtype`, uploaded to cuda:0.
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
    return rt.FromHost(*Env().cuda, dtype, shape, v.data(), v.size() * 4).value();
  }
  std::vector<plugin::BFloat16> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    b[i] = plugin::BFloat16(v[i]);
    host->values[i] = static_cast<float>(b[i]);
  }
  return rt.FromHost(*Env().cuda, dtype, shape, b.data(), b.size() * 2).value();
}

std::vector<double> Download(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  Runtime& rt = *Env().runtime;
  if (t.dtype() == SY_DTYPE_F32) {
    std::vector<float> f(out.size());
    EXPECT_TRUE(rt.ToHost(t, f.data(), f.size() * 4).ok());
    for (size_t i = 0; i < f.size(); ++i) out[i] = f[i];
  } else {
    std::vector<plugin::BFloat16> b(out.size());
    EXPECT_TRUE(rt.ToHost(t, b.data(), b.size() * 2).ok());
    for (size_t i = 0; i < b.size(); ++i) out[i] = static_cast<float>(b[i]);
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

double Tolerance(sy_dtype_t dtype) { return dtype == SY_DTYPE_F32 ? 1e-6 : 1e-2; }

double GeluTanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

class CudaGemmTest : public ::testing::TestWithParam<sy_dtype_t> {
 protected:
  void SetUp() override { SY_SKIP_WITHOUT_CUDA(); }
};

// a [B, M, K] (batch broadcast from [1, M, K] when `broadcast`), b [K, N]
// given transposed (a view of [N, K]).
TEST_P(CudaGemmTest, MatmulBatchedBroadcastTransposed) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  const int64_t B = 3, M = 37, K = 129, N = 65;
  Matrix a, bt;
  Tensor ta = Upload(dtype, {B, M, K}, 11, &a);
  Tensor tbt = Upload(dtype, {N, K}, 12, &bt);
  Tensor tb = rt.Call(rt.FindOp("transpose").value(), {tbt}, {Attr(0), Attr(1)})
                  .value()[0];
  std::vector<Tensor> out = rt.Call(rt.FindOp("matmul").value(), {ta, tb}).value();
  ASSERT_EQ(out[0].ndim(), 3);
  std::vector<double> want(B * M * N, 0.0);
  for (int64_t z = 0; z < B; ++z)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          s += a.values[(z * M + i) * K + k] * bt.values[j * K + k];
        }
        want[(z * M + i) * N + j] = s;
      }
  EXPECT_LT(RelativeError(Download(out[0]), want), Tolerance(dtype));
}

// x [2, 5, in] · W[out, in]^T + bias, then the fused op with GELU.
TEST_P(CudaGemmTest, LinearAndFusedLinearGelu) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  const int64_t in = 96, features = 40;
  Matrix x, w, b;
  Tensor tx = Upload(dtype, {2, 5, in}, 21, &x);
  Tensor tw = Upload(dtype, {features, in}, 22, &w);
  Tensor tb = Upload(dtype, {features}, 23, &b);
  std::vector<double> linear(10 * features);
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t j = 0; j < features; ++j) {
      double s = b.values[j];
      for (int64_t k = 0; k < in; ++k) s += x.values[r * in + k] * w.values[j * in + k];
      linear[r * features + j] = s;
    }
  std::vector<double> gelu(linear.size());
  for (size_t i = 0; i < linear.size(); ++i) gelu[i] = GeluTanh(linear[i]);

  std::vector<Tensor> out =
      rt.Call(rt.FindOp("linear").value(), {tx, tw, tb}).value();
  EXPECT_LT(RelativeError(Download(out[0]), linear), Tolerance(dtype));
  absl::StatusOr<OpHandle> fused = rt.FindOp("cuda::linear_gelu");
  ASSERT_TRUE(fused.ok()) << fused.status();
  std::vector<Tensor> fout = rt.Call(*fused, {tx, tw, tb}).value();
  // cuBLASLt's GELU epilogue is the tanh form, evaluated in f32.
  EXPECT_LT(RelativeError(Download(fout[0]), gelu),
            dtype == SY_DTYPE_F32 ? 1e-5 : 1e-2);
  absl::StatusOr<std::string> how = rt.Explain(*fused, {tx, tw, tb});
  ASSERT_TRUE(how.ok());
  EXPECT_THAT(*how, ::testing::HasSubstr("cuda"));
}

TEST_P(CudaGemmTest, RefusesMismatchedInnerDims) {
  const sy_dtype_t dtype = GetParam();
  Runtime& rt = *Env().runtime;
  Matrix a, b;
  Tensor ta = Upload(dtype, {4, 5}, 31, &a);
  Tensor tb = Upload(dtype, {6, 3}, 32, &b);
  absl::StatusOr<std::vector<Tensor>> out =
      rt.Call(rt.FindOp("matmul").value(), {ta, tb});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaGemmTest,
                         ::testing::Values(SY_DTYPE_F32, SY_DTYPE_BF16),
                         [](const auto& info) {
                           return std::string(plugin::DtypeName(info.param));
                         });

}  // namespace
}  // namespace sy::cuda_test
