// switchyard/gpu/scalar_rounding.h: a double rounded once to f16 / bf16 (to
// nearest, ties to even), checked against a reference that finds the two
// neighbouring values of the format and compares with their exact midpoint.
// The points tested are every midpoint of the format, one double either side
// of it (where rounding through float first goes wrong: float rounds those
// onto the midpoint, and then ties to even), values between, the overflow
// edge, subnormals, zeros, infinities and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "switchyard/gpu/scalar_rounding.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

struct Format {
  const char* name;
  uint16_t max_finite;                 // largest finite bit pattern
  uint16_t infinity;
  double (*value)(uint16_t bits);      // exact value of a bit pattern
  double overflow_step;                // value of the pattern after max_finite
  uint16_t (*round)(double);           // the function under test
};

double HalfValue(uint16_t b) { return plugin::Half::ToFloat(b); }
double Bf16Value(uint16_t b) { return plugin::BFloat16::ToFloat(b); }

const Format kHalf{"f16", 0x7bff, 0x7c00, HalfValue, 65536.0,
                   HalfBitsFromDouble};
const Format kBf16{"bf16", 0x7f7f, 0x7f80, Bf16Value, std::ldexp(1.0, 128),
                   Bfloat16BitsFromDouble};

// The correctly rounded pattern of finite, non-NaN `v`.
uint16_t Reference(const Format& f, double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  // The largest non-negative pattern whose value is <= a (monotone in bits).
  uint32_t lo = 0, hi = f.max_finite;
  if (f.value(f.max_finite) <= a) {
    lo = f.max_finite;
  } else {
    while (lo < hi) {
      const uint32_t mid = (lo + hi + 1) / 2;
      if (f.value(static_cast<uint16_t>(mid)) <= a) lo = mid; else hi = mid - 1;
    }
  }
  const double below = f.value(static_cast<uint16_t>(lo));
  if (below == a) return sign | lo;
  const double above =
      lo == f.max_finite ? f.overflow_step : f.value(static_cast<uint16_t>(lo + 1));
  const uint16_t up = lo == f.max_finite ? f.infinity : static_cast<uint16_t>(lo + 1);
  const double midpoint = below + (above - below) / 2;  // exact in double
  if (a < midpoint) return sign | lo;
  if (a > midpoint) return sign | up;
  return sign | ((lo & 1) == 0 ? lo : up);
}

void ExpectRounds(const Format& f, double v) {
  const uint16_t want = Reference(f, v);
  const uint16_t got = f.round(v);
  ASSERT_EQ(got, want) << f.name << " of " << std::hexfloat << v
                       << ": got 0x" << std::hex << got << ", want 0x" << want;
}

class ScalarRoundingTest : public ::testing::TestWithParam<const Format*> {};

TEST_P(ScalarRoundingTest, EveryMidpointAndItsNeighbours) {
  const Format& f = *GetParam();
  for (uint32_t b = 0; b <= f.max_finite; ++b) {
    const double lo = f.value(static_cast<uint16_t>(b));
    const double hi =
        b == f.max_finite ? f.overflow_step : f.value(static_cast<uint16_t>(b + 1));
    const double mid = lo + (hi - lo) / 2;
    for (double v : {lo, mid, std::nextafter(mid, 0.0),
                     std::nextafter(mid, INFINITY), lo + (hi - lo) / 4,
                     lo + 3 * (hi - lo) / 4}) {
      ExpectRounds(f, v);
      ExpectRounds(f, -v);
    }
  }
}

TEST_P(ScalarRoundingTest, RandomDoubles) {
  const Format& f = *GetParam();
  std::mt19937_64 gen(20);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-150, 130);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(mantissa(gen), exponent(gen));
    if (!std::isfinite(v)) continue;
    ExpectRounds(f, v);
    ExpectRounds(f, -v);
  }
}

TEST_P(ScalarRoundingTest, SpecialValues) {
  const Format& f = *GetParam();
  EXPECT_EQ(f.round(0.0), 0);
  EXPECT_EQ(f.round(-0.0), 0x8000);
  EXPECT_EQ(f.round(INFINITY), f.infinity);
  EXPECT_EQ(f.round(-INFINITY), 0x8000 | f.infinity);
  EXPECT_EQ(f.round(std::numeric_limits<double>::max()), f.infinity);
  EXPECT_EQ(f.round(std::numeric_limits<double>::denorm_min()), 0);
  const uint16_t nan = f.round(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(std::isnan(f.value(nan))) << std::hex << nan;
}

// The case that motivates the header: 1 + 2^-11 + 2^-40 lies just above the
// midpoint between the halves 1 and 1 + 2^-10. Through float it becomes the
// midpoint and rounds to even (1); rounded once it is 1 + 2^-10.
TEST(ScalarRounding, RoundsOnceNotTwice) {
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(plugin::Half::FromFloat(static_cast<float>(v)), 0x3c00);  // twice
  EXPECT_EQ(HalfBitsFromDouble(v), 0x3c01);                           // once
  const double w = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(plugin::BFloat16::FromFloat(static_cast<float>(w)), 0x3f80);
  EXPECT_EQ(Bfloat16BitsFromDouble(w), 0x3f81);
}

INSTANTIATE_TEST_SUITE_P(Formats, ScalarRoundingTest,
                         ::testing::Values(&kHalf, &kBf16),
                         [](const auto& info) {
                           return std::string(info.param->name);
                         });

}  // namespace
}  // namespace sy::gpu
