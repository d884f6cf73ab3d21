#include "vk_device_api.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {
namespace {

using ::sy::plugin::Guard;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

// The host hands this address back as `self`; checking it catches a table
// mixed up with another plugin's.
int g_device_data;

struct Event {
  Context* ctx = nullptr;
  VkQueryPool pool = VK_NULL_HANDLE;  // one timestamp; null without them
  std::shared_ptr<Timeline> timeline;
  uint64_t value = 0;
  bool recorded = false;
};

struct Registry {
  std::mutex mu;
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
};

Registry& State() {
  static Registry* registry = new Registry;  // outlives static destructors
  return *registry;
}

sy_error_t* Error(sy_status_code_t code, std::string_view fn,
                  std::string_view what) {
  return MakeError(code, StrCat("vulkan device: ", fn, ": ", what));
}

sy_error_t* CheckSelf(void* self, std::string_view fn) {
  if (self == &g_device_data) return nullptr;
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               "`self` is not the vulkan device's device_data; pass the "
               "device_data of the table the vulkan plugin registered");
}

sy_error_t* CheckDevice(int32_t device, std::string_view fn, Context** out) {
  const Probe& probe = ProbeVulkan();
  const int32_t count = static_cast<int32_t>(probe.devices.size());
  if (device >= 0 && device < count) {
    *out = probe.devices[device].get();
    return nullptr;
  }
  return Error(SY_STATUS_OUT_OF_RANGE, fn,
               count == 0
                   ? StrCat("device index ", device, " is out of range: ",
                            probe.reason)
                   : StrCat("device index ", device,
                            " is out of range; the vulkan device type has ",
                            count, " device(s), 0 to ", count - 1));
}

sy_error_t* CheckOut(const void* out, std::string_view fn,
                     std::string_view name) {
  if (out != nullptr) return nullptr;
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat(name, " is NULL; pass the address of a variable to "
                            "receive the result"));
}

sy_error_t* StreamError(sy_stream_t handle, std::string_view fn) {
  if (handle == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 "stream is NULL; create one with stream_create");
  }
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat("stream ", static_cast<const void*>(handle),
                      " is not a live vulkan stream (destroyed, or not "
                      "created by the vulkan device); use a stream from "
                      "stream_create"));
}

sy_error_t* EventError(sy_event_t handle, std::string_view fn,
                       std::string_view name) {
  if (handle == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat(name, " is NULL; create one with event_create"));
  }
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat(name, " ", static_cast<const void*>(handle),
                      " is not a live vulkan event (destroyed, or not "
                      "created by the vulkan device); use an event from "
                      "event_create"));
}

Stream* LiveStream(sy_stream_t handle) {
  std::lock_guard<std::mutex> lock(State().mu);
  auto* s = reinterpret_cast<Stream*>(handle);
  return State().streams.count(s) != 0 ? s : nullptr;
}

Event* LiveEvent(sy_event_t handle) {
  std::lock_guard<std::mutex> lock(State().mu);
  auto* e = reinterpret_cast<Event*>(handle);
  return State().events.count(e) != 0 ? e : nullptr;
}

sy_error_t* Failed(std::string_view fn, const std::string& why) {
  return Error(SY_STATUS_INTERNAL, fn, why);
}

// ---- The slots ------------------------------------------------------------

sy_error_t* DeviceCount(void* self, int32_t* out_count) {
  return Guard("vulkan device: device_count", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "device_count"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_count, "device_count", "out_count"));
    *out_count = static_cast<int32_t>(ProbeVulkan().devices.size());
    return nullptr;
  });
}

// The widths whose subnormals the device's shaders cannot ask to keep
// (Context::CreateShaderModule asks wherever the device lets it). bf16 is
// computed in f32; f16 and f64 count only where the device computes them.
uint32_t FloatFlags(const Caps& caps) {
  uint32_t flags = 0;
  if (!caps.denorm.preserve32) flags |= SY_FLOAT_FLUSHES_F32_SUBNORMALS;
  if (caps.float16 && !caps.denorm.preserve16) flags |= SY_FLOAT_FLUSHES_F16_SUBNORMALS;
  if (caps.float64 && !caps.denorm.preserve64) flags |= SY_FLOAT_FLUSHES_F64_SUBNORMALS;
  return flags;
}

