// The runtime's cache of device constants (memory/constant_cache.h) and its
// user, the attention decomposition's causal mask (Note [Cached causal
// masks] in dispatch/decompositions/attention.cc).
#include "dispatcher/memory/constant_cache.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/registry/runtime_state.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

TEST(ConstantCacheTest, MakesOnceAndKeeps) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  ConstantCache& cache = runtime->state().constants;
  int made = 0;
  auto make = [&]() -> absl::StatusOr<Tensor> {
    ++made;
    return MakeF32(*runtime, *cpu, {2}, {1, 2});
  };
  Tensor a = cache.GetOrMake(*cpu, "k", make).value();
  Tensor b = cache.GetOrMake(*cpu, "k", make).value();
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 8u);
  Tensor c = cache.GetOrMake(*cpu, "another", make).value();
  EXPECT_EQ(made, 2);
  EXPECT_NE(c.data(), a.data());
  absl::StatusOr<Tensor> failed = cache.GetOrMake(
      *cpu, "fails", []() -> absl::StatusOr<Tensor> { return absl::InternalError("no"); });
  EXPECT_EQ(failed.status(), absl::InternalError("no"));  // as is, and nothing kept
  EXPECT_EQ(cache.size(), 2u);
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(ReadF32(*runtime, a), (std::vector<float>{1, 2}));  // users' handles live on
}

// sy_device_empty_cache drops a device's constants (the C API's fuzzers
// count on it: what the runtime keeps is not an input's leak).
TEST(ConstantCacheTest, DropDeviceGivesItsMemoryBack) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  ConstantCache& cache = runtime->state().constants;
  const uint64_t before = cpu->allocator().stats().allocated_bytes;
  ASSERT_TRUE(cache
                  .GetOrMake(*cpu, "k",
                             [&]() -> absl::StatusOr<Tensor> {
                               return MakeF32(*runtime, *cpu, {64}, std::vector<float>(64, 1));
                             })
                  .ok());
  EXPECT_GT(cpu->allocator().stats().allocated_bytes, before);
  cache.DropDevice(*cpu);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cpu->allocator().stats().allocated_bytes, before);
}

TEST(ConstantCacheTest, StaysWithinItsBudget) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  ConstantCache& cache = runtime->state().constants;
  auto f32s = [&](int64_t n) {
    return [&runtime, cpu, n]() { return runtime->Empty(*cpu, SY_DTYPE_F32, {n}); };
  };
  const int64_t quarter = ConstantCache::kMaxBytes / 4 / 4;  // f32 elements
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(cache.GetOrMake(*cpu, absl::StrCat(i), f32s(quarter)).ok());
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.bytes(), ConstantCache::kMaxBytes);
  ASSERT_TRUE(cache.GetOrMake(*cpu, "one more", f32s(1)).ok());  // empties it first
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 4u);
  Tensor huge = cache.GetOrMake(*cpu, "huge", f32s(ConstantCache::kMaxBytes / 4 + 1)).value();
  EXPECT_EQ(huge.numel(), static_cast<int64_t>(ConstantCache::kMaxBytes / 4 + 1));
  EXPECT_EQ(cache.size(), 1u);  // returned, never kept
}

TEST(ConstantCacheTest, APluginUnloadsDespiteConstantsOnItsDevices) {
  auto runtime = MakeRuntime({TestPlugin("test_good")});
  ASSERT_NE(runtime, nullptr);
  Device* fake = runtime->GetDevice("fakedev").value();
  Device* cpu = runtime->GetDevice("cpu").value();
  ConstantCache& cache = runtime->state().constants;
  ASSERT_TRUE(cache.GetOrMake(*fake, "k", [&] { return runtime->Empty(*fake, SY_DTYPE_F32, {4}); }).ok());
  ASSERT_TRUE(cache.GetOrMake(*cpu, "k", [&] { return runtime->Empty(*cpu, SY_DTYPE_F32, {4}); }).ok());
  ASSERT_TRUE(runtime->UnloadPlugin("test_good").ok());
  EXPECT_EQ(cache.size(), 1u);  // the cpu's stays
}

TEST(ConstantCacheTest, CausalAttentionMakesItsMaskOncePerShape) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  const OpHandle sdpa = runtime->FindOp("scaled_dot_product_attention").value();
  const auto attend = [&](const Tensor& q, const Tensor& k, const Tensor& mask, bool causal) {
    return ReadF32(*runtime, runtime->Call(sdpa, {q, k, k, mask}, {Attr(causal)}).value()[0]);
  };
  // Five queries over seven keys: the mask is not square.
  Tensor q = MakeF32(*runtime, *cpu, {1, 2, 5, 4}, RandomFloats(40, 1));
  Tensor k = MakeF32(*runtime, *cpu, {1, 2, 7, 4}, RandomFloats(56, 2));
  std::vector<uint8_t> keep(5 * 7);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 7; ++j) keep[i * 7 + j] = j <= i;
  }
  Tensor mask = runtime->FromHost(*cpu, SY_DTYPE_BOOL, {5, 7}, keep.data(), keep.size()).value();
  const std::vector<float> expected = attend(q, k, mask, false);
  EXPECT_EQ(attend(q, k, Tensor(), true), expected);
  EXPECT_EQ(runtime->state().constants.size(), 1u);
  EXPECT_EQ(attend(q, k, Tensor(), true), expected);  // the kept mask, the same values
  EXPECT_EQ(runtime->state().constants.size(), 1u);
  Tensor q3 = MakeF32(*runtime, *cpu, {1, 2, 3, 4}, RandomFloats(24, 3));
  (void)attend(q3, k, Tensor(), true);
  EXPECT_EQ(runtime->state().constants.size(), 2u);  // one per (lq, lk)
}

}  // namespace
}  // namespace sy::testing
