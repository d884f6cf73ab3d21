#include "dispatcher/ops/dtype.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace sy::core {
namespace {

TEST(DTypeTest, NamesRoundTrip) {
  for (sy_dtype_t dtype : kAllDTypes) {
    ASSERT_TRUE(IsValidDType(dtype));
    const std::string_view name = DTypeName(dtype);
    EXPECT_EQ(ParseDType(name), dtype) << name;
  }
  EXPECT_EQ(DTypeName(SY_DTYPE_F32), "f32");
  EXPECT_EQ(DTypeName(SY_DTYPE_BF16), "bf16");
  EXPECT_EQ(DTypeName(SY_DTYPE_BOOL), "bool");
  EXPECT_EQ(DTypeName(SY_DTYPE_NONE), "none");
  EXPECT_EQ(DTypeName(SY_DTYPE_MAKE(2, 128)), "invalid");
}

TEST(DTypeTest, ParsesAliases) {
  EXPECT_EQ(ParseDType("float32"), SY_DTYPE_F32);
  EXPECT_EQ(ParseDType("float"), SY_DTYPE_F32);
  EXPECT_EQ(ParseDType("double"), SY_DTYPE_F64);
  EXPECT_EQ(ParseDType("half"), SY_DTYPE_F16);
  EXPECT_EQ(ParseDType("bfloat16"), SY_DTYPE_BF16);
  EXPECT_EQ(ParseDType("int"), SY_DTYPE_I32);
  EXPECT_EQ(ParseDType("int64"), SY_DTYPE_I64);
  EXPECT_EQ(ParseDType("long"), SY_DTYPE_I64);
  EXPECT_EQ(ParseDType("uint8"), SY_DTYPE_U8);
  EXPECT_EQ(ParseDType("int8"), SY_DTYPE_I8);
}

TEST(DTypeTest, RejectsUnknownNames) {
  EXPECT_EQ(ParseDType(""), std::nullopt);
  EXPECT_EQ(ParseDType("F32"), std::nullopt);
  EXPECT_EQ(ParseDType("none"), std::nullopt);
  EXPECT_EQ(ParseDType("complex64"), std::nullopt);
  EXPECT_EQ(ParseDType("f32 "), std::nullopt);
}

TEST(DTypeTest, Sizes) {
  EXPECT_EQ(DTypeSize(SY_DTYPE_F32), 4u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_F64), 8u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_F16), 2u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_BF16), 2u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_I32), 4u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_I64), 8u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_I8), 1u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_U8), 1u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_BOOL), 1u);
  EXPECT_EQ(DTypeSize(SY_DTYPE_NONE), 0u);
  EXPECT_EQ(DTypeSize(12345), 0u);
}

TEST(DTypeTest, Categories) {
  int floating = 0, integral = 0;
  for (sy_dtype_t dtype : kAllDTypes) {
    floating += IsFloatingPoint(dtype);
    integral += IsIntegral(dtype);
    EXPECT_FALSE(IsFloatingPoint(dtype) && IsIntegral(dtype));
  }
  EXPECT_EQ(floating, 4);
  EXPECT_EQ(integral, 4);
  EXPECT_FALSE(IsIntegral(SY_DTYPE_BOOL));
  EXPECT_FALSE(IsFloatingPoint(SY_DTYPE_BOOL));
  EXPECT_FALSE(IsValidDType(SY_DTYPE_NONE));
}

TEST(DTypeTest, IndexIsDenseAndOrdered) {
  EXPECT_EQ(DTypeIndex(SY_DTYPE_NONE), 0);
  EXPECT_EQ(DTypeIndex(7777), 0);
  std::set<int> seen;
  int expected = 1;
  for (sy_dtype_t dtype : kAllDTypes) {
    EXPECT_EQ(DTypeIndex(dtype), expected++);
    seen.insert(DTypeIndex(dtype));
  }
  EXPECT_EQ(seen.size(), 9u);
}

struct PromoteCase {
  sy_dtype_t a, b, want;
};

TEST(DTypeTest, PromoteTypes) {
  const PromoteCase cases[] = {
      {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32},
      {SY_DTYPE_BOOL, SY_DTYPE_BOOL, SY_DTYPE_BOOL},
      {SY_DTYPE_BOOL, SY_DTYPE_U8, SY_DTYPE_U8},
      {SY_DTYPE_BOOL, SY_DTYPE_I64, SY_DTYPE_I64},
      {SY_DTYPE_BOOL, SY_DTYPE_F16, SY_DTYPE_F16},
      {SY_DTYPE_I8, SY_DTYPE_I32, SY_DTYPE_I32},
      {SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I64},
      {SY_DTYPE_U8, SY_DTYPE_I8, SY_DTYPE_I32},
      {SY_DTYPE_U8, SY_DTYPE_I32, SY_DTYPE_I32},
      {SY_DTYPE_U8, SY_DTYPE_I64, SY_DTYPE_I64},
      {SY_DTYPE_I64, SY_DTYPE_F16, SY_DTYPE_F16},
      {SY_DTYPE_I32, SY_DTYPE_BF16, SY_DTYPE_BF16},
      {SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_F32},
      {SY_DTYPE_F16, SY_DTYPE_F32, SY_DTYPE_F32},
      {SY_DTYPE_BF16, SY_DTYPE_F64, SY_DTYPE_F64},
      {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F64},
      {SY_DTYPE_F32, SY_DTYPE_NONE, SY_DTYPE_NONE},
  };
  for (const PromoteCase& c : cases) {
    EXPECT_EQ(PromoteTypes(c.a, c.b), c.want)
        << DTypeName(c.a) << " + " << DTypeName(c.b);
  }
}

TEST(DTypeTest, PromotionIsSymmetricAndIdempotent) {
  for (sy_dtype_t a : kAllDTypes) {
    EXPECT_EQ(PromoteTypes(a, a), a);
    for (sy_dtype_t b : kAllDTypes) {
      const sy_dtype_t ab = PromoteTypes(a, b);
      EXPECT_EQ(ab, PromoteTypes(b, a));
      EXPECT_TRUE(IsValidDType(ab));
      // The result is never below either operand's category.
      if (IsFloatingPoint(a) || IsFloatingPoint(b)) {
        EXPECT_TRUE(IsFloatingPoint(ab));
      }
      // Promoting again with either operand changes nothing.
      EXPECT_EQ(PromoteTypes(ab, a), ab);
      EXPECT_EQ(PromoteTypes(ab, b), ab);
    }
  }
}

}  // namespace
}  // namespace sy::core
