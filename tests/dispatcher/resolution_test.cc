// Resolution order: pin → autotuned choice → priority → decomposition →
// cpu fallback → an error naming op, dtypes, device and who has the op;
// and the layout of the outputs the core allocates for a kernel.
#include <functional>
#include <numeric>

#include "dispatcher/registry/kernel_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::MakeF32;
using ::sy::testing::MakeRuntime;
using ::sy::testing::ReadF32;
using ::sy::testing::TestPlugin;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ResolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime({TestPlugin("test_good")});
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
    fake_ = runtime_->GetDevice("fakedev").value();
  }
  std::vector<float> Run(const char* op, std::vector<Tensor> inputs) {
    auto out = runtime_->Call(runtime_->FindOp(op).value(), inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? ReadF32(*runtime_, (*out)[0]) : std::vector<float>{};
  }
  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
  Device* fake_ = nullptr;
};

TEST_F(ResolutionTest, HighestPriorityWins) {
  // test_good's relu on cpu has priority 10 and writes 7.
  Tensor x = MakeF32(*runtime_, *cpu_, {3}, {-1, 0, 1});
  EXPECT_EQ(Run("relu", {x}), (std::vector<float>{7, 7, 7}));
  // add: cpu's kernel (priority 0) beats test_good's marker (priority -1).
  EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{-2, 0, 2}));
}

TEST_F(ResolutionTest, PinBeatsPriorityAndUnpinRestores) {
  Tensor x = MakeF32(*runtime_, *cpu_, {2}, {1, 2});
  ASSERT_TRUE(runtime_->PinKernel("add", "cpu", "test_good::add_marker").ok());
  EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{42, 42}));
  ASSERT_TRUE(runtime_->UnpinKernel("add", "cpu").ok());
  EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{2, 4}));
  absl::Status bad = runtime_->PinKernel("add", "cpu", "nope");
  EXPECT_EQ(bad.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(bad.message()),
              StartsWith("cannot pin kernel 'nope' for add.Tensor on cpu: no "
                         "such kernel. Kernels registered there: "));
  EXPECT_THAT(std::string(bad.message()), HasSubstr("cpu::add.Tensor.f32.f32, "));
  EXPECT_THAT(std::string(bad.message()), HasSubstr("test_good::add_marker"));
}

TEST_F(ResolutionTest, PinBeatsTunedChoiceWhichBeatsPriority) {
  OpDef* add = runtime_->FindOp("add").value().def();
  const DispatchKey key = MakeDispatchKey(cpu_->type().id(),
                                          {SY_DTYPE_F32, SY_DTYPE_F32});
  Tensor x = MakeF32(*runtime_, *cpu_, {1}, {5});
  ASSERT_TRUE(runtime_->state().kernels.SetTunedChoice(add, key, std::nullopt, "add_marker", -1).ok());
  EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{42}));
  ASSERT_TRUE(runtime_->PinKernel("add", "cpu", "cpu::add.Tensor.f32.f32").ok());
  EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{10}));
}

