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

// `t` with every subnormal of a width `float_flags` names (SY_FLOAT_FLUSHES_*;
// bf16 follows f32) replaced by a zero of its sign; other dtypes unchanged.
RefTensor FlushSubnormals(RefTensor t, uint32_t float_flags);

// What a device that flushes the subnormals `float_flags` names in its
// inputs and results computes: the reference of the inputs flushed, its
// result flushed — the denormals-are-zero plus flush-to-zero mode that
// some GPUs' drivers cannot turn off. (A device may also flush results
// only; RunCase accepts that too.)
RefResult FlushedReference(const OpCase& c, const std::vector<RefTensor>& inputs,
                           uint32_t float_flags);

// `plain` with each element replaced by `flushed`'s where that one is
// closer to `got` (ties keep `plain`): on a device that declares flushing,
// RunCase checks the result against this, so each element may match
// either — a select such as maximum may pass a subnormal through while an
// add beside it flushes.
RefResult CloserPerElement(const RefTensor& got, RefResult plain,
                           const RefResult& flushed);

// "f32[4, 1, 3] strided, none, bool[2] contiguous": inputs for messages.
std::string DescribeInputs(const std::vector<RefTensor>& host,
                           const LayoutRun& run);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_CASE_RUNNER_H_
