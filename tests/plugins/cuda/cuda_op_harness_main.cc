// cuda_op_harness_test: the op test harness (sdk/conformance/harness) on
// cuda:0, with the cpu and cuda plugins loaded and missing kernels allowed
// (they are listed as skipped: docs/cuda.md says which ops the plugin
// lacks). Without a CUDA device every test is one skip: "no CUDA device: …".
//
//   cuda_op_harness_test [gtest flags]
#include <string>

#include "cuda_test_env.h"
#include "gtest/gtest.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/runtime_backend.h"

namespace {

class NoCudaDevice : public ::testing::Test {
 public:
  void TestBody() override { GTEST_SKIP() << sy::cuda_test::Env().skip_reason; }
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (sy::cuda_test::Env().cuda == nullptr) {
    testing::RegisterTest("Cuda", "NoCudaDevice", nullptr, nullptr, __FILE__,
                          __LINE__, []() -> ::testing::Test* {
                            return new NoCudaDevice;
                          });
    return RUN_ALL_TESTS();
  }
  sy::op_harness::HarnessOptions options;
  options.suite_prefix = "Cuda";
  options.require_every_kernel = false;
  options.make_backend = [] {
    sy::op_harness::RuntimeBackendOptions backend;
    backend.device = "cuda:0";
    backend.plugin_paths = {sy::cuda_test::CpuManifest(),
                            sy::cuda_test::CudaManifest()};
    return sy::op_harness::CreateRuntimeBackend(backend);
  };
  sy::op_harness::RegisterOpHarnessTests(options);
  return RUN_ALL_TESTS();
}
