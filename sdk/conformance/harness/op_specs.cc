// The list of every test, the decomposed copies, and the builders shared
// by the op_specs_<family>.cc files.
#include "sdk/conformance/harness/op_specs.h"

#include <set>
#include <string>

#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {

std::string OpTest::TestName() const {
  std::string name = op;
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name + "/" + variant;
}

namespace specs {

std::string ShapesLabel(const std::vector<Shape>& shapes) {
  std::string out;
  for (const Shape& s : shapes) {
    if (!out.empty()) out += " with ";
    out += s.empty() ? std::string("rank 0") : ShapeString(s);
  }
  return out;
}

std::vector<OpCase> UnaryShapeCases(sy_dtype_t dtype, Domain domain,
                                    std::vector<AttrValue> attrs,
                                    Accuracy accuracy, ReferenceFn reference,
                                    std::vector<double> edges) {
  std::vector<OpCase> cases;
  for (const Shape& shape :
       std::vector<Shape>{{7}, {5, 3}, {2, 3, 4}, {}, {3, 0}}) {
    cases.push_back(Case(ShapesLabel({shape}), {In(dtype, shape, domain)},
                         attrs, accuracy, reference));
  }
  cases.push_back(Case("large " + ShapeString(kLarge),
                       {In(dtype, kLarge, domain)}, attrs, accuracy, reference,
                       LayoutPlan::kDenseStrided));
  if (!edges.empty()) {
    cases.push_back(Case("edge values", {Fixed(dtype, std::move(edges))},
                         attrs, accuracy, reference,
                         LayoutPlan::kContiguousOnly));
  }
  for (OpCase& c : cases) c.elementwise = true;
  return cases;
}

}  // namespace specs

std::vector<OpTest> DecomposedTests(const std::vector<OpTest>& tests) {
  // docs/ops.md, "Decompositions"; binary ops, compares and where decompose
  // only when their inputs' dtypes differ: their "mixed" tests.
  static const std::set<std::string, std::less<>> kComposite = {
      "contiguous", "square",      "linear",
      "gelu",       "silu",        "softmax",
      "log_softmax", "layer_norm", "rms_norm",
      "scaled_dot_product_attention"};
  std::vector<OpTest> out;
  for (const OpTest& t : tests) {
    if (t.mode != CallMode::kDispatch) continue;
    if (!kComposite.contains(t.op) && t.variant != "mixed") continue;
    OpTest copy = t;
    copy.family = "Decomposed";
    copy.mode = CallMode::kDecomposed;
    out.push_back(std::move(copy));
  }
  return out;
}

std::vector<OpTest> AllOpTests() {
  std::vector<OpTest> all;
  for (auto family : {CreationTests, UnaryTests, BinaryTests, CompareTests,
                      ReductionTests, NormTests, LinalgTests, AttentionTests,
                      LayoutTests, GatherTests}) {
    std::vector<OpTest> tests = family();
    all.insert(all.end(), std::make_move_iterator(tests.begin()),
               std::make_move_iterator(tests.end()));
  }
  std::vector<OpTest> decomposed = DecomposedTests(all);
  all.insert(all.end(), std::make_move_iterator(decomposed.begin()),
             std::make_move_iterator(decomposed.end()));
  return all;
}

}  // namespace sy::op_harness
