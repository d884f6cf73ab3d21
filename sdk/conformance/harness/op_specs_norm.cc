// Specs of softmax, log_softmax, layer_norm and rms_norm (floating x). The
// norms also run with f32 weights on f16/bf16 x, the mixed-precision
// combination the shape functions allow.
#include <limits>

#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::Fixed;
using specs::In;

const Shape kLargeRows = {64, 1601};  // 102,464 elements
const Shape kVocabRows = {3, 50257};  // 150,771 elements

OpTest SoftmaxTest(const char* name, bool log, sy_dtype_t dtype) {
  return specs::Test("Normalize", name, std::string(DtypeName(dtype)), [=] {
    struct SoftmaxCase {
      Shape shape;
      int64_t dim;
      Domain domain;
      LayoutPlan layouts;
    };
    const std::vector<SoftmaxCase> list = {
        {{4, 7}, -1, Domain::kGeneral, LayoutPlan::kAll},
        {{3, 5, 6}, 1, Domain::kGeneral, LayoutPlan::kAll},
        {{3, 5, 6}, 0, Domain::kGeneral, LayoutPlan::kAll},
        {{}, -1, Domain::kGeneral, LayoutPlan::kAll},
        {{5, 0}, -1, Domain::kGeneral, LayoutPlan::kAll},
        {{0, 5}, -1, Domain::kGeneral, LayoutPlan::kAll},
        // exp() of these overflows unless the maximum is subtracted first.
        {{4, 7}, -1, Domain::kWide, LayoutPlan::kAll},
        {kLargeRows, -1, Domain::kGeneral, LayoutPlan::kDenseStrided},
        {kLargeRows, 0, Domain::kGeneral, LayoutPlan::kDenseStrided},
        // Rows longer than a GPU block keeps in registers, of a length no
        // vector width divides (a language model's vocabulary, 50,257).
        {kVocabRows, -1, Domain::kGeneral, LayoutPlan::kContiguousOnly},
    };
    auto reference = [log](int64_t dim) -> ReferenceFn {
      return [=](const std::vector<RefTensor>& in) {
        return ref::Softmax(in[0], dim, log);
      };
    };
    std::vector<OpCase> cases;
    for (const SoftmaxCase& c : list) {
      cases.push_back(Case(specs::ShapesLabel({c.shape}) + ", dim=" +
                               std::to_string(c.dim) +
                               (c.domain == Domain::kWide ? ", wide logits" : ""),
                           {In(dtype, c.shape, c.domain)}, {AttrValue::Int(c.dim)},
                           Accuracy::kNormalization, reference(c.dim), c.layouts));
    }
    // -inf logits are masked-out entries: they get probability 0.
    const double inf = std::numeric_limits<double>::infinity();
    cases.push_back(Case("rows with -inf, dim=-1",
                         {Fixed(dtype, {-inf, 1, 2, 3, 0, 0, 0, 0, -inf, -inf, 5, 5}, {3, 4})},
                         {AttrValue::Int(-1)}, Accuracy::kNormalization,
                         reference(-1), LayoutPlan::kContiguousOnly));
    return cases;
  });
}

// x [..., normalized_shape], weight and bias (or None) of normalized_shape.
struct NormCase {
  Shape x;
  size_t normalized_dims;  // trailing dims of x that are normalized
  bool weight, bias;
  double eps;
  LayoutPlan layouts = LayoutPlan::kAll;
};

OpTest LayerNormTest(sy_dtype_t dtype, sy_dtype_t weight_dtype) {
  const sy_dtype_t pair[] = {dtype, weight_dtype};
  const std::string variant =
      dtype == weight_dtype ? std::string(DtypeName(dtype)) : DtypesName(pair);
  return specs::Test("Normalize", "layer_norm", variant, [=] {
    const std::vector<NormCase> list = {
        {{4, 16}, 1, true, true, 1e-5},
        {{2, 3, 8}, 2, true, false, 1e-5},
        {{5, 12}, 1, false, false, 1e-5},
        {{3, 7}, 1, true, true, 0.1},
        {{6, 1}, 1, true, true, 1e-5},  // variance 0: the result is the bias
        {{0, 8}, 1, true, true, 1e-5},
        {{64, 1601}, 1, true, true, 1e-5, LayoutPlan::kDenseStrided},
    };
    std::vector<OpCase> cases;
    for (const NormCase& c : list) {
      const Shape normalized(c.x.end() - static_cast<std::ptrdiff_t>(c.normalized_dims),
                             c.x.end());
      const InputSpec w = c.weight ? In(weight_dtype, normalized) : InputSpec::None();
      const InputSpec b = c.bias ? In(weight_dtype, normalized) : InputSpec::None();
      const double eps = c.eps;
      cases.push_back(Case(
          specs::ShapesLabel({c.x}) + ", normalized_shape=" + ShapeString(normalized) +
              (c.weight ? ", weight" : "") + (c.bias ? ", bias" : "") +
              ", eps=" + AttrValue::Float(eps).ToString(),
          {In(dtype, c.x), w, b},
          {AttrValue::Ints(normalized), AttrValue::Float(eps)},
          Accuracy::kNormalization,
          [normalized, eps](const std::vector<RefTensor>& in) {
            return ref::LayerNorm(in[0], normalized, in[1], in[2], eps);
          },
          c.layouts));
    }
    return cases;
  });
}

OpTest RmsNormTest(sy_dtype_t dtype, sy_dtype_t weight_dtype) {
  const sy_dtype_t pair[] = {dtype, weight_dtype};
  const std::string variant =
      dtype == weight_dtype ? std::string(DtypeName(dtype)) : DtypesName(pair);
  return specs::Test("Normalize", "rms_norm", variant, [=] {
    const std::vector<NormCase> list = {
        {{4, 16}, 1, true, false, 1e-6},
        {{2, 3, 33}, 1, true, false, 1e-3},
        {{1}, 1, true, false, 1e-6},
        {{0, 8}, 1, true, false, 1e-6},
        {{64, 1601}, 1, true, false, 1e-6, LayoutPlan::kDenseStrided},
    };
    std::vector<OpCase> cases;
    for (const NormCase& c : list) {
      const double eps = c.eps;
      cases.push_back(Case(
          specs::ShapesLabel({c.x}) + ", eps=" + AttrValue::Float(eps).ToString(),
          {In(dtype, c.x), In(weight_dtype, {c.x.back()})}, {AttrValue::Float(eps)},
          Accuracy::kNormalization,
          [eps](const std::vector<RefTensor>& in) {
            return ref::RmsNorm(in[0], in[1], eps);
          },
          c.layouts));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> NormTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t d : kFloatDtypes) tests.push_back(SoftmaxTest("softmax", false, d));
  for (sy_dtype_t d : kFloatDtypes) tests.push_back(SoftmaxTest("log_softmax", true, d));
  for (auto make : {LayerNormTest, RmsNormTest}) {
    for (sy_dtype_t d : kFloatDtypes) tests.push_back(make(d, d));
    tests.push_back(make(SY_DTYPE_F16, SY_DTYPE_F32));
    tests.push_back(make(SY_DTYPE_BF16, SY_DTYPE_F32));
  }
  return tests;
}

}  // namespace sy::op_harness