sy_error_t* GetProperties(void* self, int32_t device,
                          sy_device_properties_t* out) {
  return Guard("vulkan device: get_properties", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "get_properties";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    Context* ctx = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn, &ctx));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out, kFn, "out_properties"));
    if (!SY_STRUCT_HAS(out, sy_device_properties_t, name)) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("out_properties->struct_size is ", out->struct_size,
                          ", too small for any field; set it to "
                          "sizeof(sy_device_properties_t)"));
    }
    out->name = ctx->name.c_str();
    if (SY_STRUCT_HAS(out, sy_device_properties_t, vendor)) {
      out->vendor = ctx->vendor.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, driver_version)) {
      out->driver_version = ctx->driver.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, total_memory_bytes)) {
      out->total_memory_bytes = ctx->total_memory;
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, compute_units)) {
      out->compute_units = ctx->compute_units;
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, float_flags)) {
      out->float_flags = FloatFlags(ctx->caps);
    }
    return nullptr;
  });
}

sy_error_t* Allocate(void* self, int32_t device, size_t size, size_t alignment,
                     void** out_ptr) {
  return Guard("vulkan device: allocate", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "allocate";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ptr, kFn, "out_ptr"));
    *out_ptr = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    Context* ctx = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn, &ctx));
    if ((alignment & (alignment - 1)) != 0 || alignment > 256) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("alignment ", alignment,
                          " is not a power of two up to 256; the vulkan "
                          "device aligns every allocation to 256 bytes, so "
                          "pass at most that"));
    }
    std::string why;
    const VkDeviceAddress address = ctx->memory->Allocate(size, alignment, &why);
    if (address == 0) {
      return Error(SY_STATUS_RESOURCE_EXHAUSTED, kFn,
                   StrCat("allocating ", size, " bytes on ", ctx->label,
                          " failed: ", why,
                          "; free tensors or use smaller ones"));
    }
    *out_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
    return nullptr;
  });
}

sy_error_t* Deallocate(void* self, int32_t device, void* ptr) {
  return Guard("vulkan device: deallocate", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "deallocate"));
    Context* ctx = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "deallocate", &ctx));
    if (ptr == nullptr) return nullptr;
    if (!ctx->memory->Free(reinterpret_cast<uintptr_t>(ptr))) {
      return Error(SY_STATUS_INVALID_ARGUMENT, "deallocate",
                   StrCat("pointer ", ptr, " was not allocated on ",
                          ctx->label, " by the vulkan device, or was already "
                          "freed; pass a pointer from allocate, once"));
    }
    return nullptr;
  });
}

sy_error_t* StreamCreate(void* self, int32_t device, sy_stream_t* out_stream) {
  return Guard("vulkan device: stream_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckOut(out_stream, "stream_create", "out_stream"));
    *out_stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_create"));
    Context* ctx = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "stream_create", &ctx));
    std::string why;
    std::unique_ptr<Stream> stream = Stream::Create(ctx, &why);
    if (stream == nullptr) {
      return Error(SY_STATUS_RESOURCE_EXHAUSTED, "stream_create",
                   StrCat("creating a stream on ", ctx->label, " failed: ",
                          why));
    }
    std::lock_guard<std::mutex> lock(State().mu);
    State().streams.insert(stream.get());
    *out_stream = reinterpret_cast<sy_stream_t>(stream.release());
    return nullptr;
  });
}

sy_error_t* StreamDestroy(void* self, sy_stream_t handle) {
  return Guard("vulkan device: stream_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_destroy"));
    auto* stream = reinterpret_cast<Stream*>(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      if (State().streams.erase(stream) == 0) {
        return StreamError(handle, "stream_destroy");
      }
    }
    delete stream;
    return nullptr;
  });
}

sy_error_t* StreamSynchronize(void* self, sy_stream_t handle) {
  return Guard("vulkan device: stream_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_synchronize"));
    Stream* stream = LiveStream(handle);
    if (stream == nullptr) return StreamError(handle, "stream_synchronize");
    auto lock = stream->Lock();
    std::string why;
    if (!stream->Synchronize(&why)) {
      return Failed("stream_synchronize",
                    StrCat(why, " (work queued on a stream of ",
                           stream->ctx().label, ", possibly an earlier "
                           "kernel)"));
    }
    return nullptr;
  });
}

