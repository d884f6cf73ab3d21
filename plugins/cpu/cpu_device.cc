#include "cpu_device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

#include "cpu_properties.h"
#include "fused/fusion_extension.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using ::sy::plugin::Guard;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;
using Clock = std::chrono::steady_clock;

// The host hands this address back as `self`; checking it catches a table
// mixed up with another plugin's.
int g_device_data;

// Work runs inline, so a stream has no state beyond its identity; it is a
// real allocation only so that handles can be told apart and checked.
struct Stream {
  int32_t device = 0;
};

struct Event {
  int32_t device = 0;
  bool recorded = false;
  Clock::time_point time;
};

// Every live handle, so that each call can check the one it is given. A
// function-local static (not a global constructor) and never heap-allocated,
// so it is destroyed, not leaked, when the library is closed.
struct Registry {
  std::mutex mu;  // guards the three sets
  plugin::LiveHandles<void> allocations{"cpu", "allocation", "allocate"};
  plugin::LiveHandles<Stream> streams{"cpu", "stream", "stream_create"};
  plugin::LiveHandles<Event> events{"cpu", "event", "event_create"};
};

Registry& State() {
  static Registry registry;
  return registry;
}

constexpr plugin::DeviceChecks kChecks{"cpu", &g_device_data};

// ---- Argument checks. `fn` is the slot's name, for the message. ---------

sy_error_t* Error(sy_status_code_t code, std::string_view fn,
                  std::string_view what) {
  return kChecks.Error(code, fn, what);
}
sy_error_t* CheckSelf(void* self, std::string_view fn) {
  return kChecks.Self(self, fn);
}
sy_error_t* CheckDevice(int32_t device, std::string_view fn) {
  return kChecks.Index(device, 1, fn);
}
sy_error_t* CheckOut(const void* out, std::string_view fn,
                     std::string_view name) {
  return kChecks.Out(out, fn, name);
}
// Callers hold State().mu.
sy_error_t* CheckStream(sy_stream_t handle, std::string_view fn) {
  return State().streams.Check(handle, fn);
}
sy_error_t* CheckEvent(sy_event_t handle, std::string_view fn,
                       std::string_view name) {
  return State().events.Check(handle, fn, name);
}

// ---- The slots ------------------------------------------------------------

sy_error_t* DeviceCount(void* self, int32_t* out_count) {
  return Guard("cpu device: device_count", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "device_count"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_count, "device_count", "out_count"));
    *out_count = 1;
    return nullptr;
  });
}

sy_error_t* GetPropertiesSlot(void* self, int32_t device,
                              sy_device_properties_t* out) {
  return Guard("cpu device: get_properties", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "get_properties";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out, kFn, "out_properties"));
    // The caller states how much of the struct it has (see the README).
    SY_PLUGIN_RETURN_IF_ERROR(kChecks.Properties(out, kFn));
    const CpuProperties& p = GetCpuProperties();
    out->name = p.name.c_str();
    if (SY_STRUCT_HAS(out, sy_device_properties_t, vendor)) {
      out->vendor = p.vendor.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, driver_version)) {
      out->driver_version = p.driver_version.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, total_memory_bytes)) {
      out->total_memory_bytes = p.total_memory_bytes;
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, compute_units)) {
      out->compute_units = p.compute_units;
    }
    return nullptr;
  });
}

sy_error_t* Allocate(void* self, int32_t device, size_t size, size_t alignment,
                     void** out_ptr) {
  return Guard("cpu device: allocate", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "allocate";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ptr, kFn, "out_ptr"));
    *out_ptr = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    if ((alignment & (alignment - 1)) != 0) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("alignment ", alignment,
                          " is not a power of two; pass 0 for the default (",
                          kCpuAlignment, " bytes) or a power of two"));
    }
    const size_t align = alignment > kCpuAlignment ? alignment : kCpuAlignment;
    // Size 0 still gets a block of its own, so every pointer is unique and
    // deallocate needs no special case. aligned_alloc wants a multiple of the
    // alignment; sizes past PTRDIFF_MAX could never be indexed anyway.
    const size_t wanted = size == 0 ? 1 : size;
    if (wanted > static_cast<size_t>(PTRDIFF_MAX) - align) {
      return Error(SY_STATUS_RESOURCE_EXHAUSTED, kFn,
                   StrCat(size,
                          " bytes is more than the host can address; "
                          "allocate less"));
    }
    const size_t rounded = (wanted + align - 1) / align * align;
    void* ptr = std::aligned_alloc(align, rounded);
    if (ptr == nullptr) {
      return Error(SY_STATUS_RESOURCE_EXHAUSTED, kFn,
                   StrCat("could not allocate ", size, " bytes (alignment ",
                          align, "); free memory or allocate less"));
    }
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().allocations.Insert(ptr);
    } catch (...) {
      std::free(ptr);
      throw;
    }
    *out_ptr = ptr;
    return nullptr;
  });
}

sy_error_t* Deallocate(void* self, int32_t device, void* ptr) {
  return Guard("cpu device: deallocate", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "deallocate"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "deallocate"));
    if (ptr == nullptr) return nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      if (!State().allocations.Erase(ptr)) {
        return Error(SY_STATUS_INVALID_ARGUMENT, "deallocate",
                     StrCat("pointer ", ptr,
                            " was not allocated by the cpu device, or was "
                            "already freed; pass a pointer from allocate, "
                            "once"));
      }
    }
    std::free(ptr);
    return nullptr;
  });
}

