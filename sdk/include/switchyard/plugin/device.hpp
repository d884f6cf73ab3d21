// sy::plugin device helpers: the argument checks every device table's slots
// make (DeviceChecks) and the set of live handles that tells a live stream,
// event or allocation from a stale or foreign one (LiveHandles), with the
// same messages in every plugin: "<type> device: <slot>: <what>; <what to
// do>". Part of plugin.hpp (read its rules first).
//
//   constexpr sy::plugin::DeviceChecks kChecks{"cpu", &g_device_data};
//   struct Registry {
//     std::mutex mu;  // guards the sets below
//     sy::plugin::LiveHandles<Stream> streams{"cpu", "stream", "stream_create"};
//   };
//   …
//   SY_PLUGIN_RETURN_IF_ERROR(kChecks.Self(self, "stream_destroy"));
//   std::lock_guard<std::mutex> lock(State().mu);
//   SY_PLUGIN_RETURN_IF_ERROR(State().streams.Check(handle, "stream_destroy"));
#ifndef SWITCHYARD_PLUGIN_DEVICE_HPP_
#define SWITCHYARD_PLUGIN_DEVICE_HPP_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_set>

#include "switchyard/plugin.h"
#include "switchyard/plugin/errors.hpp"

namespace sy::plugin {

class DeviceChecks {
 public:
  // `device_type` names the type in messages ("cpu"); `device_data` is the
  // table's device_data, which the host hands back as `self`.
  constexpr DeviceChecks(std::string_view device_type, const void* device_data)
      : type_(device_type), data_(device_data) {}

  // "<type> device: <fn>: <what>" with `code`. Requires SetHost.
  sy_error_t* Error(sy_status_code_t code, std::string_view fn,
                    std::string_view what) const {
    return MakeError(code, StrCat(type_, " device: ", fn, ": ", what));
  }

  // `self` is this table's device_data (not another plugin's table).
  sy_error_t* Self(void* self, std::string_view fn) const {
    if (self == data_) return nullptr;
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat("`self` is not the ", type_, " device's device_data; "
                        "pass the device_data of the table the plugin "
                        "registered"));
  }

  // 0 <= device < count; with count 0, `why_none` says why there are none.
  sy_error_t* Index(int32_t device, int32_t count, std::string_view fn,
                    std::string_view why_none = {}) const {
    if (device >= 0 && device < count) return nullptr;
    if (count == 0) {
      return Error(SY_STATUS_OUT_OF_RANGE, fn,
                   StrCat("device index ", device, " is out of range: the ",
                          type_, " device type has no devices",
                          why_none.empty() ? "" : " (", why_none,
                          why_none.empty() ? "" : ")"));
    }
    if (count == 1) {
      return Error(SY_STATUS_OUT_OF_RANGE, fn,
                   StrCat("device index ", device, " is out of range; the ",
                          type_, " device type has 1 device (index 0)"));
    }
    return Error(SY_STATUS_OUT_OF_RANGE, fn,
                 StrCat("device index ", device, " is out of range; the ",
                        type_, " device type has ", count, " devices, 0 to ",
                        count - 1));
  }

  // An out-parameter is not NULL.
  sy_error_t* Out(const void* out, std::string_view fn,
                  std::string_view name) const {
    if (out != nullptr) return nullptr;
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat(name, " is NULL; pass the address of a variable to "
                              "receive the result"));
  }

  // A sy_copy_kind_t, and buffers present when size > 0.
  sy_error_t* Copy(int32_t kind, const void* dst, const void* src, size_t size,
                   std::string_view fn) const {
    if (kind < SY_COPY_HOST_TO_DEVICE || kind > SY_COPY_DEVICE_TO_DEVICE) {
      return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                   StrCat("kind ", kind, " is not a sy_copy_kind_t; pass "
                          "SY_COPY_HOST_TO_DEVICE, SY_COPY_DEVICE_TO_HOST or "
                          "SY_COPY_DEVICE_TO_DEVICE"));
    }
    return Buffer(dst, src, size, fn);
  }

  // dst (and src, when given) present when size > 0.
  sy_error_t* Buffer(const void* dst, const void* src, size_t size,
                     std::string_view fn, bool has_src = true) const {
    if (size == 0 || (dst != nullptr && (!has_src || src != nullptr))) {
      return nullptr;
    }
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat(dst == nullptr ? "dst" : "src", " is NULL with size ",
                        size, has_src ? "; pass valid buffers or size 0"
                                      : "; pass a valid buffer or size 0"));
  }

  // get_properties' out-struct covers at least its first field.
  sy_error_t* Properties(const sy_device_properties_t* out,
                         std::string_view fn) const {
    if (SY_STRUCT_HAS(out, sy_device_properties_t, name)) return nullptr;
    return Error(SY_STATUS_INVALID_ARGUMENT, fn,
                 StrCat("out_properties->struct_size is ", out->struct_size,
                        ", too small for any field; set it to "
                        "sizeof(sy_device_properties_t)"));
  }

 private:
  std::string_view type_;
  const void* data_;
};

// The live handles of one kind. Not synchronized itself: the plugin guards
// it (and usually its other sets) with one mutex of its own, held across
// a check and the use or removal that follows.
// "an" before a vowel, else "a": for messages.
constexpr std::string_view Article(std::string_view word) {
  return !word.empty() && std::string_view("aeiou").find(word[0]) !=
                              std::string_view::npos
             ? "an"
             : "a";
}

template <class T>
class LiveHandles {
 public:
  // `kind` ("stream") and `create_slot` ("stream_create") for messages.
  LiveHandles(std::string_view device_type, std::string_view kind,
              std::string_view create_slot)
      : type_(device_type), kind_(kind), create_(create_slot) {}

  void Insert(T* handle) { live_.insert(handle); }
  // False when `handle` was not live.
  bool Erase(T* handle) { return live_.erase(handle) != 0; }
  bool Contains(const void* handle) const {
    return live_.count(static_cast<T*>(const_cast<void*>(handle))) != 0;
  }
  size_t size() const { return live_.size(); }

  // NULL when `handle` is live, else INVALID_ARGUMENT "<type> device: <fn>:
  // <name> … is not a live <type> <kind> …". `name` defaults to the kind.
  sy_error_t* Check(const void* handle, std::string_view fn,
                    std::string_view name = {}) const {
    if (handle != nullptr && Contains(handle)) return nullptr;
    const std::string_view what = name.empty() ? kind_ : name;
    if (handle == nullptr) {
      return MakeError(SY_STATUS_INVALID_ARGUMENT,
                       StrCat(type_, " device: ", fn, ": ", what,
                              " is NULL; create one with ", create_));
    }
    return MakeError(SY_STATUS_INVALID_ARGUMENT,
                     StrCat(type_, " device: ", fn, ": ", what, " ", handle,
                            " is not a live ", type_, " ", kind_,
                            " (destroyed, or not created by the ", type_,
                            " device); use ", Article(kind_), " ", kind_,
                            " from ", create_));
  }

 private:
  std::string_view type_, kind_, create_;
  std::unordered_set<T*> live_;
};

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_DEVICE_HPP_
