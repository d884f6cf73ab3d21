// Specs of the comparisons eq ne lt le gt ge (.Tensor and .Scalar) and of
// where. Results are exact. Inputs come from few distinct values so that
// equality actually happens.
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::Fixed;
using specs::In;
using specs::kLarge;
using CompareOp = ref::CompareOp;

struct CompareSpec {
  const char* name;
  CompareOp kind;
};

constexpr CompareSpec kSpecs[] = {
    {"eq", CompareOp::kEq}, {"ne", CompareOp::kNe}, {"lt", CompareOp::kLt},
    {"le", CompareOp::kLe}, {"gt", CompareOp::kGt}, {"ge", CompareOp::kGe}};

constexpr Domain kFew = Domain::kFewValues;

OpCase Elementwise(OpCase c) {
  c.elementwise = true;
  return c;
}

OpTest CompareTensorTest(const CompareSpec& spec, sy_dtype_t dtype) {
  return specs::Test("Compare", std::string(spec.name) + ".Tensor",
                     std::string(DtypeName(dtype)), [=] {
    const CompareOp kind = spec.kind;
    const ReferenceFn reference = [kind](const std::vector<RefTensor>& in) {
      return ref::CompareTensor(kind, in[0], in[1]);
    };
    std::vector<OpCase> cases;
    const std::vector<std::pair<Shape, Shape>> shapes = {
        {{5, 3}, {5, 3}}, {{4, 1, 3}, {5, 1}}, {{}, {2, 3}},
        {{7}, {}},        {{0, 3}, {1, 3}},    {{2, 3, 4}, {2, 3, 4}}};
    for (const auto& [sa, sb] : shapes) {
      cases.push_back(Elementwise(Case(specs::ShapesLabel({sa, sb}),
                                       {In(dtype, sa, kFew), In(dtype, sb, kFew)},
                                       {}, Accuracy::kExact, reference)));
    }
    cases.push_back(Elementwise(Case("large", {In(dtype, kLarge, kFew), In(dtype, kLarge, kFew)},
                                     {}, Accuracy::kExact, reference,
                                     LayoutPlan::kDenseStrided)));
    const std::vector<double> edges = EdgeValues(dtype, EdgeSet::kExtreme);
    auto [a, b] = specs::CrossPairs(edges, edges, [](double, double) { return true; });
    cases.push_back(Elementwise(Case("edge value pairs", {Fixed(dtype, a), Fixed(dtype, b)},
                                     {}, Accuracy::kExact, reference,
                                     LayoutPlan::kContiguousOnly)));
    return cases;
  });
}

OpTest CompareMixedTest(const CompareSpec& spec) {
  return specs::Test("Compare", std::string(spec.name) + ".Tensor", "mixed", [=] {
    const CompareOp kind = spec.kind;
    const ReferenceFn reference = [kind](const std::vector<RefTensor>& in) {
      return ref::CompareTensor(kind, in[0], in[1]);
    };
    std::vector<OpCase> cases;
    for (sy_dtype_t da : kAllDtypes) {
      for (sy_dtype_t db : kAllDtypes) {
        if (da == db) continue;
        const std::string dtypes = std::string(DtypeName(da)) + " with " +
                                   std::string(DtypeName(db)) + ", ";
        cases.push_back(Elementwise(Case(dtypes + "[4, 1, 3] with [5, 1]",
                                         {In(da, {4, 1, 3}, kFew), In(db, {5, 1}, kFew)},
                                         {}, Accuracy::kExact, reference,
                                         LayoutPlan::kDenseStrided)));
        cases.push_back(Elementwise(Case(dtypes + "rank 0 with [2, 3]",
                                         {In(da, {}, kFew), In(db, {2, 3}, kFew)},
                                         {}, Accuracy::kExact, reference,
                                         LayoutPlan::kContiguousOnly)));
      }
    }
    return cases;
  });
}

// Scalars among and between the tensors' few values; the fractional ones
// check that an integer tensor is not compared with a truncated scalar.
std::vector<double> CompareScalars(sy_dtype_t dtype, bool is_float) {
  if (is_float) return {0.5, -1.0, 1.5, 2.0, -0.5, 0.0};
  if (dtype == SY_DTYPE_U8 || dtype == SY_DTYPE_BOOL) return {1, 0, 2, 3, 1, 0};
  return {1, -1, 0, 2, 3, -2};
}

