// The cuda device table (sy_device_api_t), called as the core calls it:
// raw allocation, copies in every direction (through the pinned staging
// ring and directly), memset, streams, events, and bad handles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cuda_test_env.h"
#include "dispatcher/base/error.h"

namespace sy::cuda_test {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

using ::testing::HasSubstr;

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SY_SKIP_WITHOUT_CUDA();
    api_ = &Env().cuda->type().api();
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

TEST_F(CudaDeviceTest, AllocatesAlignedAndRefusesBadFrees) {
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

// Small copies go through the pinned ring, large ones directly; both must
// round-trip exactly, also back to back (the ring's slots are reused).
TEST_F(CudaDeviceTest, CopiesRoundTripInEveryDirection) {
  for (size_t n : {size_t{1}, size_t{4096}, size_t{1} << 20, size_t{5} << 20}) {
    SCOPED_TRACE(n);
    const std::vector<unsigned char> src = RandomBytes(n, static_cast<uint32_t>(n));
    void* d0 = Alloc(n);
    void* d1 = Alloc(n);
    for (int repeat = 0; repeat < 6; ++repeat) {  // more than the ring's 4 slots
      ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, d0, src.data(), n,
                                        SY_COPY_HOST_TO_DEVICE)));
    }
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, d1, d0, n,
                                      SY_COPY_DEVICE_TO_DEVICE)));
    std::vector<unsigned char> back(n, 0xcd);
    ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, back.data(), d1, n,
                                      SY_COPY_DEVICE_TO_HOST)));
    ASSERT_TRUE(Ok(api_->stream_synchronize(self_, stream_)));
    EXPECT_EQ(back, src);
    EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d0)));
    EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d1)));
  }
}

// The host buffer may be reused as soon as a staged copy returns.
TEST_F(CudaDeviceTest, StagedCopiesDoNotReadTheHostBufferLater) {
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
  ASSERT_TRUE(Ok(api_->stream_synchronize(self_, stream_)));
  EXPECT_EQ(back, first);
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d)));
}

TEST_F(CudaDeviceTest, MemsetWritesTheLowByte) {
  const size_t n = 3000;
  void* d = Alloc(n);
  ASSERT_TRUE(Ok(api_->memset_async(self_, stream_, d, 0x1a5, n)));
  std::vector<unsigned char> back(n);
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, back.data(), d, n,
                                    SY_COPY_DEVICE_TO_HOST)));
  ASSERT_TRUE(Ok(api_->stream_synchronize(self_, stream_)));
  EXPECT_EQ(std::count(back.begin(), back.end(), 0xa5), static_cast<long>(n));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, d)));
}

TEST_F(CudaDeviceTest, EventsMeasureElapsedTime) {
  sy_event_t start = nullptr, end = nullptr;
  ASSERT_TRUE(Ok(api_->event_create(self_, 0, &start)));
  ASSERT_TRUE(Ok(api_->event_create(self_, 0, &end)));
  float ms = -1;
  absl::Status early = Check(api_->event_elapsed_ms(self_, start, end, &ms));
  EXPECT_EQ(early.code(), absl::StatusCode::kFailedPrecondition);
  const size_t n = size_t{64} << 20;
  void* a = Alloc(n);
  void* b = Alloc(n);
  ASSERT_TRUE(Ok(api_->event_record(self_, start, stream_)));
  ASSERT_TRUE(Ok(api_->memcpy_async(self_, stream_, b, a, n,
                                    SY_COPY_DEVICE_TO_DEVICE)));
  ASSERT_TRUE(Ok(api_->event_record(self_, end, stream_)));
  ASSERT_TRUE(Ok(api_->event_synchronize(self_, end)));
  ASSERT_TRUE(Ok(api_->event_elapsed_ms(self_, start, end, &ms)));
  EXPECT_GT(ms, 0.0f);
  // Another stream can wait on the event.
  sy_stream_t other = nullptr;
  ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &other)));
  EXPECT_TRUE(Ok(api_->stream_wait_event(self_, other, end)));
  EXPECT_TRUE(Ok(api_->stream_synchronize(self_, other)));
  EXPECT_TRUE(Ok(api_->stream_destroy(self_, other)));
  EXPECT_TRUE(Ok(api_->event_destroy(self_, start)));
  EXPECT_TRUE(Ok(api_->event_destroy(self_, end)));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, a)));
  EXPECT_TRUE(Ok(api_->deallocate(self_, 0, b)));
}

TEST_F(CudaDeviceTest, RefusesBadHandles) {
  absl::Status null_stream = Check(api_->stream_synchronize(self_, nullptr));
  EXPECT_EQ(null_stream.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(null_stream.message(), HasSubstr("stream is NULL"));
  sy_stream_t dead = nullptr;
  ASSERT_TRUE(Ok(api_->stream_create(self_, 0, &dead)));
  ASSERT_TRUE(Ok(api_->stream_destroy(self_, dead)));
  absl::Status stale = Check(api_->stream_synchronize(self_, dead));
  EXPECT_THAT(stale.message(), HasSubstr("not a live cuda stream"));
  int foreign = 0;
  absl::Status bad_self = Check(api_->device_count(&foreign, nullptr));
  EXPECT_EQ(bad_self.code(), absl::StatusCode::kInvalidArgument);
  absl::Status kind = Check(api_->memcpy_async(self_, stream_, &foreign,
                                               &foreign, 4, 7));
  EXPECT_THAT(kind.message(), HasSubstr("not a sy_copy_kind_t"));
}

}  // namespace
}  // namespace sy::cuda_test
