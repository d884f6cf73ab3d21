// The row kernels' paths (shaders/norm.comp): rows of up to 8192 elements
// over one dim are read once into registers (16 bytes at a time where the
// row is f32, contiguous, aligned and a multiple of 4 long), longer rows
// take the multi-pass loop; f32 softmax and log_softmax rows longer than
// 4096 run 512 invocations a row (norm_sg_w512_f32) where the device allows
// (lavapipe does). softmax, log_softmax and rms_norm at 300 (a partial
// register row, vec4), 301 (partial, one element at a time), 4100 and
// 4101 (the same in 512-wide rows), 8192 (the last cached length) and 8193
// (the first uncached one), against a float64 reference. The reductions
// are the subgroup shuffles where the device has them; ctest runs the
// file a second time with SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 for the
// shared-memory ones. The op harness covers the other shapes (strided
// rows, several normalized dims, empty rows).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

// Row r of x (rows × n) normalized by `op`, in double.
std::vector<double> Reference(const std::string& op, const std::vector<float>& x,
                              const std::vector<float>& w, int64_t rows, int64_t n) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * n];
    double* y = &out[r * n];
    if (op == "rms_norm") {
      double q = 0;
      for (int64_t i = 0; i < n; ++i) q += double(row[i]) * row[i];
      const double inv = 1 / std::sqrt(q / n + 1e-6);
      for (int64_t i = 0; i < n; ++i) y[i] = row[i] * inv * w[i];
      continue;
    }
    double m = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, double(row[i]));
    for (int64_t i = 0; i < n; ++i) s += std::exp(row[i] - m);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = op == "softmax" ? std::exp(row[i] - m) / s : row[i] - m - std::log(s);
    }
  }
  return out;
}

TEST(VulkanNormRows, CachedAndUncachedRowsMatchFloat64) {
  SY_SKIP_WITHOUT_VULKAN();
  Runtime& rt = *Env().runtime;
  constexpr int64_t kRows = 3;
  for (int64_t n : {300, 301, 4100, 4101, 8192, 8193}) {
    const std::vector<float> x = RandomFloats(kRows * n, static_cast<uint32_t>(n), -8, 8);
    const std::vector<float> w = RandomFloats(n, static_cast<uint32_t>(n) + 1, 0.5f, 1.5f);
    const Tensor tx =
        rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {kRows, n}, x.data(), x.size() * 4).value();
    const Tensor tw = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {n}, w.data(), n * 4).value();
    for (const std::string op : {"softmax", "log_softmax", "rms_norm"}) {
      SCOPED_TRACE(op + " over rows of " + std::to_string(n));
      std::vector<Tensor> out =
          op == "rms_norm"
              ? rt.Call(rt.FindOp(op).value(), {tx, tw}, {Attr(1e-6)}).value()
              : rt.Call(rt.FindOp(op).value(), {tx}, {Attr(int64_t{-1})}).value();
      std::vector<float> got(x.size());
      ASSERT_TRUE(rt.ToHost(out[0], got.data(), got.size() * 4).ok());
      const std::vector<double> want = Reference(op, x, w, kRows, n);
      int bad = 0;
      double worst = 0;  // relative, where |want| > 1e-30
      for (size_t i = 0; i < got.size() && bad < 5; ++i) {
        // The op set's f32 normalization rtol (docs/testing.md); its atol
        // (1e-6) would pass most of these softmax values (~1e-6) whatever
        // they were, so 1e-10.
        // Written as !(… <= …) so that a NaN fails.
        if (!(std::fabs(got[i] - want[i]) <= 1e-5 * std::fabs(want[i]) + 1e-10)) {
          ADD_FAILURE() << "element " << i << ": " << got[i] << ", want " << want[i];
          ++bad;
        }
        if (std::fabs(want[i]) > 1e-30) {
          worst = std::max(worst, std::fabs(got[i] - want[i]) / std::fabs(want[i]));
        }
      }
      // docs/vulkan.md (Note [Row exps]) quotes these.
      std::printf("%s, rows of %lld: worst relative error %.2e\n", op.c_str(),
                  static_cast<long long>(n), worst);
    }
  }
}

// The conformance kit's short softmax rows (sdk/conformance/harness/
// op_specs_norm.cc): rows of 7 with logits up to ±80, and rows of 4 with
// -inf entries (masked: probability 0). On the H100's driver these were
// NaN when the subgroup reductions used subgroupAdd/subgroupMax
// (docs/vulkan.md, "Ten barriers per reduction"); ctest runs this file
// again with SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 (the shared-memory
// reduction), and device_run.sh's `math` step both ways.
TEST(VulkanNormRows, ShortRowsWithMaskedEntries) {
  SY_SKIP_WITHOUT_VULKAN();
  Runtime& rt = *Env().runtime;
  const float inf = INFINITY;
  struct Rows {
    int64_t rows, n;
    std::vector<float> x;
  };
  const std::vector<Rows> all = {
      {4, 7, RandomFloats(28, 7, -80, 80)},
      {3, 4, {-inf, 1, 2, 3, 0, 0, 0, 0, -inf, -inf, 5, 5}},
  };
  for (const Rows& r : all) {
    const Tensor tx = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {r.rows, r.n}, r.x.data(),
                                  r.x.size() * 4)
                          .value();
    for (const std::string op : {"softmax", "log_softmax"}) {
      SCOPED_TRACE(op + " over rows of " + std::to_string(r.n));
      std::vector<Tensor> out = rt.Call(rt.FindOp(op).value(), {tx}, {Attr(int64_t{-1})}).value();
      std::vector<float> got(r.x.size());
      ASSERT_TRUE(rt.ToHost(out[0], got.data(), got.size() * 4).ok());
      const std::vector<double> want = Reference(op, r.x, {}, r.rows, r.n);
      // log_softmax's largest value, x − max − log(s), cancels to ~1e-5
      // here: the kit's atol (1e-6) for it, 1e-10 for softmax (as above).
      const double atol = op == "log_softmax" ? 1e-6 : 1e-10;
      for (size_t i = 0; i < got.size(); ++i) {
        const bool ok = std::isinf(want[i])
                            ? got[i] == want[i]
                            : std::fabs(got[i] - want[i]) <= 1e-5 * std::fabs(want[i]) + atol;
        EXPECT_TRUE(ok) << "element " << i << ": " << got[i] << ", want " << want[i];
      }
    }
  }
}

}  // namespace
}  // namespace sy::vulkan_test
