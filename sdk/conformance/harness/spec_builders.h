// Small builders shared by the op_specs_*.cc files: inputs, shapes, case
// lists. Internal to the harness.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_SPEC_BUILDERS_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_SPEC_BUILDERS_H_

#include <string>
#include <utility>
#include <vector>

#include "sdk/conformance/harness/op_case.h"

namespace sy::op_harness::specs {

// 256 × 391 = 100,096 elements: above the cpu plugin's 32K-element
// threading grain and the harness's "≥ 100k" rule for elementwise ops.
inline const Shape kLarge = {256, 391};

inline InputSpec In(sy_dtype_t dtype, Shape shape,
                    Domain domain = Domain::kGeneral, DomainParams params = {}) {
  InputSpec s;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.domain = domain;
  s.params = params;
  return s;
}

// Fixed values; shape [n] unless given.
inline InputSpec Fixed(sy_dtype_t dtype, std::vector<double> values,
                       Shape shape = {}) {
  InputSpec s;
  s.dtype = dtype;
  s.shape = shape.empty() ? Shape{static_cast<int64_t>(values.size())} : shape;
  s.fixed = std::move(values);
  return s;
}

inline InputSpec Index(sy_dtype_t dtype, Shape shape, int64_t limit) {
  return In(dtype, std::move(shape), Domain::kIndex, DomainParams{limit, SY_DTYPE_NONE});
}

// Every pair of `a` and `b` values: first[i] = a[i / |b|], second[i] =
// b[i % |b|], optionally only the pairs `keep` accepts.
template <class Keep>
std::pair<std::vector<double>, std::vector<double>> CrossPairs(
    const std::vector<double>& a, const std::vector<double>& b, Keep keep) {
  std::pair<std::vector<double>, std::vector<double>> out;
  for (double x : a) {
    for (double y : b) {
      if (!keep(x, y)) continue;
      out.first.push_back(x);
      out.second.push_back(y);
    }
  }
  return out;
}

// A case with the given label, inputs and attrs.
inline OpCase Case(std::string label, std::vector<InputSpec> inputs,
                   std::vector<AttrValue> attrs, Accuracy accuracy,
                   ReferenceFn reference,
                   LayoutPlan layouts = LayoutPlan::kAll) {
  OpCase c;
  c.label = std::move(label);
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = accuracy;
  c.reference = std::move(reference);
  c.layouts = layouts;
  return c;
}

inline OpTest Test(std::string family, std::string op, std::string variant,
                   std::function<std::vector<OpCase>()> cases) {
  OpTest t;
  t.family = std::move(family);
  t.op = std::move(op);
  t.variant = std::move(variant);
  t.cases = std::move(cases);
  return t;
}

// "[5, 3]", "[4, 1, 3] with [5, 1]": labels from shapes.
std::string ShapesLabel(const std::vector<Shape>& shapes);

// The cases of a one-input elementwise op (unary ops, copy, cast): shapes
// [7], [5, 3], [2, 3, 4], rank 0 and [3, 0] in every layout, kLarge dense
// and strided, and `edges` (if any) as fixed values, contiguous.
std::vector<OpCase> UnaryShapeCases(sy_dtype_t dtype, Domain domain,
                                    std::vector<AttrValue> attrs,
                                    Accuracy accuracy, ReferenceFn reference,
                                    std::vector<double> edges);

}  // namespace sy::op_harness::specs

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_SPEC_BUILDERS_H_
