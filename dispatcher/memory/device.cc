#include "absl/strings/string_view.h"
#include "dispatcher/memory/device.h"

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/identifier.h"
#include "dispatcher/base/log.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {
namespace {

std::string PluginName(const PluginInstance* plugin) {
  return plugin != nullptr ? plugin->name() : std::string("<core>");
}

std::string CopyString(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

// ---- Device -----------------------------------------------------------------

Device::Device(DeviceType& type, int32_t index, DeviceProperties properties,
               sy_stream_t stream)
    : type_(type),
      index_(index),
      label_(absl::StrCat(type.name(), ":", index)),
      properties_(std::move(properties)),
      stream_(stream),
      dl_device_{type.api().dlpack_device_type, index},
      allocator_(
          label_,
          [this](size_t size) -> absl::StatusOr<void*> {
            void* ptr = nullptr;
            absl::Status status = type_.Check(
                type_.api().allocate(type_.api().device_data, index_, size,
                                     kDeviceAlignment, &ptr),
                absl::StrCat("allocate(", size, " bytes) on ", label_));
            if (!status.ok()) return status;
            if (ptr == nullptr) {
              return absl::InternalError(absl::StrCat(
                  "allocate on ", label_, " (plugin '",
                  PluginName(type_.plugin()),
                  "') returned success with a null pointer"));
            }
            return ptr;
          },
          [this](void* ptr) {
            return type_.Check(
                type_.api().deallocate(type_.api().device_data, index_, ptr),
                absl::StrCat("deallocate on ", label_));
          }) {}

Device::~Device() {
  // The allocator member empties its cache in its own destructor; the
  // stream goes after all queued work has finished.
  absl::Status status = Synchronize();
  if (status.ok()) {
    status = type_.Check(
        type_.api().stream_destroy(type_.api().device_data, stream_),
        absl::StrCat("stream_destroy on ", label_));
  }
  if (!status.ok()) Log(LogLevel::kWarning, status.message());
}

absl::Status Device::Synchronize() {
  return type_.Check(
      type_.api().stream_synchronize(type_.api().device_data, stream_),
      absl::StrCat("stream_synchronize on ", label_));
}

absl::Status Device::CopyAsync(void* dst, const void* src, size_t size,
                               sy_copy_kind_t kind) {
  if (size == 0) return absl::OkStatus();
  return type_.Check(
      type_.api().memcpy_async(type_.api().device_data, stream_, dst, src, size,
                               kind),
      absl::StrCat("memcpy_async of ", size, " bytes on ", label_));
}

absl::Status Device::MemsetAsync(void* dst, int byte_value, size_t size) {
  if (size == 0) return absl::OkStatus();
  return type_.Check(
      type_.api().memset_async(type_.api().device_data, stream_, dst,
                               byte_value, size),
      absl::StrCat("memset_async of ", size, " bytes on ", label_));
}

// ---- DeviceType -------------------------------------------------------------

absl::Status ValidateDeviceApi(const sy_device_api_t* api) {
  if (api == nullptr) {
    return absl::InvalidArgumentError(
        "register_device: the device table is null");
  }
  const size_t required = SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms);
  if (api->struct_size < required) {
    return absl::InvalidArgumentError(absl::StrCat(
        "register_device: struct_size is ", api->struct_size,
        " but ABI 1.0's sy_device_api_t needs ", required,
        " bytes; rebuild the plugin against the Switchyard SDK"));
  }
  std::string name = CopyString(api->device_type);
  if (!IsLowercaseIdentifier(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "register_device: device_type '", name,
        "' is not a lowercase identifier ([a-z_][a-z0-9_]*, at most 64)"));
  }
  struct Slot {
    const char* name;
    const void* fn;
  };
  const Slot slots[] = {
      {"device_count", reinterpret_cast<const void*>(api->device_count)},
      {"get_properties", reinterpret_cast<const void*>(api->get_properties)},
      {"allocate", reinterpret_cast<const void*>(api->allocate)},
      {"deallocate", reinterpret_cast<const void*>(api->deallocate)},
      {"stream_create", reinterpret_cast<const void*>(api->stream_create)},
      {"stream_destroy", reinterpret_cast<const void*>(api->stream_destroy)},
      {"stream_synchronize",
       reinterpret_cast<const void*>(api->stream_synchronize)},
      {"stream_wait_event",
       reinterpret_cast<const void*>(api->stream_wait_event)},
      {"memcpy_async", reinterpret_cast<const void*>(api->memcpy_async)},
      {"memset_async", reinterpret_cast<const void*>(api->memset_async)},
      {"event_create", reinterpret_cast<const void*>(api->event_create)},
      {"event_destroy", reinterpret_cast<const void*>(api->event_destroy)},
      {"event_record", reinterpret_cast<const void*>(api->event_record)},
      {"event_synchronize",
       reinterpret_cast<const void*>(api->event_synchronize)},
      {"event_elapsed_ms", reinterpret_cast<const void*>(api->event_elapsed_ms)},
  };
  for (const Slot& slot : slots) {
    if (slot.fn == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "register_device: device type '", name, "' leaves the required slot ",
          slot.name, " null; every device slot is required in ABI 1.0"));
    }
  }
  return absl::OkStatus();
}

