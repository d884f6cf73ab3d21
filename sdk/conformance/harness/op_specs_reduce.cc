// Specs of the reductions sum mean max min (over dim lists, keepdim) and
// argmax (one dim or flattened).
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
using ReduceOp = ref::ReduceOp;

const Shape kLargeReduce = {100, 1031};  // 103,100 elements

struct DimsCase {
  Shape shape;
  std::vector<int64_t> dims;
  bool keepdim;
};

std::string DimsLabel(const Shape& shape, const std::vector<int64_t>& dims,
                      bool keepdim) {
  return specs::ShapesLabel({shape}) + ", dims=" + ShapeString(dims) +
         (keepdim ? ", keepdim" : "");
}

// Rows of edge values reduced along dim 1: infinities, NaN, signed zeros,
// subnormals, overflow of a sum; integer limits.
std::vector<double> EdgeRows(sy_dtype_t dtype, int64_t& rows) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v;
  if (IsFloating(dtype)) {
    const double max = MaxValue(dtype), tiny = MinSubnormal(dtype);
    v = {1, inf, 2, 3,  inf, -inf, 0, 1,   nan, 1, 2, 3,
         -0.0, 0, tiny, -tiny,  max, max, 1, 1,  -1, nan, inf, 2};
  } else if (dtype == SY_DTYPE_BOOL) {
    v = {0, 0, 0, 0,  1, 1, 1, 1,  0, 1, 0, 1};
  } else {
    const double lo = LowestValue(dtype), hi = MaxValue(dtype);
    v = {lo, hi, 0, 1,  hi, hi, hi, hi,  lo, lo, 0, 0,  hi, -1, lo, 2};
    if (dtype == SY_DTYPE_U8) v = {0, 255, 1, 2,  255, 255, 255, 255,  3, 0, 0, 3};
  }
  rows = static_cast<int64_t>(v.size()) / 4;
  return v;
}

OpTest ReduceTest(const char* name, ReduceOp kind, sy_dtype_t dtype) {
  return specs::Test("Reduce", name, std::string(DtypeName(dtype)), [=] {
    const bool extremum = kind == ReduceOp::kMax || kind == ReduceOp::kMin;
    // Sums stay exact for integers: small values (kArith).
    const Domain domain = extremum ? Domain::kGeneral : Domain::kArith;
    const Accuracy accuracy =
        extremum || !IsFloating(dtype) ? Accuracy::kExact : Accuracy::kReduction;
    auto reference = [kind](std::vector<int64_t> dims, bool keepdim) -> ReferenceFn {
      return [=](const std::vector<RefTensor>& in) {
        return ref::Reduce(kind, in[0], dims, keepdim);
      };
    };
    std::vector<DimsCase> dims_cases = {
        {{5, 7, 3}, {}, false},      {{5, 7, 3}, {1}, true},
        {{5, 7, 3}, {0, 2}, false},  {{5, 7, 3}, {-1}, false},
        {{5, 7, 3}, {0, 1, 2}, true}, {{}, {}, false},
        {{}, {0}, true},             {{0, 4}, {1}, false}};
    if (!extremum) {  // max/min over an empty dim is an error (no identity)
      dims_cases.push_back({{4, 0}, {1}, false});
      dims_cases.push_back({{0, 4}, {}, false});
    }
    std::vector<OpCase> cases;
    for (const DimsCase& d : dims_cases) {
      cases.push_back(Case(DimsLabel(d.shape, d.dims, d.keepdim),
                           {In(dtype, d.shape, domain)},
                           {AttrValue::Ints(d.dims), AttrValue::Bool(d.keepdim)},
                           accuracy, reference(d.dims, d.keepdim)));
    }
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{}}) {
      cases.push_back(Case("large " + DimsLabel(kLargeReduce, dims, false),
                           {In(dtype, kLargeReduce, domain)},
                           {AttrValue::Ints(dims), AttrValue::Bool(false)},
                           accuracy, reference(dims, false),
                           LayoutPlan::kDenseStrided));
    }
    int64_t rows = 0;
    std::vector<double> edges = EdgeRows(dtype, rows);
    cases.push_back(Case("edge rows, dims=[1]", {Fixed(dtype, edges, {rows, 4})},
                         {AttrValue::Ints({1}), AttrValue::Bool(false)}, accuracy,
                         reference({1}, false), LayoutPlan::kContiguousOnly));
    return cases;
  });
}

