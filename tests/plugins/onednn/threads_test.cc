// Kernels called from several threads at once (each thread gets its own
// oneDNN stream; primitives come from the shared cache): every result
// matches its float64 reference.
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

TEST(OnednnThreads, ConcurrentCallsAreCorrect) {
  constexpr int kThreads = 4, kIterations = 12;
  struct Work {
    Tensor a, b, conv_x, conv_w;
    HostTensor want_mm, want_conv;
    std::vector<double> scale_mm, scale_conv;
  };
  std::vector<Work> work(kThreads);
  std::mt19937 gen(Seed() + 20);
  for (int t = 0; t < kThreads; ++t) {
    // Different shapes per thread: distinct and shared cache entries.
    const int64_t m = 8 + 8 * (t % 2), k = 24, n = 16;
    const HostTensor a = Random(gen, SY_DTYPE_F32, {m, k});
    const HostTensor b = Random(gen, SY_DTYPE_F32, {k, n});
    const HostTensor x = Random(gen, SY_DTYPE_F32, {1, 8, 9, 9});
    const HostTensor w = Random(gen, SY_DTYPE_F32, {8, 8, 3, 3});
    work[t].a = Upload(a);
    work[t].b = Upload(b);
    work[t].conv_x = Upload(x);
    work[t].conv_w = Upload(w);
    work[t].want_mm = RefMatmul(a, b, &work[t].scale_mm);
    work[t].want_conv = RefConv2d(x, w, nullptr, {1, 1}, {1, 1}, {1, 1}, 1,
                                  &work[t].scale_conv);
  }
  std::vector<std::vector<HostTensor>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const OpHandle matmul = Op("matmul"), conv = Op("conv2d");
      for (int i = 0; i < kIterations; ++i) {
        auto mm = TestRuntime().Call(matmul, {work[t].a, work[t].b});
        auto cv = TestRuntime().Call(conv, {work[t].conv_x, work[t].conv_w, Tensor()},
                                     {Attr({1, 1}), Attr({1, 1})});
        if (!mm.ok() || !cv.ok()) return;  // reported below: results missing
        got[t].push_back(Download((*mm)[0]));
        got[t].push_back(Download((*cv)[0]));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), 2u * kIterations) << "thread " << t << " saw a failed call";
    for (int i = 0; i < kIterations; ++i) {
      ExpectNear(got[t][2 * i], work[t].want_mm, work[t].scale_mm, 1e-5, 0, 1e-5,
                 "matmul, thread " + std::to_string(t));
      ExpectNear(got[t][2 * i + 1], work[t].want_conv, work[t].scale_conv, 1e-5, 0, 1e-5,
                 "conv2d, thread " + std::to_string(t));
    }
  }
}

}  // namespace
}  // namespace sy::onednn_test