TEST_F(ResolutionTest, DecompositionWhenNoKernel) {
  // square has no kernel anywhere; it decomposes into mul, which cpu has.
  Tensor x = MakeF32(*runtime_, *cpu_, {3}, {1, -2, 3});
  EXPECT_EQ(Run("square", {x}), (std::vector<float>{1, 4, 9}));
  // linear → matmul + transpose + add.
  Tensor in = MakeF32(*runtime_, *cpu_, {1, 2}, {1, 2});
  Tensor w = MakeF32(*runtime_, *cpu_, {3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor b = MakeF32(*runtime_, *cpu_, {3}, {10, 20, 30});
  EXPECT_EQ(Run("linear", {in, w, b}), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(Run("linear", {in, w, Tensor()}), (std::vector<float>{1, 2, 3}));
}

TEST_F(ResolutionTest, NoKernelErrorNamesWhoHasTheOp) {
  Tensor x = MakeF32(*runtime_, *fake_, {2}, {1, 2});
  auto out = runtime_->Call(runtime_->FindOp("mul").value(), {x, x});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  // cpu has mul for every dtype; the message lists them all.
  EXPECT_THAT(std::string(out.status().message()),
              StartsWith("no kernel for mul.Tensor with input dtypes (f32, "
                         "f32) on device fakedev:0. Kernels exist for: "));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("cpu (f32, f32) from plugin 'cpu'"));
  EXPECT_THAT(std::string(out.status().message()),
              EndsWith(". Cast the inputs to a supported dtype, load a plugin "
                       "that provides this combination, or set "
                       "SWITCHYARD_CPU_FALLBACK=1 to run it on cpu with "
                       "copies"));
}

TEST_F(ResolutionTest, KernelOnOtherDeviceType) {
  // add on fakedev uses test_good's fakedev kernel, not cpu's.
  Tensor a = MakeF32(*runtime_, *fake_, {2, 1}, {1, 2});
  Tensor b = MakeF32(*runtime_, *fake_, {3}, {10, 20, 30});
  auto out = runtime_->Call(runtime_->FindOp("add").value(), {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(&(*out)[0].device(), fake_);
  EXPECT_EQ(ReadF32(*runtime_, (*out)[0]),
            (std::vector<float>{11, 21, 31, 12, 22, 32}));
}

// Note [Attention output layout]: a kernel's rank-4 attention output is
// [B, H, L, E] in the memory order [B, L, H, E], so that transpose(1, 2) and
// reshape(B, L, H * E) after it are views; other ranks stay contiguous.
TEST_F(ResolutionTest, AttentionOutputIsLaidOutHeadsInner) {
  const auto sdpa = [&](std::vector<int64_t> shape) {
    const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1},
                                      std::multiplies<>());
    Tensor x = MakeF32(*runtime_, *fake_, shape, std::vector<float>(n, 1));
    auto out = runtime_->Call(
        runtime_->FindOp("scaled_dot_product_attention").value(), {x, x, x, Tensor()});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? (*out)[0] : Tensor();
  };
  Tensor o4 = sdpa({2, 3, 4, 8});  // B H L E
  ASSERT_TRUE(o4.defined());
  EXPECT_THAT(o4.shape(), ::testing::ElementsAre(2, 3, 4, 8));
  EXPECT_THAT(o4.strides(), ::testing::ElementsAre(4 * 3 * 8, 8, 3 * 8, 1));
  EXPECT_EQ(ReadF32(*runtime_, o4), std::vector<float>(2 * 3 * 4 * 8, 3));
  const auto op = [&](const char* name) { return runtime_->FindOp(name).value(); };
  Tensor heads_inner = runtime_->Call(op("transpose"), {o4}, {1, 2}).value()[0];
  Tensor merged =
      runtime_->Call(op("reshape"), {heads_inner}, {Attr({2, 4, 24})}).value()[0];
  EXPECT_EQ(&merged.storage(), &o4.storage()) << "merging the heads copied";
  Tensor o3 = sdpa({3, 4, 8});
  ASSERT_TRUE(o3.defined());
  EXPECT_THAT(o3.strides(), ::testing::ElementsAre(32, 8, 1));
}

TEST(CpuFallbackTest, RunsOnCpuWithCopiesWhenEnabled) {
  auto runtime = MakeRuntime({TestPlugin("test_good")}, /*cpu_fallback=*/true);
  Device* fake = runtime->GetDevice("fakedev").value();
  Tensor x = MakeF32(*runtime, *fake, {3}, {1, 2, 3});
  auto out = runtime->Call(runtime->FindOp("mul").value(), {x, x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(&(*out)[0].device(), fake);  // copied back
  EXPECT_EQ(ReadF32(*runtime, (*out)[0]), (std::vector<float>{1, 4, 9}));
}

TEST(CpuFallbackTest, FallbackWithoutCpuKernelStillErrors) {
  auto runtime = MakeRuntime({TestPlugin("test_good")}, /*cpu_fallback=*/true);
  Device* fake = runtime->GetDevice("fakedev").value();
  // test_good::double_it has an f32 kernel on fakedev only: an f64 call
  // finds no kernel there and none on cpu to fall back to.
  const double values[3] = {1, 2, 3};
  Tensor x = runtime->FromHost(*fake, SY_DTYPE_F64, {3}, values, sizeof values)
                 .value();
  auto out = runtime->Call(runtime->FindOp("test_good::double_it").value(), {x});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "no kernel for test_good::double_it with input dtypes (f64) on "
            "device fakedev:0. Kernels exist for: fakedev (f32) from plugin "
            "'test_good'. Cast the inputs to a supported dtype, load a plugin "
            "that provides this combination, or set SWITCHYARD_CPU_FALLBACK=1 "
            "to run it on cpu with copies");
}

}  // namespace
}  // namespace sy::core