OpTest ArgmaxTest(sy_dtype_t dtype) {
  return specs::Test("Reduce", "argmax", std::string(DtypeName(dtype)), [=] {
    struct ArgCase {
      Shape shape;
      std::optional<int64_t> dim;
      bool keepdim;
      Domain domain;
    };
    const std::vector<ArgCase> arg_cases = {
        {{5, 7, 3}, std::nullopt, false, Domain::kGeneral},
        {{5, 7, 3}, std::nullopt, true, Domain::kGeneral},
        {{5, 7, 3}, 1, false, Domain::kGeneral},
        {{5, 7, 3}, -1, true, Domain::kGeneral},
        {{5, 7, 3}, 0, false, Domain::kGeneral},
        {{}, std::nullopt, false, Domain::kGeneral},
        {{}, 0, true, Domain::kGeneral},
        {{0, 4}, 1, false, Domain::kGeneral},
        {{6, 9}, 1, false, Domain::kFewValues},  // ties: the first wins
        {{6, 9}, std::nullopt, false, Domain::kFewValues},
    };
    std::vector<OpCase> cases;
    auto reference = [](std::optional<int64_t> dim, bool keepdim) -> ReferenceFn {
      return [=](const std::vector<RefTensor>& in) {
        return ref::Argmax(in[0], dim, keepdim);
      };
    };
    auto dim_attr = [](std::optional<int64_t> dim) {
      return dim ? AttrValue::Int(*dim) : AttrValue::None();
    };
    for (const ArgCase& c : arg_cases) {
      cases.push_back(Case(specs::ShapesLabel({c.shape}) + ", dim=" +
                               dim_attr(c.dim).ToString() +
                               (c.keepdim ? ", keepdim" : "") +
                               (c.domain == Domain::kFewValues ? ", ties" : ""),
                           {In(dtype, c.shape, c.domain)},
                           {dim_attr(c.dim), AttrValue::Bool(c.keepdim)},
                           Accuracy::kExact, reference(c.dim, c.keepdim)));
    }
    for (std::optional<int64_t> dim : {std::optional<int64_t>(1), std::optional<int64_t>()}) {
      cases.push_back(Case("large, dim=" + dim_attr(dim).ToString(),
                           {In(dtype, kLargeReduce)},
                           {dim_attr(dim), AttrValue::Bool(false)},
                           Accuracy::kExact, reference(dim, false),
                           LayoutPlan::kDenseStrided));
    }
    int64_t rows = 0;
    std::vector<double> edges = EdgeRows(dtype, rows);
    cases.push_back(Case("edge rows, dim=1", {Fixed(dtype, edges, {rows, 4})},
                         {AttrValue::Int(1), AttrValue::Bool(false)},
                         Accuracy::kExact, reference(1, false),
                         LayoutPlan::kContiguousOnly));
    return cases;
  });
}

}  // namespace

std::vector<OpTest> ReductionTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t d : kAllDtypes) tests.push_back(ReduceTest("sum", ReduceOp::kSum, d));
  for (sy_dtype_t d : kFloatDtypes) tests.push_back(ReduceTest("mean", ReduceOp::kMean, d));
  for (sy_dtype_t d : kAllDtypes) tests.push_back(ReduceTest("max", ReduceOp::kMax, d));
  for (sy_dtype_t d : kAllDtypes) tests.push_back(ReduceTest("min", ReduceOp::kMin, d));
  for (sy_dtype_t d : kAllDtypes) tests.push_back(ArgmaxTest(d));
  return tests;
}

}  // namespace sy::op_harness
