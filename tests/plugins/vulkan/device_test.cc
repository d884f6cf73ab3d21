// The vulkan device table (sy_device_api_t), called as the core calls it:
// sub-allocation, copies in every direction (staged, chunked past the
// staging ring), memset at ragged offsets, streams, events with device
// timestamps, cross-stream waits, batched submission, and bad handles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "vulkan_test_env.h"

namespace sy::vulkan_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly
namespace {

using ::testing::HasSubstr;

class VulkanDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SY_SKIP_WITHOUT_VULKAN();
    api_ = &Env().vulkan->type().api();
    self_ = api_->device_data;
    ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &stream_)));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_TRUE(Ok(api_->stream_destroy(self_, stream_)));
    }
  }
  static absl::Status Check(sy_error_t* e) { return TakeError(e, "test"); }
  static bool Ok(sy_error_t* e) {
    absl::Status s = Check(e);
    if (!s.ok()) ADD_FAILURE() << s;
    return s.ok();
  }
  void* Alloc(size_t n) {
    void* p = nullptr;
    EXPECT_TRUE(Ok(api_->allocate(self_, 0, n, 64, &p)));
    return p;
  }

  const sy_device_api_t* api_ = nullptr;
  void* self_ = nullptr;
  sy_stream_t stream_ = nullptr;
};

std::vector<unsigned char> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<unsigned char> out(n);
  for (auto& b : out) b = static_cast<unsigned char>(gen());
  return out;
}

TEST_F(VulkanDeviceTest, AllocatesAlignedAndRefusesBadFrees) {
  void* p = Alloc(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  void* q = nullptr;
  absl::Status big = Check(api_->allocate(self_, 0, 16, 4096, &q));
  EXPECT_EQ(big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(big.message(), HasSubstr("alignment 4096"));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, p)));
  absl::Status twice = Check(api_->deallocate(self_, 0, p));
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.message(), HasSubstr("already freed"));
  int32_t count = 0;
  ASSERT_TRUE(Ok(api_->device_count(self_, &count)));
  absl::Status range = Check(api_->allocate(self_, count, 16, 64, &q));
  EXPECT_EQ(range.code(), absl::StatusCode::kOutOfRange);
}

// Small tensors are carved out of one large block (Note [Vulkan memory
// handles]): their addresses lie within one block's span, distinct and
// non-overlapping, and freed space is reused.
TEST_F(VulkanDeviceTest, SubAllocatesFromLargeBlocks) {
  std::vector<void*> ptrs;
  for (int i = 0; i < 200; ++i) ptrs.push_back(Alloc(4096 + 16 * i));
  const auto [lo, hi] = std::minmax_element(ptrs.begin(), ptrs.end());
  EXPECT_LT(reinterpret_cast<uintptr_t>(*hi) - reinterpret_cast<uintptr_t>(*lo),
            size_t{256} << 20);
  std::vector<void*> sorted = ptrs;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_GE(static_cast<char*>(sorted[i]) - static_cast<char*>(sorted[i - 1]),
              4096);
  }
  void* first = ptrs[0];
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, first)));
  void* again = Alloc(4096);
  EXPECT_EQ(again, first) << "freed space should be reused (first fit)";
  ptrs[0] = again;
  for (void* p : ptrs) EXPECT_TRUE(Ok(api_->deallocate(self_, 0, p)));
}

