// matmul on vulkan against a float64 reference, at shapes the op harness
// does not reach: f16 shapes that fit the cooperative-matrix path (taken
// on GPUs with VK_NV_cooperative_matrix; lavapipe runs the tiled kernel on
// the same shapes), batched with a broadcast operand, and f32 with
// transposed operands and ragged edges.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

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
        if (std::fabs(g - want) > rel * (scale + std::fabs(want)) + 1e-6 && bad++ < 5) {
          ADD_FAILURE() << "[" << p << ", " << i << ", " << j << "]: got " << g
                        << ", want " << want;
        }
      }
    }
  }
}

TEST(VulkanMatmul, F16TilesOfTheCooperativePath) {
  SY_SKIP_WITHOUT_VULKAN();
  CheckMatmul<Half>(SY_DTYPE_F16, {2, 256, 64, 128, false}, 2e-3);
  CheckMatmul<Half>(SY_DTYPE_F16, {3, 128, 48, 256, true}, 2e-3);
}

TEST(VulkanMatmul, F32RaggedEdges) {
  SY_SKIP_WITHOUT_VULKAN();
  CheckMatmul<float>(SY_DTYPE_F32, {2, 67, 33, 129, false}, 1e-5);
  CheckMatmul<float>(SY_DTYPE_F32, {1, 1, 200, 65, true}, 1e-5);
}

}  // namespace
}  // namespace sy::vulkan_test
