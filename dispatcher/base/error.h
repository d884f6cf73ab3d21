// sy_error_t, the ABI's error object, and its conversion to absl::Status.
#ifndef SWITCHYARD_DISPATCHER_BASE_ERROR_H_
#define SWITCHYARD_DISPATCHER_BASE_ERROR_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "switchyard/plugin.h"

// The definition behind the ABI's opaque type (global namespace, as the C
// header declares it).
struct sy_error_t {
  int32_t code;
  std::string message;
};

namespace sy::core {

// host->error_create: never returns null (a static out-of-memory error is
// returned if allocation fails; TakeError recognizes and never frees it).
sy_error_t* CreateError(int32_t code, const char* message);
void DestroyError(sy_error_t* error);

// An absl::Status → a new sy_error_t (nullptr for OK).
sy_error_t* ErrorFromStatus(const absl::Status& status);

// Takes ownership of `error` (may be null) and returns it as a Status whose
// message is "<where>: <plugin's message>". A plugin that returns a code
// outside the known range, or an error with code OK, gets INTERNAL and the
// message says so: the plugin broke the ABI, not the user. An error whose
// message is NULL or empty gets one that says so and names its code.
absl::Status TakeError(sy_error_t* error, absl::string_view where);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_ERROR_H_
