// sy::plugin helpers (sdk/include/switchyard/plugin.hpp) that the cpu plugin
// is built on, exercised against the test host's table. They belong to the
// SDK; these tests can move to tests/sdk/ when that suite exists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
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

// ---- Half and BFloat16 ------------------------------------------------------

uint16_t HalfBits(float f) { return plugin::Half::FromFloat(f); }
uint16_t BFloat16Bits(float f) { return plugin::BFloat16::FromFloat(f); }
bool IsHalfNan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }
bool IsBFloat16Nan(uint16_t b) {
  return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
}

#if defined(__FLT16_MAX__)
// GCC's _Float16 conversion (libgcc's, correctly rounded) as the reference.
uint16_t ReferenceHalf(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}
#endif

// Round to nearest even by comparing the two bf16 neighbours in double;
// past the largest finite bf16 the upper neighbour is 2^128 (infinity).
uint16_t ReferenceBFloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t lo = static_cast<uint16_t>(bits >> 16);  // toward zero
  const uint16_t hi = static_cast<uint16_t>(lo + 1);
  const auto value = [](uint16_t b) {
    if ((b & 0x7f80u) == 0x7f80u) return std::ldexp(1.0, 128);
    return static_cast<double>(std::fabs(plugin::BFloat16::ToFloat(b)));
  };
  const double x = std::fabs(static_cast<double>(f));
  const double below = x - value(lo), above = value(hi) - x;
  if (below < above || (below == above && (lo & 1u) == 0)) return lo;
  return hi;
}

// Option defaults written at compile time (plugin::OptionIntText,
// entry.hpp): every digit, the sign, both ends of int64_t.
TEST(OptionTextTest, WritesIntegersAndBooleansAsTheHostParsesThem) {
  static_assert(std::string_view(plugin::OptionIntText(64).data()) == "64");
  EXPECT_STREQ(plugin::OptionIntText(0).data(), "0");
  EXPECT_STREQ(plugin::OptionIntText(7).data(), "7");
  EXPECT_STREQ(plugin::OptionIntText(int64_t{1} << 24).data(), "16777216");
  EXPECT_STREQ(plugin::OptionIntText(-1200).data(), "-1200");
  EXPECT_STREQ(plugin::OptionIntText(std::numeric_limits<int64_t>::max()).data(),
               "9223372036854775807");
  EXPECT_STREQ(plugin::OptionIntText(std::numeric_limits<int64_t>::min()).data(),
               "-9223372036854775808");
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const int64_t n = static_cast<int64_t>(rng());
    EXPECT_EQ(plugin::OptionIntText(n).data(), std::to_string(n)) << n;
  }
  EXPECT_STREQ(plugin::OptionBoolText(true), "true");
  EXPECT_STREQ(plugin::OptionBoolText(false), "false");
}

