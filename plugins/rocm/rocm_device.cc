#include "rocm_device.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hip_library.h"
#include "rocm_util.h"
#include "switchyard/gpu/device_checks.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::rocm {
namespace {

using ::sy::gpu::UseDevice;
using ::sy::plugin::Guard;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

// The host hands this address back as `self`; checking it catches a table
// mixed up with another plugin's.
int g_device_data;

struct Event {
  int32_t device = 0;
  hipEvent_t event = nullptr;
  bool recorded = false;
};

struct Properties {
  std::string name;
  std::string driver;
  uint64_t total_memory = 0;
  int32_t cus = 0;
};

// Every live handle, so that each call can check the one it is given. A
// function-local static, destroyed (not leaked) when the library closes.
struct Registry {
  std::mutex mu;
  std::unordered_map<void*, int32_t> allocations;  // pointer -> device
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
  std::vector<Properties> properties;  // filled once, by ProbeRocm
};

Registry& State() {
  static Registry registry;
  return registry;
}

sy_error_t* Error(sy_status_code_t code, std::string_view fn,
                  std::string_view what) {
  return MakeError(code, StrCat("rocm device: ", fn, ": ", what));
}

sy_error_t* CheckSelf(void* self, std::string_view fn) {
  if (self == &g_device_data) return nullptr;
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               "`self` is not the rocm device's device_data; pass the "
               "device_data of the table the rocm plugin registered");
}

sy_error_t* CheckDevice(int32_t device, std::string_view fn) {
  const int count = ProbeRocm().device_count;
  if (device >= 0 && device < count) return nullptr;
  return Error(SY_STATUS_OUT_OF_RANGE, fn,
               count == 0
                   ? StrCat("device index ", device, " is out of range: ",
                            ProbeRocm().reason)
                   : StrCat("device index ", device,
                            " is out of range; the rocm device type has ",
                            count, " device(s), 0 to ", count - 1));
}

sy_error_t* CheckOut(const void* out, std::string_view fn,
                     std::string_view name) {
  if (out != nullptr) return nullptr;
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat(name, " is NULL; pass the address of a variable to "
                            "receive the result"));
}

// Callers hold State().mu.
sy_error_t* CheckStream(sy_stream_t handle, std::string_view fn) {
  auto* stream = FromHandle(handle);
  if (stream != nullptr && State().streams.count(stream) != 0) return nullptr;
  if (stream == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 "stream is NULL; create one with stream_create");
  }
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat("stream ", static_cast<const void*>(stream),
                      " is not a live rocm stream (destroyed, or not created "
                      "by the rocm device); use a stream from stream_create"));
}

sy_error_t* CheckEvent(sy_event_t handle, std::string_view fn,
                       std::string_view name) {
  auto* event = reinterpret_cast<Event*>(handle);
  if (event != nullptr && State().events.count(event) != 0) return nullptr;
  if (event == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat(name, " is NULL; create one with event_create"));
  }
  return Error(SY_STATUS_INVALID_ARGUMENT, fn,
               StrCat(name, " ", static_cast<const void*>(event),
                      " is not a live rocm event (destroyed, or not created "
                      "by the rocm device); use an event from event_create"));
}

Stream* LockedStream(sy_stream_t handle, std::string_view fn,
                     sy_error_t** error) {
  std::lock_guard<std::mutex> lock(State().mu);
  *error = CheckStream(handle, fn);
  return *error == nullptr ? FromHandle(handle) : nullptr;
}

// ---- The slots ------------------------------------------------------------

sy_error_t* DeviceCount(void* self, int32_t* out_count) {
  return Guard("rocm device: device_count", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "device_count"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_count, "device_count", "out_count"));
    *out_count = ProbeRocm().device_count;
    return nullptr;
  });
}

sy_error_t* GetPropertiesSlot(void* self, int32_t device,
                              sy_device_properties_t* out) {
  return Guard("rocm device: get_properties", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "get_properties";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out, kFn, "out_properties"));
    if (!SY_STRUCT_HAS(out, sy_device_properties_t, name)) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("out_properties->struct_size is ", out->struct_size,
                          ", too small for any field; set it to "
                          "sizeof(sy_device_properties_t)"));
    }
    const Properties& p = State().properties[device];  // immutable after probe
    out->name = p.name.c_str();
    if (SY_STRUCT_HAS(out, sy_device_properties_t, vendor)) {
      out->vendor = "AMD";
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, driver_version)) {
      out->driver_version = p.driver.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, total_memory_bytes)) {
      out->total_memory_bytes = p.total_memory;
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, compute_units)) {
      out->compute_units = p.cus;
    }
    return nullptr;
  });
}

