// vulkan_op_harness_test: the op test harness (sdk/conformance/harness) on
// vulkan:0 — lavapipe in CI — with the cpu and vulkan plugins loaded and
// missing kernels allowed (listed as skipped; plugins/vulkan/README.md says
// which ops and dtypes the plugin lacks). Without a Vulkan device every
// test is one skip: "no Vulkan device: …".
//
//   vulkan_op_harness_test [gtest flags]
#include <string>

#include "gtest/gtest.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/runtime_backend.h"
#include "vulkan_test_env.h"

namespace {

class NoVulkanDevice : public ::testing::Test {
 public:
  void TestBody() override { GTEST_SKIP() << sy::vulkan_test::Env().skip_reason; }
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (sy::vulkan_test::Env().vulkan == nullptr) {
    testing::RegisterTest("Vulkan", "NoVulkanDevice", nullptr, nullptr, __FILE__,
                          __LINE__, []() -> ::testing::Test* {
                            return new NoVulkanDevice;
                          });
    return RUN_ALL_TESTS();
  }
  sy::op_harness::HarnessOptions options;
  options.suite_prefix = "Vulkan";
  options.require_every_kernel = false;
  options.make_backend = [] {
    sy::op_harness::RuntimeBackendOptions backend;
    backend.device = "vulkan:0";
    backend.plugin_paths = {sy::vulkan_test::CpuManifest(),
                            sy::vulkan_test::VulkanManifest()};
    return sy::op_harness::CreateRuntimeBackend(backend);
  };
  sy::op_harness::RegisterOpHarnessTests(options);
  return RUN_ALL_TESTS();
}
