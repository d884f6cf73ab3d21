// Tolerances and the comparison of a result against its reference.
//
// An element passes when
//     |got − expected| <= atol + rtol·|expected| + acc_rtol·scale
// where `scale` is, for ops that accumulate (sum, mean, matmul, linear,
// conv2d), the L2 norm of the terms summed into that element (so the
// allowance grows like √K·rms(term) for K terms, the way rounding errors of
// a K-term sum grow), and 0 elsewhere. NaN matches NaN only; ±Inf match
// only themselves; -0.0 equals 0.0. Integer and bool results must match
// exactly, and so must every op that only moves or selects values
// (Accuracy::kExact). docs/testing.md justifies each number.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_TOLERANCE_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_TOLERANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sdk/conformance/harness/reference_tensor.h"

namespace sy::op_harness {

// The kind of arithmetic an op does, which sets how far a correct kernel
// may be from the float64 reference.
enum class Accuracy {
  kExact,           // copies, casts, views, compare, where, max/min, relu, …
  kBasic,           // one correctly rounded IEEE op: add sub mul div sqrt …
  kTranscendental,  // exp log sin cos tanh sigmoid erf gelu silu pow rsqrt
  kReduction,       // sum mean
  kNormalization,   // softmax log_softmax layer_norm rms_norm
  kContraction,     // matmul linear conv2d
  kAttention,       // scaled_dot_product_attention
};

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  double acc_rtol = 0;  // times the per-element accumulation scale
};

// The default for an op kind and a floating result dtype; all zeros for
// integer and bool results.
Tolerance ToleranceFor(Accuracy accuracy, sy_dtype_t result);

// The expected result of one call: the value, rounded to the result
// dtype, and for accumulating ops the per-element scale (else empty).
struct RefResult {
  RefTensor value;
  std::vector<double> scale;
};

struct Mismatch {
  int64_t index;  // row-major
  double got, expected, allowed;
};

struct Comparison {
  int64_t checked = 0;
  int64_t mismatches = 0;
  std::vector<Mismatch> first;  // up to kMaxReported, in index order
  double worst_excess = 0;      // largest |diff| / allowed among mismatches

  static constexpr int kMaxReported = 5;
  bool ok() const { return mismatches == 0; }
};

// Compares values only; the caller has checked dtypes and shapes.
Comparison CompareValues(const RefTensor& got, const RefResult& expected,
                         const Tolerance& tolerance);

// "3 of 60 elements differ (rtol 1e-06, atol 0, acc 0):\n  [0, 1]: got …,
// expected …, |diff| … > allowed …" with the multi-indices of `shape`.
std::string DescribeMismatches(const Comparison& comparison,
                               sy_dtype_t dtype, const Shape& shape,
                               const Tolerance& tolerance);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_TOLERANCE_H_
