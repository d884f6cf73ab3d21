#include "absl/strings/string_view.h"
#include "dispatcher/base/error.h"

#include <new>

#include "absl/strings/str_cat.h"

namespace sy::core {
namespace {

// Returned when even the error cannot be allocated. Never freed.
sy_error_t g_out_of_memory{SY_STATUS_RESOURCE_EXHAUSTED,
                           "out of host memory while reporting an error"};

}  // namespace

sy_error_t* CreateError(int32_t code, const char* message) {
  sy_error_t* error = new (std::nothrow) sy_error_t;
  if (error == nullptr) return &g_out_of_memory;
  error->code = code;
  try {
    error->message = message != nullptr ? message : "";
  } catch (...) {
    delete error;
    return &g_out_of_memory;
  }
  return error;
}

void DestroyError(sy_error_t* error) {
  if (error != &g_out_of_memory) delete error;
}

sy_error_t* ErrorFromStatus(const absl::Status& status) {
  if (status.ok()) return nullptr;
  return CreateError(static_cast<int32_t>(status.code()),
                     std::string(status.message()).c_str());
}

absl::Status TakeError(sy_error_t* error, absl::string_view where) {
  if (error == nullptr) return absl::OkStatus();
  int32_t code = error->code;
  std::string message = std::move(error->message);
  DestroyError(error);
  if (message.empty()) {
    // error_create(code, NULL) or ""; the record must still say something.
    const bool known = code > SY_STATUS_OK && code <= SY_STATUS_DATA_LOSS;
    message = absl::StrCat(
        "the plugin reported ",
        known ? absl::StatusCodeToString(static_cast<absl::StatusCode>(code))
              : absl::StrCat("error code ", code),
        " with no message (NULL or empty); ask the plugin's author to say what "
        "went wrong");
  }
  if (code <= SY_STATUS_OK || code > SY_STATUS_DATA_LOSS) {
    return absl::InternalError(absl::StrCat(
        where, ": ", message, " (the plugin returned an error with invalid "
        "status code ", code, "; report this to the plugin's author)"));
  }
  return absl::Status(static_cast<absl::StatusCode>(code),
                      absl::StrCat(where, ": ", message));
}

}  // namespace sy::core
