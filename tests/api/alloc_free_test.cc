// sy_op_call_out allocates nothing (switchyard.h, "Threads"; Note
// [Lock-free handle table]). This program replaces malloc and its family
// with counting versions (forwarding to glibc's __libc_* entry points, so
// every allocation in the process — operator new included, which calls
// malloc — is counted), warms the calls up, and counts the allocations of
// many more. Built only without sanitizers, whose allocators it would
// bypass.
#include <cerrno>
#include <cstddef>
#include <atomic>
#include <vector>

#include "c_api_test_util.h"

extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* ptr);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace {

std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocations{0};

inline void Count() {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void free(void* ptr) { __libc_free(ptr); }
void* calloc(size_t count, size_t size) {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* ptr, size_t size) {
  Count();
  return __libc_realloc(ptr, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Count();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"

namespace sy_test {
namespace {

using AllocationTest = CApiTest;

// Counts the allocations of `calls` runs of `body` after `warmup` runs.
template <typename Body>
int64_t AllocationsOf(int warmup, int calls, Body body) {
  for (int i = 0; i < warmup; ++i) body();
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < calls; ++i) body();
  g_counting = false;
  return g_allocations.load();
}

TEST_F(AllocationTest, CallOutAllocatesNothing) {
  sy_op_t add = Op(context_, "add.Tensor");
  for (int64_t n : {1, 1000}) {
    const std::vector<float> values = RandomFloats(static_cast<size_t>(n), 81);
    sy_tensor_t a = F32(cpu_, {n}, values), b = F32(cpu_, {n}, values);
    sy_tensor_t out = F32(cpu_, {n}, values);
    const sy_tensor_t inputs[2] = {a, b};
    sy_status_code_t worst = SY_STATUS_OK;
    const int64_t allocations = AllocationsOf(20, 2000, [&] {
      const sy_status_code_t s = sy_op_call_out(add, inputs, 2, nullptr, 0, &out, 1);
      if (s != SY_STATUS_OK) worst = s;
    });
    EXPECT_EQ(worst, SY_STATUS_OK) << sy_last_error_message();
    EXPECT_EQ(allocations, 0) << "add of " << n << " element(s)";
    sy_tensor_release(a);
    sy_tensor_release(b);
    sy_tensor_release(out);
  }
}

// Attributes pass through as given (a string, a default). The kernels
// chosen here allocate nothing themselves (the C API does not promise that
// of kernels: the cpu plugin's softmax, for one, allocates).
TEST_F(AllocationTest, CallOutWithAttributesAllocatesNothing) {
  sy_op_t gelu = Op(context_, "gelu");
  sy_tensor_t x = F32(cpu_, {4, 8}, RandomFloats(32, 82));
  sy_tensor_t out = F32(cpu_, {4, 8}, RandomFloats(32, 83));
  const sy_attr_t tanh = StringAttr("tanh");
  sy_attr_t by_default{};
  by_default.kind = SY_ATTR_DEFAULT;
  sy_status_code_t worst = SY_STATUS_OK;
  for (const sy_attr_t& approximate : {tanh, by_default}) {
    const int64_t allocations = AllocationsOf(20, 1000, [&] {
      const sy_status_code_t s = sy_op_call_out(gelu, &x, 1, &approximate, 1, &out, 1);
      if (s != SY_STATUS_OK) worst = s;
    });
    EXPECT_EQ(worst, SY_STATUS_OK) << sy_last_error_message();
    EXPECT_EQ(allocations, 0);
  }
}

// The counter works: sy_op_call makes an output and its handle.
TEST_F(AllocationTest, CallDoesAllocateItsOutputs) {
  sy_op_t relu = Op(context_, "relu");
  sy_tensor_t x = F32(cpu_, {16}, RandomFloats(16, 84));
  const int64_t allocations = AllocationsOf(5, 100, [&] {
    sy_tensor_t y = nullptr;
    if (sy_op_call(relu, &x, 1, nullptr, 0, &y, 1) == SY_STATUS_OK) sy_tensor_release(y);
  });
  EXPECT_GE(allocations, 100);
}

}  // namespace
}  // namespace sy_test