sy_error_t* StreamWaitEvent(void* self, sy_stream_t handle, sy_event_t ev) {
  return Guard("vulkan device: stream_wait_event", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_wait_event"));
    Stream* stream = LiveStream(handle);
    if (stream == nullptr) return StreamError(handle, "stream_wait_event");
    Event* event = LiveEvent(ev);
    if (event == nullptr) return EventError(ev, "stream_wait_event", "event");
    if (!event->recorded) return nullptr;  // like CUDA: nothing to wait for
    if (event->ctx != &stream->ctx()) {
      return Error(SY_STATUS_INVALID_ARGUMENT, "stream_wait_event",
                   StrCat("the event belongs to ", event->ctx->label,
                          " but the stream to ", stream->ctx().label,
                          "; wait on an event of the stream's device"));
    }
    auto lock = stream->Lock();
    stream->AddWait(event->timeline, event->value);
    return nullptr;
  });
}

sy_error_t* MemcpyAsync(void* self, sy_stream_t handle, void* dst,
                        const void* src, size_t size, int32_t kind) {
  return Guard("vulkan device: memcpy_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memcpy_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    Stream* stream = LiveStream(handle);
    if (stream == nullptr) return StreamError(handle, kFn);
    if (kind < SY_COPY_HOST_TO_DEVICE || kind > SY_COPY_DEVICE_TO_DEVICE) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("kind ", kind,
                          " is not a sy_copy_kind_t; pass "
                          "SY_COPY_HOST_TO_DEVICE, SY_COPY_DEVICE_TO_HOST or "
                          "SY_COPY_DEVICE_TO_DEVICE"));
    }
    if (size == 0) return nullptr;
    if (dst == nullptr || src == nullptr) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat(dst == nullptr ? "dst" : "src", " is NULL with size ",
                          size, "; pass valid buffers or size 0"));
    }
    Context& ctx = stream->ctx();
    const auto resolve = [&](const void* p, std::string_view name,
                             BufferRange* out) -> sy_error_t* {
      if (ctx.memory->Resolve(reinterpret_cast<uintptr_t>(p), size, out)) {
        return nullptr;
      }
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat(name, " ", p, " with ", size,
                          " bytes is not inside memory allocated on ",
                          ctx.label, "; pass a device pointer from allocate "
                          "(plus an offset) and a size that stays inside it"));
    };
    BufferRange d, s;
    std::string why;
    auto lock = stream->Lock();
    bool ok = true;
    switch (kind) {
      case SY_COPY_HOST_TO_DEVICE:
        SY_PLUGIN_RETURN_IF_ERROR(resolve(dst, "dst", &d));
        ok = stream->CopyToDevice(d, src, size, &why);
        break;
      case SY_COPY_DEVICE_TO_HOST:
        SY_PLUGIN_RETURN_IF_ERROR(resolve(src, "src", &s));
        ok = stream->CopyToHost(dst, s, size, &why);
        break;
      default:
        SY_PLUGIN_RETURN_IF_ERROR(resolve(dst, "dst", &d));
        SY_PLUGIN_RETURN_IF_ERROR(resolve(src, "src", &s));
        ok = stream->CopyDeviceToDevice(d, s, size, &why);
        break;
    }
    if (!ok) {
      return Failed(kFn, StrCat("copying ", size, " bytes on ", ctx.label,
                                " failed: ", why));
    }
    return nullptr;
  });
}

