// The op test harness as GoogleTest tests. A plugin's test program reuses
// it by naming its device and policy:
//
//   int main(int argc, char** argv) {
//     testing::InitGoogleTest(&argc, argv);
//     sy::op_harness::HarnessOptions options;
//     options.suite_prefix = "Cuda";
//     options.require_every_kernel = false;  // report missing ones as skipped
//     options.make_backend = [] {
//       return sy::op_harness::CreateRuntimeBackend(
//           {.device = "cuda:0", .plugin_paths = {CUDA_MANIFEST}});
//     };
//     sy::op_harness::RegisterOpHarnessTests(options);
//     return RUN_ALL_TESTS();
//   }
//
// Tests are named "<prefix>/<Family>.<op>/<dtypes>", e.g.
// "Cpu/Binary.add_Tensor/f32", "Cpu/Binary.add_Tensor/mixed",
// "Cpu/Decomposed.softmax/f16", "Cpu/Errors.div_Tensor_by_zero/i32", so a
// family or an op runs alone with --gtest_filter='Cpu/Unary.*' or
// '*.matmul/*'. docs/testing.md describes the whole harness.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_HARNESS_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_HARNESS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sdk/conformance/harness/backend.h"
#include "sdk/conformance/harness/op_case.h"

namespace sy::op_harness {

struct HarnessOptions {
  // The first part of every suite name: "Cpu", "Cuda".
  std::string suite_prefix = "Cpu";
  // true: a missing kernel (UNIMPLEMENTED) for a dtype combination the spec
  // allows fails the test — the cpu plugin must cover everything. false:
  // such a test is skipped with the reason (GTEST_SKIP), for plugins that
  // cover a subset; a test where some cases ran and others were missing
  // passes and lists the missing ones.
  bool require_every_kernel = true;
  // The base of every run's seed; SWITCHYARD_OP_HARNESS_SEED overrides it.
  uint64_t seed = 0x5317c4a12d0f3e9bull;
  // Creates the backend, once, when the first test runs; it lives until
  // the last test has run. Required.
  std::function<Result<std::unique_ptr<BackendUnderTest>>()> make_backend;
};

// Registers every op test (op_specs.h) and every expected-error test
// (error_cases.h) with GoogleTest. Call after testing::InitGoogleTest and
// before RUN_ALL_TESTS, once.
void RegisterOpHarnessTests(const HarnessOptions& options);

// Runs one op test on `backend` inside the current GoogleTest test:
// every case in every layout, reporting failures (ADD_FAILURE), missing
// kernels per the policy, or a skip.
void RunOpTest(BackendUnderTest& backend, const OpTest& test,
               const HarnessOptions& options);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_HARNESS_H_
