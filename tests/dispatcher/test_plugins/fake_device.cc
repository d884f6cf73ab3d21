#include "fake_device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

namespace sy_test {
namespace {

const sy_host_api_t* g_host = nullptr;

struct Stream {
  int device;
};
struct Event {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
};

sy_error_t* Err(sy_status_code_t code, const char* message) {
  return g_host->error_create(code, message);
}

sy_error_t* DeviceCount(void*, int32_t* out) {
  if (out == nullptr) return Err(SY_STATUS_INVALID_ARGUMENT, "fakedev: out_count is null");
  *out = 1;
  return nullptr;
}
sy_error_t* Properties(void*, int32_t device, sy_device_properties_t* out) {
  if (device != 0) return Err(SY_STATUS_OUT_OF_RANGE, "fakedev: only device 0 exists");
  out->name = "fake test device";
  out->vendor = "switchyard tests";
  out->driver_version = "0";
  out->total_memory_bytes = 1 << 30;
  out->compute_units = 1;
  return nullptr;
}
sy_error_t* Allocate(void*, int32_t, size_t size, size_t alignment, void** out) {
  *out = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
  return *out ? nullptr : Err(SY_STATUS_RESOURCE_EXHAUSTED, "fakedev: out of memory");
}
sy_error_t* Deallocate(void*, int32_t, void* ptr) {
  std::free(ptr);
  return nullptr;
}
sy_error_t* StreamCreate(void*, int32_t device, sy_stream_t* out) {
  *out = reinterpret_cast<sy_stream_t>(new Stream{device});
  return nullptr;
}
sy_error_t* StreamDestroy(void*, sy_stream_t s) {
  delete reinterpret_cast<Stream*>(s);
  return nullptr;
}
sy_error_t* StreamSync(void*, sy_stream_t) { return nullptr; }
sy_error_t* StreamWait(void*, sy_stream_t, sy_event_t) { return nullptr; }
sy_error_t* Memcpy(void*, sy_stream_t, void* dst, const void* src, size_t n, int32_t) {
  std::memcpy(dst, src, n);
  return nullptr;
}
sy_error_t* Memset(void*, sy_stream_t, void* dst, int32_t value, size_t n) {
  std::memset(dst, value, n);
  return nullptr;
}
sy_error_t* EventCreate(void*, int32_t, sy_event_t* out) {
  *out = reinterpret_cast<sy_event_t>(new Event);
  return nullptr;
}
sy_error_t* EventDestroy(void*, sy_event_t e) {
  delete reinterpret_cast<Event*>(e);
  return nullptr;
}
sy_error_t* EventRecord(void*, sy_event_t e, sy_stream_t) {
  auto* event = reinterpret_cast<Event*>(e);
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return nullptr;
}
sy_error_t* EventSync(void*, sy_event_t) { return nullptr; }
sy_error_t* Elapsed(void*, sy_event_t a, sy_event_t b, float* out) {
  auto* start = reinterpret_cast<Event*>(a);
  auto* end = reinterpret_cast<Event*>(b);
  if (!start->recorded || !end->recorded) {
    return Err(SY_STATUS_FAILED_PRECONDITION, "fakedev: event not recorded");
  }
  *out = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return nullptr;
}

sy_device_api_t g_api = {
    sizeof(sy_device_api_t), nullptr, "fakedev", /*kDLExtDev*/ 12, 0, nullptr,
    DeviceCount, Properties, Allocate, Deallocate, StreamCreate, StreamDestroy,
    StreamSync, StreamWait, Memcpy, Memset, EventCreate, EventDestroy,
    EventRecord, EventSync, Elapsed};

}  // namespace

const sy_device_api_t* FakeDeviceApi(const sy_host_api_t* host) {
  g_host = host;
  return &g_api;
}

}  // namespace sy_test
