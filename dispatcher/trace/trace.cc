// PLACEHOLDER (see trace.h): tracing is not built yet.
#include "dispatcher/trace/trace.h"

namespace sy::core::trace {

absl::Status Start(const std::string& path) {
  (void)path;
  return absl::UnimplementedError("tracing is not built yet");
}

absl::Status Stop() { return absl::UnimplementedError("tracing is not built yet"); }

}  // namespace sy::core::trace