OpTest CompareScalarTest(const CompareSpec& spec, sy_dtype_t dtype, bool is_float) {
  const std::string variant =
      std::string(DtypeName(dtype)) + (is_float ? "_float" : "_int");
  return specs::Test("Compare", std::string(spec.name) + ".Scalar", variant, [=] {
    const CompareOp kind = spec.kind;
    const std::vector<double> scalars = CompareScalars(dtype, is_float);
    const std::vector<Shape> shapes = {{5, 3}, {}, {0, 3}, {2, 3, 4}, kLarge, {}};
    std::vector<OpCase> cases;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const double s = scalars[i % scalars.size()];
      const AttrValue attr = is_float ? AttrValue::Float(s)
                                      : AttrValue::Int(static_cast<int64_t>(s));
      const ref::ScalarArg arg{is_float, s};
      const bool edge = i + 1 == shapes.size();
      const bool large = shapes[i] == kLarge;
      cases.push_back(Elementwise(Case(
          (edge ? std::string("edge values") : specs::ShapesLabel({shapes[i]})) +
              ", b=" + attr.ToString(),
          {edge ? Fixed(dtype, EdgeValues(dtype, EdgeSet::kExtreme))
                : In(dtype, shapes[i], kFew)},
          {attr}, Accuracy::kExact,
          [kind, arg](const std::vector<RefTensor>& in) {
            return ref::CompareScalar(kind, in[0], arg);
          },
          edge ? LayoutPlan::kContiguousOnly
          : large ? LayoutPlan::kDenseStrided
                  : LayoutPlan::kAll)));
    }
    return cases;
  });
}

ReferenceFn WhereReference() {
  return [](const std::vector<RefTensor>& in) {
    return ref::Where(in[0], in[1], in[2]);
  };
}

OpTest WhereTest(sy_dtype_t dtype) {
  return specs::Test("Compare", "where", std::string(DtypeName(dtype)), [=] {
    const sy_dtype_t b = SY_DTYPE_BOOL;
    const std::vector<std::array<Shape, 3>> shapes = {
        {Shape{4, 1, 3}, Shape{5, 1}, Shape{3}},
        {Shape{5, 3}, Shape{5, 3}, Shape{5, 3}},
        {Shape{2, 3}, Shape{}, Shape{}},
        {Shape{}, Shape{2, 3}, Shape{2, 3}},
        {Shape{0, 3}, Shape{1, 3}, Shape{3}}};
    std::vector<OpCase> cases;
    for (const auto& s : shapes) {
      cases.push_back(Elementwise(Case(specs::ShapesLabel({s[0], s[1], s[2]}),
                                       {In(b, s[0]), In(dtype, s[1]), In(dtype, s[2])},
                                       {}, Accuracy::kExact, WhereReference())));
    }
    cases.push_back(Elementwise(Case("large", {In(b, kLarge), In(dtype, kLarge), In(dtype, {kLarge[1]})},
                                     {}, Accuracy::kExact, WhereReference(),
                                     LayoutPlan::kDenseStrided)));
    std::vector<double> edges = EdgeValues(dtype, EdgeSet::kExtreme);
    std::vector<double> reversed(edges.rbegin(), edges.rend());
    std::vector<double> condition;
    for (size_t i = 0; i < edges.size(); ++i) condition.push_back(i % 3 == 0 ? 1 : 0);
    cases.push_back(Elementwise(Case("edge values",
                                     {Fixed(b, condition), Fixed(dtype, edges), Fixed(dtype, reversed)},
                                     {}, Accuracy::kExact, WhereReference(),
                                     LayoutPlan::kContiguousOnly)));
    return cases;
  });
}

OpTest WhereMixedTest() {
  return specs::Test("Compare", "where", "mixed", [] {
    std::vector<OpCase> cases;
    for (sy_dtype_t da : kAllDtypes) {
      for (sy_dtype_t db : kAllDtypes) {
        if (da == db) continue;
        const std::string dtypes = std::string(DtypeName(da)) + " with " +
                                   std::string(DtypeName(db)) + ", ";
        cases.push_back(Elementwise(Case(
            dtypes + "[4, 1, 3], [5, 1], [3]",
            {In(SY_DTYPE_BOOL, {4, 1, 3}), In(da, {5, 1}), In(db, {3})}, {},
            Accuracy::kExact, WhereReference(), LayoutPlan::kDenseStrided)));
        cases.push_back(Elementwise(Case(
            dtypes + "[2, 3], rank 0, [2, 3]",
            {In(SY_DTYPE_BOOL, {2, 3}), In(da, {}), In(db, {2, 3})}, {},
            Accuracy::kExact, WhereReference(), LayoutPlan::kContiguousOnly)));
      }
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> CompareTests() {
  std::vector<OpTest> tests;
  for (const CompareSpec& spec : kSpecs) {
    for (sy_dtype_t d : kAllDtypes) tests.push_back(CompareTensorTest(spec, d));
    tests.push_back(CompareMixedTest(spec));
    for (sy_dtype_t d : kAllDtypes) {
      for (bool is_float : {false, true}) {
        tests.push_back(CompareScalarTest(spec, d, is_float));
      }
    }
  }
  for (sy_dtype_t d : kAllDtypes) tests.push_back(WhereTest(d));
  tests.push_back(WhereMixedTest());
  return tests;
}

}  // namespace sy::op_harness
