// Specs of matmul (NumPy rules: 1-D operands, broadcast batch dims),
// linear (every dtype but bool) and conv2d (stride, padding, dilation,
// groups, bias; floating dtypes). Integer results wrap; floating ones are
// compared with a tolerance scaled by the reduction (tolerance.h).
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::In;

Accuracy ContractionAccuracy(sy_dtype_t dtype) {
  return IsFloating(dtype) ? Accuracy::kContraction : Accuracy::kExact;
}

OpTest MatmulTest(sy_dtype_t dtype) {
  return specs::Test("Linalg", "matmul", std::string(DtypeName(dtype)), [=] {
    struct Pair {
      Shape a, b;
      LayoutPlan layouts = LayoutPlan::kAll;
    };
    const std::vector<Pair> pairs = {
        {{3, 4}, {4, 5}},
        {{7}, {7}},               // dot product: rank 0
        {{7}, {7, 3}},            // a row vector
        {{2, 3, 7}, {7}},         // a column vector, batched a
        {{2, 1, 3, 4}, {5, 4, 6}},  // batch dims broadcast
        {{1, 37}, {37, 1}},
        {{33, 65}, {65, 17}},     // sizes that straddle GEMM tiles
        {{0, 4}, {4, 3}},
        {{3, 0}, {0, 4}},         // K = 0: zeros
        {{2, 5, 6}, {2, 6, 0}},
        {{64, 128}, {128, 96}, LayoutPlan::kDenseStrided},
    };
    const Accuracy accuracy = ContractionAccuracy(dtype);
    std::vector<OpCase> cases;
    for (const Pair& p : pairs) {
      cases.push_back(Case(specs::ShapesLabel({p.a, p.b}),
                           {In(dtype, p.a, Domain::kArith), In(dtype, p.b, Domain::kArith)},
                           {}, accuracy,
                           [](const std::vector<RefTensor>& in) {
                             return ref::Matmul(in[0], in[1]);
                           },
                           p.layouts));
    }
    return cases;
  });
}

OpTest LinearTest(sy_dtype_t dtype) {
  return specs::Test("Linalg", "linear", std::string(DtypeName(dtype)), [=] {
    struct LinearCase {
      Shape x;
      int64_t out;
      bool bias;
      LayoutPlan layouts = LayoutPlan::kAll;
    };
    const std::vector<LinearCase> list = {
        {{5, 8}, 6, true},   {{2, 3, 8}, 4, false}, {{8}, 3, true},
        {{0, 8}, 6, true},   {{4, 0}, 3, true},     // in_features 0: the bias
        {{64, 256}, 128, true, LayoutPlan::kDenseStrided},
    };
    const Accuracy accuracy = ContractionAccuracy(dtype);
    std::vector<OpCase> cases;
    for (const LinearCase& c : list) {
      const Shape w = {c.out, c.x.back()};
      cases.push_back(Case(
          specs::ShapesLabel({c.x, w}) + (c.bias ? ", bias" : ""),
          {In(dtype, c.x, Domain::kArith), In(dtype, w, Domain::kArith),
           c.bias ? In(dtype, {c.out}, Domain::kArith) : InputSpec::None()},
          {}, accuracy,
          [](const std::vector<RefTensor>& in) {
            return ref::Linear(in[0], in[1], in[2]);
          },
          c.layouts));
    }
    return cases;
  });
}

OpTest Conv2dTest(sy_dtype_t dtype) {
  return specs::Test("Linalg", "conv2d", std::string(DtypeName(dtype)), [=] {
    struct ConvCase {
      Shape x, w;
      bool bias;
      std::vector<int64_t> stride, padding, dilation;
      int64_t groups;
      LayoutPlan layouts = LayoutPlan::kAll;
    };
    const std::vector<ConvCase> list = {
        {{2, 4, 9, 8}, {6, 4, 3, 3}, false, {1, 1}, {0, 0}, {1, 1}, 1},
        {{1, 3, 10, 11}, {5, 3, 3, 2}, true, {2, 1}, {1, 2}, {1, 2}, 1},
        {{2, 4, 7, 7}, {6, 2, 3, 3}, true, {1, 1}, {0, 0}, {1, 1}, 2},
        {{1, 6, 8, 8}, {6, 1, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}, 6},  // depthwise
        {{2, 8, 5, 5}, {4, 8, 1, 1}, true, {1, 1}, {0, 0}, {1, 1}, 1},   // 1×1
        {{1, 2, 6, 5}, {2, 2, 2, 3}, true, {3, 2}, {2, 0}, {2, 1}, 1},
        {{0, 3, 5, 5}, {2, 3, 3, 3}, true, {1, 1}, {0, 0}, {1, 1}, 1},   // N = 0
        {{2, 16, 20, 20}, {16, 16, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 1,
         LayoutPlan::kDenseStrided},
    };
    const Accuracy accuracy = ContractionAccuracy(dtype);
    std::vector<OpCase> cases;
    for (const ConvCase& c : list) {
      const std::vector<int64_t> stride = c.stride, padding = c.padding,
                                 dilation = c.dilation;
      const int64_t groups = c.groups;
      cases.push_back(Case(
          specs::ShapesLabel({c.x, c.w}) + (c.bias ? ", bias" : "") +
              ", stride=" + ShapeString(stride) + ", padding=" + ShapeString(padding) +
              ", dilation=" + ShapeString(dilation) +
              ", groups=" + std::to_string(groups),
          {In(dtype, c.x, Domain::kArith), In(dtype, c.w, Domain::kArith),
           c.bias ? In(dtype, {c.w[0]}, Domain::kArith) : InputSpec::None()},
          {AttrValue::Ints(stride), AttrValue::Ints(padding),
           AttrValue::Ints(dilation), AttrValue::Int(groups)},
          accuracy,
          [=](const std::vector<RefTensor>& in) {
            return ref::Conv2d(in[0], in[1], in[2], stride, padding, dilation, groups);
          },
          c.layouts));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> LinalgTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t d : kNumericDtypes) tests.push_back(MatmulTest(d));
  for (sy_dtype_t d : kNumericDtypes) tests.push_back(LinearTest(d));
  for (sy_dtype_t d : kFloatDtypes) tests.push_back(Conv2dTest(d));
  return tests;
}

}  // namespace sy::op_harness
