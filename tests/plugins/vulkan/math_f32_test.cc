// The f32 transcendentals (shaders/math_f32.glsl: exp log tanh sigmoid
// silu erf gelu, both forms) against float64 over a dense sweep of every
// f32 binade in the op's range, both signs, plus the values where each
// function changes method or saturates and the special values (±0, ±inf,
// NaN, subnormals, ±FLT_MAX), to the tolerance the op set promises for f32
// transcendentals (rtol 1e-6 + atol 1e-6, docs/testing.md). One call per
// op of 10–70 K elements; the worst error in ulps is printed and recorded
// (docs/vulkan.md, "Accuracy", quotes them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();

double Sigmoid(double x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}
double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
// x·sigmoid(2u) = ½x(1 + tanh u), without the cancellation for x < 0.
double GeluTanh(double x) {
  const double u = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
  return x * Sigmoid(2 * u);
}

struct Case {
  const char* op;
  const char* approximate;  // gelu's attribute, or nullptr
  std::function<double(double)> ref;
  int min_exp, max_exp;           // binades 2^min_exp … 2^max_exp swept
  std::vector<float> edges;       // method switches, thresholds
};

// One ulp of f32 at |y| (the subnormal spacing below 2^-126).
double Ulp(double y) {
  y = std::fabs(y);
  if (y < 0x1p-126) return 0x1p-149;
  return std::ldexp(1.0, std::ilogb(y) - 23);
}

std::vector<float> Inputs(const Case& c) {
  std::vector<float> x = {0.0f, -0.0f, kInf, -kInf, std::nanf(""), kDenormMin,
                          -kDenormMin, 0x1p-126f, -0x1p-126f, 1e-40f, -1e-40f,
                          kMax, -kMax};
  for (int e = c.min_exp; e <= c.max_exp; ++e) {
    for (int j = 0; j < 128; ++j) {
      const float v = std::ldexp(1.0f + j / 128.0f + 1.0f / 65536, e);
      x.push_back(v);
      x.push_back(-v);
    }
  }
  for (float v : c.edges) {
    // The edge and its neighbours, 8 f32 steps either way.
    float lo = v, hi = v;
    for (int i = 0; i < 8; ++i) {
      x.push_back(lo);
      x.push_back(hi);
      lo = std::nextafter(lo, -kInf);
      hi = std::nextafter(hi, kInf);
    }
  }
  return x;
}

class VulkanMathF32Test : public ::testing::TestWithParam<Case> {};

TEST_P(VulkanMathF32Test, MatchesFloat64WithinTheOpTolerance) {
  SY_SKIP_WITHOUT_VULKAN();
  const Case& c = GetParam();
  const std::vector<float> x = Inputs(c);
  const int64_t n = static_cast<int64_t>(x.size());
  Runtime& rt = *Env().runtime;
  Tensor t = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {n}, x.data(), n * 4).value();
  std::vector<Attr> attrs;
  if (c.approximate != nullptr) attrs.push_back(Attr(c.approximate));
  std::vector<Tensor> out = rt.Call(rt.FindOp(c.op).value(), {t}, attrs).value();
  std::vector<float> got(x.size());
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), n * 4).ok());
  int bad = 0;
  double worst_ulp = 0, worst_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = static_cast<float>(c.ref(x[i]));  // overflow → inf
    const double g = got[i];
    bool ok;
    if (std::isnan(want) || std::isnan(g)) {
      ok = std::isnan(want) && std::isnan(g);
    } else if (std::isinf(want) || std::isinf(g)) {
      ok = g == want;
    } else {
      ok = std::fabs(g - want) <= 1e-6 + 1e-6 * std::fabs(want);
      const double ulps = std::fabs(g - c.ref(x[i])) / Ulp(want);
      // In ulps only where no intermediate is subnormal: below, a product
      // with a subnormal factor (silu, gelu for x < −10) has fewer bits.
      if (std::fabs(want) >= 0x1p-100 && ulps > worst_ulp) {
        worst_ulp = ulps;
        worst_x = x[i];
      }
    }
    if (!ok && ++bad <= 5) {
      ADD_FAILURE() << c.op << "(" << x[i] << ") = " << g << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0) << "of " << x.size() << " inputs";
  std::printf("%s%s%s: %zu inputs, worst %.2f ulp at x = %.9g\n", c.op,
              c.approximate ? " " : "", c.approximate ? c.approximate : "", x.size(),
              worst_ulp, worst_x);
  RecordProperty("worst_ulp", std::to_string(worst_ulp));
}

INSTANTIATE_TEST_SUITE_P(
    Sweep, VulkanMathF32Test,
    ::testing::Values(
        // Overflow at 88.7228, subnormal results below −87.34, 0 below
        // −103.97, the clamp at −104 and 89; the reduction's k changes at
        // odd multiples of ln2/2.
        Case{"exp", nullptr, [](double v) { return std::exp(v); }, -30, 7,
             {88.7228394f, 88.72283f, -87.3365479f, -103.972076f, -103.2789f, 0.34657359f,
              -0.34657359f, 1.03972077f, -104.0f, 89.0f}},
        // Every binade (subnormals included), the √2 split, 1 ± ulps.
        Case{"log", nullptr,
             [](double v) { return v > 0 ? std::log(v) : (v == 0 ? -INFINITY : NAN); },
             -149, 127, {1.0f, 1.41421354f, 0.70710677f, 2.0f, 0.5f}},
        // Polynomial below 0.625, exp-based up to 9.0109, then ±1.
        Case{"tanh", nullptr, [](double v) { return std::tanh(v); }, -40, 5,
             {0.625f, -0.625f, 9.0109f, -9.0109f}},
        Case{"sigmoid", nullptr, Sigmoid, -30, 7, {-87.3365f, -103.97f, 88.72f, 16.6f}},
        Case{"silu", nullptr, [](double v) { return v * Sigmoid(v); }, -30, 7,
             {-87.3365f, -103.97f, 16.6f}},
        // Polynomial below 1, 1 − erfc up to 3.92, then ±1.
        Case{"erf", nullptr, [](double v) { return std::erf(v); }, -40, 3,
             {1.0f, -1.0f, 3.92f, -3.92f}},
        // x·½erfc(−x/√2), one path: Φ's underflow near −14.0, the clamp
        // at ±14.25, the sign switch at 0.
        Case{"gelu", "none", Gelu, -30, 7,
             {-14.0f, -14.2271f, 14.2271f, -14.25f, 14.25f, 0.0f}},
        Case{"gelu", "tanh", GeluTanh, -30, 7, {-10.0f, 10.0f}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.op;
      if (info.param.approximate != nullptr) name += std::string("_") + info.param.approximate;
      return name;
    });

}  // namespace
}  // namespace sy::vulkan_test