sy_error_t* Allocate(void* self, int32_t device, size_t size, size_t alignment,
                     void** out_ptr) {
  return Guard("rocm device: allocate", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "allocate";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ptr, kFn, "out_ptr"));
    *out_ptr = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    if ((alignment & (alignment - 1)) != 0 || alignment > kRocmAlignment) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("alignment ", alignment,
                          " is not a power of two up to ", kRocmAlignment,
                          "; hipMalloc aligns to at least ", kRocmAlignment,
                          " bytes, so pass at most that"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "rocm device: allocate"));
    void* ptr = nullptr;
    const hipError_t status = hipMalloc(&ptr, size == 0 ? 1 : size);
    if (status != hipSuccess) {
      return HipError(status, "rocm device: allocate",
                      StrCat("hipMalloc of ", size, " bytes on rocm:",
                             device, " failed"));
    }
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().allocations.emplace(ptr, device);
    } catch (...) {
      (void)hipFree(ptr);
      throw;
    }
    *out_ptr = ptr;
    return nullptr;
  });
}

sy_error_t* Deallocate(void* self, int32_t device, void* ptr) {
  return Guard("rocm device: deallocate", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "deallocate"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "deallocate"));
    if (ptr == nullptr) return nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      auto it = State().allocations.find(ptr);
      if (it == State().allocations.end() || it->second != device) {
        return Error(SY_STATUS_INVALID_ARGUMENT, "deallocate",
                     StrCat("pointer ", ptr, " was not allocated on rocm:",
                            device, " by the rocm device, or was already "
                            "freed; pass a pointer from allocate, once"));
      }
      State().allocations.erase(it);
    }
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "rocm device: deallocate"));
    // hipFree waits for the device's work on this memory; the core's
    // caching allocator keeps this call rare.
    return HipError(hipFree(ptr), "rocm device: deallocate", "hipFree failed");
  });
}

void DestroyStream(Stream* stream) {
  for (size_t i = 0; i < Stream::kStagingSlots; ++i) {
    if (stream->staging_done[i] != nullptr) {
      (void)hipEventSynchronize(stream->staging_done[i]);
      (void)hipEventDestroy(stream->staging_done[i]);
    }
    if (stream->staging[i] != nullptr) (void)hipHostFree(stream->staging[i]);
  }
  gpu::FreeDeviceChecks(stream);
  if (stream->stream != nullptr) (void)hipStreamDestroy(stream->stream);
  delete stream;
}

sy_error_t* StreamCreate(void* self, int32_t device, sy_stream_t* out_stream) {
  return Guard("rocm device: stream_create", [&]() -> sy_error_t* {
    constexpr std::string_view kWhere = "rocm device: stream_create";
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckOut(out_stream, "stream_create", "out_stream"));
    *out_stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_create"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "stream_create"));
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, kWhere));
    auto* stream = new Stream;
    stream->device = device;
    // Non-blocking: no implicit ordering with the legacy default stream,
    // which other libraries in the process may use.
    hipError_t status =
        hipStreamCreateWithFlags(&stream->stream, hipStreamNonBlocking);
    if (status == hipSuccess) status = gpu::AllocateDeviceChecks(stream);
    for (size_t i = 0; i < Stream::kStagingSlots && status == hipSuccess;
         ++i) {
      status = hipHostMalloc(&stream->staging[i], Stream::kStagingBytes,
                             hipHostMallocDefault);
      if (status == hipSuccess) {
        status = hipEventCreateWithFlags(&stream->staging_done[i],
                                         hipEventDisableTiming);
      }
    }
    if (status != hipSuccess) {
      DestroyStream(stream);
      return HipError(status, kWhere, "creating the stream failed");
    }
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().streams.insert(stream);
    } catch (...) {
      DestroyStream(stream);
      throw;
    }
    *out_stream = ToHandle(stream);
    return nullptr;
  });
}

sy_error_t* StreamDestroy(void* self, sy_stream_t handle) {
  return Guard("rocm device: stream_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_destroy"));
    auto* stream = FromHandle(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(handle, "stream_destroy"));
      State().streams.erase(stream);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "rocm device: stream_destroy"));
    DestroyStream(stream);
    return nullptr;
  });
}

