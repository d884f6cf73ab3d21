// The op specs: for every op of core op set v1, the tests the harness
// registers — the dtype combinations docs/ops.md allows (one OpTest each,
// plus one "mixed" test per binary op holding every pair of different
// dtypes), and per test the cases: shapes (small odd sizes, rank 0, zero
// size, broadcast pairs, one large enough to cross a plugin's threading
// threshold), attribute variations, input domains, edge values and
// tolerances.
//
// One function per op family, each in its own op_specs_<family>.cc.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_SPECS_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_SPECS_H_

#include <vector>

#include "sdk/conformance/harness/op_case.h"

namespace sy::op_harness {

std::vector<OpTest> CreationTests();   // fill copy cast
std::vector<OpTest> UnaryTests();      // neg … gelu
std::vector<OpTest> BinaryTests();     // add … minimum, .Tensor and .Scalar
std::vector<OpTest> CompareTests();    // eq … ge, .Tensor and .Scalar; where
std::vector<OpTest> ReductionTests();  // sum mean max min argmax
std::vector<OpTest> NormTests();       // softmax log_softmax layer_norm rms_norm
std::vector<OpTest> LinalgTests();     // matmul linear conv2d
std::vector<OpTest> AttentionTests();  // scaled_dot_product_attention
std::vector<OpTest> LayoutTests();     // reshape … contiguous, concat
std::vector<OpTest> GatherTests();     // embedding

// Copies of the tests of ops the core can decompose (docs/ops.md,
// "Decompositions"), in family "Decomposed", called with
// CallMode::kDecomposed: the decomposition is checked against the same
// references even where a kernel would win.
std::vector<OpTest> DecomposedTests(const std::vector<OpTest>& tests);

// Every family above, decompositions last.
std::vector<OpTest> AllOpTests();

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_SPECS_H_
