#include "cuda_device.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cuda_util.h"
#if defined(SY_CUDA_HAVE_NCCL)
#include "collectives/nccl_comm.h"
#endif
#include "switchyard/gpu/device_checks.h"
#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
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
  cudaEvent_t event = nullptr;
  bool recorded = false;
};

struct Properties {
  std::string name;
  std::string driver;
  uint64_t total_memory = 0;
  int32_t sms = 0;
};

// Every live handle, so that each call can check the one it is given. A
// function-local static, destroyed (not leaked) when the library closes.
struct Registry {
  std::mutex mu;  // guards the handle sets and the allocation map
  std::unordered_map<void*, int32_t> allocations;  // pointer -> device
  plugin::LiveHandles<Stream> streams{"cuda", "stream", "stream_create"};
  plugin::LiveHandles<Event> events{"cuda", "event", "event_create"};
  std::vector<Properties> properties;  // filled once, by ProbeCuda
};

Registry& State() {
  static Registry registry;
  return registry;
}

constexpr plugin::DeviceChecks kChecks{"cuda", &g_device_data};

sy_error_t* Error(sy_status_code_t code, std::string_view fn,
                  std::string_view what) {
  return kChecks.Error(code, fn, what);
}
sy_error_t* CheckSelf(void* self, std::string_view fn) {
  return kChecks.Self(self, fn);
}
sy_error_t* CheckDevice(int32_t device, std::string_view fn) {
  return kChecks.Index(device, ProbeCuda().device_count, fn, ProbeCuda().reason);
}
sy_error_t* CheckOut(const void* out, std::string_view fn,
                     std::string_view name) {
  return kChecks.Out(out, fn, name);
}
// Callers hold State().mu.
sy_error_t* CheckStream(sy_stream_t handle, std::string_view fn) {
  return State().streams.Check(FromHandle(handle), fn);
}
sy_error_t* CheckEvent(sy_event_t handle, std::string_view fn,
                       std::string_view name) {
  return State().events.Check(handle, fn, name);
}

Stream* LockedStream(sy_stream_t handle, std::string_view fn,
                     sy_error_t** error) {
  std::lock_guard<std::mutex> lock(State().mu);
  *error = CheckStream(handle, fn);
  return *error == nullptr ? FromHandle(handle) : nullptr;
}

// ---- The slots ------------------------------------------------------------

sy_error_t* DeviceCount(void* self, int32_t* out_count) {
  return Guard("cuda device: device_count", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "device_count"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_count, "device_count", "out_count"));
    *out_count = ProbeCuda().device_count;
    return nullptr;
  });
}

sy_error_t* GetPropertiesSlot(void* self, int32_t device,
                              sy_device_properties_t* out) {
  return Guard("cuda device: get_properties", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "get_properties";
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out, kFn, "out_properties"));
    SY_PLUGIN_RETURN_IF_ERROR(kChecks.Properties(out, kFn));
    const Properties& p = State().properties[device];  // immutable after probe
    out->name = p.name.c_str();
    if (SY_STRUCT_HAS(out, sy_device_properties_t, vendor)) {
      out->vendor = "NVIDIA";
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, driver_version)) {
      out->driver_version = p.driver.c_str();
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, total_memory_bytes)) {
      out->total_memory_bytes = p.total_memory;
    }
    if (SY_STRUCT_HAS(out, sy_device_properties_t, compute_units)) {
      out->compute_units = p.sms;
    }
    return nullptr;
  });
}

sy_error_t* Allocate(void* self, int32_t device, size_t size, size_t alignment,
                     void** out_ptr) {
  return Guard("cuda device: allocate", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "allocate";
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_ptr, kFn, "out_ptr"));
    *out_ptr = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, kFn));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, kFn));
    if ((alignment & (alignment - 1)) != 0 || alignment > kCudaAlignment) {
      return Error(SY_STATUS_INVALID_ARGUMENT, kFn,
                   StrCat("alignment ", alignment,
                          " is not a power of two up to ", kCudaAlignment,
                          "; cudaMalloc aligns to ", kCudaAlignment,
                          " bytes, so pass at most that"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "cuda device: allocate"));
    void* ptr = nullptr;
    const cudaError_t status = cudaMalloc(&ptr, size == 0 ? 1 : size);
    if (status != cudaSuccess) {
      return CudaError(status, "cuda device: allocate",
                       StrCat("cudaMalloc of ", size, " bytes on cuda:",
                              device, " failed"));
    }
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().allocations.emplace(ptr, device);
    } catch (...) {
      cudaFree(ptr);
      throw;
    }
    *out_ptr = ptr;
    return nullptr;
  });
}

