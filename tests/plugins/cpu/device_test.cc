// The cpu device table, called as the core would call it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cpu_fixture.h"

namespace sy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Pointer(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

class CpuDeviceTest : public CpuPluginTest {
 protected:
  void* self() const { return device_->device_data; }
};

TEST_F(CpuDeviceTest, CountsOneDevice) {
  int32_t count = 0;
  ASSERT_TRUE(TakeError(device_->device_count(self(), &count)).ok());
  EXPECT_EQ(count, 1);
  const Status status = TakeError(device_->device_count(self(), nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: device_count: out_count is NULL; pass the address of "
            "a variable to receive the result");
}

TEST_F(CpuDeviceTest, DescribesTheHost) {
  sy_device_properties_t p{};
  p.struct_size = sizeof(p);
  ASSERT_TRUE(TakeError(device_->get_properties(self(), 0, &p)).ok());
  EXPECT_THAT(p.name, StartsWith("host CPU"));
  EXPECT_STRNE(p.vendor, "");
  utsname uts{};
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_STREQ(p.driver_version, uts.release);
  EXPECT_GT(p.total_memory_bytes, 0u);
  EXPECT_EQ(p.compute_units, static_cast<int32_t>(std::max(
                                 1u, std::thread::hardware_concurrency())));
}

TEST_F(CpuDeviceTest, RejectsBadPropertyArguments) {
  sy_device_properties_t p{};
  p.struct_size = sizeof(p);
  Status status = TakeError(device_->get_properties(self(), 1, &p));
  EXPECT_EQ(status.code, SY_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(status.message,
            "cpu device: get_properties: device index 1 is out of range; the "
            "cpu device type has 1 device (index 0)");
  status = TakeError(device_->get_properties(self(), -1, &p));
  EXPECT_EQ(status.code, SY_STATUS_OUT_OF_RANGE);
  p.struct_size = 8;
  status = TakeError(device_->get_properties(self(), 0, &p));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: get_properties: out_properties->struct_size is 8, too "
            "small for any field; set it to sizeof(sy_device_properties_t)");
  int not_the_device = 0;
  status = TakeError(device_->get_properties(&not_the_device, 0, &p));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: get_properties: `self` is not the cpu device's "
            "device_data; pass the device_data of the table the plugin "
            "registered");
}

TEST_F(CpuDeviceTest, AllocatesAlignedUniqueBlocks) {
  std::set<void*> seen;
  for (size_t size : {0, 0, 1, 63, 64, 65, 1000, 1 << 20}) {
    for (size_t alignment : {0, 1, 64, 128, 4096}) {
      void* p = nullptr;
      ASSERT_TRUE(
          TakeError(device_->allocate(self(), 0, size, alignment, &p)).ok());
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(seen.insert(p).second) << "size " << size;
      EXPECT_EQ(
          reinterpret_cast<uintptr_t>(p) % std::max<size_t>(64, alignment), 0u);
      std::memset(p, 0x5a, size);  // ASan checks the block is this large
    }
  }
  for (void* p : seen) {
    EXPECT_TRUE(TakeError(device_->deallocate(self(), 0, p)).ok());
  }
  EXPECT_TRUE(TakeError(device_->deallocate(self(), 0, nullptr)).ok());
}

TEST_F(CpuDeviceTest, RejectsBadAllocations) {
  void* p = &p;
  Status status = TakeError(device_->allocate(self(), 0, 16, 48, &p));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: allocate: alignment 48 is not a power of two; pass 0 "
            "for the default (64 bytes) or a power of two");
  EXPECT_EQ(p, nullptr);
  status = TakeError(device_->allocate(self(), 0, SIZE_MAX - 8, 0, &p));
  EXPECT_EQ(status.code, SY_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.message,
            "cpu device: allocate: " + std::to_string(SIZE_MAX - 8) +
                " bytes is more than the host can address; "
                "allocate less");
  status = TakeError(device_->allocate(self(), 2, 16, 0, &p));
  EXPECT_EQ(status.code, SY_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(status.message,
            "cpu device: allocate: device index 2 is out of range; the cpu "
            "device type has 1 device (index 0)");
  status = TakeError(device_->allocate(self(), 0, 16, 0, nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: allocate: out_ptr is NULL; pass the address of a "
            "variable to receive the result");
}

TEST_F(CpuDeviceTest, RejectsForeignAndDoubleFrees) {
  void* p = nullptr;
  ASSERT_TRUE(TakeError(device_->allocate(self(), 0, 32, 0, &p)).ok());
  ASSERT_TRUE(TakeError(device_->deallocate(self(), 0, p)).ok());
  const std::string expected =
      "cpu device: deallocate: pointer " + Pointer(p) +
      " was not allocated by the cpu device, or was already freed; pass a "
      "pointer from allocate, once";
  Status status = TakeError(device_->deallocate(self(), 0, p));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message, expected);
  int local = 0;
  status = TakeError(device_->deallocate(self(), 0, &local));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(status.message, HasSubstr("was not allocated by the cpu device"));
}

TEST_F(CpuDeviceTest, CopiesAndSetsImmediately) {
  std::vector<uint8_t> host(256), back(256, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>(i);
  void* dev = nullptr;
  ASSERT_TRUE(TakeError(device_->allocate(self(), 0, 256, 0, &dev)).ok());
  ASSERT_TRUE(TakeError(device_->memcpy_async(self(), stream_, dev, host.data(),
                                              256, SY_COPY_HOST_TO_DEVICE))
                  .ok());
  // Overlapping device-to-device copy: shift by 8 bytes.
  ASSERT_TRUE(TakeError(device_->memcpy_async(
                            self(), stream_, static_cast<uint8_t*>(dev) + 8,
                            dev, 128, SY_COPY_DEVICE_TO_DEVICE))
                  .ok());
  ASSERT_TRUE(
      TakeError(device_->memset_async(self(), stream_, dev, 0x1ab, 4)).ok());
  ASSERT_TRUE(TakeError(device_->memcpy_async(self(), stream_, back.data(), dev,
                                              256, SY_COPY_DEVICE_TO_HOST))
                  .ok());
  ASSERT_TRUE(TakeError(device_->stream_synchronize(self(), stream_)).ok());
  for (size_t i = 0; i < 256; ++i) {
    const uint8_t want = i < 4     ? 0xab
                         : i < 8   ? static_cast<uint8_t>(i)
                         : i < 136 ? static_cast<uint8_t>(i - 8)
                                   : static_cast<uint8_t>(i);
    ASSERT_EQ(back[i], want) << "byte " << i;
  }
  // Size 0 needs no buffers at all.
  EXPECT_TRUE(TakeError(device_->memcpy_async(self(), stream_, nullptr, nullptr,
                                              0, SY_COPY_HOST_TO_DEVICE))
                  .ok());
  EXPECT_TRUE(
      TakeError(device_->memset_async(self(), stream_, nullptr, 0, 0)).ok());
  EXPECT_TRUE(TakeError(device_->deallocate(self(), 0, dev)).ok());
}

TEST_F(CpuDeviceTest, RejectsBadCopies) {
  char a[4] = {}, b[4] = {};
  Status status = TakeError(device_->memcpy_async(self(), stream_, a, b, 4, 3));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: memcpy_async: kind 3 is not a sy_copy_kind_t; pass "
            "SY_COPY_HOST_TO_DEVICE, SY_COPY_DEVICE_TO_HOST or "
            "SY_COPY_DEVICE_TO_DEVICE");
  status = TakeError(device_->memcpy_async(self(), stream_, nullptr, b, 4,
                                           SY_COPY_HOST_TO_DEVICE));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: memcpy_async: dst is NULL with size 4; pass valid "
            "buffers or size 0");
  status = TakeError(
      device_->memcpy_async(self(), nullptr, a, b, 4, SY_COPY_HOST_TO_DEVICE));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: memcpy_async: stream is NULL; create one with "
            "stream_create");
  status = TakeError(device_->memset_async(self(), stream_, nullptr, 0, 4));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: memset_async: dst is NULL with size 4; pass a valid "
            "buffer or size 0");
}