sy_error_t* StreamSynchronize(void* self, sy_stream_t handle) {
  return Guard("rocm device: stream_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_synchronize"));
    sy_error_t* error = nullptr;
    Stream* stream = LockedStream(handle, "stream_synchronize", &error);
    if (error != nullptr) return error;
    SY_PLUGIN_RETURN_IF_ERROR(HipError(
        hipStreamSynchronize(stream->stream),
                    "rocm device: stream_synchronize",
                    StrCat("work queued on a stream of rocm:", stream->device,
                           " failed (possibly an earlier kernel)")));
    // Note [Deferred device checks]: what the stream's kernels found.
    return gpu::TakeRaisedChecks(*stream);
  });
}

sy_error_t* StreamWaitEvent(void* self, sy_stream_t handle, sy_event_t event) {
  return Guard("rocm device: stream_wait_event", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_wait_event"));
    Stream* stream = nullptr;
    Event* impl = nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(handle, "stream_wait_event"));
      SY_PLUGIN_RETURN_IF_ERROR(
          CheckEvent(event, "stream_wait_event", "event"));
      stream = FromHandle(handle);
      impl = reinterpret_cast<Event*>(event);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "rocm device: stream_wait_event"));
    return HipError(hipStreamWaitEvent(stream->stream, impl->event, 0),
                    "rocm device: stream_wait_event",
                    "hipStreamWaitEvent failed");
  });
}

// Note [Pinned staging] (as in the cuda plugin): a copy from pageable host
// memory makes the runtime stage it through its own pinned buffer,
// synchronously for the host. Short copies (the common case: scalars, small weights) go through
// one of the stream's pinned slots instead: the host memcpy's into the slot
// and the DMA runs asynchronously; the slot's event says when it may be
// reused. Long copies and copies from memory that is already pinned go
// straight to hipMemcpyAsync. Device-to-host copies into pageable memory
// are ordered on the stream by the driver (the host waits for them), which
// is what the core's ToHost needs anyway.
bool IsPinned(const void* host) {
  hipPointerAttribute_t attributes{};
  if (hipPointerGetAttributes(&attributes, host) != hipSuccess) {
    (void)hipGetLastError();  // pageable memory is "invalid value" to HIP
    return false;
  }
  return attributes.memoryType == hipMemoryTypeHost;
}

sy_error_t* MemcpyAsync(void* self, sy_stream_t handle, void* dst,
                        const void* src, size_t size, int32_t kind) {
  return Guard("rocm device: memcpy_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memcpy_async";
    constexpr std::string_view kWhere = "rocm device: memcpy_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    sy_error_t* error = nullptr;
    Stream* stream = LockedStream(handle, kFn, &error);
    if (error != nullptr) return error;
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
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(stream->device, kWhere));
    const hipMemcpyKind hip_kind =
        kind == SY_COPY_HOST_TO_DEVICE   ? hipMemcpyHostToDevice
        : kind == SY_COPY_DEVICE_TO_HOST ? hipMemcpyDeviceToHost
                                         : hipMemcpyDeviceToDevice;
    if (kind == SY_COPY_HOST_TO_DEVICE && size <= Stream::kStagingBytes &&
        !IsPinned(src)) {
      const size_t slot = stream->next_slot;
      stream->next_slot = (slot + 1) % Stream::kStagingSlots;
      SY_PLUGIN_RETURN_IF_ERROR(
          HipError(hipEventSynchronize(stream->staging_done[slot]), kWhere,
                   "waiting for a staging buffer failed"));
      std::memcpy(stream->staging[slot], src, size);
      SY_PLUGIN_RETURN_IF_ERROR(HipError(
          hipMemcpyAsync(dst, stream->staging[slot], size, hip_kind,
                         stream->stream),
          kWhere, StrCat("copying ", size, " bytes to rocm:", stream->device,
                         " failed")));
      return HipError(
          hipEventRecord(stream->staging_done[slot], stream->stream), kWhere,
          "recording the staging event failed");
    }
    return HipError(
        hipMemcpyAsync(dst, src, size, hip_kind, stream->stream), kWhere,
        StrCat("copying ", size, " bytes (",
               kind == SY_COPY_HOST_TO_DEVICE   ? "host to device"
               : kind == SY_COPY_DEVICE_TO_HOST ? "device to host"
                                                : "device to device",
               ") on rocm:", stream->device, " failed"));
  });
}

