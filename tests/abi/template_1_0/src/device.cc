// The myaccel device: host memory standing in for device memory, work run
// inline on the calling thread (so a stream is only an identity and an
// event a timestamp). Every slot checks its handles against the live set,
// so a stale or foreign handle is an error, never a crash.
#include "device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include "switchyard/plugin.hpp"

namespace myvendor {
namespace {

using sy::plugin::Guard;
using sy::plugin::MakeError;
using sy::plugin::StrCat;
using Clock = std::chrono::steady_clock;

constexpr size_t kAlignment = 64;
constexpr int32_t kDlpackExtDev = 12;  // DLPack's kDLExtDev: a vendor device

struct Stream {};
struct Event {
  bool recorded = false;
  Clock::time_point time;
};

// Live handles. A function-local static, destroyed when the library closes.
struct Live {
  std::mutex mu;
  std::unordered_set<void*> blocks;
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
};
Live& State() {
  static Live live;
  return live;
}

int g_self;  // the table's device_data, checked on every call

sy_error_t* Error(sy_status_code_t code, std::string_view slot, std::string_view what) {
  return MakeError(code, StrCat("myaccel device: ", slot, ": ", what));
}

sy_error_t* CheckCall(void* self, int32_t device, std::string_view slot) {
  if (self != &g_self) {
    return Error(SY_STATUS_INVALID_ARGUMENT, slot,
                 "`self` is not myaccel's device_data; pass the table's own");
  }
  if (device != 0) {
    return Error(SY_STATUS_OUT_OF_RANGE, slot,
                 StrCat("device ", device, " does not exist; myaccel has 1 device (0)"));
  }
  return nullptr;
}

// Callers hold State().mu.
template <class T>
sy_error_t* CheckLive(const std::unordered_set<T*>& set, void* handle,
                      std::string_view slot, std::string_view what) {
  if (handle != nullptr && set.count(static_cast<T*>(handle)) != 0) return nullptr;
  return Error(SY_STATUS_INVALID_ARGUMENT, slot,
               StrCat(what, " ", handle, " is not a live myaccel ", what,
                      "; use one this device created and has not destroyed"));
}

sy_error_t* DeviceCount(void* self, int32_t* out_count) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "device_count"));
  *out_count = 1;
  return nullptr;
}

sy_error_t* GetProperties(void* self, int32_t device, sy_device_properties_t* out) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, device, "get_properties"));
  if (!SY_STRUCT_HAS(out, sy_device_properties_t, compute_units)) {
    return Error(SY_STATUS_INVALID_ARGUMENT, "get_properties",
                 "out_properties->struct_size is too small; set it to "
                 "sizeof(sy_device_properties_t)");
  }
  out->name = "myaccel simulator (host memory)";
  out->vendor = "myvendor";
  out->driver_version = "myvendor 0.1.0";
  out->total_memory_bytes = uint64_t{1} << 32;
  out->compute_units = 1;
  return nullptr;
}

sy_error_t* Allocate(void* self, int32_t device, size_t size, size_t alignment,
                     void** out_ptr) {
  return Guard("myaccel device: allocate", [&]() -> sy_error_t* {
    *out_ptr = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, device, "allocate"));
    const size_t align = alignment > kAlignment ? alignment : kAlignment;
    const size_t rounded = ((size == 0 ? 1 : size) + align - 1) / align * align;
    void* ptr = rounded < size ? nullptr : std::aligned_alloc(align, rounded);
    if (ptr == nullptr) {
      return Error(SY_STATUS_RESOURCE_EXHAUSTED, "allocate",
                   StrCat("out of memory for ", size, " bytes; allocate less"));
    }
    std::lock_guard<std::mutex> lock(State().mu);
    State().blocks.insert(ptr);  // may throw: Guard reports it
    *out_ptr = ptr;
    return nullptr;
  });
}

sy_error_t* Deallocate(void* self, int32_t device, void* ptr) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, device, "deallocate"));
  std::lock_guard<std::mutex> lock(State().mu);
  if (State().blocks.erase(ptr) == 0) {
    return Error(SY_STATUS_INVALID_ARGUMENT, "deallocate",
                 StrCat("pointer ", ptr, " was not allocated by myaccel or was "
                        "freed already"));
  }
  std::free(ptr);
  return nullptr;
}

sy_error_t* StreamCreate(void* self, int32_t device, sy_stream_t* out) {
  return Guard("myaccel device: stream_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, device, "stream_create"));
    std::lock_guard<std::mutex> lock(State().mu);
    auto* stream = new Stream;
    State().streams.insert(stream);
    *out = reinterpret_cast<sy_stream_t>(stream);
    return nullptr;
  });
}

