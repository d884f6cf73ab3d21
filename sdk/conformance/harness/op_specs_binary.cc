// Specs of the arithmetic binary ops, add sub mul div pow maximum minimum:
// the .Tensor overloads per dtype, one "mixed" test per op with every pair
// of different dtypes (the core promotes them), and the .Scalar overloads
// per tensor dtype with an int and with a float Scalar.
#include <cmath>

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
using BinaryOp = ref::BinaryOp;

struct BinarySpec {
  const char* name;  // base name; overloads add ".Tensor" / ".Scalar"
  BinaryOp kind;
  Domain a, b;
  Accuracy accuracy;
};

// clang-format off
constexpr BinarySpec kSpecs[] = {
    {"add",     BinaryOp::kAdd,     Domain::kArith,   Domain::kArith,       Accuracy::kBasic},
    {"sub",     BinaryOp::kSub,     Domain::kArith,   Domain::kArith,       Accuracy::kBasic},
    {"mul",     BinaryOp::kMul,     Domain::kArith,   Domain::kArith,       Accuracy::kBasic},
    {"div",     BinaryOp::kDiv,     Domain::kArith,   Domain::kNonZero,     Accuracy::kBasic},
    {"pow",     BinaryOp::kPow,     Domain::kPowBase, Domain::kPowExponent, Accuracy::kTranscendental},
    {"maximum", BinaryOp::kMaximum, Domain::kGeneral, Domain::kGeneral,     Accuracy::kExact},
    {"minimum", BinaryOp::kMinimum, Domain::kGeneral, Domain::kGeneral,     Accuracy::kExact},
};
// clang-format on

// sub, div and pow have no bool result (the shape function refuses it).
bool AcceptsBoolResult(BinaryOp kind) {
  return kind != BinaryOp::kSub && kind != BinaryOp::kDiv &&
         kind != BinaryOp::kPow;
}

Accuracy AccuracyFor(const BinarySpec& spec, sy_dtype_t result) {
  return IsFloating(result) ? spec.accuracy : Accuracy::kExact;
}

// Edge pairs the op defines: integer division needs a nonzero divisor and
// not (min / -1); integer pow a small non-negative exponent (a naive kernel
// multiplies `exponent` times).
std::pair<std::vector<double>, std::vector<double>> EdgePairs(
    const BinarySpec& spec, sy_dtype_t dtype) {
  const std::vector<double> edges = EdgeValues(dtype, EdgeSet::kExtreme);
  const bool integral = !IsFloating(dtype);
  const double lowest = LowestValue(dtype);
  return specs::CrossPairs(edges, edges, [&](double a, double b) {
    if (!integral) return true;
    if (spec.kind == BinaryOp::kDiv) return b != 0 && !(a == lowest && b == -1);
    if (spec.kind == BinaryOp::kPow) return b >= 0 && b <= 8;
    return true;
  });
}

OpCase Elementwise(OpCase c) {
  c.elementwise = true;
  return c;
}

OpTest TensorTest(const BinarySpec& spec, sy_dtype_t dtype) {
  const std::string op = std::string(spec.name) + ".Tensor";
  return specs::Test("Binary", op, std::string(DtypeName(dtype)), [=] {
    const BinaryOp kind = spec.kind;
    const Accuracy accuracy = AccuracyFor(spec, dtype);
    const ReferenceFn reference = [kind](const std::vector<RefTensor>& in) {
      return ref::BinaryTensor(kind, in[0], in[1]);
    };
    std::vector<OpCase> cases;
    const std::vector<std::pair<Shape, Shape>> shapes = {
        {{5, 3}, {5, 3}}, {{4, 1, 3}, {5, 1}}, {{}, {2, 3}}, {{7}, {}},
        {{}, {}},         {{0, 3}, {1, 3}},    {{2, 3, 4}, {2, 3, 4}}};
    for (const auto& [sa, sb] : shapes) {
      cases.push_back(Elementwise(Case(specs::ShapesLabel({sa, sb}),
                                       {In(dtype, sa, spec.a), In(dtype, sb, spec.b)},
                                       {}, accuracy, reference)));
    }
    for (const Shape& sb : {kLarge, Shape{kLarge[1]}}) {
      cases.push_back(Elementwise(Case("large " + specs::ShapesLabel({kLarge, sb}),
                                       {In(dtype, kLarge, spec.a), In(dtype, sb, spec.b)},
                                       {}, accuracy, reference,
                                       LayoutPlan::kDenseStrided)));
    }
    auto [a, b] = EdgePairs(spec, dtype);
    cases.push_back(Elementwise(Case("edge value pairs",
                                     {Fixed(dtype, a), Fixed(dtype, b)}, {},
                                     accuracy, reference,
                                     LayoutPlan::kContiguousOnly)));
    return cases;
  });
}

