// Switchyard C++ — sy::Device (over switchyard/device.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_DEVICE_HPP_
#define SWITCHYARD_DEVICE_HPP_

#include <cstdint>
#include <string>

#include "switchyard/base.hpp"
#include "switchyard/device.h"

namespace sy {

// ===== Devices =============================================================

struct DeviceInfo {
  std::string label, type, plugin, name, vendor, driver_version;
  int32_t index = 0;
  int32_t compute_units = 0;
  uint64_t total_memory_bytes = 0;
  sy_device_t dl_device{};
  uint32_t float_flags = 0;  // SY_FLOAT_FLUSHES_*: subnormals it may flush
};

class Device {
 public:
  Device() = default;
  explicit Device(sy_device_handle_t handle) : handle_(handle) {}
  sy_device_handle_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  bool operator==(const Device& other) const { return handle_ == other.handle_; }

  Result<DeviceInfo> info() const {
    sy_device_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_device_get_info(handle_, &c); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return DeviceInfo{c.label,  c.type,  c.plugin,        c.name,
                      c.vendor, c.driver_version, c.index, c.compute_units,
                      c.total_memory_bytes, c.dl_device, c.float_flags};
  }
  // "cpu:0"; "" when the handle is bad.
  std::string label() const {
    Result<DeviceInfo> i = info();
    return i.ok() ? i->label : std::string();
  }
  Status synchronize() const { return Status::FromCode(sy_device_synchronize(handle_)); }
  Result<sy_allocator_stats_t> allocator_stats() const {
    sy_allocator_stats_t stats{};
    stats.struct_size = sizeof stats;
    if (sy_status_code_t code = sy_device_allocator_stats(handle_, &stats);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return stats;
  }
  Status empty_cache() const { return Status::FromCode(sy_device_empty_cache(handle_)); }

 private:
  sy_device_handle_t handle_ = nullptr;
};

}  // namespace sy

#endif  // SWITCHYARD_DEVICE_HPP_
