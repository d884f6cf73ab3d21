// sy_log_* and sy_trace_*: the process-wide log (dispatcher/base/log.h) and
// trace (dispatcher/trace/trace.h), set from the C API.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/src/status.h"
#include "dispatcher/base/log.h"
#include "dispatcher/trace/trace.h"

namespace sy::capi {
namespace {

struct LevelName {
  const char* name;
  LogLevel level;
};
constexpr LevelName kLevels[] = {
    {"off", LogLevel::kOff},   {"error", LogLevel::kError}, {"warning", LogLevel::kWarning},
    {"info", LogLevel::kInfo}, {"debug", LogLevel::kDebug},
};

}  // namespace
}  // namespace sy::capi

using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_log_set_level(const char* level) {
  return Guard("sy_log_set_level", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckNotNull(level, "level"); !s.ok()) return s;
    const std::string wanted = absl::AsciiStrToLower(level);
    for (const sy::capi::LevelName& l : sy::capi::kLevels) {
      if (wanted == l.name) {
        sy::core::SetLogLevel(l.level);
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown log level '", level, "'; use one of off, error, warning, info, "
        "debug (from quiet to chatty)"));
  });
}

SY_API const char* sy_log_level(void) {
  const sy::core::LogLevel level = sy::core::GetLogLevel();
  for (const sy::capi::LevelName& l : sy::capi::kLevels) {
    if (l.level == level) return l.name;
  }
  return "warning";
}

SY_API sy_status_code_t sy_log_set_callback(sy_log_fn callback, void* user_data) {
  return Guard("sy_log_set_callback", [&]() -> absl::Status {
    if (callback == nullptr) {
      sy::core::SetLogSink(nullptr);
      return absl::OkStatus();
    }
    // sy_log_level_t and sy::core::LogLevel share their numbers (0 error …
    // 3 debug); the sink is called one line at a time, under the log's lock.
    sy::core::SetLogSink([callback, user_data](sy::core::LogLevel level,
                                               absl::string_view message) {
      const std::string line(message);  // NUL-terminated for C
      callback(user_data, static_cast<int32_t>(level), line.c_str());
    });
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_trace_start(const char* path) {
  return Guard("sy_trace_start", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckNotNull(path, "path"); !s.ok()) return s;
    return sy::core::trace::Start(path);
  });
}

SY_API sy_status_code_t sy_trace_stop(void) {
  return Guard("sy_trace_stop", [] { return sy::core::trace::Stop(); });
}

}  // extern "C"
