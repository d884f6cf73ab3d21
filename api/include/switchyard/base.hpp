// Switchyard C++ — sy::Status, sy::Result, versions and dtypes: what
// every class of the C++ layer builds on (over switchyard/base.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_BASE_HPP_
#define SWITCHYARD_BASE_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "switchyard/base.h"

namespace sy {

// ===== Errors ==============================================================

// A status code (common.h) and the message the library gave with it.
class Status {
 public:
  Status() = default;  // OK
  Status(sy_status_code_t code, std::string message)
      : code_(code), message_(std::move(message)) {}

  // The calling thread's last error after a C call returned `code`.
  static Status FromCode(sy_status_code_t code) {
    if (code == SY_STATUS_OK) return Status();
    return Status(code, sy_last_error_message());
  }

  bool ok() const { return code_ == SY_STATUS_OK; }
  sy_status_code_t code() const { return code_; }
  // "sy_op_call: add.Tensor: …": what went wrong, where, what to do.
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT".
  const char* code_name() const { return sy_status_code_name(code_); }
  // "INVALID_ARGUMENT: sy_op_call: …", or "OK".
  std::string ToString() const {
    return ok() ? std::string("OK") : std::string(code_name()) + ": " + message_;
  }

 private:
  sy_status_code_t code_ = SY_STATUS_OK;
  std::string message_;
};

namespace detail {
[[noreturn]] inline void Die(const Status& status) {
  std::fprintf(stderr, "switchyard: value() of an error: %s\n", status.ToString().c_str());
  std::abort();
}
}  // namespace detail

// A value, or the Status that says why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as StatusOr
  // `status` must not be OK.
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(SY_STATUS_INTERNAL, "Result made from an OK Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    if (!ok()) detail::Die(status_);
    return *value_;
  }
  const T& value() const& {
    if (!ok()) detail::Die(status_);
    return *value_;
  }
  T&& value() && {
    if (!ok()) detail::Die(status_);
    return std::move(*value_);
  }
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

  // Unchecked access: only after ok().
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// ===== Versions and logging ================================================

struct Versions {
  std::string library;            // "0.1.0"
  uint32_t api_major = 0, api_minor = 0;        // this C API (SY_API_VERSION_*)
  uint32_t plugin_abi_major = 0, plugin_abi_minor = 0;  // the plugin ABI hosted
};

inline Versions GetVersions() {
  Versions v;
  v.library = sy_library_version();
  sy_api_version(&v.api_major, &v.api_minor);
  sy_plugin_abi_version(&v.plugin_abi_major, &v.plugin_abi_minor);
  return v;
}

// ===== Data types ==========================================================

inline std::string DTypeName(sy_dtype_t dtype) { return sy_dtype_name(dtype); }
inline Result<sy_dtype_t> DTypeFromName(const std::string& name) {
  sy_dtype_t dtype = SY_DTYPE_NONE;
  if (sy_status_code_t code = sy_dtype_from_name(name.c_str(), &dtype); code != SY_STATUS_OK) {
    return Status::FromCode(code);
  }
  return dtype;
}
inline size_t DTypeSize(sy_dtype_t dtype) { return sy_dtype_size(dtype); }

// The sy_dtype_t of a C++ element type.
template <typename T>
constexpr sy_dtype_t DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return SY_DTYPE_F32;
  else if constexpr (std::is_same_v<T, double>) return SY_DTYPE_F64;
  else if constexpr (std::is_same_v<T, int32_t>) return SY_DTYPE_I32;
  else if constexpr (std::is_same_v<T, int64_t>) return SY_DTYPE_I64;
  else if constexpr (std::is_same_v<T, int8_t>) return SY_DTYPE_I8;
  else if constexpr (std::is_same_v<T, uint8_t>) return SY_DTYPE_U8;
  else if constexpr (std::is_same_v<T, bool>) return SY_DTYPE_BOOL;
  else static_assert(sizeof(T) == 0, "no Switchyard dtype for this type");
}

}  // namespace sy

#endif  // SWITCHYARD_BASE_HPP_
