// sy::plugin helpers (sdk/include/switchyard/plugin.hpp) that the cpu plugin
// is built on, exercised against the test host's table. They belong to the
// SDK; these tests can move to tests/sdk/ when that suite exists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <vector>

#include "switchyard/plugin.hpp"
#include "test_host.h"

namespace sy::testing {
namespace {

using ::testing::ElementsAre;

class PluginHppTest : public ::testing::Test {
 protected:
  void SetUp() override { plugin::SetHost(host_.api()); }
  void TearDown() override { plugin::SetHost(nullptr); }
  TestHost host_;
};

TEST_F(PluginHppTest, MakeErrorCopiesTheMessage) {
  std::string text = "first";
  const Status status = TakeError(plugin::MakeError(
      SY_STATUS_NOT_FOUND, std::string_view(text).substr(0, 3)));
  EXPECT_EQ(status.code, SY_STATUS_NOT_FOUND);
  EXPECT_EQ(status.message, "fir");
}

TEST_F(PluginHppTest, StrCatFormatsEveryKind) {
  const char* null = nullptr;
  EXPECT_EQ(plugin::StrCat("a", std::string("b"), std::string_view("c"), 'd', 1,
                           -2LL, 3u, true, 0.5, null),
            "abcd1-23true0.5(null)");
}

TEST_F(PluginHppTest, GuardTurnsExceptionsIntoErrors) {
  EXPECT_EQ(
      plugin::Guard("w", [] { return static_cast<sy_error_t*>(nullptr); }),
      nullptr);
  Status s = TakeError(plugin::Guard(
      "cpu plugin: x", []() -> sy_error_t* { throw std::bad_alloc(); }));
  EXPECT_EQ(s.code, SY_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(s.message,
            "cpu plugin: x: out of memory; free memory or use smaller tensors");
  s = TakeError(plugin::Guard("cpu plugin: x", []() -> sy_error_t* {
    throw std::runtime_error("boom");
  }));
  EXPECT_EQ(s.code, SY_STATUS_INTERNAL);
  EXPECT_EQ(s.message,
            "cpu plugin: x: unexpected C++ exception: boom; this is a bug in "
            "the plugin; report it");
  s = TakeError(
      plugin::Guard("cpu plugin: x", []() -> sy_error_t* { throw 42; }));
  EXPECT_EQ(s.code, SY_STATUS_INTERNAL);
  EXPECT_EQ(s.message,
            "cpu plugin: x: unknown C++ exception; this is a bug in the "
            "plugin; report it");
}

TEST_F(PluginHppTest, DescribesViews) {
  float data[12] = {};
  const int64_t shape[] = {3, 4};
  const int64_t dense[] = {4, 1};
  const int64_t transposed[] = {1, 3};
  sy_tensor_view_t v{data, {1, 0}, 2, SY_DTYPE_F32, shape, dense, 8};
  EXPECT_EQ(plugin::NumElements(v), 12);
  EXPECT_TRUE(plugin::IsContiguous(v));
  EXPECT_EQ(plugin::DataPtr<const float>(v), data + 2);
  v.strides = transposed;
  EXPECT_FALSE(plugin::IsContiguous(v));
  const int64_t column[] = {3, 1};
  const int64_t any[] = {1, 7};
  v.shape = column;
  v.strides = any;  // a size-1 dim's stride does not matter
  EXPECT_TRUE(plugin::IsContiguous(v));
  v.ndim = 0;
  EXPECT_EQ(plugin::NumElements(v), 1);
  v.data = nullptr;
  EXPECT_EQ(plugin::DataPtr<float>(v), nullptr);
  EXPECT_EQ(plugin::ShapeToString(shape), "[3, 4]");
  EXPECT_EQ(plugin::ShapeToString({}), "[]");
}

TEST_F(PluginHppTest, MapsDtypes) {
  static_assert(std::is_same_v<plugin::CType<SY_DTYPE_F32>, float>);
  static_assert(std::is_same_v<plugin::CType<SY_DTYPE_F64>, double>);
  static_assert(std::is_same_v<plugin::CType<SY_DTYPE_I64>, int64_t>);
  static_assert(std::is_same_v<plugin::CType<SY_DTYPE_BOOL>, uint8_t>);
  static_assert(plugin::kDtypeOf<float> == SY_DTYPE_F32);
  static_assert(plugin::kDtypeOf<bool> == SY_DTYPE_BOOL);
  static_assert(plugin::kDtypeOf<uint8_t> == SY_DTYPE_U8);
  static_assert(plugin::DtypeSize(SY_DTYPE_I64) == 8);
  EXPECT_EQ(plugin::DtypeName(SY_DTYPE_BF16), "bf16");
  EXPECT_EQ(plugin::DtypeName(SY_DTYPE_MAKE(9, 9)), "invalid");
}

struct StridedRun {
  std::vector<int64_t> offsets;
  int64_t count;
  std::vector<int64_t> steps;
  bool operator==(const StridedRun&) const = default;
};

template <size_t N>
std::vector<StridedRun> Walk(std::vector<int64_t> shape,
                             std::array<std::vector<int64_t>, N> strides) {
  std::array<const int64_t*, N> ptrs;
  for (size_t k = 0; k < N; ++k) ptrs[k] = strides[k].data();
  std::vector<StridedRun> runs;
  EXPECT_TRUE(plugin::ForEachStridedRun<N>(
      shape, ptrs, [&](const auto& off, int64_t n, const auto& st) {
        runs.push_back({{off.begin(), off.end()}, n, {st.begin(), st.end()}});
      }));
  return runs;
}

TEST(ForEachStridedRunTest, MergesDenseOperandsIntoOneRun) {
  EXPECT_THAT(Walk<2>({2, 3, 4}, {{{12, 4, 1}, {12, 4, 1}}}),
              ElementsAre(StridedRun{{0, 0}, 24, {1, 1}}));
}

TEST(ForEachStridedRunTest, WalksStridedAndBroadcastOperands) {
  // Output dense [2, 3]; input broadcast from [3] (stride 0 on dim 0).
  EXPECT_THAT(Walk<2>({2, 3}, {{{3, 1}, {0, 1}}}),
              ElementsAre(StridedRun{{0, 0}, 3, {1, 1}},
                          StridedRun{{3, 0}, 3, {1, 1}}));
  // A transposed input: runs follow the output's order.
  EXPECT_THAT(Walk<2>({2, 2}, {{{2, 1}, {1, 2}}}),
              ElementsAre(StridedRun{{0, 0}, 2, {1, 2}},
                          StridedRun{{2, 1}, 2, {1, 2}}));
}

TEST(ForEachStridedRunTest, HandlesRankZeroEmptyAndSizeOneDims) {
  EXPECT_THAT(Walk<1>({}, {{{}}}), ElementsAre(StridedRun{{0}, 1, {0}}));
  EXPECT_TRUE(Walk<1>({3, 0, 2}, {{{0, 2, 1}}}).empty());
  EXPECT_THAT(Walk<1>({1, 5, 1}, {{{99, 2, 99}}}),
              ElementsAre(StridedRun{{0}, 5, {2}}));
  std::vector<int64_t> nine(9, 1);
  const int64_t* strides[] = {nine.data()};
  EXPECT_FALSE(plugin::ForEachStridedRun<1>(
      nine, {strides[0]}, [](const auto&, int64_t, const auto&) {}));
}

sy_error_t* NoKernel(const sy_kernel_call_t*) { return nullptr; }

TEST_F(PluginHppTest, RegisterKernelsStopsAtTheFirstError) {
  static constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32};
  const plugin::KernelSpec specs[] = {
      {"relu", "k0", kF32, 0, NoKernel},
      {"relu", "k1", kF32, 0, nullptr},
      {"relu", "k2", kF32, 0, NoKernel},
  };
  // Outside `load` the host refuses, and the first refusal is returned.
  Status s =
      TakeError(plugin::RegisterKernels(host_.api(), nullptr, "cpu", specs));
  EXPECT_EQ(s.code, SY_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(s.message, "not loading");
  // A spec without a function is refused before the host sees it.
  s = TakeError(plugin::RegisterKernels(host_.api(), nullptr, "cpu",
                                        std::span(specs).subspan(1)));
  EXPECT_EQ(s.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message,
            "RegisterKernels: kernel 'k1' for op 'relu' on 'cpu' has no "
            "function or too many dtypes; fix the plugin's kernel list");
}

}  // namespace
}  // namespace sy::testing
