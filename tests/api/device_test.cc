// Devices: enumeration, lookup by spec, properties, synchronization and the
// caching allocator's statistics.
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

using DeviceTest = CApiTest;

TEST_F(DeviceTest, EnumerateFindAndDescribe) {
  int32_t count = 0;
  ASSERT_EQ(sy_device_count(context_, &count), SY_STATUS_OK);
  ASSERT_EQ(count, 1);
  sy_device_handle_t first = nullptr, by_type = nullptr;
  ASSERT_EQ(sy_device_get(context_, 0, &first), SY_STATUS_OK);
  ASSERT_EQ(sy_device_find(context_, "cpu", &by_type), SY_STATUS_OK);
  EXPECT_EQ(first, cpu_);  // one handle per device
  EXPECT_EQ(by_type, cpu_);

  sy_device_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(sy_device_get_info(cpu_, &info), SY_STATUS_OK);
  EXPECT_STREQ(info.label, "cpu:0");
  EXPECT_STREQ(info.type, "cpu");
  EXPECT_STREQ(info.plugin, "cpu");
  EXPECT_EQ(info.index, 0);
  EXPECT_EQ(info.dl_device.device_type, 1);  // kDLCPU
  EXPECT_EQ(info.dl_device.device_id, 0);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_STRNE(info.name, "");
  EXPECT_EQ(info.float_flags, 0u);  // the cpu keeps subnormals

  // A caller built against API 1.0 passes the 1.0 size: nothing past it is
  // written.
  sy_device_info_t old{};
  old.struct_size = SY_STRUCT_SIZE(sy_device_info_t, dl_device);
  old.float_flags = 0xdeadbeef;
  ASSERT_EQ(sy_device_get_info(cpu_, &old), SY_STATUS_OK);
  EXPECT_STREQ(old.label, "cpu:0");
  EXPECT_EQ(old.float_flags, 0xdeadbeefu);
}

TEST_F(DeviceTest, BadLookupsSayWhatExists) {
  sy_device_handle_t device = nullptr;
  EXPECT_SY_ERROR(sy_device_find(context_, "cuda:3", &device), SY_STATUS_NOT_FOUND,
                  "sy_device_find: no device 'cuda:3'; devices present: cpu:0");
  EXPECT_SY_ERROR(sy_device_get(context_, 1, &device), SY_STATUS_OUT_OF_RANGE,
                  "sy_device_get: device index 1 is out of range: there are 1 "
                  "devices (see sy_device_count)");
  EXPECT_SY_ERROR(sy_device_get(context_, -1, &device), SY_STATUS_OUT_OF_RANGE,
                  "sy_device_get: device index -1 is out of range: there are 1 "
                  "devices (see sy_device_count)");
  EXPECT_SY_ERROR(sy_device_find(context_, nullptr, &device), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_find: spec is NULL");
  EXPECT_SY_ERROR(sy_device_find(context_, "cpu", nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_find: out_device is NULL");
  EXPECT_SY_ERROR(sy_device_count(context_, nullptr), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_count: out_count is NULL");
  EXPECT_EQ(device, nullptr);
  sy_device_info_t info{};
  EXPECT_SY_ERROR(sy_device_get_info(cpu_, &info), SY_STATUS_INVALID_ARGUMENT,
                  "sy_device_get_info: out_info->struct_size is 0; set it to "
                  "sizeof(sy_device_info_t) (" +
                      std::to_string(SY_STRUCT_SIZE(sy_device_info_t, dl_device)) +
                      " in API 1.0) before the call");
  EXPECT_EQ(sy_device_find(context_, "cpu:0", &device), SY_STATUS_OK);  // still works
}

TEST_F(DeviceTest, AllocatorStatsFollowTensors) {
  sy_allocator_stats_t before{};
  before.struct_size = sizeof before;
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &before), SY_STATUS_OK);
  const int64_t shape[1] = {1 << 16};
  sy_tensor_t t = nullptr;
  ASSERT_EQ(sy_tensor_empty(cpu_, SY_DTYPE_F32, shape, 1, &t), SY_STATUS_OK);
  sy_allocator_stats_t during{};
  during.struct_size = sizeof during;
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &during), SY_STATUS_OK);
  EXPECT_GE(during.allocated_bytes, before.allocated_bytes + (4u << 16));
  EXPECT_EQ(during.num_allocations, before.num_allocations + 1);
  EXPECT_GE(during.peak_allocated_bytes, during.allocated_bytes);
  ASSERT_EQ(sy_tensor_release(t), SY_STATUS_OK);
  sy_allocator_stats_t after{};
  after.struct_size = sizeof after;
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &after), SY_STATUS_OK);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_GE(after.reserved_bytes, after.allocated_bytes);  // cached, not freed
  ASSERT_EQ(sy_device_empty_cache(cpu_), SY_STATUS_OK);
  sy_allocator_stats_t emptied{};
  emptied.struct_size = sizeof emptied;
  ASSERT_EQ(sy_device_allocator_stats(cpu_, &emptied), SY_STATUS_OK);
  EXPECT_EQ(emptied.reserved_bytes, emptied.allocated_bytes);
  EXPECT_GT(emptied.device_frees, before.device_frees);
  EXPECT_EQ(sy_device_synchronize(cpu_), SY_STATUS_OK);
}

}  // namespace
}  // namespace sy_test