// Every pair of different dtypes in one test: the core casts both to the
// promoted dtype (a decomposition), so what is checked is the promotion
// and the casts; each pair runs a broadcast case and a rank-0 case.
OpTest MixedTest(const BinarySpec& spec) {
  const std::string op = std::string(spec.name) + ".Tensor";
  return specs::Test("Binary", op, "mixed", [=] {
    const BinaryOp kind = spec.kind;
    const ReferenceFn reference = [kind](const std::vector<RefTensor>& in) {
      return ref::BinaryTensor(kind, in[0], in[1]);
    };
    std::vector<OpCase> cases;
    for (sy_dtype_t da : kAllDtypes) {
      for (sy_dtype_t db : kAllDtypes) {
        if (da == db) continue;
        const sy_dtype_t result = Promote(da, db);
        const Accuracy accuracy = AccuracyFor(spec, result);
        const std::string dtypes = std::string(DtypeName(da)) + " with " +
                                   std::string(DtypeName(db)) + ", ";
        cases.push_back(Elementwise(Case(
            dtypes + "[4, 1, 3] with [5, 1]",
            {In(da, {4, 1, 3}, spec.a), In(db, {5, 1}, spec.b)}, {}, accuracy,
            reference, LayoutPlan::kDenseStrided)));
        cases.push_back(Elementwise(Case(
            dtypes + "rank 0 with [2, 3]",
            {In(da, {}, spec.a), In(db, {2, 3}, spec.b)}, {}, accuracy,
            reference, LayoutPlan::kContiguousOnly)));
      }
    }
    return cases;
  });
}

// Scalars every dtype holds exactly (docs/testing.md), chosen per op so the
// result stays defined: nonzero divisors, small non-negative integer
// exponents, u8 and bool operands in their range.
std::vector<double> ScalarValues(BinaryOp kind, sy_dtype_t dtype, bool is_float) {
  if (is_float) {
    switch (kind) {
      case BinaryOp::kDiv: return {2.5, -0.5, 4.0, 0.125, -3.0};
      case BinaryOp::kPow: return {0.5, 2.0, -1.5, 3.0, -2.0};
      default: return {2.5, -0.5, 0.125, -3.0, 1.5};
    }
  }
  if (dtype == SY_DTYPE_BOOL) return {1, 0};
  switch (kind) {
    case BinaryOp::kDiv:
      return dtype == SY_DTYPE_U8 ? std::vector<double>{3, 5, 7, 2}
                                  : std::vector<double>{3, -2, 5, 7};
    case BinaryOp::kPow: return {2, 0, 3, 1};
    default:
      return dtype == SY_DTYPE_U8 ? std::vector<double>{3, 5, 0, 1, 2}
                                  : std::vector<double>{3, -2, 5, 0, -1};
  }
}

OpTest ScalarTest(const BinarySpec& spec, sy_dtype_t dtype, bool is_float) {
  const std::string op = std::string(spec.name) + ".Scalar";
  const std::string variant =
      std::string(DtypeName(dtype)) + (is_float ? "_float" : "_int");
  return specs::Test("Binary", op, variant, [=] {
    const BinaryOp kind = spec.kind;
    const std::vector<double> scalars = ScalarValues(kind, dtype, is_float);
    const sy_dtype_t result =
        ref::ScalarResultDtype(dtype, ref::ScalarArg{is_float, 0});
    const Accuracy accuracy = AccuracyFor(spec, result);
    // A bool tensor is 0/1 whatever the op's domain.
    const Domain domain = dtype == SY_DTYPE_BOOL ? Domain::kGeneral : spec.a;
    std::vector<OpCase> cases;
    const std::vector<Shape> shapes = {{5, 3}, {}, {0, 3}, {2, 3, 4}, kLarge, {}};
    for (size_t i = 0; i < shapes.size(); ++i) {
      const double s = scalars[i % scalars.size()];
      const AttrValue attr = is_float ? AttrValue::Float(s)
                                      : AttrValue::Int(static_cast<int64_t>(s));
      const ref::ScalarArg arg{is_float, s};
      const ReferenceFn reference = [kind, arg](const std::vector<RefTensor>& in) {
        return ref::BinaryScalar(kind, in[0], arg);
      };
      const bool large = shapes[i] == kLarge;
      const bool edge = i + 1 == shapes.size();
      InputSpec input = edge ? Fixed(dtype, EdgeValues(dtype, EdgeSet::kExtreme))
                             : In(dtype, shapes[i], domain);
      std::string label = edge ? std::string("edge values")
                               : specs::ShapesLabel({shapes[i]});
      cases.push_back(Elementwise(Case(
          label + ", b=" + attr.ToString(), {input}, {attr}, accuracy, reference,
          edge    ? LayoutPlan::kContiguousOnly
          : large ? LayoutPlan::kDenseStrided
                  : LayoutPlan::kAll)));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> BinaryTests() {
  std::vector<OpTest> tests;
  for (const BinarySpec& spec : kSpecs) {
    for (sy_dtype_t d : kAllDtypes) {
      if (d == SY_DTYPE_BOOL && !AcceptsBoolResult(spec.kind)) continue;
      tests.push_back(TensorTest(spec, d));
    }
    tests.push_back(MixedTest(spec));
    for (sy_dtype_t d : kAllDtypes) {
      for (bool is_float : {false, true}) {
        if (d == SY_DTYPE_BOOL && !is_float && !AcceptsBoolResult(spec.kind)) {
          continue;
        }
        tests.push_back(ScalarTest(spec, d, is_float));
      }
    }
  }
  return tests;
}

}  // namespace sy::op_harness
