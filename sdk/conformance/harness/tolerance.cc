#include "sdk/conformance/harness/tolerance.h"

#include <cmath>
#include <cstdio>

#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {

// The numbers and their reasons are in docs/testing.md ("Tolerances").
Tolerance ToleranceFor(Accuracy accuracy, sy_dtype_t result) {
  if (!IsFloating(result) || accuracy == Accuracy::kExact) return {};
  const double tiny = MinSubnormal(result);
  if (result == SY_DTYPE_F64) {
    switch (accuracy) {
      case Accuracy::kBasic: return {1e-12, tiny, 0};
      case Accuracy::kTranscendental: return {1e-12, 1e-14, 0};
      case Accuracy::kReduction:
      case Accuracy::kContraction: return {1e-12, tiny, 1e-12};
      case Accuracy::kNormalization:
      case Accuracy::kAttention: return {1e-12, 1e-12, 0};
      default: return {};
    }
  }
  if (result == SY_DTYPE_F32) {
    switch (accuracy) {
      case Accuracy::kBasic: return {1e-6, tiny, 0};
      case Accuracy::kTranscendental: return {1e-6, 1e-6, 0};
      case Accuracy::kReduction:
      case Accuracy::kContraction: return {1e-5, tiny, 1e-5};
      case Accuracy::kNormalization: return {1e-5, 1e-6, 0};
      case Accuracy::kAttention: return {1e-5, 1e-5, 0};
      default: return {};
    }
  }
  // f16 and bf16: a few of their epsilons.
  const double eps = Epsilon(result);
  switch (accuracy) {
    case Accuracy::kBasic: return {2 * eps, tiny, 0};
    case Accuracy::kTranscendental: return {2 * eps, 1e-5, 0};
    case Accuracy::kReduction:
    case Accuracy::kContraction: return {2 * eps, tiny, 2 * eps};
    case Accuracy::kNormalization: return {2 * eps, eps / 16, 0};
    case Accuracy::kAttention: return {4 * eps, 4 * eps, 0};
    default: return {};
  }
}

Comparison CompareValues(const RefTensor& got, const RefResult& expected,
                         const Tolerance& tolerance) {
  Comparison c;
  const bool exact = !IsFloating(expected.value.dtype);
  const size_t n = std::min(got.values.size(), expected.value.values.size());
  c.checked = static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) {
    const double g = got.values[i];
    const double e = expected.value.values[i];
    double allowed = 0;
    bool pass;
    if (exact) {
      pass = g == e;
    } else if (std::isnan(e) || std::isnan(g)) {
      pass = std::isnan(e) && std::isnan(g);
    } else if (std::isinf(e) || std::isinf(g)) {
      pass = g == e;
    } else {
      const double scale = i < expected.scale.size() ? expected.scale[i] : 0;
      allowed = tolerance.atol + tolerance.rtol * std::fabs(e) +
                tolerance.acc_rtol * scale;
      pass = std::fabs(g - e) <= allowed;
    }
    if (pass) continue;
    ++c.mismatches;
    if (c.first.size() < Comparison::kMaxReported) {
      c.first.push_back({static_cast<int64_t>(i), g, e, allowed});
    }
    const double diff = std::fabs(g - e);
    const double excess = allowed > 0 && std::isfinite(diff)
                              ? diff / allowed
                              : INFINITY;
    if (excess > c.worst_excess) c.worst_excess = excess;
  }
  return c;
}

std::string DescribeMismatches(const Comparison& comparison, sy_dtype_t dtype,
                               const Shape& shape, const Tolerance& tolerance) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%lld of %lld elements differ (rtol %g, atol %g, acc_rtol %g; "
                "worst |diff|/allowed %g):",
                static_cast<long long>(comparison.mismatches),
                static_cast<long long>(comparison.checked), tolerance.rtol,
                tolerance.atol, tolerance.acc_rtol, comparison.worst_excess);
  std::string out = buf;
  std::vector<int64_t> index(shape.size());
  for (const Mismatch& m : comparison.first) {
    Unravel(m.index, shape, index.data());
    out += "\n    at " + ShapeString(index) + ": got " +
           FormatValue(dtype, m.got) + ", expected " +
           FormatValue(dtype, m.expected);
    if (IsFloating(dtype) && std::isfinite(m.got) && std::isfinite(m.expected)) {
      std::snprintf(buf, sizeof buf, " (|diff| %.3g > allowed %.3g)",
                    std::fabs(m.got - m.expected), m.allowed);
      out += buf;
    }
  }
  if (comparison.mismatches > static_cast<int64_t>(comparison.first.size())) {
    out += "\n    …";
  }
  return out;
}

}  // namespace sy::op_harness
