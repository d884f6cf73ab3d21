// Device types (one per providing plugin, e.g. "cpu", "cuda") and devices
// (one per index), each with its default stream and caching allocator. All
// plugin device calls go through here and come back as absl::Status whose
// message names the device and the plugin.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_DEVICE_H_
#define SWITCHYARD_DISPATCHER_MEMORY_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "dispatcher/memory/caching_allocator.h"
#include "switchyard/plugin.h"

namespace sy::core {

// The alignment of every device allocation: what GPU allocators give, and
// what plugin.h promises kernel workspaces.
inline constexpr size_t kDeviceAlignment = 256;

class DeviceType;
class PluginInstance;

struct DeviceProperties {
  std::string name;
  std::string vendor;
  std::string driver_version;
  uint64_t total_memory_bytes = 0;
  int32_t compute_units = 0;
  uint32_t float_flags = 0;  // SY_FLOAT_FLUSHES_*
};

class Device {
 public:
  Device(DeviceType& type, int32_t index, DeviceProperties properties,
         sy_stream_t stream);
  ~Device();  // empties the cache, destroys the stream
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  DeviceType& type() const { return type_; }
  int32_t index() const { return index_; }
  const std::string& label() const { return label_; }  // "cpu:0"
  const DeviceProperties& properties() const { return properties_; }
  sy_stream_t stream() const { return stream_; }
  sy_device_t dl_device() const { return dl_device_; }
  CachingAllocator& allocator() { return allocator_; }
  const CachingAllocator& allocator() const { return allocator_; }

  // Each wraps the plugin slot of the same name; errors name this device.
  absl::Status Synchronize();
  absl::Status CopyAsync(void* dst, const void* src, size_t size,
                         sy_copy_kind_t kind);
  absl::Status MemsetAsync(void* dst, int byte_value, size_t size);

 private:
  DeviceType& type_;
  int32_t index_;
  std::string label_;
  DeviceProperties properties_;
  sy_stream_t stream_;
  sy_device_t dl_device_;
  CachingAllocator allocator_;
};

class DeviceType {
 public:
  // `api` is copied; only the fields its struct_size covers are read.
  DeviceType(uint16_t id, const sy_device_api_t& api, PluginInstance* plugin);
  ~DeviceType();

  uint16_t id() const { return id_; }
  const std::string& name() const { return name_; }
  PluginInstance* plugin() const { return plugin_; }
  const sy_device_api_t& api() const { return api_; }
  const std::vector<std::unique_ptr<Device>>& devices() const {
    return devices_;
  }
  Device* device(int32_t index) const;

  // Enumerates devices and creates their streams. A type with zero devices
  // is valid (a CUDA plugin on a machine without a GPU).
  absl::Status Initialize();

  // Builds "<what> on device type '<name>' (plugin '<p>')" context and
  // converts a plugin error.
  absl::Status Check(sy_error_t* error, absl::string_view what) const;

 private:
  uint16_t id_;
  std::string name_;
  sy_device_api_t api_;
  PluginInstance* plugin_;
  std::vector<std::unique_ptr<Device>> devices_;
};

// Checks that a plugin's device table is complete before it is accepted:
// struct_size covers 1.0, every slot non-null, the type name an identifier.
absl::Status ValidateDeviceApi(const sy_device_api_t* api);

// Every registered device type. Addresses are stable. Thread-safe.
class DeviceManager {
 public:
  // The id of a device type name, assigned on first mention. Kernels may
  // be registered for a type before (or without) any plugin providing it;
  // they become reachable once a provider registers the type.
  uint16_t TypeId(absl::string_view name);

  // Adds a type; AlreadyExists (naming the owner) if the name is taken.
  absl::StatusOr<DeviceType*> Add(const sy_device_api_t& api,
                                  PluginInstance* plugin);
  // Removes (and destroys) the types `plugin` provided.
  void RemoveOwnedBy(const PluginInstance* plugin);

  DeviceType* FindType(absl::string_view name) const;
  // "cpu", "cpu:0", "cuda:1"; null when unknown.
  Device* FindDevice(absl::string_view spec) const;
  std::vector<DeviceType*> Types() const;

 private:
  mutable std::mutex mu_;
  uint16_t TypeIdLocked(absl::string_view name);

  std::vector<std::unique_ptr<DeviceType>> types_;
  absl::flat_hash_map<std::string, uint16_t> ids_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_MEMORY_DEVICE_H_
