// Specs of fill, copy and cast.
#include <cmath>
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
using specs::kLarge;
using specs::Test;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Fill values per dtype and kind, all of which the shape function accepts
// (it refuses values the dtype cannot hold).
std::vector<AttrValue> FillValues(sy_dtype_t dtype, bool is_float) {
  std::vector<AttrValue> v;
  auto ints = [&](std::initializer_list<int64_t> list) {
    for (int64_t x : list) v.push_back(AttrValue::Int(x));
  };
  auto floats = [&](std::initializer_list<double> list) {
    for (double x : list) v.push_back(AttrValue::Float(x));
  };
  if (!is_float) {
    switch (dtype) {
      case SY_DTYPE_BOOL: ints({1, 0}); break;
      case SY_DTYPE_U8: ints({200, 0, 255}); break;
      case SY_DTYPE_I8: ints({-100, 127, -128}); break;
      case SY_DTYPE_I32: ints({123456, INT32_MIN, INT32_MAX}); break;
      case SY_DTYPE_I64: ints({-(int64_t{1} << 40), INT64_MIN, int64_t{1} << 62}); break;
      default: ints({7, -3, 0}); break;
    }
    return v;
  }
  switch (dtype) {
    case SY_DTYPE_F32: floats({2.75, -0.0, kNaN, kInf, -1e-40, 3.4e38}); break;
    case SY_DTYPE_F64: floats({2.75, kNaN, -kInf, 1e300, 5e-324}); break;
    case SY_DTYPE_F16: floats({2.75, kNaN, -kInf, 65504.0, 3e-5, 1e-8}); break;
    case SY_DTYPE_BF16: floats({2.75, kNaN, kInf, 1e38, -1e-39}); break;
    // Truncated toward zero, as PyTorch's fill_ does.
    case SY_DTYPE_U8: floats({200.9, 0.5, 3.0}); break;
    case SY_DTYPE_BOOL: floats({1.0, 0.0, 2.5}); break;  // nonzero → True
    default: floats({3.7, -2.5, -0.9}); break;
  }
  return v;
}

OpTest FillTest(sy_dtype_t dtype, bool is_float) {
  return Test("Creation", "fill.Scalar",
              std::string(DtypeName(dtype)) + (is_float ? "_float" : "_int"),
              [=] {
                const std::vector<AttrValue> values = FillValues(dtype, is_float);
                const std::vector<Shape> shapes = {{5, 3}, {}, {0, 4}, {2, 3, 4}};
                std::vector<OpCase> cases;
                for (size_t i = 0; i < values.size(); ++i) {
                  const AttrValue& value = values[i];
                  const double v = value.kind == AttrValue::Kind::kFloat
                                       ? value.f
                                       : static_cast<double>(value.i);
                  cases.push_back(Case(
                      "value " + value.ToString(),
                      {In(dtype, shapes[i % shapes.size()])}, {value},
                      Accuracy::kExact,
                      [v](const std::vector<RefTensor>& in) {
                        return ref::Fill(in[0], v);
                      }));
                }
                const AttrValue& first = values[0];
                const double v0 = first.kind == AttrValue::Kind::kFloat
                                      ? first.f
                                      : static_cast<double>(first.i);
                cases.push_back(Case(
                    "large", {In(dtype, kLarge)}, {first}, Accuracy::kExact,
                    [v0](const std::vector<RefTensor>& in) {
                      return ref::Fill(in[0], v0);
                    },
                    LayoutPlan::kDenseStrided));
                return cases;
              });
}

OpTest CopyTest(sy_dtype_t dtype) {
  return Test("Creation", "copy", std::string(DtypeName(dtype)), [=] {
    return specs::UnaryShapeCases(
        dtype, Domain::kGeneral, {}, Accuracy::kExact,
        [](const std::vector<RefTensor>& in) { return ref::Copy(in[0]); },
        EdgeValues(dtype, EdgeSet::kExtreme));
  });
}

// Float → integer casts are defined only for values the target holds (C++
// and PyTorch leave the rest undefined), so those casts draw from the
// target's range and their edge values are fractions that truncate into it.
std::vector<double> CastEdges(sy_dtype_t from, sy_dtype_t to) {
  if (!IsFloating(from) || IsFloating(to)) return EdgeValues(from, EdgeSet::kExtreme);
  if (to == SY_DTYPE_BOOL) {
    return {kNaN, kInf, -kInf, -0.0, 0.0, 0.5, MinSubnormal(from), -3.0};
  }
  std::vector<double> out;
  for (double v : {-0.9, 0.9, -0.0, 0.0, 1.5, -1.5, 2.5, -2.5, 100.75,
                   MaxValue(to) + 0.5, LowestValue(to) - 0.5}) {
    const double stored = RoundTo(from, v);
    const double t = std::trunc(stored);
    if (t >= LowestValue(to) && t <= MaxValue(to) && std::fabs(t) < 0x1p62) {
      out.push_back(stored);
    }
  }
  return out;
}

OpTest CastTest(sy_dtype_t from, sy_dtype_t to) {
  const sy_dtype_t pair[] = {from, to};
  return Test("Creation", "cast", DtypesName(pair), [=] {
    const Domain domain =
        IsFloating(from) && !IsFloating(to) ? Domain::kFitsIn : Domain::kGeneral;
    // A cast to f16/bf16 may round through f32 or directly; the two differ
    // by one unit in the last place in rare ties (docs/testing.md).
    const Accuracy accuracy =
        DtypeSize(to) == 2 && IsFloating(to) ? Accuracy::kBasic : Accuracy::kExact;
    std::vector<OpCase> cases = specs::UnaryShapeCases(
        from, domain, {AttrValue::Dtype(to)}, accuracy,
        [to](const std::vector<RefTensor>& in) { return ref::Cast(in[0], to); },
        CastEdges(from, to));
    for (OpCase& c : cases) {
      for (InputSpec& s : c.inputs) s.params.fits_in = to;
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> CreationTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t d : kAllDtypes) {
    tests.push_back(FillTest(d, false));
    tests.push_back(FillTest(d, true));
  }
  for (sy_dtype_t d : kAllDtypes) tests.push_back(CopyTest(d));
  for (sy_dtype_t from : kAllDtypes) {
    for (sy_dtype_t to : kAllDtypes) tests.push_back(CastTest(from, to));
  }
  return tests;
}

}  // namespace sy::op_harness
