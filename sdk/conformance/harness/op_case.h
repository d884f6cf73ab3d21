// What the harness runs: an OpTest (one gtest test: one op × one dtype
// combination) holds OpCases (shapes, attributes, input domains); the runner
// makes each case's inputs in each of its layouts, calls the op on the
// backend and compares with the case's reference.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_CASE_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_CASE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sdk/conformance/harness/backend.h"
#include "sdk/conformance/harness/layouts.h"
#include "sdk/conformance/harness/random_inputs.h"
#include "sdk/conformance/harness/reference_tensor.h"
#include "sdk/conformance/harness/tolerance.h"

namespace sy::op_harness {

// One tensor input of a case.
struct InputSpec {
  sy_dtype_t dtype = SY_DTYPE_NONE;  // NONE: an omitted optional tensor
  Shape shape;
  Domain domain = Domain::kGeneral;
  DomainParams params;
  // When set, these values (rounded to dtype) instead of random ones:
  // edge-value cases. Such cases run contiguous only.
  std::optional<std::vector<double>> fixed;

  static InputSpec None() { return {}; }
};

// The inputs of a call as the reference sees them, in schema order (a
// Tensor[] argument flattened), undefined for omitted optional tensors.
using ReferenceFn = std::function<RefResult(const std::vector<RefTensor>&)>;

struct OpCase {
  std::string label;  // what the case is about: "broadcast", "edge values"
  std::vector<InputSpec> inputs;
  std::vector<AttrValue> attrs;
  std::vector<int32_t> list_sizes;  // one entry for an op with a Tensor[]
  LayoutPlan layouts = LayoutPlan::kAll;
  Accuracy accuracy = Accuracy::kExact;
  std::optional<Tolerance> tolerance;  // overrides ToleranceFor(accuracy, …)
  ReferenceFn reference;
  // Elementwise cases print the inputs' values at a mismatching index.
  bool elementwise = false;
};

struct OpTest {
  std::string family;   // gtest suite after the prefix: "Binary"
  std::string op;       // schema full name called: "add.Tensor"
  std::string variant;  // dtype combination: "f32", "i32_float", "mixed"
  CallMode mode = CallMode::kDispatch;
  // Built when the test runs, so registering ~1000 tests stays cheap.
  std::function<std::vector<OpCase>()> cases;

  // "add_Tensor/f32": the op with '.' made '_' (a '.' would split the
  // gtest filter "Suite.Test"), then the variant.
  std::string TestName() const;
};

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_OP_CASE_H_
