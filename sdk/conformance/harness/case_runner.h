// Runs one case of an op test in one layout: makes the inputs (host values
// and device tensors), calls the op on the backend, reads the result back
// and compares it with the reference. Knows nothing of gtest.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_CASE_RUNNER_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_CASE_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sdk/conformance/harness/backend.h"
#include "sdk/conformance/harness/layouts.h"
#include "sdk/conformance/harness/op_case.h"

namespace sy::op_harness {

enum class Outcome {
  kPass,
  kFail,     // wrong result, wrong dtype/shape, or an unexpected error
  kMissing,  // the backend has no kernel for it (UNIMPLEMENTED)
};

struct RunReport {
  Outcome outcome = Outcome::kPass;
  // For kFail and kMissing: what happened, with the op, mode, case, layout,
  // input dtypes/shapes/layouts, attrs, seed, how the call was resolved,
  // and the first mismatching elements.
  std::string message;
};

// The layout runs a case gets (contiguous only when it has fixed values).
std::vector<LayoutRun> LayoutRunsFor(const OpCase& c);

// Host inputs and their device tensors for one run.
struct MadeInputs {
  std::vector<RefTensor> host;       // undefined for omitted optional ones
  std::vector<DeviceTensor> device;  // nullptr for omitted optional ones
};

// Draws the inputs of `c` from `seed` and makes them on the backend in
// `run`'s layouts. A failure is an error making the layout (a view op).
Result<MadeInputs> MakeInputs(BackendUnderTest& backend, const OpCase& c,
                              const LayoutRun& run, uint64_t seed);

RunReport RunCase(BackendUnderTest& backend, const OpTest& test,
                  const OpCase& c, const LayoutRun& run, uint64_t seed);

// Checks a result against the reference: dtype, shape, then values within
// the case's tolerance. Returns "" when they agree, else the problem.
std::string CheckResult(const RefTensor& got, const RefResult& expected,
                        const OpCase& c, const std::vector<RefTensor>& inputs);

// "f32[4, 1, 3] strided, none, bool[2] contiguous": inputs for messages.
std::string DescribeInputs(const std::vector<RefTensor>& host,
                           const LayoutRun& run);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_CASE_RUNNER_H_
