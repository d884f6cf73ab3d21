// Every function is thread-safe: calls, references and destruction racing
// on shared handles give right answers or clean errors, never crashes
// (the tsan build checks for races).
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

using ThreadsTest = CApiTest;

TEST_F(ThreadsTest, ConcurrentCallsOnSharedHandles) {
  const std::vector<float> a = RandomFloats(256, 51), b = RandomFloats(256, 52);
  sy_tensor_t ta = F32(cpu_, {16, 16}, a), tb = F32(cpu_, {16, 16}, b);
  sy_op_t add = Op(context_, "add.Tensor");
  sy_op_t mul = Op(context_, "mul.Tensor");
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      sy_op_t op = t % 2 ? add : mul;
      for (int i = 0; i < 50; ++i) {
        const sy_tensor_t inputs[2] = {ta, tb};
        sy_tensor_t out = nullptr;
        if (sy_op_call(op, inputs, 2, nullptr, 0, &out, 1) != SY_STATUS_OK) {
          failed++;
          continue;
        }
        std::vector<float> got(256);
        if (sy_tensor_to_host(out, got.data(), 1024) != SY_STATUS_OK) failed++;
        for (int k = 0; k < 256; ++k) {
          const float want = t % 2 ? a[k] + b[k] : a[k] * b[k];
          if (got[k] != want) wrong++;
        }
        if (sy_tensor_retain(ta) != SY_STATUS_OK) failed++;
        if (sy_tensor_release(ta) != SY_STATUS_OK) failed++;
        if (sy_tensor_release(out) != SY_STATUS_OK) failed++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(failed, 0);
  // ta still has exactly one reference.
  ASSERT_EQ(sy_tensor_release(ta), SY_STATUS_OK);
  EXPECT_EQ(sy_tensor_retain(ta), SY_STATUS_INVALID_ARGUMENT);
}

TEST(ThreadsDestroyTest, DestroyWhileOtherThreadsCall) {
  sy_context_t context = MakeContext();
  sy_device_handle_t cpu = Cpu(context);
  sy_op_t relu = Op(context, "relu");
  sy_tensor_t x = F32(cpu, {64}, RandomFloats(64, 53));
  std::atomic<int> ok{0}, clean_errors{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    // Each thread calls until the destruction reaches it.
    threads.emplace_back([&] {
      for (;;) {
        sy_tensor_t out = nullptr;
        const sy_status_code_t s = sy_op_call(relu, &x, 1, nullptr, 0, &out, 1);
        if (s == SY_STATUS_OK) {
          ok++;
          sy_tensor_release(out);  // may itself be stale by now
          continue;
        }
        // A stale handle, or destroyed during the call.
        if (s == SY_STATUS_INVALID_ARGUMENT || s == SY_STATUS_FAILED_PRECONDITION) {
          clean_errors++;
        } else {
          other++;
        }
        return;
      }
    });
  }
  while (ok < 100) std::this_thread::yield();
  ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(other, 0);
  EXPECT_EQ(clean_errors, 3);
}

}  // namespace
}  // namespace sy_test