TEST_F(VulkanDeviceTest, CopiesRoundTripInEveryDirection) {
  // Past the 16 MiB staging ring too, and at odd offsets.
  for (size_t n : {size_t{1}, size_t{4099}, size_t{1} << 20, size_t{20} << 20}) {
    SCOPED_TRACE(n);
    const std::vector<unsigned char> src = RandomBytes(n, static_cast<uint32_t>(n));
    char* d0 = static_cast<char*>(Alloc(n + 3));
    char* d1 = static_cast<char*>(Alloc(n + 3));
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, d0 + 3, src.data(), n,
                                      SY_COPY_HOST_TO_DEVICE)));
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, d1 + 1, d0 + 3, n,
                                      SY_COPY_DEVICE_TO_DEVICE)));
    std::vector<unsigned char> back(n, 0xcd);
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, back.data(), d1 + 1, n,
                                      SY_COPY_DEVICE_TO_HOST)));
    ASSERT_TRUE(Ok(api_->stream_synchronize(self_, stream_)));
    EXPECT_EQ(back, src);
    EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d0)));
    EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d1)));
  }
}

// The host buffer may be reused as soon as a host-to-device copy returns
// (it was staged), although the copy itself is only recorded.
TEST_F(VulkanDeviceTest, StagedCopiesDoNotReadTheHostBufferLater) {
  const size_t n = 1024;
  std::vector<unsigned char> host = RandomBytes(n, 7);
  const std::vector<unsigned char> first = host;
  void* d = Alloc(n);
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, d, host.data(), n,
                                    SY_COPY_HOST_TO_DEVICE)));
  std::fill(host.begin(), host.end(), 0);
  std::vector<unsigned char> back(n);
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, back.data(), d, n,
                                    SY_COPY_DEVICE_TO_HOST)));
  EXPECT_EQ(back, first);
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d)));
}

TEST_F(VulkanDeviceTest, MemsetWritesTheLowByteAtRaggedOffsets) {
  const size_t n = 3001;
  char* d = static_cast<char*>(Alloc(n + 8));
  ASSERT_TRUE(Ok(api_->memset_async(self_, stream_, d, 0, n + 8)));
  ASSERT_TRUE(Ok(api_->memset_async(self_, stream_, d + 1, 0x1a5, n)));
  std::vector<unsigned char> back(n + 8);
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, back.data(), d, n + 8,
                                    SY_COPY_DEVICE_TO_HOST)));
  EXPECT_EQ(back[0], 0);
  EXPECT_EQ(std::count(back.begin() + 1, back.begin() + 1 + n, 0xa5),
            static_cast<long>(n));
  EXPECT_EQ(back[n + 1], 0);
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d)));
}

TEST_F(VulkanDeviceTest, EventsMeasureElapsedTimeAndOrderStreams) {
  sy_event_t start = nullptr, end = nullptr;
  ASSERT_TRUE(Ok(api_->event_create(self_, 0, &start)));
  ASSERT_TRUE(Ok(api_->event_create(self_, 0, &end)));
  float ms = -1;
  absl::Status early = Check(api_->event_elapsed_ms(self_, start, end, &ms));
  EXPECT_EQ(early.code(), absl::StatusCode::kFailedPrecondition);
  const size_t n = size_t{32} << 20;
  void* a = Alloc(n);
  void* b = Alloc(n);
  ASSERT_TRUE(Ok(api_->memset_async(self_, stream_, a, 7, n)));
  ASSERT_TRUE(Ok(api_->event_record(self_, start, stream_)));
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, b, a, n,
                                    SY_COPY_DEVICE_TO_DEVICE)));
  ASSERT_TRUE(Ok(api_->event_record(self_, end, stream_)));
  // Another stream waits on `end`, then reads what the first one wrote.
  sy_stream_t other = nullptr;
  ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &other)));
  ASSERT_TRUE(Ok(api_->stream_wait_event(self_, other, end)));
  unsigned char last = 0;
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, other, &last,
                                    static_cast<char*>(b) + n - 1, 1,
                                    SY_COPY_DEVICE_TO_HOST)));
  EXPECT_EQ(last, 7);
  ASSERT_TRUE(Ok(api_->event_synchronize(self_, end)));
  ASSERT_TRUE(Ok(api_->event_elapsed_ms(self_, start, end, &ms)));
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 60000.0f);
  EXPECT_TRUE(Ok(api_->stream_destroy(self_, other)));
  EXPECT_TRUE(Ok(api_->event_destroy(self_, start)));
  EXPECT_TRUE(Ok(api_->event_destroy(self_, end)));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, a)));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, b)));
}

