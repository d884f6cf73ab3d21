// The cuda plugin without cuDNN: SWITCHYARD_CUDNN_LIBRARY names a file that
// does not exist (set before the runtime loads the plugin), so conv2d is
// not registered for f32/f16/bf16, load says so in plain words, attention
// still runs the plugin's own kernel, and every other cuda kernel still
// works. Skips without a GPU (no kernels are registered then).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "cuda_test_env.h"

namespace sy::cuda_test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kMissing = "/nonexistent/switchyard-test/libcudnn.so.9";

TEST(CudaWithoutCudnn, Conv2dIsNotRegisteredAndLoadSaysWhy) {
  SY_SKIP_WITHOUT_CUDA();
  const LoadRecord* record = nullptr;
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "cuda") record = &r;
  }
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->outcome, LoadOutcome::kLoaded);
  std::string note;
  for (const std::string& n : record->notes) {
    if (n.find("cuDNN not found") != std::string::npos) note = n;
  }
  EXPECT_THAT(note, HasSubstr(std::string("cuDNN not found (") + kMissing + ": "));
  EXPECT_THAT(note, HasSubstr("): conv2d not registered for f32, f16 and bf16"));
  EXPECT_THAT(note, HasSubstr("runs the plugin's own flash kernel only"));
  EXPECT_THAT(note, HasSubstr("install cuDNN 9"));

  Runtime& rt = *Env().runtime;
  const std::vector<float> xv = RandomFloats(1 * 2 * 5 * 5, 7);
  const std::vector<float> wv = RandomFloats(3 * 2 * 3 * 3, 8);
  Tensor x = rt.FromHost(*Env().cuda, SY_DTYPE_F32, {1, 2, 5, 5}, xv.data(),
                         xv.size() * 4).value();
  Tensor w = rt.FromHost(*Env().cuda, SY_DTYPE_F32, {3, 2, 3, 3}, wv.data(),
                         wv.size() * 4).value();
  absl::StatusOr<std::string> how =
      rt.Explain(rt.FindOp("conv2d").value(), {x, w, Tensor()});
  EXPECT_FALSE(how.ok() && how->find("kernel cuda") != std::string::npos)
      << *how;
  // Attention keeps its fused kernel (the plugin's own): explain names it.
  std::vector<uint16_t> ones(2 * 8 * 16, 0x3f80);  // bf16 1.0
  Tensor q = rt.FromHost(*Env().cuda, SY_DTYPE_BF16, {2, 8, 16}, ones.data(),
                         ones.size() * 2).value();
  absl::StatusOr<std::string> attn = rt.Explain(
      rt.FindOp("scaled_dot_product_attention").value(), {q, q, q, Tensor()});
  ASSERT_TRUE(attn.ok()) << attn.status();
  EXPECT_THAT(*attn, HasSubstr("kernel cuda::scaled_dot_product_attention"));
  // Other cuda kernels are unaffected.
  std::vector<Tensor> sum = rt.Call(rt.FindOp("add").value(), {x, x}).value();
  std::vector<float> got(xv.size());
  ASSERT_TRUE(rt.ToHost(sum[0], got.data(), got.size() * 4).ok());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], xv[i] + xv[i]);
}

}  // namespace
}  // namespace sy::cuda_test

int main(int argc, char** argv) {
  // Before anything loads the plugin (Env() loads on first use).
  setenv("SWITCHYARD_CUDNN_LIBRARY", sy::cuda_test::kMissing, 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
