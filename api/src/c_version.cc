// Version queries, status code names and dtype helpers: the entry points
// that need no context.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/src/status.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/base/version.h"
#include "switchyard/plugin.hpp"

using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_api_version(uint32_t* out_major, uint32_t* out_minor) {
  return Guard("sy_api_version", [&] {
    if (out_major != nullptr) *out_major = SY_API_VERSION_MAJOR;
    if (out_minor != nullptr) *out_minor = SY_API_VERSION_MINOR;
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_plugin_abi_version(uint32_t* out_major,
                                              uint32_t* out_minor) {
  return Guard("sy_plugin_abi_version", [&] {
    if (out_major != nullptr) *out_major = SY_PLUGIN_ABI_MAJOR;
    if (out_minor != nullptr) *out_minor = SY_PLUGIN_ABI_MINOR;
    return absl::OkStatus();
  });
}

SY_API const char* sy_library_version(void) { return sy::core::kSwitchyardVersion; }

SY_API const char* sy_status_code_name(sy_status_code_t code) {
  // A C caller may pass any int; in C++ loading such an enum value is
  // undefined, so read its bytes as an integer first.
  int32_t value;
  static_assert(sizeof value == sizeof code);
  std::memcpy(&value, &code, sizeof value);
  if (value < SY_STATUS_OK || value > SY_STATUS_DATA_LOSS) return "UNKNOWN_CODE";
  // The names are string literals, so the view's data is NUL-terminated.
  return sy::plugin::StatusName(static_cast<sy_status_code_t>(value)).data();
}

SY_API const char* sy_dtype_name(sy_dtype_t dtype) {
  // DTypeName's views point at string literals, so .data() is NUL-ended.
  return sy::core::IsValidDType(dtype) ? sy::core::DTypeName(dtype).data() : "invalid";
}

SY_API sy_status_code_t sy_dtype_from_name(const char* name, sy_dtype_t* out_dtype) {
  return Guard("sy_dtype_from_name", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckNotNull(name, "name"); !s.ok()) return s;
    if (absl::Status s = sy::capi::CheckNotNull(out_dtype, "out_dtype"); !s.ok()) {
      return s;
    }
    std::optional<sy_dtype_t> dtype = sy::core::ParseDType(name);
    if (!dtype.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown dtype '", name, "'; use one of f32 f64 f16 bf16 i32 i64 i8 "
          "u8 bool (or float32, float64, float16, bfloat16, int32, int64, "
          "int8, uint8)"));
    }
    *out_dtype = *dtype;
    return absl::OkStatus();
  });
}

SY_API size_t sy_dtype_size(sy_dtype_t dtype) { return sy::core::DTypeSize(dtype); }

}  // extern "C"