sy_error_t* MemsetAsync(void* self, sy_stream_t handle, void* dst,
                        int32_t byte_value, size_t size) {
  return Guard("vulkan device: memset_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memset_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    Stream* stream = LiveStream(handle);
    if (stream == nullptr) return StreamError(handle, kFn);
    if (size == 0) return nullptr;
    if (dst == nullptr) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("dst is NULL with size ", size,
                          "; pass a valid buffer or size 0"));
    }
    Context& ctx = stream->ctx();
    BufferRange d;
    if (!ctx.memory->Resolve(reinterpret_cast<uintptr_t>(dst), size, &d)) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("dst ", dst, " with ", size,
                          " bytes is not inside memory allocated on ",
                          ctx.label, "; pass a device pointer from allocate"));
    }
    const uint32_t byte = static_cast<uint32_t>(byte_value) & 0xffu;
    // vkCmdFillBuffer writes whole words at word offsets; the ragged ends
    // (at most 3 bytes each) go through the staging copy path.
    const VkDeviceSize head = std::min<VkDeviceSize>((4 - d.offset % 4) % 4, size);
    const VkDeviceSize body = (size - head) / 4 * 4;
    const VkDeviceSize tail = size - head - body;
    const unsigned char bytes[4] = {static_cast<unsigned char>(byte),
                                    static_cast<unsigned char>(byte),
                                    static_cast<unsigned char>(byte),
                                    static_cast<unsigned char>(byte)};
    std::string why;
    auto lock = stream->Lock();
    bool ok = true;
    if (head > 0) ok = stream->CopyToDevice(d, bytes, head, &why);
    if (ok && body > 0) {
      ok = stream->Fill({d.buffer, d.offset + head}, body, byte * 0x01010101u,
                        &why);
    }
    if (ok && tail > 0) {
      ok = stream->CopyToDevice({d.buffer, d.offset + head + body}, bytes,
                                tail, &why);
    }
    if (!ok) return Failed(kFn, why);
    return nullptr;
  });
}

sy_error_t* EventCreate(void* self, int32_t device, sy_event_t* out_event) {
  return Guard("vulkan device: event_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_event, "event_create", "out_event"));
    *out_event = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_create"));
    Context* ctx = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "event_create", &ctx));
    auto event = std::make_unique<Event>();
    event->ctx = ctx;
    if (ctx->caps.timestamp_bits > 0) {
      VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      info.queryCount = 1;
      const VkResult r =
          ctx->fn.vkCreateQueryPool(ctx->device, &info, nullptr, &event->pool);
      if (r != VK_SUCCESS) {
        return Failed("event_create", VkFailure("vkCreateQueryPool", *ctx, r));
      }
    }
    std::lock_guard<std::mutex> lock(State().mu);
    State().events.insert(event.get());
    *out_event = reinterpret_cast<sy_event_t>(event.release());
    return nullptr;
  });
}

void DestroyEvent(Event* event) {
  if (event->recorded) {
    std::string ignored;
    event->timeline->Wait(event->value, &ignored);
  }
  if (event->pool != VK_NULL_HANDLE) {
    event->ctx->fn.vkDestroyQueryPool(event->ctx->device, event->pool, nullptr);
  }
  delete event;
}

sy_error_t* EventDestroy(void* self, sy_event_t handle) {
  return Guard("vulkan device: event_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_destroy"));
    auto* event = reinterpret_cast<Event*>(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      if (State().events.erase(event) == 0) {
        return EventError(handle, "event_destroy", "event");
      }
    }
    DestroyEvent(event);
    return nullptr;
  });
}

sy_error_t* EventRecord(void* self, sy_event_t handle, sy_stream_t sh) {
  return Guard("vulkan device: event_record", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_record"));
    Event* event = LiveEvent(handle);
    if (event == nullptr) return EventError(handle, "event_record", "event");
    Stream* stream = LiveStream(sh);
    if (stream == nullptr) return StreamError(sh, "event_record");
    Context& ctx = stream->ctx();
    if (event->ctx != &ctx) {
      return Error(SY_STATUS_INVALID_ARGUMENT, "event_record",
                   StrCat("the event belongs to ", event->ctx->label,
                          " but the stream to ", ctx.label,
                          "; record an event of the stream's device"));
    }
    std::string why;
    // The query is reset from the host, so its last use must be over.
    if (event->recorded && !event->timeline->Wait(event->value, &why)) {
      return Failed("event_record", why);
    }
    auto lock = stream->Lock();
    if (event->pool != VK_NULL_HANDLE) {
      ctx.fn.vkResetQueryPool(ctx.device, event->pool, 0, 1);
      VkCommandBuffer cb = stream->Begin(&why);
      if (cb == VK_NULL_HANDLE) return Failed("event_record", why);
      ctx.fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                 event->pool, 0);
      if (!stream->EndCommand(&why)) return Failed("event_record", why);
    }
    if (!stream->Flush(&why)) return Failed("event_record", why);
    event->timeline = stream->timeline();
    event->value = stream->last_submitted();
    event->recorded = true;
    return nullptr;
  });
}

