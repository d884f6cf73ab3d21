// Checks only the device can make (Note [Deferred device checks],
// switchyard/gpu/device_checks.h): an embedding index out of range and an
// integer division by zero on cuda:0. By default the call succeeds, its
// output holds zeros where the check failed, and the stream's next
// synchronization (here: reading a result back) fails with INVALID_ARGUMENT
// naming the op; the one after succeeds. The ctest entry
// cuda_plugin_test.sync_checks runs these tests again with
// SWITCHYARD_GPU_SYNC_CHECKS=1, where the call itself fails with its own
// message and the synchronization after it succeeds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_test_env.h"

namespace sy::cuda_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

bool ChecksAtCall() {
  const char* v = std::getenv("SWITCHYARD_GPU_SYNC_CHECKS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

template <class T>
Tensor Upload(sy_dtype_t dtype, std::vector<int64_t> shape, const std::vector<T>& v) {
  return Env().runtime->FromHost(*Env().cuda, dtype, shape, v.data(), v.size() * sizeof(T))
      .value();
}

template <class T>
absl::Status Read(const Tensor& t, std::vector<T>* out) {
  out->assign(static_cast<size_t>(t.numel()), T{});
  return Env().runtime->ToHost(t, out->data(), out->size() * sizeof(T));
}

// The call's result, or its error when checks are made at the call.
absl::StatusOr<Tensor> CallOne(const char* op, std::vector<Tensor> inputs) {
  Runtime& rt = *Env().runtime;
  absl::StatusOr<std::vector<Tensor>> out = rt.Call(rt.FindOp(op).value(), inputs);
  if (!out.ok()) return out.status();
  return out->front();
}

TEST(DeviceChecks, EmbeddingIndexOutOfRange) {
  SY_SKIP_WITHOUT_CUDA();
  const std::vector<float> weight = RandomFloats(4 * 3, 41);
  const std::vector<int64_t> indices = {0, 4, 1, -1};
  absl::StatusOr<Tensor> out = CallOne(
      "embedding", {Upload(SY_DTYPE_F32, {4, 3}, weight), Upload(SY_DTYPE_I64, {4}, indices)});
  if (ChecksAtCall()) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(),
                AllOf(HasSubstr("cuda plugin: embedding: input 'indices' holds an index "
                                "outside [0, 4)"),
                      HasSubstr("pass indices in range")));
    EXPECT_TRUE(Env().cuda->Synchronize().ok()) << "the call already took the flag";
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> got;
  const absl::Status read = Read(*out, &got);
  EXPECT_EQ(read.code(), absl::StatusCode::kInvalidArgument) << read;
  EXPECT_THAT(read.message(),
              AllOf(HasSubstr("a call on cuda:0 since the stream's last synchronization"),
                    HasSubstr("embedding: input 'indices' held an index out of range"),
                    HasSubstr("pass indices in range"), HasSubstr("SWITCHYARD_GPU_SYNC_CHECKS=1")));
  // Reported once: the flag is cleared, and the output holds the rows in
  // range and zeros for the others.
  ASSERT_TRUE(Read(*out, &got).ok());
  for (int col = 0; col < 3; ++col) {
    EXPECT_EQ(got[0 * 3 + col], weight[0 * 3 + col]);
    EXPECT_EQ(got[1 * 3 + col], 0.0f);
    EXPECT_EQ(got[2 * 3 + col], weight[1 * 3 + col]);
    EXPECT_EQ(got[3 * 3 + col], 0.0f);
  }
}

TEST(DeviceChecks, IntegerDivisionByZero) {
  SY_SKIP_WITHOUT_CUDA();
  const std::vector<int32_t> a = {7, -9, 5, 3, 8};
  const std::vector<int32_t> b = {2, 3, 0, -2, 0};
  absl::StatusOr<Tensor> out =
      CallOne("div", {Upload(SY_DTYPE_I32, {5}, a), Upload(SY_DTYPE_I32, {5}, b)});
  if (ChecksAtCall()) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(),
                AllOf(HasSubstr("cuda plugin: div.Tensor: input 'b' has a zero element"),
                      HasSubstr("integer division (i32) by zero")));
    EXPECT_TRUE(Env().cuda->Synchronize().ok());
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status();
  const absl::Status synced = Env().cuda->Synchronize();
  EXPECT_EQ(synced.code(), absl::StatusCode::kInvalidArgument) << synced;
  EXPECT_THAT(synced.message(), HasSubstr("div.Tensor: an integer input 'b' held a zero "
                                          "element, and integer division by 0 has no result"));
  std::vector<int32_t> got;
  ASSERT_TRUE(Read(*out, &got).ok());
  // Division truncating toward zero where there is a divisor (docs/ops.md),
  // 0 elsewhere.
  for (size_t i = 0; i < a.size(); ++i) {
    const int32_t want =
        b[i] == 0 ? 0 : static_cast<int32_t>(std::trunc(static_cast<double>(a[i]) / b[i]));
    EXPECT_EQ(got[i], want) << "element " << i;
  }
}

TEST(DeviceChecks, OneSynchronizationReportsEveryFailedCheck) {
  SY_SKIP_WITHOUT_CUDA();
  if (ChecksAtCall()) GTEST_SKIP() << "checks are made at each call";
  // Every input first: an upload from pageable memory synchronizes the
  // stream, which would report the first check before the second ran.
  const std::vector<int64_t> indices = {9};
  const std::vector<int64_t> zero = {0};
  const Tensor weight = Upload(SY_DTYPE_F32, {2, 2}, RandomFloats(4, 42));
  const Tensor bad_indices = Upload(SY_DTYPE_I64, {1}, indices);
  const Tensor zeros = Upload(SY_DTYPE_I64, {1}, zero);
  ASSERT_TRUE(CallOne("embedding", {weight, bad_indices}).ok());
  ASSERT_TRUE(CallOne("div", {zeros, zeros}).ok());
  const absl::Status synced = Env().cuda->Synchronize();
  EXPECT_THAT(synced.message(),
              AllOf(HasSubstr("embedding: input 'indices' held an index out of range"),
                    HasSubstr("; and div.Tensor: an integer input 'b' held a zero element")));
  EXPECT_TRUE(Env().cuda->Synchronize().ok());
}

}  // namespace
}  // namespace sy::cuda_test
