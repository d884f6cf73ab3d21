// Expected errors: calls the spec refuses — integer division by zero, an
// embedding index out of range, bad attributes, mismatched shapes or
// dtypes. Each must fail with INVALID_ARGUMENT and a message that names the
// op, what was wrong and what to do; and the backend must still work
// afterwards: the case's follow-up, a valid call of the same op, must pass.
// What only the data shows (`found_in_data`) a device may report at the
// stream's next synchronization instead of at the call, as GPU plugins do
// (sdk: Note [Deferred device checks]): then reading the call's output back
// must fail with that error.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_ERROR_CASES_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_ERROR_CASES_H_

#include <string>
#include <vector>

#include "sdk/conformance/harness/op_case.h"

namespace sy::op_harness {

struct ErrorCase {
  std::string name;     // test name, e.g. "div_Tensor_by_zero"
  std::string variant;  // dtypes, e.g. "i32"
  std::string op;       // schema full name called
  std::vector<InputSpec> inputs;
  std::vector<AttrValue> attrs;
  std::vector<int32_t> list_sizes;
  // Each entry lists alternatives; the message must contain at least one
  // of each entry (case-insensitive), besides the op's base name.
  std::vector<std::vector<std::string>> mentions;
  OpCase follow_up;  // a valid call of `op`, contiguous
  // The error is in the input's values, not its shapes, dtypes or
  // attributes: it may be reported when the output is read back.
  bool found_in_data = false;
};

std::vector<ErrorCase> ErrorCases();

// The checks on an error message, as a list of problems (empty: fine):
// it names `op` (its base name, before any '.'), contains each of
// `mentions`, and says what to do (a "; " clause or words like "must",
// "use", "pass", "expected").
std::vector<std::string> CheckErrorMessage(
    const std::string& op, const std::string& message,
    const std::vector<std::vector<std::string>>& mentions);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_ERROR_CASES_H_
