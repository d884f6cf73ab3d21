#include "dispatcher/memory/call_workspace.h"

#include "dispatcher/memory/device.h"

void sy_call_context_t::ReturnBlocks() {
  for (const sy::core::MemoryBlock& block : blocks) {
    device->allocator().Free(block);
  }
}

absl::StatusOr<void*> sy_call_context_t::Allocate(size_t size) {
  if (size == 0) return nullptr;
  absl::StatusOr<sy::core::MemoryBlock> block = device->allocator().Allocate(size);
  if (!block.ok()) return block.status();
  std::lock_guard<std::mutex> lock(mu);
  blocks.push_back(*block);
  return block->ptr;
}