TEST_F(CpuDeviceTest, ChecksStreamHandles) {
  sy_stream_t s = nullptr;
  ASSERT_TRUE(TakeError(device_->stream_create(self(), 0, &s)).ok());
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s, stream_);
  EXPECT_TRUE(TakeError(device_->stream_synchronize(self(), s)).ok());
  EXPECT_TRUE(TakeError(device_->stream_destroy(self(), s)).ok());
  const std::string expected =
      "cpu device: stream_destroy: stream " + Pointer(s) +
      " is not a live cpu stream (destroyed, or not created by the cpu "
      "device); use a stream from stream_create";
  Status status = TakeError(device_->stream_destroy(self(), s));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message, expected);
  status = TakeError(device_->stream_synchronize(self(), s));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  status = TakeError(device_->stream_create(self(), 1, &s));
  EXPECT_EQ(status.code, SY_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(s, nullptr);
  status = TakeError(device_->stream_create(self(), 0, nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: stream_create: out_stream is NULL; pass the address "
            "of a variable to receive the result");
}

TEST_F(CpuDeviceTest, TimesEvents) {
  sy_event_t start = nullptr, end = nullptr;
  ASSERT_TRUE(TakeError(device_->event_create(self(), 0, &start)).ok());
  ASSERT_TRUE(TakeError(device_->event_create(self(), 0, &end)).ok());
  float ms = -1.0f;
  Status status = TakeError(device_->event_elapsed_ms(self(), start, end, &ms));
  EXPECT_EQ(status.code, SY_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(status.message,
            "cpu device: event_elapsed_ms: start was never recorded; call "
            "event_record on both events first");
  ASSERT_TRUE(TakeError(device_->event_record(self(), start, stream_)).ok());
  status = TakeError(device_->event_elapsed_ms(self(), start, end, &ms));
  EXPECT_EQ(status.code, SY_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(status.message,
            "cpu device: event_elapsed_ms: end was never recorded; call "
            "event_record on both events first");
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_TRUE(TakeError(device_->event_record(self(), end, stream_)).ok());
  ASSERT_TRUE(TakeError(device_->event_synchronize(self(), end)).ok());
  ASSERT_TRUE(TakeError(device_->stream_wait_event(self(), stream_, end)).ok());
  ASSERT_TRUE(
      TakeError(device_->event_elapsed_ms(self(), start, end, &ms)).ok());
  EXPECT_GE(ms, 1.5f);
  EXPECT_LT(ms, 10000.0f);
  ASSERT_TRUE(
      TakeError(device_->event_elapsed_ms(self(), start, start, &ms)).ok());
  EXPECT_EQ(ms, 0.0f);
  status = TakeError(device_->event_elapsed_ms(self(), start, end, nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(TakeError(device_->event_destroy(self(), start)).ok());
  status = TakeError(device_->event_record(self(), start, stream_));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: event_record: event " + Pointer(start) +
                " is not a live cpu event (destroyed, or not created by the "
                "cpu device); use an event from event_create");
  status = TakeError(device_->event_record(self(), end, nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  status = TakeError(device_->stream_wait_event(self(), stream_, nullptr));
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu device: stream_wait_event: event is NULL; create one with "
            "event_create");
  EXPECT_TRUE(TakeError(device_->event_destroy(self(), end)).ok());
}

// Handles are shared state: many threads at once must neither race nor
// lose track (run under TSan in CI).
TEST_F(CpuDeviceTest, IsThreadSafe) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        void* p = nullptr;
        sy_stream_t s = nullptr;
        sy_event_t e = nullptr;
        ASSERT_TRUE(TakeError(device_->allocate(self(), 0, 64, 0, &p)).ok());
        ASSERT_TRUE(TakeError(device_->stream_create(self(), 0, &s)).ok());
        ASSERT_TRUE(TakeError(device_->event_create(self(), 0, &e)).ok());
        ASSERT_TRUE(TakeError(device_->memset_async(self(), s, p, i, 64)).ok());
        ASSERT_TRUE(TakeError(device_->event_record(self(), e, stream_)).ok());
        ASSERT_TRUE(TakeError(device_->event_destroy(self(), e)).ok());
        ASSERT_TRUE(TakeError(device_->stream_destroy(self(), s)).ok());
        ASSERT_TRUE(TakeError(device_->deallocate(self(), 0, p)).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace
}  // namespace sy::testing
