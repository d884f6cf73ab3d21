// matmul on vulkan against a float64 reference, at shapes the op harness
// does not reach: f16 shapes that fit the cooperative-matrix kernel (taken
// on GPUs with VK_NV_cooperative_matrix; lavapipe runs the tiled kernel on
// the same shapes) — several 128×128 (and 128×256) tiles, batched with and
// without a broadcast operand, K a whole number of 32-steps, with a tail of
// 8, and only a tail — checking from the plugin's debug line which kernel ran;
// f16 shapes it must decline; and f32 with ragged edges.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dispatcher/base/log.h"
#include "switchyard/plugin.hpp"
#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

using ::sy::plugin::Half;

struct Shape {
  int64_t batch, m, k, n;
  bool broadcast_b;  // b has no batch dim
};

template <class T>
std::vector<T> Fill(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> v(n);
  for (auto& x : v) x = T(dist(gen));
  return v;
}

template <class T>
void CheckMatmul(sy_dtype_t dtype, const Shape& s, double rel) {
  Runtime& rt = *Env().runtime;
  const std::vector<T> a = Fill<T>(s.batch * s.m * s.k, 1);
  const std::vector<T> b = Fill<T>((s.broadcast_b ? 1 : s.batch) * s.k * s.n, 2);
  std::vector<int64_t> a_shape = {s.batch, s.m, s.k};
  std::vector<int64_t> b_shape = {s.k, s.n};
  if (!s.broadcast_b) b_shape.insert(b_shape.begin(), s.batch);
  Tensor ta = rt.FromHost(*Env().vulkan, dtype, a_shape, a.data(), a.size() * sizeof(T)).value();
  Tensor tb = rt.FromHost(*Env().vulkan, dtype, b_shape, b.data(), b.size() * sizeof(T)).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("matmul").value(), {ta, tb}).value();
  std::vector<T> got(s.batch * s.m * s.n);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), got.size() * sizeof(T)).ok());
  int bad = 0;
  for (int64_t p = 0; p < s.batch && bad < 5; ++p) {
    const T* ap = a.data() + p * s.m * s.k;
    const T* bp = b.data() + (s.broadcast_b ? 0 : p * s.k * s.n);
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double want = 0, scale = 0;
        for (int64_t q = 0; q < s.k; ++q) {
          const double x = static_cast<float>(ap[i * s.k + q]);
          const double y = static_cast<float>(bp[q * s.n + j]);
          want += x * y;
          scale += std::fabs(x * y);
        }
        const double g = static_cast<float>(got[(p * s.m + i) * s.n + j]);
        // !(… <= …): a NaN fails too.
        if (!(std::fabs(g - want) <= rel * (scale + std::fabs(want)) + 1e-6) && bad++ < 5) {
          ADD_FAILURE() << "[" << p << ", " << i << ", " << j << "]: got " << g
                        << ", want " << want;
        }
      }
    }
  }
}

// The plugin's "vulkan plugin: matmul on vulkan:0: <kernel> for …" debug
// lines while it lives (the log at debug level meanwhile).
class KernelLines {
 public:
  KernelLines() : previous_(GetLogLevel()) {
    SetLogLevel(LogLevel::kDebug);
    auto lines = lines_;
    auto mu = mu_;
    SetLogSink([lines, mu](LogLevel, absl::string_view message) {
      if (message.find("vulkan plugin: matmul on ") == absl::string_view::npos) return;
      std::lock_guard<std::mutex> lock(*mu);
      lines->emplace_back(message);
    });
  }
  ~KernelLines() {
    SetLogSink(nullptr);
    SetLogLevel(previous_);
  }
  // The lines so far, cleared.
  std::vector<std::string> Take() {
    std::lock_guard<std::mutex> lock(*mu_);
    return std::exchange(*lines_, {});
  }

 private:
  LogLevel previous_;
  std::shared_ptr<std::vector<std::string>> lines_ =
      std::make_shared<std::vector<std::string>>();
  std::shared_ptr<std::mutex> mu_ = std::make_shared<std::mutex>();
};

// Whether the plugin said at load that f16 matmul runs on cooperative
// matrices (Caps::nv_cooperative_matrix).
bool HasCoopmat() {
  for (const std::string& line : Env().load_log) {
    if (line.find("f16 matmul on cooperative matrices") != std::string::npos) return true;
  }
  return false;
}

// One f16 matmul: the values, and that exactly one call ran a kernel whose
// name starts with `kernel` (matmul_coopmat: either tile width; with
// `why` in its line, for a declined shape).
void CheckF16(const Shape& s, const std::string& kernel, const std::string& why = "") {
  KernelLines lines;
  CheckMatmul<Half>(SY_DTYPE_F16, s, 2e-3);
  const std::vector<std::string> got = lines.Take();
  ASSERT_EQ(got.size(), 1u) << "batch " << s.batch << ", " << s.m << "×" << s.k << "×" << s.n;
  std::printf("%s\n", got[0].c_str());  // device_run.sh shows which kernel ran
  EXPECT_NE(got[0].find(": " + kernel), std::string::npos) << got[0];
  EXPECT_NE(got[0].find(why), std::string::npos) << got[0];
}

TEST(VulkanMatmul, F16TilesOfTheCooperativePath) {
  SY_SKIP_WITHOUT_VULKAN();
  const bool coop = HasCoopmat();
  // matmul_coopmat_bn256_f16 for N a multiple of 256, else (and under
  // SWITCHYARD_VULKAN_COOPMAT_BN=128) matmul_coopmat_f16; device_run.sh
  // runs both.
  const std::string kernel = coop ? "matmul_coopmat" : "matmul_f16";
  const std::string why = coop ? "" : "the device has no cooperative matrices";
  // K steps are 64 deep in the 128-wide variant, 32 in the 256-wide one.
  // One tile, K = 32: one step, half of it past K (zeros).
  CheckF16({1, 128, 32, 128, false}, kernel, why);
  // 2×3 tiles, batched, K = 72: one full step and a tail of 8.
  CheckF16({2, 256, 72, 384, false}, kernel, why);
  // Broadcast b, K = 96: three steps 256 wide (one and a tail of 32 under
  // SWITCHYARD_VULKAN_COOPMAT_BN=128).
  CheckF16({3, 128, 96, 256, true}, kernel, why);
  // K = 8: only a tail; K = 520: 9 steps, the last of 8.
  CheckF16({1, 384, 8, 128, false}, kernel, why);
  CheckF16({1, 128, 520, 128, false}, kernel, why);
  // 2×2 tiles 256 wide (4×4 of 128), K = 40: one step of 32 and a tail of
  // 8 (one step, 24 past K, 128 wide).
  CheckF16({2, 256, 40, 512, false}, kernel, why);
}

TEST(VulkanMatmul, F16ShapesTheCooperativePathDeclines) {
  SY_SKIP_WITHOUT_VULKAN();
  const bool coop = HasCoopmat();
  CheckF16({1, 136, 40, 128, false}, "matmul_f16",
           coop ? "M or N is not a multiple of 128" : "no cooperative matrices");
  CheckF16({2, 128, 36, 128, false}, "matmul_f16",
           coop ? "K is not a multiple of 8" : "no cooperative matrices");
}

TEST(VulkanMatmul, F32RaggedEdges) {
  SY_SKIP_WITHOUT_VULKAN();
  CheckMatmul<float>(SY_DTYPE_F32, {2, 67, 33, 129, false}, 1e-5);
  CheckMatmul<float>(SY_DTYPE_F32, {1, 1, 200, 65, true}, 1e-5);
}

}  // namespace
}  // namespace sy::vulkan_test
