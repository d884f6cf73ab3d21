// Seeded random inputs per dtype and per op domain, and the edge values
// (NaN, ±Inf, -0.0, subnormals, extremes, integer limits) ops define
// results for.
//
// Every value is rounded to its dtype (RefTensor::Make), so what the
// reference sees is exactly what the device holds.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_RANDOM_INPUTS_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_RANDOM_INPUTS_H_

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "sdk/conformance/harness/reference_tensor.h"

namespace sy::op_harness {

// Which values an input may take. Floating ranges are given; integer ranges
// are chosen per dtype so that the op stays exact and defined.
enum class Domain {
  // Floats in [-4, 4]; integers over their whole range (i64: ±2^62, so
  // values stay exact in float64); bool 0/1. For ops that only move or
  // compare values.
  kGeneral,
  // Floats in [-4, 4]; integers small enough that add, sub, mul and sums
  // of 100k elements cannot overflow (i8 ±11, u8 0..15, i32/i64 ±3000).
  kArith,
  // Floats in [0.05, 8]; integers in [1, 100] (u8/i8 [1, 11]): log, sqrt.
  kPositive,
  // |x| in [0.25, 4]; integers nonzero with |x| <= 11 (u8 1..15), bool 1:
  // divisors and reciprocals.
  kNonZero,
  // Bases of pow: floats in [0.25, 3]; integers in [-3, 3] (u8 [0, 3]).
  kPowBase,
  // Exponents of pow: floats in [-3, 3]; integers in [0, 4].
  kPowExponent,
  // Floats in [-1, 1]; integers in [-1, 1] (u8 [0, 1]): attention inputs.
  kUnit,
  // Few distinct values (floats k/2 for k in -3..3, integers -3..3, u8 0..6)
  // so compares and argmax meet ties.
  kFewValues,
  // Floats in [-100, 100] (f16: [-60, 60]): logits that overflow exp()
  // unless a softmax subtracts the maximum first.
  kWide,
  // Integers in [0, limit): embedding indices.
  kIndex,
  // Values that fit in `fits_in`'s range (floats with fractional parts,
  // truncating toward zero into it): float → integer casts.
  kFitsIn,
  // bool, about 70% true, with index 0 of the last dim always true so that
  // no attention row is fully masked.
  kMaskKeep,
};

std::string_view DomainName(Domain domain);

// Parameters a domain may need.
struct DomainParams {
  int64_t limit = 0;                     // kIndex
  sy_dtype_t fits_in = SY_DTYPE_NONE;    // kFitsIn
};

// A tensor of `dtype` and `shape` with values drawn from `domain`.
RefTensor RandomTensor(sy_dtype_t dtype, const Shape& shape, Domain domain,
                       const DomainParams& params, std::mt19937_64& rng);

// Which edge values an op defines results for.
enum class EdgeSet {
  // NaN, ±Inf, ±0, ±smallest subnormal, ±smallest normal, ±1, 0.5, 3 for
  // floats; 0, ±1, 2 for integers; 0, 1 for bool.
  kSpecial,
  // kSpecial plus ±largest finite (floats) or the integer type's minimum
  // and maximum (u8: 255, 128), which overflow in arithmetic: integers
  // wrap, floats go to infinity.
  kExtreme,
};

// The edge values of `dtype` (each exactly representable in it).
std::vector<double> EdgeValues(sy_dtype_t dtype, EdgeSet set);

// A seed for one run, mixed from the harness seed and the run's identity,
// so a failure names a seed that reproduces exactly that run.
uint64_t MixSeed(uint64_t base, std::string_view name, uint64_t a, uint64_t b);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_RANDOM_INPUTS_H_
