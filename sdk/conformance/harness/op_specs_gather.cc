// Specs of embedding: weight of any dtype, i32 or i64 indices of any
// shape (rank 0 and empty included). Exact.
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

OpTest EmbeddingTest(sy_dtype_t weight_dtype, sy_dtype_t index_dtype) {
  const sy_dtype_t pair[] = {weight_dtype, index_dtype};
  return specs::Test("Gather", "embedding", DtypesName(pair), [=] {
    struct EmbeddingCase {
      Shape weight, indices;
      LayoutPlan layouts = LayoutPlan::kAll;
    };
    const std::vector<EmbeddingCase> list = {
        {{10, 4}, {3, 5}},
        {{10, 4}, {}},
        {{10, 4}, {0}},
        {{7, 1}, {6}},
        {{3, 5}, {2, 2, 3}},
        {{1000, 64}, {2, 50}, LayoutPlan::kDenseStrided},
    };
    std::vector<OpCase> cases;
    for (const EmbeddingCase& c : list) {
      cases.push_back(specs::Case(
          specs::ShapesLabel({c.weight, c.indices}),
          {specs::In(weight_dtype, c.weight),
           specs::Index(index_dtype, c.indices, c.weight[0])},
          {}, Accuracy::kExact,
          [](const std::vector<RefTensor>& in) {
            return ref::Embedding(in[0], in[1]);
          },
          c.layouts));
    }
    return cases;
  });
}

}  // namespace

std::vector<OpTest> GatherTests() {
  std::vector<OpTest> tests;
  for (sy_dtype_t w : kAllDtypes) {
    for (sy_dtype_t i : {SY_DTYPE_I32, SY_DTYPE_I64}) {
      tests.push_back(EmbeddingTest(w, i));
    }
  }
  return tests;
}

}  // namespace sy::op_harness