sy_error_t* Deallocate(void* self, int32_t device, void* ptr) {
  return Guard("cuda device: deallocate", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "deallocate"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "deallocate"));
    if (ptr == nullptr) return nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      auto it = State().allocations.find(ptr);
      if (it == State().allocations.end() || it->second != device) {
        return Error(SY_STATUS_INVALID_ARGUMENT, "deallocate",
                     StrCat("pointer ", ptr, " was not allocated on cuda:",
                            device, " by the cuda device, or was already "
                            "freed; pass a pointer from allocate, once"));
      }
      State().allocations.erase(it);
    }
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "cuda device: deallocate"));
    // cudaFree waits for the device's work on this memory; the core's
    // caching allocator keeps this call rare.
    return CudaError(cudaFree(ptr), "cuda device: deallocate", "cudaFree failed");
  });
}

void DestroyStream(Stream* stream) {
  for (size_t i = 0; i < Stream::kStagingSlots; ++i) {
    if (stream->staging_done[i] != nullptr) {
      cudaEventSynchronize(stream->staging_done[i]);
      cudaEventDestroy(stream->staging_done[i]);
    }
    if (stream->staging[i] != nullptr) cudaFreeHost(stream->staging[i]);
  }
  gpu::FreeDeviceChecks(stream);
  if (stream->gemm_workspace != nullptr) {
    // Queued GEMMs may still read it.
    if (stream->stream != nullptr) cudaStreamSynchronize(stream->stream);
    cudaFree(stream->gemm_workspace);
  }
  if (stream->stream != nullptr) cudaStreamDestroy(stream->stream);
  delete stream;
}

sy_error_t* StreamCreate(void* self, int32_t device, sy_stream_t* out_stream) {
  return Guard("cuda device: stream_create", [&]() -> sy_error_t* {
    constexpr std::string_view kWhere = "cuda device: stream_create";
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
    cudaError_t status =
        cudaStreamCreateWithFlags(&stream->stream, cudaStreamNonBlocking);
    if (status == cudaSuccess) status = gpu::AllocateDeviceChecks(stream);
    for (size_t i = 0; i < Stream::kStagingSlots && status == cudaSuccess;
         ++i) {
      status = cudaMallocHost(&stream->staging[i], Stream::kStagingBytes);
      if (status == cudaSuccess) {
        status = cudaEventCreateWithFlags(&stream->staging_done[i],
                                          cudaEventDisableTiming);
      }
    }
    if (status != cudaSuccess) {
      DestroyStream(stream);
      return CudaError(status, kWhere, "creating the stream failed");
    }
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().streams.Insert(stream);
    } catch (...) {
      DestroyStream(stream);
      throw;
    }
    *out_stream = ToHandle(stream);
    return nullptr;
  });
}

sy_error_t* StreamDestroy(void* self, sy_stream_t handle) {
  return Guard("cuda device: stream_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_destroy"));
    auto* stream = FromHandle(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckStream(handle, "stream_destroy"));
      State().streams.Erase(stream);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "cuda device: stream_destroy"));
    DestroyStream(stream);
    return nullptr;
  });
}

sy_error_t* StreamSynchronize(void* self, sy_stream_t handle) {
  return Guard("cuda device: stream_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "stream_synchronize"));
    sy_error_t* error = nullptr;
    Stream* stream = LockedStream(handle, "stream_synchronize", &error);
    if (error != nullptr) return error;
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        cudaStreamSynchronize(stream->stream),
                     "cuda device: stream_synchronize",
                     StrCat("work queued on a stream of cuda:", stream->device,
                            " failed (possibly an earlier kernel)")));
    // Note [Deferred device checks]: what the stream's kernels found.
    return gpu::TakeRaisedChecks(*stream);
  });
}

sy_error_t* StreamWaitEvent(void* self, sy_stream_t handle, sy_event_t event) {
  return Guard("cuda device: stream_wait_event", [&]() -> sy_error_t* {
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
        UseDevice(stream->device, "cuda device: stream_wait_event"));
    return CudaError(cudaStreamWaitEvent(stream->stream, impl->event, 0),
                     "cuda device: stream_wait_event",
                     "cudaStreamWaitEvent failed");
  });
}

