// The vulkan plugin loads on every machine: with a device it registers
// devices and kernels; without one (no loader, no driver) it registers the
// device type with zero devices and no kernels and says why (absent_test.cc
// checks that case); the cpu device keeps working either way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

using ::testing::HasSubstr;

const LoadRecord* VulkanRecord() {
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "vulkan") return &r;
  }
  return nullptr;
}

TEST(VulkanLoad, LoadsAndListsTheDeviceType) {
  const LoadRecord* record = VulkanRecord();
  ASSERT_NE(record, nullptr) << "no load record for the vulkan plugin";
  EXPECT_EQ(record->outcome, LoadOutcome::kLoaded) << DescribeLoadRecord(*record);
  EXPECT_EQ(record->num_devices, 1) << "the vulkan device type is always listed";
  EXPECT_EQ(record->plugin_version, "0.1.0");
}

TEST(VulkanLoad, WithADeviceRegistersKernelsAndNamesIt) {
  SY_SKIP_WITHOUT_VULKAN();
  const LoadRecord* record = VulkanRecord();
  ASSERT_NE(record, nullptr);
  EXPECT_GT(record->num_kernels, 200);
  ASSERT_FALSE(record->notes.empty());
  EXPECT_THAT(record->notes[0], HasSubstr("Vulkan device(s): vulkan:0 = "));
  const DeviceProperties& p = Env().vulkan->properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_FALSE(p.vendor.empty());
  EXPECT_THAT(p.driver_version, HasSubstr("Vulkan 1."));
  EXPECT_GT(p.total_memory_bytes, 0u);
  if (p.name.find("llvmpipe") != std::string::npos) {
    EXPECT_THAT(p.name, HasSubstr("[lavapipe, CPU]"));
  }
}

TEST(VulkanLoad, TheCpuDeviceStillWorks) {
  ASSERT_NE(Env().cpu, nullptr);
  Runtime& rt = *Env().runtime;
  const std::vector<float> a = RandomFloats(6, 1), b = RandomFloats(6, 2);
  Tensor ta = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, a.data(), 24).value();
  Tensor tb = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, b.data(), 24).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("add").value(), {ta, tb}).value();
  std::vector<float> got(6);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), 24).ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], a[i] + b[i]);
}

}  // namespace
}  // namespace sy::vulkan_test
