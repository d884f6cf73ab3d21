// op_harness_test: the op test harness against the cpu plugin, through
// sy::core::Runtime, with every kernel required.
//
//   op_harness_test [gtest flags] [--allow_missing_kernels]
//
// --allow_missing_kernels reports kernels the plugin lacks as skipped
// instead of failing (the policy other plugins use), which helps while a
// plugin is being filled in. SWITCHYARD_OP_HARNESS_SEED=<n> changes the
// random inputs.
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/runtime_backend.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  sy::op_harness::HarnessOptions options;
  options.suite_prefix = "Cpu";
  options.require_every_kernel = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--allow_missing_kernels") == 0) {
      options.require_every_kernel = false;
    }
  }
  options.make_backend = [] {
    sy::op_harness::RuntimeBackendOptions backend;
    backend.device = "cpu";
    backend.plugin_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json"};
    return sy::op_harness::CreateRuntimeBackend(backend);
  };
  sy::op_harness::RegisterOpHarnessTests(options);
  return RUN_ALL_TESTS();
}
