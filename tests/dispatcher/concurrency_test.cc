// Registration concurrent with calls: threads call ops while another thread
// loads and unloads a plugin and pins and unpins kernels. Results must stay
// right at every moment; run under the tsan preset, it must be race-free.
#include <atomic>
#include <chrono>
#include <thread>

#include "dispatcher/base/call_tracker.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::MakeF32;
using ::sy::testing::MakeRuntime;
using ::sy::testing::ReadF32;
using ::sy::testing::TestPlugin;

TEST(ConcurrencyTest, CallsStayCorrectWhileRegistrationChanges) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  OpHandle add = runtime->FindOp("add").value();
  OpHandle mul = runtime->FindOp("mul").value();
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0}, calls{0};

  auto caller = [&](int id) {
    Tensor a = MakeF32(*runtime, *cpu, {4}, {1, 2, 3, float(id)});
    while (!stop.load()) {
      auto sum = runtime->Call(add, {a, a});
      auto prod = runtime->Call(mul, {a, a});
      if (!sum.ok() || !prod.ok()) {
        ++wrong;
        continue;
      }
      std::vector<float> s = ReadF32(*runtime, (*sum)[0]);
      std::vector<float> p = ReadF32(*runtime, (*prod)[0]);
      // While test_good is loaded its add_marker may be pinned: 42s.
      const bool sum_ok = s == std::vector<float>{2, 4, 6, float(2 * id)} ||
                          s == std::vector<float>{42, 42, 42, 42};
      if (!sum_ok || p != std::vector<float>{1, 4, 9, float(id * id)}) ++wrong;
      ++calls;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back(caller, i);

  // At least 20 rounds, and until the callers have made 200 calls: on a
  // busy machine the rounds alone can finish before a caller is scheduled.
  for (int round = 0; round < 20 || calls.load() + wrong.load() < 200; ++round) {
    ASSERT_TRUE(runtime->LoadPlugin(TestPlugin("test_good")).ok());
    ASSERT_TRUE(runtime->PinKernel("add", "cpu", "test_good::add_marker").ok());
    ASSERT_TRUE(runtime->UnpinKernel("add", "cpu").ok());
    ASSERT_TRUE(runtime->UnloadPlugin("test_good").ok());
  }
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(calls.load(), 0);
}

// Note [In-flight slots]: an unload waits for the calls in flight when it
// starts — nested ones too — and for nothing else: not for calls that
// finished, not for threads that ended, not for calls that start later.
TEST(CallTrackerTest, WaitsForCallsInFlightAndOnlyForThem) {
  CallTracker tracker;
  // Threads that made calls and ended leave nothing to wait for (their
  // slots are reused; a leak of an odd epoch would hang here).
  for (int i = 0; i < 40; ++i) {
    std::thread([&] { CallTracker::Scope call(tracker); }).join();
  }
  tracker.WaitForQuiescence();

  std::atomic<int> stage{0};  // 1: in the call; 2: leave the inner call; 3: leave
  std::thread caller([&] {
    CallTracker::Scope outer(tracker);
    {
      CallTracker::Scope inner(tracker);  // a decomposition's nested call
      stage = 1;
      while (stage.load() < 2) std::this_thread::yield();
    }
    while (stage.load() < 3) std::this_thread::yield();
  });
  while (stage.load() < 1) std::this_thread::yield();
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    tracker.WaitForQuiescence();
    returned = true;
  });
  // Another thread calling all the while is not waited for.
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop.load()) CallTracker::Scope call(tracker);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(returned.load());
  stage = 2;  // the nested call returns; the outer one is still in flight
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(returned.load());
  stage = 3;
  waiter.join();
  EXPECT_TRUE(returned.load());
  stop = true;
  busy.join();
  caller.join();
}

}  // namespace
}  // namespace sy::core
