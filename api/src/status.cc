#include "api/src/status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sy::capi {
namespace {

struct LastError {
  sy_status_code_t code = SY_STATUS_OK;
  std::string message;
  std::string text;  // KeepThreadText's slot
};

// Plain thread_local: destroyed at thread exit, which is when nobody can
// ask for it any more.
LastError& ThreadError() {
  thread_local LastError error;
  return error;
}

}  // namespace

sy_status_code_t Finish(const char* function, const absl::Status& status) {
  LastError& error = ThreadError();
  error.code = static_cast<sy_status_code_t>(status.code());
  if (status.ok()) {
    error.message.clear();
    return SY_STATUS_OK;
  }
  try {
    error.message = absl::StrCat(function, ": ", status.message());
  } catch (...) {
    // Out of memory while describing an error: keep the code, drop the text
    // (clear() never allocates).
    error.message.clear();
  }
  return error.code;
}

const char* KeepThreadText(std::string text) {
  LastError& error = ThreadError();
  error.text = std::move(text);
  return error.text.c_str();
}

absl::Status CheckNotNull(const void* pointer, const char* what) {
  if (pointer != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " is NULL"));
}

absl::Status CheckArray(const void* array, int64_t count, const char* what) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the number of ", what, " is ", count, "; it must be >= 0"));
  }
  if (count > 0 && array == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is NULL but its count is ", count));
  }
  return absl::OkStatus();
}

absl::Status CheckStructSize(size_t struct_size, size_t minimum,
                             const char* what, const char* type) {
  if (struct_size < minimum) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, "->struct_size is ", struct_size, "; set it to sizeof(", type,
        ") (", minimum, " in API 1.0) before the call"));
  }
  return absl::OkStatus();
}

}  // namespace sy::capi

extern "C" {

SY_API sy_status_code_t sy_last_error_code(void) {
  return sy::capi::ThreadError().code;
}

SY_API const char* sy_last_error_message(void) {
  return sy::capi::ThreadError().message.c_str();
}

}  // extern "C"
