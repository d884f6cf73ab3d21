// The rocm plugin where the HIP runtime library is missing:
// SWITCHYARD_HIP_LIBRARY names a file that does not exist (set before the
// runtime loads the plugin, which reads it once per process). The plugin
// still loads — it never links libamdhip64 (Note [HIP loaded at run time])
// — registers the rocm device type with zero devices and no kernels, says
// exactly why in its load record, and the cpu plugin beside it works.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "rocm_test_env.h"

namespace sy::rocm_test {
namespace {

constexpr const char* kMissing = "/nonexistent/switchyard-test/libamdhip64.so.5";

TEST(RocmWithoutHip, LoadsAndSaysTheRuntimeIsMissing) {
  const LoadRecord* record = nullptr;
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "rocm") record = &r;
  }
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->outcome, LoadOutcome::kLoadedNoDevices) << DescribeLoadRecord(*record);
  EXPECT_EQ(record->num_devices, 1);
  EXPECT_EQ(record->num_kernels, 0);
  ASSERT_EQ(record->notes.size(), 1u);
  EXPECT_EQ(record->notes[0],
            std::string("no ROCm device: the HIP runtime library ") + kMissing +
                " could not be loaded (" + kMissing +
                ": cannot open shared object file: No such file or "
                "directory); the rocm device type has 0 devices. Install "
                "ROCm 5.2 or newer (Debian: the libamdhip64-5 package), or "
                "point SWITCHYARD_HIP_LIBRARY at libamdhip64.so. Note: the "
                "rocm plugin has not yet run on AMD hardware (docs/rocm.md "
                "says how to validate it on a GPU); no rocm kernels were "
                "registered");
  absl::StatusOr<Device*> device = Env().runtime->GetDevice("rocm:0");
  EXPECT_FALSE(device.ok());
}

TEST(RocmWithoutHip, TheCpuDeviceStillWorks) {
  ASSERT_NE(Env().cpu, nullptr);
  Runtime& rt = *Env().runtime;
  const std::vector<float> a = RandomFloats(8, 3);
  Tensor ta = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {8}, a.data(), 32).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("neg").value(), {ta}).value();
  std::vector<float> got(8);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), 32).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], -a[i]);
}

}  // namespace
}  // namespace sy::rocm_test

int main(int argc, char** argv) {
  // Before anything loads the plugin (Env() loads on first use).
  setenv("SWITCHYARD_HIP_LIBRARY", sy::rocm_test::kMissing, 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
