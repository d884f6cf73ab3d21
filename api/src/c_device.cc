// sy_device_*: finding devices, their properties, synchronization and the
// caching allocator's statistics.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

// The device behind a handle, checked to be still there.
struct LiveDevice {
  DeviceEntry* entry = nullptr;
  Device* device = nullptr;
};

absl::StatusOr<LiveDevice> FindLive(sy_device_handle_t handle) {
  absl::StatusOr<DeviceEntry*> entry =
      HandleTable::Instance().Find<DeviceEntry>(Token(handle), "device");
  if (!entry.ok()) return entry.status();
  absl::StatusOr<Device*> device = (*entry)->context->Resolve(**entry);
  if (!device.ok()) return device.status();
  return LiveDevice{*entry, *device};
}

}  // namespace

absl::StatusOr<Device*> LiveDeviceOf(sy_device_handle_t handle,
                                     ContextState** context) {
  absl::StatusOr<LiveDevice> live = FindLive(handle);
  if (!live.ok()) return live.status();
  *context = live->entry->context;
  return live->device;
}

}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::FromToken;
using sy::capi::Guard;
using sy::capi::HandleTable;
using sy::capi::Token;

extern "C" {

SY_API sy_status_code_t sy_device_count(sy_context_t context, int32_t* out_count) {
  return Guard("sy_device_count", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
    *out_count = static_cast<int32_t>((*state)->runtime->Devices().size());
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_device_get(sy_context_t context, int32_t index,
                                      sy_device_handle_t* out_device) {
  return Guard("sy_device_get", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_device, "out_device"); !s.ok()) return s;
    std::vector<sy::core::Device*> devices = (*state)->runtime->Devices();
    if (index < 0 || static_cast<size_t>(index) >= devices.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "device index ", index, " is out of range: there are ", devices.size(),
          " devices (see sy_device_count)"));
    }
    absl::StatusOr<uint64_t> handle = (*state)->DeviceHandle(devices[index]);
    if (!handle.ok()) return handle.status();
    *out_device = FromToken<sy_device_handle_t>(*handle);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_device_find(sy_context_t context, const char* spec,
                                       sy_device_handle_t* out_device) {
  return Guard("sy_device_find", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(spec, "spec"); !s.ok()) return s;
    if (absl::Status s = CheckNotNull(out_device, "out_device"); !s.ok()) return s;
    absl::StatusOr<sy::core::Device*> device = (*state)->runtime->GetDevice(spec);
    if (!device.ok()) return device.status();
    absl::StatusOr<uint64_t> handle = (*state)->DeviceHandle(*device);
    if (!handle.ok()) return handle.status();
    *out_device = FromToken<sy_device_handle_t>(*handle);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_device_get_info(sy_device_handle_t device,
                                           sy_device_info_t* out_info) {
  return Guard("sy_device_get_info", [&]() -> absl::Status {
    // Properties outlive an unloaded plugin (the entry keeps copies), so
    // this works on a stale device too: it says what the device was.
    auto entry = HandleTable::Instance().Find<sy::capi::DeviceEntry>(Token(device), "device");
    if (!entry.ok()) return entry.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_info, SY_STRUCT_SIZE(sy_device_info_t, dl_device), "out_info",
            "sy_device_info_t");
        !s.ok()) {
      return s;
    }
    const sy::capi::DeviceEntry& e = **entry;
    sy_device_info_t full{};
    full.label = e.label.c_str();
    full.type = e.type.c_str();
    full.plugin = e.plugin.c_str();
    full.name = e.name.c_str();
    full.vendor = e.vendor.c_str();
    full.driver_version = e.driver_version.c_str();
    full.index = e.index;
    full.compute_units = e.compute_units;
    full.total_memory_bytes = e.total_memory_bytes;
    full.dl_device = e.dl_device;
    full.float_flags = e.float_flags;
    sy::capi::WriteOutStruct(out_info, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_device_synchronize(sy_device_handle_t device) {
  return Guard("sy_device_synchronize", [&]() -> absl::Status {
    auto live = sy::capi::FindLive(device);
    if (!live.ok()) return live.status();
    return live->device->Synchronize();
  });
}

SY_API sy_status_code_t sy_device_allocator_stats(sy_device_handle_t device,
                                                  sy_allocator_stats_t* out_stats) {
  return Guard("sy_device_allocator_stats", [&]() -> absl::Status {
    auto live = sy::capi::FindLive(device);
    if (!live.ok()) return live.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_stats, SY_STRUCT_SIZE(sy_allocator_stats_t, device_frees),
            "out_stats", "sy_allocator_stats_t");
        !s.ok()) {
      return s;
    }
    const sy::core::AllocatorStats stats = live->device->allocator().stats();
    sy_allocator_stats_t full{};
    full.allocated_bytes = stats.allocated_bytes;
    full.reserved_bytes = stats.reserved_bytes;
    full.peak_allocated_bytes = stats.peak_allocated_bytes;
    full.num_allocations = stats.num_allocations;
    full.cache_hits = stats.cache_hits;
    full.device_allocations = stats.device_allocations;
    full.device_frees = stats.device_frees;
    sy::capi::WriteOutStruct(out_stats, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_device_empty_cache(sy_device_handle_t device) {
  return Guard("sy_device_empty_cache", [&]() -> absl::Status {
    auto live = sy::capi::FindLive(device);
    if (!live.ok()) return live.status();
    // The runtime's kept constants (causal masks) are cached memory too.
    live->entry->context->runtime->state().constants.DropDevice(*live->device);
    return live->device->allocator().EmptyCache();
  });
}

}  // extern "C"