// Note [Pinned staging]: a copy from pageable host memory makes the CUDA
// driver stage it through its own pinned buffer, synchronously for the
// host. Short copies (the common case: scalars, small weights) go through
// one of the stream's pinned slots instead: the host memcpy's into the slot
// and the DMA runs asynchronously; the slot's event says when it may be
// reused. Long copies and copies from memory that is already pinned go
// straight to cudaMemcpyAsync. Device-to-host copies into pageable memory
// are ordered on the stream by the driver (the host waits for them), which
// is what the core's ToHost needs anyway.
bool IsPinned(const void* host) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

sy_error_t* MemcpyAsync(void* self, sy_stream_t handle, void* dst,
                        const void* src, size_t size, int32_t kind) {
  return Guard("cuda device: memcpy_async", [&]() -> sy_error_t* {
    constexpr std::string_view kFn = "memcpy_async";
    constexpr std::string_view kWhere = "cuda device: memcpy_async";
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
    const cudaMemcpyKind cuda_kind =
        kind == SY_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
        : kind == SY_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                         : cudaMemcpyDeviceToDevice;
    if (kind == SY_COPY_HOST_TO_DEVICE && size <= Stream::kStagingBytes &&
        !IsPinned(src)) {
      const size_t slot = stream->next_slot;
      stream->next_slot = (slot + 1) % Stream::kStagingSlots;
      SY_PLUGIN_RETURN_IF_ERROR(
          CudaError(cudaEventSynchronize(stream->staging_done[slot]), kWhere,
                    "waiting for a staging buffer failed"));
      std::memcpy(stream->staging[slot], src, size);
      SY_PLUGIN_RETURN_IF_ERROR(CudaError(
          cudaMemcpyAsync(dst, stream->staging[slot], size, cuda_kind,
                          stream->stream),
          kWhere, StrCat("copying ", size, " bytes to cuda:", stream->device,
                         " failed")));
      return CudaError(
          cudaEventRecord(stream->staging_done[slot], stream->stream), kWhere,
          "recording the staging event failed");
    }
    return CudaError(
        cudaMemcpyAsync(dst, src, size, cuda_kind, stream->stream), kWhere,
        StrCat("copying ", size, " bytes (",
               kind == SY_COPY_HOST_TO_DEVICE   ? "host to device"
               : kind == SY_COPY_DEVICE_TO_HOST ? "device to host"
                                                : "device to device",
               ") on cuda:", stream->device, " failed"));
  });
}

sy_error_t* MemsetAsync(void* self, sy_stream_t handle, void* dst,
                        int32_t byte_value, size_t size) {
  return Guard("cuda device: memset_async", [&]() -> sy_error_t* {
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
        UseDevice(stream->device, "cuda device: memset_async"));
    return CudaError(
        cudaMemsetAsync(dst, byte_value & 0xff, size, stream->stream),
        "cuda device: memset_async", "cudaMemsetAsync failed");
  });
}

sy_error_t* EventCreate(void* self, int32_t device, sy_event_t* out_event) {
  return Guard("cuda device: event_create", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckOut(out_event, "event_create", "out_event"));
    *out_event = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_create"));
    SY_PLUGIN_RETURN_IF_ERROR(CheckDevice(device, "event_create"));
    SY_PLUGIN_RETURN_IF_ERROR(UseDevice(device, "cuda device: event_create"));
    auto event = std::make_unique<Event>();
    event->device = device;
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(cudaEventCreate(&event->event),
                                        "cuda device: event_create",
                                        "cudaEventCreate failed"));
    try {
      std::lock_guard<std::mutex> lock(State().mu);
      State().events.Insert(event.get());
    } catch (...) {
      cudaEventDestroy(event->event);
      throw;
    }
    *out_event = reinterpret_cast<sy_event_t>(event.release());
    return nullptr;
  });
}

sy_error_t* EventDestroy(void* self, sy_event_t handle) {
  return Guard("cuda device: event_destroy", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_destroy"));
    auto* event = reinterpret_cast<Event*>(handle);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(CheckEvent(handle, "event_destroy", "event"));
      State().events.Erase(event);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(event->device, "cuda device: event_destroy"));
    cudaEventDestroy(event->event);
    delete event;
    return nullptr;
  });
}

