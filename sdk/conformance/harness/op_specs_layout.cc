// Specs of the layout ops: the views reshape permute transpose slice
// expand (the core computes them; a reshape of a non-contiguous input
// copies), contiguous and concat. All exact, every dtype.
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::In;
using specs::kLarge;

// One case per (input shape, attrs) with a reference over one input.
struct OneInput {
  Shape shape;
  std::vector<AttrValue> attrs;
  std::function<RefResult(const RefTensor&)> reference;
  LayoutPlan layouts = LayoutPlan::kAll;
};

std::string AttrsLabel(const std::vector<AttrValue>& attrs) {
  std::string out;
  for (const AttrValue& a : attrs) out += (out.empty() ? "" : ", ") + a.ToString();
  return "(" + out + ")";
}

OpTest OneInputTest(const char* op, sy_dtype_t dtype,
                    std::function<std::vector<OneInput>()> make) {
  return specs::Test("Layout", op, std::string(DtypeName(dtype)), [=] {
    std::vector<OpCase> cases;
    for (OneInput& c : make()) {
      auto reference = c.reference;
      cases.push_back(Case(specs::ShapesLabel({c.shape}) + " " + AttrsLabel(c.attrs),
                           {In(dtype, c.shape)}, c.attrs, Accuracy::kExact,
                           [reference](const std::vector<RefTensor>& in) {
                             return reference(in[0]);
                           },
                           c.layouts));
    }
    return cases;
  });
}

std::vector<OneInput> ReshapeCases() {
  auto c = [](Shape x, std::vector<int64_t> shape,
              LayoutPlan layouts = LayoutPlan::kAll) {
    return OneInput{x, {AttrValue::Ints(shape)},
                    [shape](const RefTensor& t) { return ref::Reshape(t, shape); },
                    layouts};
  };
  return {c({2, 3, 4}, {6, -1}), c({2, 3, 4}, {24}),  c({2, 3, 4}, {4, 3, 2}),
          c({}, {1, 1}),         c({1}, {}),          c({0, 3}, {3, 0}),
          c({3, 0}, {-1, 5}),    c(kLarge, {-1}, LayoutPlan::kDenseStrided)};
}

std::vector<OneInput> PermuteCases() {
  auto c = [](Shape x, std::vector<int64_t> dims) {
    return OneInput{x, {AttrValue::Ints(dims)},
                    [dims](const RefTensor& t) { return ref::Permute(t, dims); }};
  };
  return {c({2, 3, 4}, {2, 0, 1}), c({5, 7}, {1, 0}), c({}, {}),
          c({3, 0, 2}, {1, 2, 0}), c({2, 3, 4}, {-1, 0, 1})};
}

std::vector<OneInput> TransposeCases() {
  auto c = [](Shape x, int64_t d0, int64_t d1) {
    return OneInput{x, {AttrValue::Int(d0), AttrValue::Int(d1)},
                    [d0, d1](const RefTensor& t) { return ref::Transpose(t, d0, d1); }};
  };
  return {c({2, 3, 4}, 0, 2), c({5, 7}, -1, -2), c({4}, 0, 0), c({2, 3, 4, 5}, 1, 3)};
}

std::vector<OneInput> SliceCases() {
  auto c = [](Shape x, int64_t dim, int64_t start, std::optional<int64_t> end,
              int64_t step) {
    return OneInput{x,
                    {AttrValue::Int(dim), AttrValue::Int(start),
                     end ? AttrValue::Int(*end) : AttrValue::None(), AttrValue::Int(step)},
                    [=](const RefTensor& t) { return ref::Slice(t, dim, start, end, step); }};
  };
  return {c({10, 7}, 0, 2, 8, 3),     c({10, 7}, -1, -5, std::nullopt, 2),
          c({10, 7}, 0, 20, std::nullopt, 1),  // start past the end: empty
          c({10, 7}, 1, 0, -100, 1),  // end before the start: empty
          c({10, 7}, 0, -100, 3, 1),  // start clamps to 0
          c({10}, 0, 0, std::nullopt, 1), c({4, 9, 3}, 1, 1, 9, 4)};
}

std::vector<OneInput> ExpandCases() {
  auto c = [](Shape x, std::vector<int64_t> shape) {
    return OneInput{x, {AttrValue::Ints(shape)},
                    [shape](const RefTensor& t) { return ref::Expand(t, shape); }};
  };
  return {c({3, 1}, {2, 3, 5}), c({1}, {4}),       c({}, {2, 3}),
          c({1, 4}, {-1, 4}),   c({3, 1}, {3, 0}), c({2, 1, 3}, {2, 5, 3})};
}

std::vector<OneInput> ContiguousCases() {
  std::vector<OneInput> out;
  for (const Shape& s : std::vector<Shape>{{7}, {5, 3}, {2, 3, 4}, {}, {3, 0}}) {
    out.push_back({s, {}, [](const RefTensor& t) { return ref::Copy(t); }});
  }
  out.push_back({kLarge, {}, [](const RefTensor& t) { return ref::Copy(t); },
                 LayoutPlan::kDenseStrided});
  return out;
}

OpTest ConcatTest(sy_dtype_t dtype) {
  return specs::Test("Layout", "concat", std::string(DtypeName(dtype)), [=] {
    struct ConcatCase {
      std::vector<Shape> shapes;
      int64_t dim;
      LayoutPlan layouts = LayoutPlan::kAll;
    };
    const std::vector<ConcatCase> list = {
        {{{2, 3}, {4, 3}, {1, 3}}, 0},
        {{{2, 3}, {2, 5}}, -1},
        {{{2, 0}, {2, 3}}, 1},
        {{{3, 4}}, 0},
        {{{2, 3, 4}, {2, 1, 4}, {2, 2, 4}}, 1},
        {{{5}, {0}, {3}}, 0},
        {{{0, 3}, {0, 3}}, 0},
        {{{200, 300}, {150, 300}}, 0, LayoutPlan::kDenseStrided},
    };
    std::vector<OpCase> cases;
    for (const ConcatCase& c : list) {
      std::vector<InputSpec> inputs;
      for (const Shape& s : c.shapes) inputs.push_back(In(dtype, s));
      const int64_t dim = c.dim;
      OpCase oc = Case(specs::ShapesLabel(c.shapes) + ", dim=" + std::to_string(dim),
                       inputs, {AttrValue::Int(dim)}, Accuracy::kExact,
                       [dim](const std::vector<RefTensor>& in) {
                         return ref::Concat(in, dim);
                       },
                       c.layouts);
      oc.list_sizes = {static_cast<int32_t>(c.shapes.size())};
      cases.push_back(std::move(oc));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> LayoutTests() {
  std::vector<OpTest> tests;
  const std::pair<const char*, std::vector<OneInput> (*)()> ops[] = {
      {"reshape", ReshapeCases},     {"permute", PermuteCases},
      {"transpose", TransposeCases}, {"slice", SliceCases},
      {"expand", ExpandCases},       {"contiguous", ContiguousCases}};
  for (const auto& [op, make] : ops) {
    for (sy_dtype_t d : kAllDtypes) tests.push_back(OneInputTest(op, d, make));
  }
  for (sy_dtype_t d : kAllDtypes) tests.push_back(ConcatTest(d));
  return tests;
}

}  // namespace sy::op_harness
