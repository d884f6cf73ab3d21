#include "sdk/conformance/harness/random_inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {
namespace {

struct IntRange {
  int64_t lo, hi;
  bool nonzero = false;
};

// Integer ranges per domain (docs on Domain in the header).
IntRange IntRangeFor(sy_dtype_t dtype, Domain domain, const DomainParams& p) {
  const bool u8 = dtype == SY_DTYPE_U8, i8 = dtype == SY_DTYPE_I8;
  switch (domain) {
    case Domain::kGeneral:
    case Domain::kWide:
      if (dtype == SY_DTYPE_I64) return {-(int64_t{1} << 62), int64_t{1} << 62};
      return {static_cast<int64_t>(LowestValue(dtype)),
              static_cast<int64_t>(MaxValue(dtype))};
    case Domain::kArith:
      if (u8) return {0, 15};
      if (i8) return {-11, 11};
      return {-3000, 3000};
    case Domain::kPositive:
      return u8 || i8 ? IntRange{1, 11} : IntRange{1, 100};
    case Domain::kNonZero:
      if (u8) return {1, 15};
      return i8 ? IntRange{-11, 11, true} : IntRange{-100, 100, true};
    case Domain::kPowBase:
      return u8 ? IntRange{0, 3} : IntRange{-3, 3};
    case Domain::kPowExponent:
      return {0, 4};
    case Domain::kUnit:
      return u8 ? IntRange{0, 1} : IntRange{-1, 1};
    case Domain::kFewValues:
      return u8 ? IntRange{0, 6} : IntRange{-3, 3};
    case Domain::kIndex:
      return {0, std::max<int64_t>(p.limit - 1, 0)};
    case Domain::kFitsIn: {
      const double lo = std::max(LowestValue(dtype), LowestValue(p.fits_in));
      const double hi = std::min(MaxValue(dtype), MaxValue(p.fits_in));
      if (dtype == SY_DTYPE_I64 && hi > 0x1p62) {
        return {static_cast<int64_t>(std::max(lo, -0x1p62)), int64_t{1} << 62};
      }
      return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
    }
    case Domain::kMaskKeep:
      return {0, 1};
  }
  return {0, 0};
}

struct FloatRange {
  double lo, hi;
  bool random_sign = false;  // |x| in [lo, hi] with either sign
};

FloatRange FloatRangeFor(sy_dtype_t dtype, Domain domain,
                         const DomainParams& p) {
  switch (domain) {
    case Domain::kGeneral:
    case Domain::kArith: return {-4, 4};
    case Domain::kPositive: return {0.05, 8};
    case Domain::kNonZero: return {0.25, 4, true};
    case Domain::kPowBase: return {0.25, 3};
    case Domain::kPowExponent: return {-3, 3};
    case Domain::kUnit: return {-1, 1};
    case Domain::kWide:
      return dtype == SY_DTYPE_F16 ? FloatRange{-60, 60} : FloatRange{-100, 100};
    case Domain::kFitsIn: {
      // Shrunk a little so that rounding to `dtype` cannot carry a value
      // past the target's limit; values that still do are redrawn.
      const double lo = std::max(LowestValue(dtype), LowestValue(p.fits_in));
      const double hi = std::min(MaxValue(dtype), MaxValue(p.fits_in));
      return {std::max(lo, -0x1p62) * 0.999, std::min(hi, 0x1p62) * 0.999};
    }
    default: return {-4, 4};
  }
}

double DrawFloat(sy_dtype_t dtype, Domain domain, const DomainParams& p,
                 std::mt19937_64& rng) {
  if (domain == Domain::kFewValues) {
    return static_cast<double>(std::uniform_int_distribution<int>(-3, 3)(rng)) / 2;
  }
  if (domain == Domain::kIndex || domain == Domain::kMaskKeep) {
    const IntRange r = IntRangeFor(SY_DTYPE_I64, domain, p);
    return static_cast<double>(
        std::uniform_int_distribution<int64_t>(r.lo, r.hi)(rng));
  }
  const FloatRange r = FloatRangeFor(dtype, domain, p);
  if (domain == Domain::kFitsIn) {
    if (p.fits_in == SY_DTYPE_BOOL &&
        std::uniform_int_distribution<int>(0, 9)(rng) < 3) {
      return 0;  // some false values for casts to bool
    }
    for (;;) {
      const double v = RoundTo(
          dtype, std::uniform_real_distribution<double>(r.lo, r.hi)(rng));
      const double t = std::trunc(v);
      if (t >= LowestValue(p.fits_in) && t <= MaxValue(p.fits_in)) return v;
    }
  }
  double v = std::uniform_real_distribution<double>(r.lo, r.hi)(rng);
  if (r.random_sign && (rng() & 1)) v = -v;
  return v;
}

double DrawInt(sy_dtype_t dtype, Domain domain, const DomainParams& p,
               std::mt19937_64& rng) {
  if (dtype == SY_DTYPE_BOOL) {
    if (domain == Domain::kNonZero) return 1;
    if (domain == Domain::kMaskKeep) {
      return std::uniform_int_distribution<int>(0, 9)(rng) < 7 ? 1 : 0;
    }
    return static_cast<double>(rng() & 1);
  }
  const IntRange r = IntRangeFor(dtype, domain, p);
  std::uniform_int_distribution<int64_t> dist(r.lo, r.hi);
  int64_t v = dist(rng);
  while (r.nonzero && v == 0) v = dist(rng);
  return static_cast<double>(v);
}

}  // namespace

