// A new tensor's storage and layout share one heap block (Note [Tensor
// allocation] in dispatcher/memory/tensor.h): a view outlives the tensor
// it was made from, a tensor dies on another thread than it was made on,
// and planned calls' outputs come and go; every byte goes back (ASan
// checks the block's lifetime, TSan the counts).
#include <thread>
#include <vector>

#include "dispatcher/memory/tensor.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

TEST(TensorBlockTest, AViewOutlivesItsBaseAndTheStorageGoesLast) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  const uint64_t before = cpu->allocator().stats().allocated_bytes;
  Tensor view;
  {
    Tensor base = MakeF32(*runtime, *cpu, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int64_t shape[] = {3, 2}, strides[] = {1, 3};  // the transpose
    view = Tensor::View(base, shape, strides, 0);
  }
  EXPECT_EQ(ReadF32(*runtime, view), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_GT(cpu->allocator().stats().allocated_bytes, before);
  view = Tensor();
  EXPECT_EQ(cpu->allocator().stats().allocated_bytes, before);
}

TEST(TensorBlockTest, TensorsDieOnOtherThreadsAndPlannedOutputsGoBack) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  Device* cpu = runtime->GetDevice("cpu").value();
  OpHandle add = runtime->FindOp("add.Tensor").value();
  Tensor a = MakeF32(*runtime, *cpu, {4}, {1, 2, 3, 4});
  Tensor b = MakeF32(*runtime, *cpu, {4}, {10, 20, 30, 40});
  const uint64_t before = cpu->allocator().stats().allocated_bytes;
  std::vector<Tensor> results;
  for (int i = 0; i < 4; ++i) {  // the first call makes the plan, the rest use it
    std::vector<Tensor> out = runtime->Call(add, {a, b}).value();
    EXPECT_EQ(ReadF32(*runtime, out[0]), (std::vector<float>{11, 22, 33, 44}));
    results.push_back(out[0]);
  }
  std::vector<Tensor> copies = results;  // two owners each
  std::thread([moved = std::move(results)]() mutable { moved.clear(); }).join();
  EXPECT_GT(cpu->allocator().stats().allocated_bytes, before);
  copies.clear();
  EXPECT_EQ(cpu->allocator().stats().allocated_bytes, before);
}

}  // namespace
}  // namespace sy::testing
