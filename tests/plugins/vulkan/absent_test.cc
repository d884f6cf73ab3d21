// The vulkan plugin where Vulkan is missing: ctest runs this program twice,
// once with SWITCHYARD_VULKAN_LOADER naming a loader that does not exist
// and once with VK_DRIVER_FILES / VK_ICD_FILENAMES naming a driver manifest
// that does not exist (tests/plugins/vulkan/CMakeLists.txt). Either way
// the plugin loads, registers the `vulkan` type with zero devices and no
// kernels, its load record says "no Vulkan device: …" and how to get one,
// and the cpu plugin beside it keeps working.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(VulkanAbsent, LoadsWithZeroDevicesAndSaysWhy) {
  const char* expect = std::getenv("SY_TEST_EXPECT");  // what the reason names
  ASSERT_NE(expect, nullptr) << "run through ctest (it sets SY_TEST_EXPECT)";
  const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  const LoadRecord* record = nullptr;
  for (const LoadRecord& r : records) {
    if (r.name == "vulkan") record = &r;
  }
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->outcome, LoadOutcome::kLoadedNoDevices) << DescribeLoadRecord(*record);
  EXPECT_EQ(record->num_kernels, 0);
  ASSERT_FALSE(record->notes.empty());
  EXPECT_THAT(record->notes[0], StartsWith("no Vulkan device: "));
  EXPECT_THAT(record->notes[0], HasSubstr(expect));
  EXPECT_THAT(record->notes[0],
              HasSubstr("install mesa-vulkan-drivers for a CPU device or a GPU driver"));
  EXPECT_THAT(DescribeLoadRecord(*record), HasSubstr(" — no Vulkan device: "));
  EXPECT_EQ(Env().vulkan, nullptr);
  absl::StatusOr<Device*> device = Env().runtime->GetDevice("vulkan:0");
  EXPECT_FALSE(device.ok());
}

TEST(VulkanAbsent, TheCpuDeviceStillWorks) {
  ASSERT_NE(Env().cpu, nullptr);
  Runtime& rt = *Env().runtime;
  const std::vector<float> a = RandomFloats(6, 3), b = RandomFloats(6, 4);
  Tensor ta = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, a.data(), 24).value();
  Tensor tb = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, b.data(), 24).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("mul").value(), {ta, tb}).value();
  std::vector<float> got(6);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), 24).ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], a[i] * b[i]);
}

}  // namespace
}  // namespace sy::vulkan_test