sy_error_t* StreamCreate(void* self, int32_t device, sy_stream_t* out_stream) {
  return Guard("cpu device: stream_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckOut(out_stream, "stream_create", "out_stream"));
    *out_stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_create"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "stream_create"));
    auto stream = std::make_unique<Stream>();
    stream->device = device;
    std::lock_guard<std::mutex> lock(State().mu);
    State().streams.Insert(stream.get());
    *out_stream = reinterpret_cast<sy_stream_t>(stream.release());
    return nullptr;
  });
}

sy_error_t* StreamDestroy(void* self, sy_stream_t stream) {
  return Guard("cpu device: stream_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_destroy"));
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream, "stream_destroy"));
    auto* impl = reinterpret_cast<Stream*>(stream);
    State().streams.Erase(impl);
    delete impl;
    return nullptr;
  });
}

// Synchronizing and waiting only check their handles: work ran at enqueue.
sy_error_t* StreamSynchronize(void* self, sy_stream_t stream) {
  return Guard("cpu device: stream_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_synchronize"));
    std::lock_guard<std::mutex> lock(State().mu);
    return CheckStream(stream, "stream_synchronize");
  });
}

sy_error_t* StreamWaitEvent(void* self, sy_stream_t stream, sy_event_t event) {
  return Guard("cpu device: stream_wait_event", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_wait_event"));
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream, "stream_wait_event"));
    return CheckEvent(event, "stream_wait_event", "event");
  });
}

sy_error_t* MemcpyAsync(void* self, sy_stream_t stream, void* dst,
                        const void* src, size_t size, int32_t kind) {
  return Guard("cpu device: memcpy_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memcpy_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream, kFn));
    }
    SY_PLUGIN_RETURN_IF_ERROR(kChecks.Copy(kind, dst, src, size, kFn));
    if (size == 0) return nullptr;
    // memmove: a device-to-device copy within one buffer may overlap.
    std::memmove(dst, src, size);
    return nullptr;
  });
}

sy_error_t* MemsetAsync(void* self, sy_stream_t stream, void* dst,
                        int32_t byte_value, size_t size) {
  return Guard("cpu device: memset_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memset_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream, kFn));
    }
    SY_PLUGIN_RETURN_IF_ERROR(kChecks.Buffer(dst, nullptr, size, kFn, false));
    if (size == 0) return nullptr;
    // Like memset and cudaMemset, only the low byte of the value counts.
    std::memset(dst, static_cast<unsigned char>(byte_value), size);
    return nullptr;
  });
}

sy_error_t* EventCreate(void* self, int32_t device, sy_event_t* out_event) {
  return Guard("cpu device: event_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_event, "event_create", "out_event"));
    *out_event = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_create"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "event_create"));
    auto event = std::make_unique<Event>();
    event->device = device;
    std::lock_guard<std::mutex> lock(State().mu);
    State().events.Insert(event.get());
    *out_event = reinterpret_cast<sy_event_t>(event.release());
    return nullptr;
  });
}

sy_error_t* EventDestroy(void* self, sy_event_t event) {
  return Guard("cpu device: event_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_destroy"));
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(event, "event_destroy", "event"));
    auto* impl = reinterpret_cast<Event*>(event);
    State().events.Erase(impl);
    delete impl;
    return nullptr;
  });
}

sy_error_t* EventRecord(void* self, sy_event_t event, sy_stream_t stream) {
  return Guard("cpu device: event_record", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_record"));
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(event, "event_record", "event"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream, "event_record"));
    auto* impl = reinterpret_cast<Event*>(event);
    impl->recorded = true;
    impl->time = Clock::now();
    return nullptr;
  });
}

sy_error_t* EventSynchronize(void* self, sy_event_t event) {
  return Guard("cpu device: event_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_synchronize"));
    std::lock_guard<std::mutex> lock(State().mu);
    return CheckEvent(event, "event_synchronize", "event");
  });
}

sy_error_t* EventElapsedMs(void* self, sy_event_t start, sy_event_t end,
                           float* out_ms) {
  return Guard("cpu device: event_elapsed_ms", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "event_elapsed_ms";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ms, kFn, "out_ms"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    std::lock_guard<std::mutex> lock(State().mu);
    SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(start, kFn, "start"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(end, kFn, "end"));
    const auto* first = reinterpret_cast<const Event*>(start);
    const auto* last = reinterpret_cast<const Event*>(end);
    if (!first->recorded || !last->recorded) {
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   StrCat(first->recorded ? "end" : "start",
                          " was never recorded; call event_record on both "
                          "events first"));
    }
    *out_ms = std::chrono::duration<float, std::milli>(last->time - first->time)
                  .count();
    return nullptr;
  });
}

}  // namespace

const sy_device_api_t& CpuDeviceApi() {
  static constexpr sy_device_api_t kApi = {
      .struct_size = sizeof(sy_device_api_t),
      // The fusion hooks of the `cpu` device type (fused/fusion_extension.h).
      .extension = &kCpuFusionExtension.base,
      .device_type = "cpu",
      .dlpack_device_type = kDlpackCpu,
      .reserved = 0,
      .device_data = &g_device_data,
      .device_count = DeviceCount,
      .get_properties = GetPropertiesSlot,
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

}  // namespace sy::cpu