sy_error_t* MemsetAsync(void* self, sy_stream_t handle, void* dst,
                        int32_t byte_value, size_t size) {
  return Guard("rocm device: memset_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memset_async";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    sy_error_t* error = nullptr;
    Stream* stream = LockedStream(handle, kFn, &error);
    if (error != nullptr) return error;
    if (size == 0) return nullptr;
    if (dst == nullptr) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("dst is NULL with size ", size,
                          "; pass a valid buffer or size 0"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "rocm device: memset_async"));
    return HipError(
        hipMemsetAsync(dst, byte_value & 0xff, size, stream->stream),
        "rocm device: memset_async", "hipMemsetAsync failed");
  });
}

sy_error_t* EventCreate(void* self, int32_t device, sy_event_t* out_event) {
  return Guard("rocm device: event_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_event, "event_create", "out_event"));
    *out_event = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_create"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "event_create"));
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "rocm device: event_create"));
    auto event = std::make_unique<Event>();
    event->device = device;
    SY_PLUGIN_RETURN_IF_ERROR(HipError(hipEventCreate(&event->event),
                                       "rocm device: event_create",
                                       "hipEventCreate failed"));
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().events.insert(event.get());
    } catch (...) {
      (void)hipEventDestroy(event->event);
      throw;
    }
    *out_event = reinterpret_cast<sy_event_t>(event.release());
    return nullptr;
  });
}

sy_error_t* EventDestroy(void* self, sy_event_t handle) {
  return Guard("rocm device: event_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_destroy"));
    auto* event = reinterpret_cast<Event*>(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(handle, "event_destroy", "event"));
      State().events.erase(event);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(event->device, "rocm device: event_destroy"));
    (void)hipEventDestroy(event->event);
    delete event;
    return nullptr;
  });
}

sy_error_t* EventRecord(void* self, sy_event_t handle, sy_stream_t stream_handle) {
  return Guard("rocm device: event_record", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_record"));
    Event* event = nullptr;
    Stream* stream = nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(handle, "event_record", "event"));
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(stream_handle, "event_record"));
      event = reinterpret_cast<Event*>(handle);
      stream = FromHandle(stream_handle);
    }
    if (event->device != stream->device) {
      return Error(SY_STATUS_INVALID_ARGUMENT, "event_record",
                   StrCat("the event belongs to rocm:", event->device,
                          " but the stream to rocm:", stream->device,
                          "; record an event of the stream's device"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "rocm device: event_record"));
    SY_PLUGIN_RETURN_IF_ERROR(
        HipError(hipEventRecord(event->event, stream->stream),
                 "rocm device: event_record", "hipEventRecord failed"));
    event->recorded = true;
    return nullptr;
  });
}

sy_error_t* EventSynchronize(void* self, sy_event_t handle) {
  return Guard("rocm device: event_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_synchronize"));
    Event* event = nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(
          CheckEvent(handle, "event_synchronize", "event"));
      event = reinterpret_cast<Event*>(handle);
    }
    return HipError(hipEventSynchronize(event->event),
                    "rocm device: event_synchronize",
                    "work before the event failed");
  });
}

sy_error_t* EventElapsedMs(void* self, sy_event_t start, sy_event_t end,
                           float* out_ms) {
  return Guard("rocm device: event_elapsed_ms", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "event_elapsed_ms";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ms, kFn, "out_ms"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    const Event* first = nullptr;
    const Event* last = nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(start, kFn, "start"));
      SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(end, kFn, "end"));
      first = reinterpret_cast<const Event*>(start);
      last = reinterpret_cast<const Event*>(end);
    }
    if (!first->recorded || !last->recorded) {
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   StrCat(first->recorded ? "end" : "start",
                          " was never recorded; call event_record on both "
                          "events first"));
    }
    const hipError_t status =
        hipEventElapsedTime(out_ms, first->event, last->event);
    if (status == hipErrorNotReady) {
      (void)hipGetLastError();
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   "the events have not completed yet; call "
                   "event_synchronize on the end event first");
    }
    return HipError(status, "rocm device: event_elapsed_ms",
                    "hipEventElapsedTime failed");
  });
}

}  // namespace

namespace {

// Why there are no devices, in the words every "no ROCm device" line ends
// with: the plugin has never met the hardware, and what would change that.
constexpr std::string_view kUntested =
    "the rocm plugin has not yet run on AMD hardware (docs/rocm.md says "
    "how to validate it on a GPU)";

std::string NoDevice(std::string_view why, std::string_view what_to_do) {
  return StrCat("no ROCm device: ", why, "; the rocm device type has 0 "
                "devices. ", what_to_do, ". Note: ", kUntested);
}

// "gfx90a" from "gfx90a:sramecc+:xnack-".
std::string ArchOf(const char* gcn_arch_name) {
  std::string arch(gcn_arch_name);
  return arch.substr(0, arch.find(':'));
}

}  // namespace

