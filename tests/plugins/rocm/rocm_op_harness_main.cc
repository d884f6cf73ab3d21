// rocm_op_harness_test: the op test harness (sdk/conformance/harness) on
// rocm:0, with the cpu and rocm plugins loaded and missing kernels allowed
// (they are listed as skipped: docs/rocm.md says which ops the plugin
// lacks). Without a ROCm device every test is one skip: "no ROCm device: …".
//
//   rocm_op_harness_test [gtest flags]
#include <string>

#include "rocm_test_env.h"
#include "gtest/gtest.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/runtime_backend.h"

namespace {

class NoRocmDevice : public ::testing::Test {
 public:
  void TestBody() override { GTEST_SKIP() << sy::rocm_test::Env().skip_reason; }
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (sy::rocm_test::Env().rocm == nullptr) {
    testing::RegisterTest("Rocm", "NoRocmDevice", nullptr, nullptr, __FILE__,
                          __LINE__, []() -> ::testing::Test* {
                            return new NoRocmDevice;
                          });
    return RUN_ALL_TESTS();
  }
  sy::op_harness::HarnessOptions options;
  options.suite_prefix = "Rocm";
  options.require_every_kernel = false;
  options.make_backend = [] {
    sy::op_harness::RuntimeBackendOptions backend;
    backend.device = "rocm:0";
    backend.plugin_paths = {sy::rocm_test::CpuManifest(),
                            sy::rocm_test::RocmManifest()};
    return sy::op_harness::CreateRuntimeBackend(backend);
  };
  sy::op_harness::RegisterOpHarnessTests(options);
  return RUN_ALL_TESTS();
}
