// Specs of the unary ops: neg abs relu square keep x's dtype and refuse
// bool; the floating ops take every dtype (integers and bool give f32).
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

struct UnarySpec {
  const char* op;
  ref::UnaryOp kind;
  Domain domain;  // of floating inputs and of integers that stay exact
  Accuracy accuracy;
  // Extremes overflow (exp, square) or meet the ends of the range (log);
  // sin and cos take specials only: their accuracy for huge arguments
  // depends on the argument reduction, which the spec does not fix.
  EdgeSet edges;
};

// clang-format off
constexpr UnarySpec kSpecs[] = {
    {"neg",        ref::UnaryOp::kNeg,        Domain::kGeneral,  Accuracy::kExact,          EdgeSet::kExtreme},
    {"abs",        ref::UnaryOp::kAbs,        Domain::kGeneral,  Accuracy::kExact,          EdgeSet::kExtreme},
    {"relu",       ref::UnaryOp::kRelu,       Domain::kGeneral,  Accuracy::kExact,          EdgeSet::kExtreme},
    {"square",     ref::UnaryOp::kSquare,     Domain::kArith,    Accuracy::kBasic,          EdgeSet::kExtreme},
    {"exp",        ref::UnaryOp::kExp,        Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"log",        ref::UnaryOp::kLog,        Domain::kPositive, Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"sqrt",       ref::UnaryOp::kSqrt,       Domain::kPositive, Accuracy::kBasic,          EdgeSet::kExtreme},
    {"rsqrt",      ref::UnaryOp::kRsqrt,      Domain::kPositive, Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"sin",        ref::UnaryOp::kSin,        Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kSpecial},
    {"cos",        ref::UnaryOp::kCos,        Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kSpecial},
    {"tanh",       ref::UnaryOp::kTanh,       Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"sigmoid",    ref::UnaryOp::kSigmoid,    Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"silu",       ref::UnaryOp::kSilu,       Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"erf",        ref::UnaryOp::kErf,        Domain::kArith,    Accuracy::kTranscendental, EdgeSet::kExtreme},
    {"reciprocal", ref::UnaryOp::kReciprocal, Domain::kNonZero,  Accuracy::kBasic,          EdgeSet::kExtreme},
};
// clang-format on

bool KeepsDtype(ref::UnaryOp kind) {
  return kind == ref::UnaryOp::kNeg || kind == ref::UnaryOp::kAbs ||
         kind == ref::UnaryOp::kRelu || kind == ref::UnaryOp::kSquare;
}

OpTest UnaryTest(const UnarySpec& spec, sy_dtype_t dtype) {
  return specs::Test("Unary", spec.op, std::string(DtypeName(dtype)), [=] {
    const ref::UnaryOp kind = spec.kind;
    // Integer inputs of floating ops are kept small (kArith) so the f32
    // result does not depend on how an implementation reduces huge
    // arguments; the integer-keeping ops see their whole range.
    const Domain domain =
        IsFloating(dtype) || KeepsDtype(kind) ? spec.domain : Domain::kArith;
    const sy_dtype_t result = ref::UnaryResultDtype(kind, dtype);
    const Accuracy accuracy =
        IsFloating(result) ? spec.accuracy : Accuracy::kExact;
    return specs::UnaryShapeCases(
        dtype, domain, {}, accuracy,
        [kind](const std::vector<RefTensor>& in) { return ref::Unary(kind, in[0]); },
        EdgeValues(dtype, spec.edges));
  });
}

OpTest GeluTest(sy_dtype_t dtype) {
  return specs::Test("Unary", "gelu", std::string(DtypeName(dtype)), [=] {
    std::vector<OpCase> cases;
    for (const auto& approximate : {std::pair{"none", ref::UnaryOp::kGelu},
                                    std::pair{"tanh", ref::UnaryOp::kGeluTanh}}) {
      // Not a structured binding: clang before 16 cannot capture one.
      const char* name = approximate.first;
      const ref::UnaryOp kind = approximate.second;
      std::vector<OpCase> some = specs::UnaryShapeCases(
          dtype, Domain::kArith, {AttrValue::Str(name)},
          Accuracy::kTranscendental,
          [kind](const std::vector<RefTensor>& in) { return ref::Unary(kind, in[0]); },
          EdgeValues(dtype, EdgeSet::kExtreme));
      for (OpCase& c : some) {
        c.label = std::string("approximate=") + name + ", " + c.label;
        cases.push_back(std::move(c));
      }
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> UnaryTests() {
  std::vector<OpTest> tests;
  for (const UnarySpec& spec : kSpecs) {
    for (sy_dtype_t d : kAllDtypes) {
      if (d == SY_DTYPE_BOOL && KeepsDtype(spec.kind)) continue;
      tests.push_back(UnaryTest(spec, d));
    }
  }
  for (sy_dtype_t d : kAllDtypes) tests.push_back(GeluTest(d));
  return tests;
}

}  // namespace sy::op_harness
