#include "vk_stream.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

namespace {

VkDeviceSize AlignUp(VkDeviceSize v, VkDeviceSize a) {
  return (v + a - 1) / a * a;
}

void Barrier(const Context& ctx, VkCommandBuffer cb, VkPipelineStageFlags src,
             VkAccessFlags src_access, VkPipelineStageFlags dst,
             VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  ctx.fn.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &barrier, 0, nullptr, 0,
                              nullptr);
}

constexpr VkPipelineStageFlags kWork =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWrites =
    VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kAll =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

}  // namespace

Timeline::~Timeline() {
  if (semaphore != VK_NULL_HANDLE) {
    ctx->fn.vkDestroySemaphore(ctx->device, semaphore, nullptr);
  }
}

uint64_t Timeline::Completed() const {
  uint64_t value = 0;
  ctx->fn.vkGetSemaphoreCounterValue(ctx->device, semaphore, &value);
  return value;
}

bool Timeline::Wait(uint64_t value, std::string* error) const {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  const VkResult r = ctx->fn.vkWaitSemaphores(ctx->device, &info, UINT64_MAX);
  if (r != VK_SUCCESS) {
    *error = VkFailure("waiting for queued work (vkWaitSemaphores)", *ctx, r);
    return false;
  }
  return true;
}