DeviceType::DeviceType(uint16_t id, const sy_device_api_t& api,
                       PluginInstance* plugin)
    : id_(id), name_(CopyString(api.device_type)), plugin_(plugin) {
  std::memset(&api_, 0, sizeof(api_));
  std::memcpy(&api_, &api, std::min(sizeof(api_), api.struct_size));
  api_.struct_size = sizeof(api_);
}

DeviceType::~DeviceType() { devices_.clear(); }

Device* DeviceType::device(int32_t index) const {
  if (index < 0 || index >= static_cast<int32_t>(devices_.size())) {
    return nullptr;
  }
  return devices_[index].get();
}

absl::Status DeviceType::Check(sy_error_t* error, absl::string_view what) const {
  if (error == nullptr) return absl::OkStatus();
  return TakeError(error, absl::StrCat(what, " (device type '", name_,
                                       "', plugin '", PluginName(plugin_),
                                       "')"));
}

absl::Status DeviceType::Initialize() {
  int32_t count = 0;
  absl::Status status =
      Check(api_.device_count(api_.device_data, &count), "device_count");
  if (!status.ok()) return status;
  if (count < 0 || count > 4096) {
    return absl::InternalError(absl::StrCat(
        "device type '", name_, "' (plugin '", PluginName(plugin_),
        "') reported ", count, " devices; expected 0..4096"));
  }
  for (int32_t index = 0; index < count; ++index) {
    sy_device_properties_t props{};
    props.struct_size = sizeof(props);
    status = Check(api_.get_properties(api_.device_data, index, &props),
                   absl::StrCat("get_properties(", index, ")"));
    if (!status.ok()) return status;
    DeviceProperties copied;
    copied.name = CopyString(props.name);
    copied.vendor = CopyString(props.vendor);
    copied.driver_version = CopyString(props.driver_version);
    copied.total_memory_bytes = props.total_memory_bytes;
    copied.compute_units = props.compute_units;
    // Zero from a plugin older than 1.2 (props was zeroed): "keeps them".
    copied.float_flags = props.float_flags;
    sy_stream_t stream = nullptr;
    status = Check(api_.stream_create(api_.device_data, index, &stream),
                   absl::StrCat("stream_create(", index, ")"));
    if (!status.ok()) return status;
    devices_.push_back(
        std::make_unique<Device>(*this, index, std::move(copied), stream));
  }
  return absl::OkStatus();
}

// ---- DeviceManager ----------------------------------------------------------

absl::StatusOr<DeviceType*> DeviceManager::Add(const sy_device_api_t& api,
                                               PluginInstance* plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string name = CopyString(api.device_type);
  for (const auto& type : types_) {
    if (type->name() == name) {
      return absl::AlreadyExistsError(absl::StrCat(
          "device type '", name, "' is already provided by plugin '",
          PluginName(type->plugin()),
          "'; a device type has one provider (add kernels to it instead)"));
    }
  }
  auto type = std::make_unique<DeviceType>(TypeIdLocked(name), api, plugin);
  DeviceType* raw = type.get();
  types_.push_back(std::move(type));
  return raw;
}

uint16_t DeviceManager::TypeId(absl::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  return TypeIdLocked(name);
}

uint16_t DeviceManager::TypeIdLocked(absl::string_view name) {
  auto [it, inserted] =
      ids_.try_emplace(name, static_cast<uint16_t>(ids_.size() + 1));
  return it->second;
}

void DeviceManager::RemoveOwnedBy(const PluginInstance* plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(types_, [plugin](const std::unique_ptr<DeviceType>& type) {
    return type->plugin() == plugin;
  });
}

DeviceType* DeviceManager::FindType(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& type : types_) {
    if (type->name() == name) return type.get();
  }
  return nullptr;
}

Device* DeviceManager::FindDevice(absl::string_view spec) const {
  absl::string_view type_name = spec;
  int32_t index = 0;
  if (size_t colon = spec.find(':'); colon != absl::string_view::npos) {
    type_name = spec.substr(0, colon);
    if (!absl::SimpleAtoi(spec.substr(colon + 1), &index)) return nullptr;
  }
  DeviceType* type = FindType(type_name);
  return type != nullptr ? type->device(index) : nullptr;
}

std::vector<DeviceType*> DeviceManager::Types() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DeviceType*> types;
  for (const auto& type : types_) types.push_back(type.get());
  return types;
}

}  // namespace sy::core
