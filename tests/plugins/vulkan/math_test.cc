// The float kernels' transcendentals (shaders/math.glsl: range reduction
// and series in double) against libm's double functions on many inputs
// over wide ranges, to the core op set's f32 tolerance (rtol 1e-6 + atol
// 1e-6, docs/testing.md) — denser than the op harness's random cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

struct Case {
  const char* op;
  std::function<double(double)> ref;
  double lo, hi;  // |x| range, log-uniform; both signs unless positive
  bool positive;
  const char* approximate = nullptr;  // gelu's attribute
};

double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double GeluTanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

class VulkanMathTest : public ::testing::TestWithParam<Case> {};

TEST_P(VulkanMathTest, MatchesDoubleReference) {
  SY_SKIP_WITHOUT_VULKAN();
  const Case& c = GetParam();
  constexpr int kN = 1 << 16;
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> u(std::log(c.lo), std::log(c.hi));
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) {
    const double mag = std::exp(u(gen));
    x[i] = static_cast<float>(c.positive || (i & 1) ? mag : -mag);
  }
  Runtime& rt = *Env().runtime;
  Tensor t = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {kN}, x.data(), kN * 4).value();
  std::vector<Attr> attrs;
  if (c.approximate != nullptr) attrs.push_back(Attr(c.approximate));
  std::vector<Tensor> out = rt.Call(rt.FindOp(c.op).value(), {t}, attrs).value();
  std::vector<float> got(kN);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), kN * 4).ok());
  int bad = 0;
  for (int i = 0; i < kN && bad < 5; ++i) {
    const double want = static_cast<float>(c.ref(x[i]));
    const double allowed = 1e-6 + 1e-6 * std::fabs(want);
    if (std::isnan(want) ? !std::isnan(got[i])
                         : (std::isinf(want) ? got[i] != want
                                             : std::fabs(got[i] - want) > allowed)) {
      ADD_FAILURE() << c.op << "(" << x[i] << ") = " << got[i] << ", want " << want;
      ++bad;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Transcendentals, VulkanMathTest,
    ::testing::Values(
        Case{"exp", [](double v) { return std::exp(v); }, 1e-8, 100, false},
        Case{"log", [](double v) { return std::log(v); }, 1e-38, 1e38, true},
        Case{"sin", [](double v) { return std::sin(v); }, 1e-6, 1e4, false},
        Case{"cos", [](double v) { return std::cos(v); }, 1e-6, 1e4, false},
        Case{"tanh", [](double v) { return std::tanh(v); }, 1e-9, 30, false},
        Case{"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, 1e-6, 120, false},
        Case{"erf", [](double v) { return std::erf(v); }, 1e-9, 10, false},
        Case{"gelu", Gelu, 1e-6, 40, false, "none"},
        Case{"gelu", GeluTanh, 1e-6, 40, false, "tanh"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.op;
      if (info.param.approximate != nullptr) name += std::string("_") + info.param.approximate;
      return name;
    });

}  // namespace
}  // namespace sy::vulkan_test
