#include "vk_memory.h"

#include <algorithm>
#include <iterator>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

namespace {

VkDeviceSize AlignUp(VkDeviceSize v, VkDeviceSize a) {
  return (v + a - 1) & ~(a - 1);
}

}  // namespace

DeviceMemory::DeviceMemory(const DeviceFns* fns, VkDevice device,
                           uint32_t memory_type, VkDeviceSize max_allocation,
                           std::string label, std::function<void()> drain)
    : fns_(fns),
      device_(device),
      memory_type_(memory_type),
      max_allocation_(max_allocation),
      label_(std::move(label)),
      drain_(std::move(drain)) {}

DeviceMemory::~DeviceMemory() {
  for (auto& [base, block] : blocks_) {
    fns_->vkDestroyBuffer(device_, block->buffer, nullptr);
    fns_->vkFreeMemory(device_, block->memory, nullptr);
  }
}

DeviceMemory::Block* DeviceMemory::NewBlock(VkDeviceSize size, bool dedicated,
                                            std::string* error) {
  auto block = std::make_unique<Block>();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = fns_->vkCreateBuffer(device_, &info, nullptr, &block->buffer);
  if (r != VK_SUCCESS) {
    *error = StrCat("vkCreateBuffer of ", size, " bytes on ", label_,
                    " failed (", ResultName(r), ")");
    return nullptr;
  }
  VkMemoryRequirements req{};
  fns_->vkGetBufferMemoryRequirements(device_, block->buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = &flags;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = memory_type_;
  r = fns_->vkAllocateMemory(device_, &alloc, nullptr, &block->memory);
  if (r == VK_SUCCESS) {
    r = fns_->vkBindBufferMemory(device_, block->buffer, block->memory, 0);
  }
  if (r != VK_SUCCESS) {
    fns_->vkDestroyBuffer(device_, block->buffer, nullptr);
    if (block->memory != VK_NULL_HANDLE) {
      fns_->vkFreeMemory(device_, block->memory, nullptr);
    }
    *error = StrCat("vkAllocateMemory of a ", size, "-byte block on ", label_,
                    " failed (", ResultName(r), ")");
    return nullptr;
  }
  VkBufferDeviceAddressInfo address{
      VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = block->buffer;
  block->base = fns_->vkGetBufferDeviceAddress(device_, &address);
  block->size = size;
  block->dedicated = dedicated;
  block->free.emplace(0, size);
  reserved_ += size;
  Block* raw = block.get();
  blocks_.emplace(block->base, std::move(block));
  return raw;
}

void DeviceMemory::ReleaseBlock(Block* block) {
  reserved_ -= block->size;
  fns_->vkDestroyBuffer(device_, block->buffer, nullptr);
  fns_->vkFreeMemory(device_, block->memory, nullptr);
  blocks_.erase(block->base);
}

VkDeviceAddress DeviceMemory::Allocate(VkDeviceSize size,
                                       VkDeviceSize alignment,
                                       std::string* error) {
  size = std::max<VkDeviceSize>(size, 1);
  alignment = std::max<VkDeviceSize>(alignment, 256);
  std::lock_guard<std::mutex> lock(mu_);
  const auto take = [&](Block* block) -> VkDeviceAddress {
    for (auto it = block->free.begin(); it != block->free.end(); ++it) {
      const VkDeviceSize start =
          AlignUp(block->base + it->first, alignment) - block->base;
      const VkDeviceSize end = it->first + it->second;
      if (start + size > end) continue;
      const VkDeviceSize head = start - it->first;
      const VkDeviceSize free_start = it->first;
      block->free.erase(it);
      if (head > 0) block->free.emplace(free_start, head);
      if (end > start + size) block->free.emplace(start + size, end - start - size);
      block->used.emplace(start, size);
      allocated_ += size;
      return block->base + start;
    }
    return 0;
  };
  // Requests above half a block get a block of their own, so one large
  // tensor does not pin a standard block's worth of fragments.
  const bool dedicated = size > kBlockBytes / 2;
  if (!dedicated) {
    for (auto& [base, block] : blocks_) {
      if (block->dedicated) continue;
      if (VkDeviceAddress a = take(block.get())) return a;
    }
  }
  VkDeviceSize block_size =
      dedicated ? AlignUp(size + alignment, VkDeviceSize{1} << 16) : kBlockBytes;
  if (block_size > max_allocation_) {
    if (size + alignment > max_allocation_) {
      *error = StrCat(size, " bytes exceed the largest allocation ", label_,
                      " allows (maxMemoryAllocationSize ", max_allocation_,
                      " bytes); split the tensor");
      return 0;
    }
    block_size = max_allocation_;
  }
  Block* block = NewBlock(block_size, dedicated, error);
  if (block == nullptr) return 0;
  return take(block);
}

DeviceMemory::Block* DeviceMemory::FindBlock(VkDeviceAddress address) const {
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return nullptr;
  --it;
  Block* block = it->second.get();
  return address < block->base + block->size ? block : nullptr;
}

bool DeviceMemory::Free(VkDeviceAddress address) {
  VkDeviceAddress release = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Block* block = FindBlock(address);
    if (block == nullptr) return false;
    auto used = block->used.find(address - block->base);
    if (used == block->used.end()) return false;
    VkDeviceSize offset = used->first;
    VkDeviceSize size = used->second;
    block->used.erase(used);
    allocated_ -= size;
    // Coalesce with the free neighbours.
    auto next = block->free.lower_bound(offset);
    if (next != block->free.end() && next->first == offset + size) {
      size += next->second;
      next = block->free.erase(next);
    }
    if (next != block->free.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        block->free.erase(prev);
      }
    }
    block->free.emplace(offset, size);
    if (block->used.empty()) {
      size_t standard = 0;
      for (auto& [base, b] : blocks_) standard += b->dedicated ? 0 : 1;
      if (block->dedicated || standard > 1) release = block->base;
    }
  }
  if (release == 0) return true;
  // Queued work may still read the memory: wait for it before the driver
  // gets it back. Rare (the caching allocator frees on trim), and done
  // without mu_ held, since draining takes the streams' locks, under which
  // kernels call Resolve.
  drain_();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(release);
  if (it != blocks_.end() && it->second->used.empty()) {
    ReleaseBlock(it->second.get());
  }
  return true;
}

bool DeviceMemory::Resolve(VkDeviceAddress address, VkDeviceSize size,
                           BufferRange* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  Block* block = FindBlock(address);
  if (block == nullptr) return false;
  const VkDeviceSize offset = address - block->base;
  // Inside one live allocation: the last allocation starting at or before
  // the offset must cover [offset, offset + size).
  auto it = block->used.upper_bound(offset);
  if (it == block->used.begin()) return false;
  --it;
  if (offset + size > it->first + it->second) return false;
  out->buffer = block->buffer;
  out->offset = offset;
  return true;
}

VkDeviceSize DeviceMemory::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_;
}
VkDeviceSize DeviceMemory::reserved_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reserved_;
}
size_t DeviceMemory::num_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_.size();
}

}  // namespace sy::vulkan
