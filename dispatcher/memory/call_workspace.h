// The scratch memory of one kernel call: what sy_host_api_t.kernel_workspace
// (plugin.h, ABI 1.1) hands a kernel. The core makes one on the stack for
// every kernel call and passes its address as sy_kernel_call_t.host_call;
// blocks come from the device's caching allocator and go back to it when
// the call returns (the allocator hands a block out again only behind the
// work already queued on the device's one stream, so the kernel's queued
// work may still use it).
#ifndef SWITCHYARD_DISPATCHER_MEMORY_CALL_WORKSPACE_H_
#define SWITCHYARD_DISPATCHER_MEMORY_CALL_WORKSPACE_H_

#include <cstdint>
#include <mutex>

#include "absl/status/statusor.h"
#include "dispatcher/base/small_vector.h"
#include "dispatcher/memory/caching_allocator.h"
#include "switchyard/plugin.h"

namespace sy::core {
class Device;
}  // namespace sy::core

// The definition behind the ABI's opaque type (global namespace, as
// plugin.h declares it).
struct sy_call_context_t {
  static constexpr uint32_t kMagic = 0x5357534bu;  // "SWSK"

  explicit sy_call_context_t(sy::core::Device& device) : device(&device) {}
  ~sy_call_context_t() {  // returns every block
    magic = 0;
    if (!blocks.empty()) ReturnBlocks();
  }
  sy_call_context_t(const sy_call_context_t&) = delete;
  sy_call_context_t& operator=(const sy_call_context_t&) = delete;

  // `size` bytes (size 0: NULL). Thread-safe: a kernel may ask from its
  // worker threads.
  absl::StatusOr<void*> Allocate(size_t size);
  void ReturnBlocks();

  uint32_t magic = kMagic;
  sy::core::Device* device;
  std::mutex mu;  // guards blocks; uncontended unless workers ask
  sy::core::SmallVector<sy::core::MemoryBlock, 2> blocks;
};

#endif  // SWITCHYARD_DISPATCHER_MEMORY_CALL_WORKSPACE_H_