sy_error_t* StreamDestroy(void* self, sy_stream_t handle) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "stream_destroy"));
  std::lock_guard<std::mutex> lock(State().mu);
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().streams, handle, "stream_destroy", "stream"));
  State().streams.erase(reinterpret_cast<Stream*>(handle));
  delete reinterpret_cast<Stream*>(handle);
  return nullptr;
}

// Work runs inline: once a call has returned, it is complete.
sy_error_t* StreamSynchronize(void* self, sy_stream_t handle) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "stream_synchronize"));
  std::lock_guard<std::mutex> lock(State().mu);
  return CheckLive(State().streams, handle, "stream_synchronize", "stream");
}

sy_error_t* StreamWaitEvent(void* self, sy_stream_t stream, sy_event_t event) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "stream_wait_event"));
  std::lock_guard<std::mutex> lock(State().mu);
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().streams, stream, "stream_wait_event", "stream"));
  return CheckLive(State().events, event, "stream_wait_event", "event");
}

sy_error_t* MemcpyAsync(void* self, sy_stream_t stream, void* dst, const void* src,
                        size_t size, int32_t kind) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "memcpy_async"));
  if (kind < SY_COPY_HOST_TO_DEVICE || kind > SY_COPY_DEVICE_TO_DEVICE) {
    return Error(SY_STATUS_INVALID_ARGUMENT, "memcpy_async",
                 StrCat("copy kind ", kind, " is not a sy_copy_kind_t"));
  }
  {
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().streams, stream, "memcpy_async", "stream"));
  }
  if (size > 0) std::memmove(dst, src, size);
  return nullptr;
}

sy_error_t* MemsetAsync(void* self, sy_stream_t stream, void* dst, int32_t value,
                        size_t size) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "memset_async"));
  {
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().streams, stream, "memset_async", "stream"));
  }
  if (size > 0) std::memset(dst, value, size);
  return nullptr;
}

sy_error_t* EventCreate(void* self, int32_t device, sy_event_t* out) {
  return Guard("myaccel device: event_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, device, "event_create"));
    std::lock_guard<std::mutex> lock(State().mu);
    auto* event = new Event;
    State().events.insert(event);
    *out = reinterpret_cast<sy_event_t>(event);
    return nullptr;
  });
}

sy_error_t* EventDestroy(void* self, sy_event_t handle) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "event_destroy"));
  std::lock_guard<std::mutex> lock(State().mu);
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().events, handle, "event_destroy", "event"));
  State().events.erase(reinterpret_cast<Event*>(handle));
  delete reinterpret_cast<Event*>(handle);
  return nullptr;
}

sy_error_t* EventRecord(void* self, sy_event_t event, sy_stream_t stream) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "event_record"));
  std::lock_guard<std::mutex> lock(State().mu);
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().events, event, "event_record", "event"));
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().streams, stream, "event_record", "stream"));
  auto* e = reinterpret_cast<Event*>(event);
  e->recorded = true;
  e->time = Clock::now();
  return nullptr;
}

sy_error_t* EventSynchronize(void* self, sy_event_t event) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "event_synchronize"));
  std::lock_guard<std::mutex> lock(State().mu);
  return CheckLive(State().events, event, "event_synchronize", "event");
}

sy_error_t* EventElapsedMs(void* self, sy_event_t start, sy_event_t end, float* out_ms) {
  SY_PLUGIN_RETURN_IF_ERROR(CheckCall(self, 0, "event_elapsed_ms"));
  std::lock_guard<std::mutex> lock(State().mu);
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().events, start, "event_elapsed_ms", "event"));
  SY_PLUGIN_RETURN_IF_ERROR(CheckLive(State().events, end, "event_elapsed_ms", "event"));
  const auto* a = reinterpret_cast<Event*>(start);
  const auto* b = reinterpret_cast<Event*>(end);
  if (!a->recorded || !b->recorded) {
    return Error(SY_STATUS_FAILED_PRECONDITION, "event_elapsed_ms",
                 "both events must be recorded first; call event_record");
  }
  *out_ms = std::chrono::duration<float, std::milli>(b->time - a->time).count();
  return nullptr;
}

}  // namespace

const sy_device_api_t& DeviceApi() {
  static const sy_device_api_t api = {
      .struct_size = sizeof(sy_device_api_t),
      .extension = nullptr,
      .device_type = kDeviceType,
      .dlpack_device_type = kDlpackExtDev,
      .reserved = 0,
      .device_data = &g_self,
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
  return api;
}

}  // namespace myvendor
