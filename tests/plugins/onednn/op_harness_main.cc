// onednn_op_harness_test: the op test harness (docs/testing.md) with the
// cpu and onednn plugins loaded, suite prefix "Onednn". The onednn kernels
// win where registered (priority 10) — with the plugin's thresholds at 1,
// so that they take the harness's small shapes instead of declining them
// (context.h, Note [Declining small calls]); missing kernels are allowed,
// since the plugin covers a subset of the op set by design.
#include <string>

#include "gtest/gtest.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/runtime_backend.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  sy::op_harness::HarnessOptions options;
  options.suite_prefix = "Onednn";
  options.require_every_kernel = false;
  options.make_backend = [] {
    sy::op_harness::RuntimeBackendOptions backend;
    backend.device = "cpu";
    backend.plugin_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
                            std::string(SWITCHYARD_PLUGIN_DIR) + "/onednn.json"};
    backend.plugin_options = {"onednn.min_elements=1",
                              "onednn.min_matmul_flops=1"};
    return sy::op_harness::CreateRuntimeBackend(backend);
  };
  sy::op_harness::RegisterOpHarnessTests(options);
  return RUN_ALL_TESTS();
}