std::string_view DomainName(Domain domain) {
  switch (domain) {
    case Domain::kGeneral: return "general";
    case Domain::kArith: return "arith";
    case Domain::kPositive: return "positive";
    case Domain::kNonZero: return "nonzero";
    case Domain::kPowBase: return "pow-base";
    case Domain::kPowExponent: return "pow-exponent";
    case Domain::kUnit: return "unit";
    case Domain::kFewValues: return "few-values";
    case Domain::kWide: return "wide";
    case Domain::kIndex: return "index";
    case Domain::kFitsIn: return "fits-in";
    case Domain::kMaskKeep: return "mask-keep";
  }
  return "?";
}

RefTensor RandomTensor(sy_dtype_t dtype, const Shape& shape, Domain domain,
                       const DomainParams& params, std::mt19937_64& rng) {
  const int64_t n = NumElements(shape);
  std::vector<double> values(static_cast<size_t>(n));
  const bool floating = IsFloating(dtype);
  for (double& v : values) {
    v = floating ? DrawFloat(dtype, domain, params, rng)
                 : DrawInt(dtype, domain, params, rng);
  }
  if (domain == Domain::kMaskKeep && !shape.empty() && shape.back() > 0) {
    for (int64_t i = 0; i < n; i += shape.back()) {
      values[static_cast<size_t>(i)] = 1;
    }
  }
  return RefTensor::Make(dtype, shape, std::move(values));
}

std::vector<double> EdgeValues(sy_dtype_t dtype, EdgeSet set) {
  const bool extreme = set == EdgeSet::kExtreme;
  std::vector<double> v;
  if (IsFloating(dtype)) {
    const double inf = std::numeric_limits<double>::infinity();
    v = {std::numeric_limits<double>::quiet_NaN(),
         inf,
         -inf,
         0.0,
         -0.0,
         MinSubnormal(dtype),
         -MinSubnormal(dtype),
         MinNormal(dtype),
         -MinNormal(dtype),
         1.0,
         -1.0,
         0.5,
         3.0};
    if (extreme) {
      v.push_back(MaxValue(dtype));
      v.push_back(-MaxValue(dtype));
    }
  } else if (dtype == SY_DTYPE_BOOL) {
    v = {0, 1};
  } else if (dtype == SY_DTYPE_U8) {
    v = {0, 1, 2, 3};
    if (extreme) v.insert(v.end(), {127, 128, 254, 255});
  } else {
    v = {0, 1, -1, 2};
    if (extreme) {
      const double lo = LowestValue(dtype), hi = MaxValue(dtype);
      if (dtype == SY_DTYPE_I64) {
        v.insert(v.end(), {lo, hi, -0x1p62, 0x1p62});
      } else {
        v.insert(v.end(), {lo, hi, lo + 1, hi - 1});
      }
    }
  }
  for (double& x : v) x = RoundTo(dtype, x);
  return v;
}

uint64_t MixSeed(uint64_t base, std::string_view name, uint64_t a, uint64_t b) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the name
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  // splitmix64 finalizer over each part.
  auto mix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(base ^ h) ^ a) ^ (b * 0x632be59bd9b4e019ull));
}

}  // namespace sy::op_harness