std::unique_ptr<Stream> Stream::Create(Context* ctx, std::string* error) {
  std::unique_ptr<Stream> s(new Stream(ctx));
  const DeviceFns& fn = ctx->fn;
  auto timeline = std::make_shared<Timeline>();
  timeline->ctx = ctx;
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sem{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  sem.pNext = &type;
  VkResult r = fn.vkCreateSemaphore(ctx->device, &sem, nullptr,
                                    &timeline->semaphore);
  if (r != VK_SUCCESS) {
    *error = VkFailure("vkCreateSemaphore", *ctx, r);
    return nullptr;
  }
  s->timeline_ = std::move(timeline);
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT |
               VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool.queueFamilyIndex = ctx->queue_family;
  r = fn.vkCreateCommandPool(ctx->device, &pool, nullptr, &s->pool_);
  if (r != VK_SUCCESS) {
    *error = VkFailure("vkCreateCommandPool", *ctx, r);
    return nullptr;
  }
  VkBufferCreateInfo buffer{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer.size = kStagingBytes;
  buffer.usage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  r = fn.vkCreateBuffer(ctx->device, &buffer, nullptr, &s->staging_);
  if (r != VK_SUCCESS) {
    *error = VkFailure("vkCreateBuffer (staging)", *ctx, r);
    return nullptr;
  }
  VkMemoryRequirements req{};
  fn.vkGetBufferMemoryRequirements(ctx->device, s->staging_, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ctx->host_memory_type;
  r = fn.vkAllocateMemory(ctx->device, &alloc, nullptr, &s->staging_memory_);
  if (r == VK_SUCCESS) {
    r = fn.vkBindBufferMemory(ctx->device, s->staging_, s->staging_memory_, 0);
  }
  void* map = nullptr;
  if (r == VK_SUCCESS) {
    r = fn.vkMapMemory(ctx->device, s->staging_memory_, 0, VK_WHOLE_SIZE, 0,
                       &map);
  }
  if (r != VK_SUCCESS) {
    *error = VkFailure("allocating the staging buffer", *ctx, r);
    return nullptr;
  }
  s->staging_map_ = static_cast<std::byte*>(map);
  s->params_address_ = ctx->memory->Allocate(kParamsBytes, 256, error);
  if (s->params_address_ == 0 ||
      !ctx->memory->Resolve(s->params_address_, kParamsBytes,
                            &s->params_range_)) {
    if (error->empty()) *error = "the params buffer could not be resolved";
    return nullptr;
  }
  ctx->AddStream(s.get());
  return s;
}

Stream::~Stream() {
  ctx_->RemoveStream(this);
  std::string ignored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Synchronize(&ignored);
  }
  if (const sy_host_api_t* host = plugin::Host();
      host != nullptr && host->log != nullptr) {
    host->log(nullptr, SY_LOG_DEBUG,
              StrCat("vulkan plugin: a stream of ", ctx_->label, " recorded ",
                     commands_total_, " command(s) in ", batches_,
                     " batch(es)").c_str());
  }
  const DeviceFns& fn = ctx_->fn;
  if (current_ != VK_NULL_HANDLE) {
    fn.vkEndCommandBuffer(current_);
    idle_.push_back(current_);
  }
  for (auto& [cb, value] : in_flight_) idle_.push_back(cb);
  if (!idle_.empty()) {
    fn.vkFreeCommandBuffers(ctx_->device, pool_,
                            static_cast<uint32_t>(idle_.size()), idle_.data());
  }
  if (pool_ != VK_NULL_HANDLE) {
    fn.vkDestroyCommandPool(ctx_->device, pool_, nullptr);
  }
  if (staging_map_ != nullptr) fn.vkUnmapMemory(ctx_->device, staging_memory_);
  if (staging_ != VK_NULL_HANDLE) {
    fn.vkDestroyBuffer(ctx_->device, staging_, nullptr);
  }
  if (staging_memory_ != VK_NULL_HANDLE) {
    fn.vkFreeMemory(ctx_->device, staging_memory_, nullptr);
  }
  if (params_address_ != 0) ctx_->memory->Free(params_address_);
}

VkCommandBuffer Stream::Begin(std::string* error) {
  const DeviceFns& fn = ctx_->fn;
  if (current_ == VK_NULL_HANDLE) {
    const uint64_t done = timeline_->Completed();
    while (!in_flight_.empty() && in_flight_.front().second <= done) {
      idle_.push_back(in_flight_.front().first);
      in_flight_.pop_front();
    }
    VkCommandBuffer cb = VK_NULL_HANDLE;
    if (!idle_.empty()) {
      cb = idle_.back();
      idle_.pop_back();
      fn.vkResetCommandBuffer(cb, 0);
    } else {
      VkCommandBufferAllocateInfo info{
          VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      info.commandPool = pool_;
      info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      info.commandBufferCount = 1;
      const VkResult r = fn.vkAllocateCommandBuffers(ctx_->device, &info, &cb);
      if (r != VK_SUCCESS) {
        *error = VkFailure("vkAllocateCommandBuffers", *ctx_, r);
        return VK_NULL_HANDLE;
      }
    }
    VkCommandBufferBeginInfo begin{
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    const VkResult r = fn.vkBeginCommandBuffer(cb, &begin);
    if (r != VK_SUCCESS) {
      idle_.push_back(cb);
      *error = VkFailure("vkBeginCommandBuffer", *ctx_, r);
      return VK_NULL_HANDLE;
    }
    current_ = cb;
    commands_ = 0;
  }
  // Orders this command after every earlier one of the stream (and, at a
  // batch's start, after earlier batches on the queue).
  Barrier(*ctx_, current_, kWork, kWrites, kWork, kAll);
  return current_;
}

VkDeviceAddress Stream::UploadParams(const void* data, size_t size,
                                     std::string* error) {
  if (!op_open_ || current_ == VK_NULL_HANDLE) {
    if (Begin(error) == VK_NULL_HANDLE) return 0;
    op_open_ = true;
    params_used_ = 0;
  }
  const VkDeviceSize padded = AlignUp(std::max<size_t>(size, 4), 16);
  if (params_used_ + padded > kParamsBytes) {
    *error = StrCat("an op's parameters need more than ", kParamsBytes,
                    " bytes; this is a bug in the vulkan plugin");
    return 0;
  }
  // vkCmdUpdateBuffer takes a multiple of 4 bytes; the tables are small.
  std::array<std::byte, 1024> copy{};
  if (padded > copy.size()) {
    *error = StrCat("an op's parameter table of ", size, " bytes exceeds ",
                    copy.size(), "; this is a bug in the vulkan plugin");
    return 0;
  }
  std::memcpy(copy.data(), data, size);
  ctx_->fn.vkCmdUpdateBuffer(current_, params_range_.buffer,
                             params_range_.offset + params_used_, padded,
                             copy.data());
  const VkDeviceAddress at = params_address_ + params_used_;
  params_used_ += padded;
  params_pending_ = true;
  return at;
}

bool Stream::Dispatch(VkPipeline pipeline, std::span<const std::byte> push,
                      uint32_t groups_x, uint32_t groups_y,
                      std::string* error) {
  VkCommandBuffer cb = current_;
  // A batch flushed since UploadParams (another thread's copy cannot, the
  // caller holds the lock, but a failed op may leave op_open_ set) starts
  // anew; its leading barrier orders the uploads too.
  if (!op_open_ || cb == VK_NULL_HANDLE) {
    cb = Begin(error);
    if (cb == VK_NULL_HANDLE) return false;
  }
  if (params_pending_) {
    Barrier(*ctx_, cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
  }
  op_open_ = false;
  params_pending_ = false;
  const DeviceFns& fn = ctx_->fn;
  fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  if (!push.empty()) {
    fn.vkCmdPushConstants(cb, ctx_->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(push.size()), push.data());
  }
  fn.vkCmdDispatch(cb, groups_x, groups_y, 1);
  return EndCommand(error);
}

bool Stream::EndCommand(std::string* error) {
  ++commands_total_;
  if (++commands_ >= kMaxBatchCommands) return Flush(error);
  return true;
}

bool Stream::Flush(std::string* error) {
  if (current_ == VK_NULL_HANDLE) return true;
  const DeviceFns& fn = ctx_->fn;
  VkCommandBuffer cb = current_;
  current_ = VK_NULL_HANDLE;
  VkResult r = fn.vkEndCommandBuffer(cb);
  if (r != VK_SUCCESS) {
    idle_.push_back(cb);
    *error = VkFailure("vkEndCommandBuffer", *ctx_, r);
    return false;
  }
  std::vector<VkSemaphore> wait_sems;
  std::vector<uint64_t> wait_values;
  std::vector<VkPipelineStageFlags> wait_stages;
  for (auto& [timeline, value] : waits_) {
    wait_sems.push_back(timeline->semaphore);
    wait_values.push_back(value);
    wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  const uint64_t signal = submitted_ + 1;
  VkTimelineSemaphoreSubmitInfo values{
      VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
  values.pWaitSemaphoreValues = wait_values.data();
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &values;
  submit.waitSemaphoreCount = static_cast<uint32_t>(wait_sems.size());
  submit.pWaitSemaphores = wait_sems.data();
  submit.pWaitDstStageMask = wait_stages.data();
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline_->semaphore;
  {
    std::lock_guard<std::mutex> lock(ctx_->queue_mu);
    r = fn.vkQueueSubmit(ctx_->queue, 1, &submit, VK_NULL_HANDLE);
  }
  if (r != VK_SUCCESS) {
    idle_.push_back(cb);
    *error = VkFailure("vkQueueSubmit", *ctx_, r);
    return false;
  }
  waits_.clear();
  submitted_ = signal;
  ++batches_;
  in_flight_.emplace_back(cb, signal);
  return true;
}

bool Stream::Synchronize(std::string* error) {
  if (!Flush(error)) return false;
  if (!timeline_->Wait(submitted_, error)) return false;
  while (!in_flight_.empty()) {
    idle_.push_back(in_flight_.front().first);
    in_flight_.pop_front();
  }
  staging_used_ = 0;
  return true;
}

void Stream::AddWait(std::shared_ptr<Timeline> timeline, uint64_t value) {
  if (timeline == timeline_) return;  // the stream's own order covers it
  waits_.emplace_back(std::move(timeline), value);
}

bool Stream::EnsureStaging(VkDeviceSize size, std::string* error) {
  if (staging_used_ + size <= kStagingBytes) return true;
  return Synchronize(error);
}

bool Stream::CopyToDevice(BufferRange dst, const void* src, size_t size,
                          std::string* error) {
  const auto* bytes = static_cast<const std::byte*>(src);
  for (size_t done = 0; done < size;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(size - done, kStagingBytes);
    if (!EnsureStaging(chunk, error)) return false;
    std::memcpy(staging_map_ + staging_used_, bytes + done, chunk);
    if (!ctx_->host_memory_coherent) {
      VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
      range.memory = staging_memory_;
      range.offset = staging_used_ / ctx_->non_coherent_atom *
                     ctx_->non_coherent_atom;
      range.size = VK_WHOLE_SIZE;
      ctx_->fn.vkFlushMappedMemoryRanges(ctx_->device, 1, &range);
    }
    VkCommandBuffer cb = Begin(error);
    if (cb == VK_NULL_HANDLE) return false;
    VkBufferCopy region{staging_used_, dst.offset + done, chunk};
    ctx_->fn.vkCmdCopyBuffer(cb, staging_, dst.buffer, 1, &region);
    staging_used_ = AlignUp(staging_used_ + chunk, 256);
    done += chunk;
    if (!EndCommand(error)) return false;
  }
  return true;
}

bool Stream::CopyToHost(void* dst, BufferRange src, size_t size,
                        std::string* error) {
  auto* bytes = static_cast<std::byte*>(dst);
  for (size_t done = 0; done < size;) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(size - done, kStagingBytes);
    if (!EnsureStaging(chunk, error)) return false;
    const VkDeviceSize at = staging_used_;
    VkCommandBuffer cb = Begin(error);
    if (cb == VK_NULL_HANDLE) return false;
    VkBufferCopy region{src.offset + done, at, chunk};
    ctx_->fn.vkCmdCopyBuffer(cb, src.buffer, staging_, 1, &region);
    Barrier(*ctx_, cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    if (!Synchronize(error)) return false;
    if (!ctx_->host_memory_coherent) {
      VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
      range.memory = staging_memory_;
      range.offset = at / ctx_->non_coherent_atom * ctx_->non_coherent_atom;
      range.size = VK_WHOLE_SIZE;
      ctx_->fn.vkInvalidateMappedMemoryRanges(ctx_->device, 1, &range);
    }
    std::memcpy(bytes + done, staging_map_ + at, chunk);
    done += chunk;
  }
  return true;
}

bool Stream::CopyDeviceToDevice(BufferRange dst, BufferRange src, size_t size,
                                std::string* error) {
  VkCommandBuffer cb = Begin(error);
  if (cb == VK_NULL_HANDLE) return false;
  VkBufferCopy region{src.offset, dst.offset, size};
  ctx_->fn.vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
  return EndCommand(error);
}

bool Stream::Fill(BufferRange dst, VkDeviceSize size, uint32_t word,
                  std::string* error) {
  VkCommandBuffer cb = Begin(error);
  if (cb == VK_NULL_HANDLE) return false;
  ctx_->fn.vkCmdFillBuffer(cb, dst.buffer, dst.offset, size, word);
  return EndCommand(error);
}

}  // namespace sy::vulkan
