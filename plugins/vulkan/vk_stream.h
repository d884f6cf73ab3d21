// A stream of the vulkan device type: a command buffer recorded op by op
// and submitted in batches.
//
// Note [Batched submission]: an op records a barrier, a pipeline bind,
// push constants and a dispatch into the stream's current command buffer
// and returns; nothing reaches the queue until the batch is flushed, which
// happens when
//   - the host waits: stream_synchronize, event_record (an event is a
//     point on the stream's timeline semaphore), a device-to-host copy;
//   - kMaxBatchCommands commands are recorded (so the device is fed while
//     the host keeps recording);
//   - the staging ring has no room for a host-to-device copy.
// Each submit signals the stream's timeline semaphore with the next value;
// a command buffer is reused once the semaphore has passed its value.
// Every command is preceded by a global memory barrier (all compute and
// transfer work before it, including earlier batches on the queue), so a
// stream runs its ops in order, as the core expects of a stream
// (plugin.h); across streams, stream_wait_event adds a semaphore wait to
// the next submit.
//
// Staging: host-to-device copies memcpy into a host-visible ring and
// record a buffer copy, so they do not submit; the ring is recycled when
// the stream has drained. Device-to-host copies record a copy into the
// ring, flush, wait, and memcpy out: they return with the data in place.
//
// Parameters larger than push constants (stride tables) go through
// UploadParams: vkCmdUpdateBuffer into the stream's device-local params
// buffer, whose contents travel inside the command buffer.
//
// Thread-safety: the device slots and kernels take `mu` around every use
// (Lock()); the members below are guarded by it.
#ifndef SWITCHYARD_PLUGINS_VULKAN_VK_STREAM_H_
#define SWITCHYARD_PLUGINS_VULKAN_VK_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vk_context.h"

namespace sy::vulkan {

// A timeline semaphore, shared by its stream and the events recorded on
// it, so that an event outlives a destroyed stream safely.
struct Timeline {
  Context* ctx = nullptr;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  ~Timeline();
  // The value the device has reached.
  uint64_t Completed() const;
  // Waits until the device reaches `value`; false with *error on failure.
  bool Wait(uint64_t value, std::string* error) const;
};

class Stream {
 public:
  static constexpr int kMaxBatchCommands = 128;
  static constexpr VkDeviceSize kStagingBytes = VkDeviceSize{16} << 20;
  static constexpr VkDeviceSize kParamsBytes = 64 << 10;

  // Creates a stream on `ctx`; null with *error on failure.
  static std::unique_ptr<Stream> Create(Context* ctx, std::string* error);
  // Waits for the stream's work; logs (debug) how many commands went in
  // how many batches.
  ~Stream();

  Context& ctx() const { return *ctx_; }
  std::unique_lock<std::mutex> Lock() { return std::unique_lock(mu_); }

  // ---- Recording (caller holds Lock()) -------------------------------
  // The command buffer to record into, after the barrier that orders the
  // next command behind everything before it. Null with *error.
  VkCommandBuffer Begin(std::string* error);
  // Binds `pipeline`, pushes `push` (≤ kPushConstantBytes) and dispatches
  // groups_x × groups_y × 1 workgroups.
  bool Dispatch(VkPipeline pipeline, std::span<const std::byte> push,
                uint32_t groups_x, uint32_t groups_y, std::string* error);
  // Copies `size` bytes of `data` into the params buffer for the next
  // Dispatch and returns their device address (0 with *error). Call
  // before Dispatch, for one op at a time.
  VkDeviceAddress UploadParams(const void* data, size_t size,
                               std::string* error);
  // Counts a recorded command; flushes at kMaxBatchCommands.
  bool EndCommand(std::string* error);

  // ---- Host-visible operations (caller holds Lock()) -------------------
  bool CopyToDevice(BufferRange dst, const void* src, size_t size,
                    std::string* error);
  bool CopyToHost(void* dst, BufferRange src, size_t size, std::string* error);
  bool CopyDeviceToDevice(BufferRange dst, BufferRange src, size_t size,
                          std::string* error);
  bool Fill(BufferRange dst, VkDeviceSize size, uint32_t word,
            std::string* error);
  // Submits the recorded batch (if any). The submitted work's timeline
  // value is last_submitted().
  bool Flush(std::string* error);
  // Flush, then wait for everything submitted; recycles staging.
  bool Synchronize(std::string* error);
  // A semaphore wait for the next submit (stream_wait_event).
  void AddWait(std::shared_ptr<Timeline> timeline, uint64_t value);

  const std::shared_ptr<Timeline>& timeline() const { return timeline_; }
  uint64_t last_submitted() const { return submitted_; }
  uint64_t batches_submitted() const { return batches_; }
  uint64_t commands_recorded() const { return commands_total_; }

 private:
  explicit Stream(Context* ctx) : ctx_(ctx) {}
  bool EnsureStaging(VkDeviceSize size, std::string* error);

  Context* ctx_;
  std::mutex mu_;
  std::shared_ptr<Timeline> timeline_;
  uint64_t submitted_ = 0;
  uint64_t batches_ = 0;
  uint64_t commands_total_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::deque<std::pair<VkCommandBuffer, uint64_t>> in_flight_;
  std::vector<VkCommandBuffer> idle_;
  VkCommandBuffer current_ = VK_NULL_HANDLE;
  int commands_ = 0;
  std::vector<std::pair<std::shared_ptr<Timeline>, uint64_t>> waits_;
  // Staging ring (host-visible) and params buffer (device-local).
  VkBuffer staging_ = VK_NULL_HANDLE;
  VkDeviceMemory staging_memory_ = VK_NULL_HANDLE;
  std::byte* staging_map_ = nullptr;
  VkDeviceSize staging_used_ = 0;
  VkDeviceAddress params_address_ = 0;  // from ctx_->memory
  BufferRange params_range_;
  VkDeviceSize params_used_ = 0;
  bool op_open_ = false;         // UploadParams began the op's commands
  bool params_pending_ = false;  // uploads not yet behind a barrier
};

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_VK_STREAM_H_