std::span<const std::string_view> BuiltArchitectures() {
  // SWITCHYARD_ROCM_ARCHITECTURES, as the build passed it: "gfx90a,gfx1030".
  static const std::vector<std::string_view> archs = [] {
    std::vector<std::string_view> out;
    std::string_view list = SY_ROCM_ARCHITECTURES;
    while (!list.empty()) {
      const size_t end = list.find(',');
      if (end != 0) out.push_back(list.substr(0, end));
      if (end == std::string_view::npos) break;
      list.remove_prefix(end + 1);
    }
    return out;
  }();
  return archs;
}

const RocmProbe& ProbeRocm() {
  static const RocmProbe probe = [] {
    RocmProbe p;
    std::string why;
    const HipLibrary* hip = LoadHip(&why);
    if (hip == nullptr) {
      p.reason = NoDevice(why, "Install ROCm 5.2 or newer (Debian: the "
                               "libamdhip64-5 package), or point "
                               "SWITCHYARD_HIP_LIBRARY at libamdhip64.so");
      return p;
    }
    p.library = hip->path;
    p.runtime_version = hip->runtime_version;
    if (hipDriverGetVersion(&p.driver_version) != hipSuccess) {
      (void)hipGetLastError();
    }
    int count = 0;
    const hipError_t status = hipGetDeviceCount(&count);
    if (status != hipSuccess || count == 0) {
      (void)hipGetLastError();
      p.reason = NoDevice(
          status != hipSuccess
              ? StrCat("hipGetDeviceCount failed (", hipGetErrorName(status),
                       ": ", hipGetErrorString(status), ") with the HIP ",
                       HipVersionString(p.runtime_version), " runtime at ",
                       p.library)
              : StrCat("the HIP ", HipVersionString(p.runtime_version),
                       " runtime at ", p.library, " reports 0 GPUs"),
          "Install an AMD GPU that ROCm supports with the amdgpu kernel "
          "driver (/dev/kfd must exist and be accessible), and check "
          "HIP_VISIBLE_DEVICES");
      return p;
    }
    std::vector<Properties>& all = State().properties;
    const std::span<const std::string_view> built = BuiltArchitectures();
    for (int i = 0; i < count; ++i) {
      hipDeviceProp_t prop{};
      if (hipGetDeviceProperties(&prop, i) != hipSuccess) {
        (void)hipGetLastError();
        count = i;
        break;
      }
      const std::string arch = ArchOf(prop.gcnArchName);
      Properties props;
      // ROCm 5.2 may leave `name` empty for some boards: the arch then.
      props.name = prop.name[0] != '\0' ? prop.name : StrCat("AMD ", arch);
      props.total_memory = prop.totalGlobalMem;
      props.cus = prop.multiProcessorCount;
      props.driver = StrCat("HIP runtime ", HipVersionString(p.runtime_version),
                            ", driver ", p.driver_version, ", ",
                            prop.gcnArchName);
      all.push_back(std::move(props));
      p.arch.push_back(arch);
      p.arch_built.push_back(
          std::find(built.begin(), built.end(), arch) != built.end());
      p.mfma.push_back(arch == "gfx90a");
    }
    p.device_count = count;
    if (count == 0) {
      p.reason = NoDevice("hipGetDeviceProperties failed",
                          "Check the GPU with rocminfo");
      return p;
    }
    if (!RegisterCodeObjects(&why)) {
      p.device_count = 0;
      p.reason = NoDevice(why, "Check the GPU with rocminfo, and that the "
                               "plugin was built for its architecture");
    }
    return p;
  }();
  return probe;
}

Stream* FindStream(sy_stream_t handle) {
  std::lock_guard<std::mutex> lock(State().mu);
  auto* stream = FromHandle(handle);
  return State().streams.count(stream) != 0 ? stream : nullptr;
}

const sy_device_api_t& RocmDeviceApi() {
  static constexpr sy_device_api_t kApi = {
      .struct_size = sizeof(sy_device_api_t),
      .extension = nullptr,
      .device_type = "rocm",
      .dlpack_device_type = kDlpackRocm,
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

}  // namespace sy::rocm
