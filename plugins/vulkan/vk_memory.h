// Device memory of one Vulkan device: large vkDeviceMemory blocks,
// sub-allocated.
//
// Note [Vulkan memory handles]: the "data pointer" the core carries for a
// tensor on a vulkan device is the buffer device address
// (VkDeviceAddress, VK_KHR_buffer_device_address, core in Vulkan 1.2) of
// its first byte, cast to void*. The core only adds byte offsets to it
// (plugin.h), and an address plus an offset is again the address of that
// byte, so every view the core makes stays a valid handle. Kernels pass
// the addresses to shaders as 64-bit push constants (GL_EXT_buffer_reference):
// no descriptor set is ever written, which keeps a dispatch to a bind, a
// push and a dispatch. Copies, which need a (VkBuffer, offset) pair, find
// the block whose address range holds the handle (Resolve: a map lookup).
// Addresses are never 0 for a live buffer, so NULL still means "no data".
//
// Blocks are kBlockBytes (or one dedicated block for a larger request),
// each one VkDeviceMemory bound to one VkBuffer with STORAGE, TRANSFER and
// SHADER_DEVICE_ADDRESS usage. Inside a block, free ranges are kept in an
// address-ordered map (first fit, coalescing on free). The core's caching
// allocator sits on top and calls Allocate/Free rarely, so a mutex suffices.
//
// Thread-safety: every member function is thread-safe.
#ifndef SWITCHYARD_PLUGINS_VULKAN_VK_MEMORY_H_
#define SWITCHYARD_PLUGINS_VULKAN_VK_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "vk_loader.h"

namespace sy::vulkan {

inline constexpr VkDeviceSize kBlockBytes = VkDeviceSize{256} << 20;

// A byte range of a block, as copies and fills need it.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
};

class DeviceMemory {
 public:
  // `fns` and `device` must outlive this object; `memory_type` is a
  // DEVICE_LOCAL type index. `drain` waits for all queued work of the
  // device (called before a block is released). `label` is "vulkan:0".
  DeviceMemory(const DeviceFns* fns, VkDevice device, uint32_t memory_type,
               VkDeviceSize max_allocation, std::string label,
               std::function<void()> drain);
  ~DeviceMemory();  // frees every block; the device must be idle
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // `size` bytes aligned to `alignment` (a power of two ≤ 256). On failure
  // returns 0 and sets *error to a sentence (out of device memory, …).
  VkDeviceAddress Allocate(VkDeviceSize size, VkDeviceSize alignment,
                           std::string* error);
  // Frees an address Allocate returned. False when it is not one (never
  // allocated, or already freed). A block left empty is released, after
  // `drain`, unless it is the last standard block.
  bool Free(VkDeviceAddress address);
  // The buffer and offset of `size` bytes at `address`, which must lie
  // inside one live allocation; false otherwise.
  bool Resolve(VkDeviceAddress address, VkDeviceSize size,
               BufferRange* out) const;

  // Bytes in live allocations and bytes obtained from the driver.
  VkDeviceSize allocated_bytes() const;
  VkDeviceSize reserved_bytes() const;
  size_t num_blocks() const;

 private:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceAddress base = 0;
    VkDeviceSize size = 0;
    bool dedicated = false;
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset → size
    std::map<VkDeviceSize, VkDeviceSize> used;  // offset → size
  };

  Block* NewBlock(VkDeviceSize size, bool dedicated, std::string* error);
  void ReleaseBlock(Block* block);
  // The block whose range holds `address`, or nullptr. Holds mu_.
  Block* FindBlock(VkDeviceAddress address) const;

  const DeviceFns* fns_;
  VkDevice device_;
  uint32_t memory_type_;
  VkDeviceSize max_allocation_;
  std::string label_;
  std::function<void()> drain_;
  mutable std::mutex mu_;
  std::map<VkDeviceAddress, std::unique_ptr<Block>> blocks_;  // by base
  VkDeviceSize allocated_ = 0;
  VkDeviceSize reserved_ = 0;
};

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_VK_MEMORY_H_
