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

// Note [Lock-free handle table]: a release on one thread while others call
// sy_op_call_out with the same handle. Each call either runs with the
// tensor it looked up (right answer) or finds the handle stale.
TEST_F(ThreadsTest, ReleaseWhileOtherThreadsCallOut) {
  sy_op_t add = Op(context_, "add.Tensor");
  const std::vector<float> a = RandomFloats(64, 61);
  for (int round = 0; round < 20; ++round) {
    sy_tensor_t shared = F32(cpu_, {64}, a);
    std::atomic<bool> go{false};
    std::atomic<int> wrong{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        sy_tensor_t out = nullptr, own = F32(cpu_, {64}, a);
        const int64_t shape[1] = {64};
        sy_tensor_empty(cpu_, SY_DTYPE_F32, shape, 1, &out);
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 200; ++i) {
          const sy_tensor_t inputs[2] = {shared, own};
          const sy_status_code_t s = sy_op_call_out(add, inputs, 2, nullptr, 0, &out, 1);
          if (s == SY_STATUS_INVALID_ARGUMENT) break;  // released: stale from now on
          if (s != SY_STATUS_OK) {
            other++;
            break;
          }
          std::vector<float> got(64);
          sy_tensor_to_host(out, got.data(), got.size() * 4);
          for (int k = 0; k < 64; ++k) wrong += got[k] != a[k] + a[k];
        }
        sy_tensor_release(out);
        sy_tensor_release(own);
      });
    }
    go = true;
    std::this_thread::yield();
    ASSERT_EQ(sy_tensor_release(shared), SY_STATUS_OK);
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(other, 0);
    // Stale for good, never a crash.
    EXPECT_EQ(sy_tensor_retain(shared), SY_STATUS_INVALID_ARGUMENT);
  }
}

// Handles made and freed on many threads at once reuse slots through the
// lock-free free list; every handle stays its own (the ABA tag), and a
// retain racing the last release never revives a tensor.
TEST_F(ThreadsTest, HandleChurnKeepsEveryHandleItsOwn) {
  std::atomic<int> mixed_up{0}, failed{0}, revived{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const float value = static_cast<float>(t * 1000 + i);
        sy_tensor_t x = F32(cpu_, {1}, {value});
        sy_tensor_t y = nullptr;
        if (sy_tensor_to_device(x, cpu_, &y) != SY_STATUS_OK) failed++;
        float got = -1;
        if (sy_tensor_to_host(y, &got, 4) != SY_STATUS_OK || got != value) mixed_up++;
        if (sy_tensor_release(y) != SY_STATUS_OK) failed++;
        // One reference: the first release frees the handle, whose slot
        // other threads reuse at once; later use of x is stale.
        if (sy_tensor_release(x) != SY_STATUS_OK) failed++;
        if (sy_tensor_release(x) == SY_STATUS_OK) revived++;
        if (sy_tensor_retain(x) == SY_STATUS_OK) revived++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mixed_up, 0);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(revived, 0);
}

// Handles made for a context while another thread destroys it: each is
// either made before (and stale after the destruction) or refused with
// FAILED_PRECONDITION / a stale-context error — none survives.
TEST(ThreadsDestroyTest, HandlesMadeDuringDestructionNeverSurvive) {
  for (int round = 0; round < 10; ++round) {
    sy_context_t context = MakeContext();
    sy_device_handle_t cpu = Cpu(context);
    std::atomic<int> other{0}, count{0};
    std::vector<std::vector<sy_tensor_t>> made(3);  // each thread its own
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        const int64_t shape[1] = {8};
        for (;;) {
          sy_tensor_t x = nullptr;
          const sy_status_code_t s = sy_tensor_empty(cpu, SY_DTYPE_F32, shape, 1, &x);
          if (s == SY_STATUS_OK) {
            made[t].push_back(x);
            count++;
            continue;
          }
          if (s != SY_STATUS_INVALID_ARGUMENT && s != SY_STATUS_FAILED_PRECONDITION) {
            other++;
          }
          return;
        }
      });
    }
    while (count < 30) std::this_thread::yield();
    ASSERT_EQ(sy_context_destroy(context), SY_STATUS_OK);
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(other, 0);
    for (const auto& handles : made) {
      for (sy_tensor_t x : handles) {
        EXPECT_EQ(sy_tensor_retain(x), SY_STATUS_INVALID_ARGUMENT);
      }
    }
  }
}

}  // namespace
}  // namespace sy_test