// Ops are recorded, not submitted one by one (Note [Batched submission]):
// a chain longer than one batch runs in order with no synchronization
// between its ops, and the host sees the final value.
TEST_F(VulkanDeviceTest, LongOpChainsRunInOrderAcrossBatches) {
  Runtime& rt = *Env().runtime;
  const std::vector<float> ones(1000, 1.0f);
  Tensor x = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {1000}, ones.data(),
                         ones.size() * 4).value();
  const auto add = rt.FindOp("add").value();
  for (int i = 0; i < 300; ++i) {  // more than Stream::kMaxBatchCommands
    x = rt.Call(add, {x, x}).value()[0];
    x = rt.Call(rt.FindOp("mul.Scalar").value(), {x}, {Attr(0.5)}).value()[0];
  }
  std::vector<float> got(1000);
  ASSERT_TRUE(rt.ToHost(x, got.data(), got.size() * 4).ok());
  EXPECT_EQ(std::count(got.begin(), got.end(), 1.0f), 1000);
}

// The same, counted: 300 recorded copies and one synchronize reach the
// queue in a few batches (at most one per Stream::kMaxBatchCommands = 128
// commands, plus the sync's), not one submit per command. The stream says
// so (debug log) when it is destroyed.
TEST_F(VulkanDeviceTest, SubmitsInBatchesNotPerCommand) {
  sy_stream_t s = nullptr;
  ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &s)));
  const std::vector<unsigned char> src = RandomBytes(64, 3);
  void* d = Alloc(64 * 300);
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, s, static_cast<char*>(d) + 64 * i,
                                      src.data(), 64, SY_COPY_HOST_TO_DEVICE)));
  }
  ASSERT_TRUE(Ok(api_->stream_synchronize(self_, s)));
  std::vector<std::string> lines;
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kDebug);
  SetLogSink([&](LogLevel, absl::string_view m) { lines.emplace_back(m); });
  EXPECT_TRUE(Ok(api_->stream_destroy(self_, s)));
  SetLogSink(nullptr);
  SetLogLevel(level);
  bool found = false;
  for (const std::string& line : lines) {
    if (line.find("recorded 300 command(s) in 3 batch(es)") != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "expected 300 commands in 3 batches; log: "
                     << (lines.empty() ? "(nothing)" : lines.back());
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d)));
}

TEST_F(VulkanDeviceTest, RefusesBadHandles) {
  absl::Status null_stream = Check(api_->stream_synchronize(self_, nullptr));
  EXPECT_EQ(null_stream.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(null_stream.message(), HasSubstr("stream is NULL"));
  sy_stream_t dead = nullptr;
  ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &dead)));
  ASSERT_TRUE(Ok(api_->stream_destroy(self_, dead)));
  absl::Status stale = Check(api_->stream_synchronize(self_, dead));
  EXPECT_THAT(stale.message(), HasSubstr("not a live vulkan stream"));
  int foreign = 0;
  absl::Status bad_self = Check(api_->device_count(&foreign, nullptr));
  EXPECT_EQ(bad_self.code(), absl::StatusCode::kInvalidArgument);
  absl::Status kind = Check(api_->memcpy_async(self_, stream_, &foreign,
                                               &foreign, 4, 7));
  EXPECT_THAT(kind.message(), HasSubstr("not a sy_copy_kind_t"));
  absl::Status host_ptr = Check(api_->memcpy_async(
      self_, stream_, &foreign, &foreign, 4, SY_COPY_DEVICE_TO_HOST));
  EXPECT_THAT(host_ptr.message(), HasSubstr("is not inside memory allocated on vulkan:0"));
}

}  // namespace
}  // namespace sy::vulkan_test