sy_error_t* EventSynchronize(void* self, sy_event_t handle) {
  return Guard("vulkan device: event_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_synchronize"));
    Event* event = LiveEvent(handle);
    if (event == nullptr) return EventError(handle, "event_synchronize", "event");
    if (!event->recorded) return nullptr;
    std::string why;
    if (!event->timeline->Wait(event->value, &why)) {
      return Failed("event_synchronize",
                    StrCat(why, " (work before the event failed)"));
    }
    return nullptr;
  });
}

sy_error_t* EventElapsedMs(void* self, sy_event_t start, sy_event_t end,
                           float* out_ms) {
  return Guard("vulkan device: event_elapsed_ms", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "event_elapsed_ms";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ms, kFn, "out_ms"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    Event* first = LiveEvent(start);
    if (first == nullptr) return EventError(start, kFn, "start");
    Event* last = LiveEvent(end);
    if (last == nullptr) return EventError(end, kFn, "end");
    if (!first->recorded || !last->recorded) {
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   StrCat(first->recorded ? "end" : "start",
                          " was never recorded; call event_record on both "
                          "events first"));
    }
    if (first->ctx != last->ctx) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("start is on ", first->ctx->label, " and end on ",
                          last->ctx->label, "; time events of one device"));
    }
    Context& ctx = *first->ctx;
    if (first->pool == VK_NULL_HANDLE) {
      return Error(SY_STATUS_UNIMPLEMENTED, kFn,
                   StrCat("the compute queue of ", ctx.label,
                          " has no timestamps (timestampValidBits 0); time "
                          "on the host instead"));
    }
    if (first->timeline->Completed() < first->value ||
        last->timeline->Completed() < last->value) {
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   "the events have not completed yet; call "
                   "event_synchronize on the end event first");
    }
    uint64_t t0 = 0, t1 = 0;
    VkResult r = ctx.fn.vkGetQueryPoolResults(
        ctx.device, first->pool, 0, 1, sizeof t0, &t0, sizeof t0,
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS) {
      r = ctx.fn.vkGetQueryPoolResults(
          ctx.device, last->pool, 0, 1, sizeof t1, &t1, sizeof t1,
          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    }
    if (r != VK_SUCCESS) {
      return Failed(kFn, VkFailure("vkGetQueryPoolResults", ctx, r));
    }
    const uint32_t bits = ctx.caps.timestamp_bits;
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint64_t ticks = (t1 - t0) & mask;
    const double ms = static_cast<double>(ticks) * ctx.caps.timestamp_period_ns / 1e6;
    *out_ms = static_cast<float>(t1 >= t0 || bits < 64 ? ms : -ms);
    return nullptr;
  });
}

}  // namespace

Stream* FindStream(sy_stream_t handle) { return LiveStream(handle); }

void DestroyLeftovers() {
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
  {
    std::lock_guard<std::mutex> lock(State().mu);
    streams.swap(State().streams);
    events.swap(State().events);
  }
  for (Event* e : events) DestroyEvent(e);
  for (Stream* s : streams) delete s;
}

const sy_device_api_t& VulkanDeviceApi() {
  static constexpr sy_device_api_t kApi = {
      .struct_size = sizeof(sy_device_api_t),
      .extension = nullptr,
      .device_type = "vulkan",
      .dlpack_device_type = kDlpackVulkan,
      .reserved = 0,
      .device_data = &g_device_data,
      .device_count = DeviceCount,
      .get_properties = GetProperties,
      .allocate = Allocate,
      .deallocate = Deallocate,
      .stream_create = StreamCreate,
      .stream_destroy = StreamDestroy,
      .stream_synchronize = StreamSynchronize,
      .stream_wait_event = StreamWaitEvent,
      .memcpy_async = MemcpyAsync,
      .memset_async = MemsetAsync,
      .event_create = EventCreate,
      .event_destroy = EventDestroy,
      .event_record = EventRecord,
      .event_synchronize = EventSynchronize,
      .event_elapsed_ms = EventElapsedMs,
  };
  return kApi;
}

}  // namespace sy::vulkan