sy_error_t* EventRecord(void* self, sy_event_t handle, sy_stream_t stream_handle) {
  return Guard("cuda device: event_record", [&]() -> sy_error_t* {
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
                   StrCat("the event belongs to cuda:", event->device,
                          " but the stream to cuda:", stream->device,
                          "; record an event of the stream's device"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        UseDevice(stream->device, "cuda device: event_record"));
    SY_PLUGIN_RETURN_IF_ERROR(
        CudaError(cudaEventRecord(event->event, stream->stream),
                  "cuda device: event_record", "cudaEventRecord failed"));
    event->recorded = true;
    return nullptr;
  });
}

sy_error_t* EventSynchronize(void* self, sy_event_t handle) {
  return Guard("cuda device: event_synchronize", [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckSelf(self, "event_synchronize"));
    Event* event = nullptr;
    {
      std::lock_guard<std::mutex> lock(State().mu);
      SY_PLUGIN_RETURN_IF_ERROR(
          CheckEvent(handle, "event_synchronize", "event"));
      event = reinterpret_cast<Event*>(handle);
    }
    return CudaError(cudaEventSynchronize(event->event),
                     "cuda device: event_synchronize",
                     "work before the event failed");
  });
}

sy_error_t* EventElapsedMs(void* self, sy_event_t start, sy_event_t end,
                           float* out_ms) {
  return Guard("cuda device: event_elapsed_ms", [&]() -> sy_error_t* {
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
    const cudaError_t status =
        cudaEventElapsedTime(out_ms, first->event, last->event);
    if (status == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return Error(SY_STATUS_FAILED_PRECONDITION, kFn,
                   "the events have not completed yet; call "
                   "event_synchronize on the end event first");
    }
    return CudaError(status, "cuda device: event_elapsed_ms",
                     "cudaEventElapsedTime failed");
  });
}

}  // namespace

const CudaProbe& ProbeCuda() {
  static const CudaProbe probe = [] {
    CudaProbe p;
    using Clock = std::chrono::steady_clock;
    const auto ms_since = [](Clock::time_point t0) {
      return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };
    const Clock::time_point t0 = Clock::now();
    cudaDriverGetVersion(&p.driver_version);
    cudaRuntimeGetVersion(&p.runtime_version);
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    p.driver_init_ms = ms_since(t0);
    const Clock::time_point t1 = Clock::now();
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      p.reason = StrCat("no CUDA device: cudaGetDeviceCount failed (",
                        cudaGetErrorName(status), ": ",
                        cudaGetErrorString(status),
                        "); the cuda device type has 0 devices. Install a "
                        "CUDA GPU and a driver for CUDA ",
                        p.runtime_version / 1000, ".",
                        (p.runtime_version % 1000) / 10,
                        " or newer to use it");
      return p;
    }
    if (count == 0) {
      p.reason = "no CUDA device: the driver reports 0 GPUs (check "
                 "CUDA_VISIBLE_DEVICES); the cuda device type has 0 devices";
      return p;
    }
    std::vector<Properties>& all = State().properties;
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
        (void)cudaGetLastError();
        count = i;
        break;
      }
      Properties props;
      props.name = prop.name;
      props.total_memory = prop.totalGlobalMem;
      props.sms = prop.multiProcessorCount;
      props.driver = StrCat("CUDA driver ", p.driver_version / 1000, ".",
                            (p.driver_version % 1000) / 10, ", runtime ",
                            p.runtime_version / 1000, ".",
                            (p.runtime_version % 1000) / 10, ", sm_",
                            prop.major, prop.minor);
      all.push_back(std::move(props));
    }
    p.device_count = count;
    p.properties_ms = ms_since(t1);
    if (count == 0) p.reason = "no CUDA device: cudaGetDeviceProperties failed";
    return p;
  }();
  return probe;
}

Stream* FindStream(sy_stream_t handle) {
  std::lock_guard<std::mutex> lock(State().mu);
  auto* stream = FromHandle(handle);
  return State().streams.Contains(stream) ? stream : nullptr;
}

const sy_device_api_t& CudaDeviceApi() {
  static constexpr sy_device_api_t kApi = {
      .struct_size = sizeof(sy_device_api_t),
#if defined(SY_CUDA_HAVE_NCCL)
      // Collectives through NCCL (collectives/nccl_comm.h); the fusion
      // hooks go in front of it (fused/fusion_extension.h).
      .extension = &kCudaCollectivesExtension.base,
#else
      .extension = nullptr,
#endif
      .device_type = "cuda",
      .dlpack_device_type = kDlpackCuda,
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

}  // namespace sy::cuda