TEST(HalfTest, RoundsToNearestEvenWithSubnormalsAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(HalfBits(1.0f + 0x1p-11f), 0x3c00);      // tie: to even (down)
  EXPECT_EQ(HalfBits(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie: to even (up)
  EXPECT_EQ(HalfBits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
  EXPECT_EQ(HalfBits(0x1p-24f), 0x0001);       // smallest subnormal
  EXPECT_EQ(HalfBits(0x1p-25f), 0x0000);       // tie with 0: to even
  EXPECT_EQ(HalfBits(3 * 0x1p-25f), 0x0002);   // tie between 1 and 2 ulps
  EXPECT_EQ(HalfBits(0x1p-14f - 0x1p-25f), 0x0400);  // rounds up to normal
  EXPECT_EQ(HalfBits(-0.0f), 0x8000);
  EXPECT_EQ(HalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(HalfBits(65519.0f), 0x7bff);
  EXPECT_EQ(HalfBits(65520.0f), 0x7c00);  // the tie above 65504 overflows
  EXPECT_EQ(HalfBits(1e10f), 0x7c00);
  EXPECT_EQ(HalfBits(-inf), 0xfc00);
  EXPECT_TRUE(IsHalfNan(HalfBits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(IsHalfNan(HalfBits(-std::numeric_limits<float>::quiet_NaN())));
  // A signaling NaN whose payload lies below the bits f16 keeps.
  EXPECT_TRUE(IsHalfNan(HalfBits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_EQ(plugin::Half::ToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(plugin::Half::ToFloat(0x83ff), -0x3ffp-24f);
  EXPECT_EQ(plugin::Half::ToFloat(0x7c00), inf);
  EXPECT_TRUE(std::isnan(plugin::Half::ToFloat(0x7e01)));
}

TEST(HalfTest, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = plugin::Half::ToFloat(bits);
    if (IsHalfNan(bits)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_TRUE(IsHalfNan(HalfBits(f))) << h;
    } else {
      ASSERT_EQ(HalfBits(f), bits) << h;
    }
  }
}

#if defined(__FLT16_MAX__)
TEST(HalfTest, MatchesACorrectlyRoundedReferenceOnRandomFloats) {
  std::mt19937 rng(7);
  // Random bit patterns, and random floats near the f16 range, where the
  // interesting rounding happens.
  std::uniform_real_distribution<float> near(-70000.0f, 70000.0f);
  std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
  for (int i = 0; i < 300000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (i % 3 == 1) f = near(rng);
    if (i % 3 == 2) f = std::exp2(exponent(rng)) * (rng() % 2 ? 1 : -1);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsHalfNan(HalfBits(f)));
    } else {
      ASSERT_EQ(HalfBits(f), ReferenceHalf(f)) << "for " << f;
    }
  }
}
#endif

TEST(BFloat16Test, RoundsToNearestEvenWithSubnormalsAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(BFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16Bits(1.0f + 0x1p-8f), 0x3f80);      // tie: to even
  EXPECT_EQ(BFloat16Bits(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie: to even
  EXPECT_EQ(BFloat16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(BFloat16Bits(std::bit_cast<float>(0x00018000u)), 0x0002);
  EXPECT_EQ(BFloat16Bits(std::bit_cast<float>(0x00008000u)), 0x0000);
  EXPECT_EQ(BFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(BFloat16Bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(BFloat16Bits(-inf), 0xff80);
  EXPECT_TRUE(
      IsBFloat16Nan(BFloat16Bits(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits in the dropped bits must not become infinity.
  EXPECT_TRUE(IsBFloat16Nan(BFloat16Bits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(IsBFloat16Nan(BFloat16Bits(std::bit_cast<float>(0xffffffffu))));
}

TEST(BFloat16Test, MatchesACorrectlyRoundedReferenceOnRandomFloats) {
  std::mt19937 rng(11);
  for (int i = 0; i < 300000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) {
      ASSERT_TRUE(IsBFloat16Nan(BFloat16Bits(f)));
      continue;
    }
    if (std::isinf(f)) continue;  // covered above
    const uint16_t want = ReferenceBFloat16(f);  // lo and hi keep the sign
    ASSERT_EQ(BFloat16Bits(f), want) << "for " << f;
    ASSERT_EQ(plugin::BFloat16::ToFloat(want),
              std::bit_cast<float>(static_cast<uint32_t>(want) << 16));
  }
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

// Note [Elementwise memory order]: dims sorted by operand 0's |stride|,
// outermost first, ties in order; every operand's strides follow.
TEST(MemoryOrderedDimsTest, TakesTheFirstOperandsMemoryOrder) {
  // [N, C, H, W] = [2, 3, 4, 5], channels-last output, contiguous input.
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  const std::vector<int64_t> nhwc = {60, 1, 15, 3}, nchw = {60, 20, 5, 1};
  const plugin::MemoryOrderedDims<2> dims(shape, {nhwc.data(), nchw.data()});
  EXPECT_THAT(dims.shape(), ElementsAre(2, 4, 5, 3));
  EXPECT_THAT(std::span(dims.strides()[0], 4), ElementsAre(60, 15, 3, 1));
  EXPECT_THAT(std::span(dims.strides()[1], 4), ElementsAre(60, 5, 1, 20));
  // Walked in that order, the channels-last output and a channels-last
  // input are one dense run.
  EXPECT_THAT(Walk<2>({dims.shape().begin(), dims.shape().end()},
                      {{{60, 15, 3, 1}, {60, 15, 3, 1}}}),
              ElementsAre(StridedRun{{0, 0}, 120, {1, 1}}));
}

TEST(MemoryOrderedDimsTest, KeepsContiguousTiedAndNegativeStridesInOrder) {
  const std::vector<int64_t> shape = {2, 1, 3};
  const std::vector<int64_t> contiguous = {3, 3, 1}, other = {1, 7, 2};
  const plugin::MemoryOrderedDims<2> same(shape, {contiguous.data(), other.data()});
  EXPECT_THAT(same.shape(), ElementsAre(2, 1, 3));  // the size-1 dim's tie stays put
  EXPECT_THAT(std::span(same.strides()[1], 3), ElementsAre(1, 7, 2));
  const std::vector<int64_t> flipped = {-1, 3, 2};  // dim 0 reversed, innermost
  const plugin::MemoryOrderedDims<1> reversed(shape, {flipped.data()});
  EXPECT_THAT(reversed.shape(), ElementsAre(1, 3, 2));
  EXPECT_THAT(std::span(reversed.strides()[0], 3), ElementsAre(3, 2, -1));
  const plugin::MemoryOrderedDims<1> scalar({}, {contiguous.data()});
  EXPECT_TRUE(scalar.shape().empty());
}

// MergedDims: size-1 dims dropped (their strides ignored), neighbours
// dense for every operand merged, nothing merged across a broadcast or a
// transpose; empty and rank-0 shapes.
TEST(MergedDimsTest, MergesWhatIsDenseForEveryOperand) {
  const std::vector<int64_t> shape = {2, 1, 3, 4};
  const std::vector<int64_t> contiguous = {12, 12, 4, 1}, odd_unit = {12, 99, 4, 1};
  const plugin::MergedDims<2> dense(shape, {contiguous.data(), odd_unit.data()});
  EXPECT_EQ(dense.numel(), 24);
  ASSERT_EQ(dense.ndim(), 1);
  EXPECT_EQ(dense.shape()[0], 24);
  EXPECT_EQ(dense.strides(0)[0], 1);
  EXPECT_EQ(dense.strides(1)[0], 1);
  // A row broadcast (stride 0 along dim 0) keeps dims 0 and 2·3 apart.
  const std::vector<int64_t> rows = {0, 0, 4, 1};
  const plugin::MergedDims<2> broadcast(shape, {contiguous.data(), rows.data()});
  ASSERT_EQ(broadcast.ndim(), 2);
  EXPECT_THAT(std::span(broadcast.shape(), 2), ElementsAre(2, 12));
  EXPECT_THAT(std::span(broadcast.strides(0), 2), ElementsAre(12, 1));
  EXPECT_THAT(std::span(broadcast.strides(1), 2), ElementsAre(0, 1));
  // A transposed operand merges nothing: [3, 4] read as columns.
  const std::vector<int64_t> matrix = {3, 4}, rowmajor = {4, 1}, columns = {1, 3};
  const plugin::MergedDims<2> transposed(matrix, {rowmajor.data(), columns.data()});
  ASSERT_EQ(transposed.ndim(), 2);
  EXPECT_THAT(std::span(transposed.strides(1), 2), ElementsAre(1, 3));
  // A zero anywhere: no elements, no dims. Rank 0: one element, no dims.
  const std::vector<int64_t> empty = {2, 0, 3}, empty_strides = {3, 3, 1};
  const plugin::MergedDims<1> none(empty, {empty_strides.data()});
  EXPECT_EQ(none.numel(), 0);
  EXPECT_EQ(none.ndim(), 0);
  const plugin::MergedDims<1> scalar({}, {contiguous.data()});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.ndim(), 0);
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
