// Switchyard C++ — the log and traces (over switchyard/logging.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_LOGGING_HPP_
#define SWITCHYARD_LOGGING_HPP_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "switchyard/base.hpp"
#include "switchyard/logging.h"

namespace sy {

// "off", "error", "warning", "info", "debug" (see switchyard.h, Logging).
inline Status SetLogLevel(const std::string& level) {
  return Status::FromCode(sy_log_set_level(level.c_str()));
}
inline std::string LogLevel() { return sy_log_level(); }

// Receives each log line: level (sy_log_level_t) and the line. The same
// rules as sy_log_set_callback: quick, and no calls back into Switchyard.
using LogCallback = std::function<void(int level, std::string_view message)>;

namespace detail {
struct LogTarget {
  std::mutex mu;
  LogCallback callback;
};
inline LogTarget& TheLogTarget() {
  static LogTarget* target = new LogTarget;  // lives as long as the process
  return *target;
}
inline void ForwardLog(void* user_data, int32_t level, const char* message) {
  auto* target = static_cast<LogTarget*>(user_data);
  std::lock_guard<std::mutex> lock(target->mu);
  if (target->callback) target->callback(level, message);
}
}  // namespace detail

// Sends log lines to `callback`; an empty one restores stderr.
inline Status SetLogCallback(LogCallback callback) {
  detail::LogTarget& target = detail::TheLogTarget();
  if (!callback) {
    Status status = Status::FromCode(sy_log_set_callback(nullptr, nullptr));
    std::lock_guard<std::mutex> lock(target.mu);
    target.callback = nullptr;
    return status;
  }
  {
    std::lock_guard<std::mutex> lock(target.mu);
    target.callback = std::move(callback);
  }
  return Status::FromCode(sy_log_set_callback(&detail::ForwardLog, &target));
}

// Chrome trace-event file of every op call (switchyard.h, Tracing).
inline Status StartTrace(const std::string& path) {
  return Status::FromCode(sy_trace_start(path.c_str()));
}
inline Status StopTrace() { return Status::FromCode(sy_trace_stop()); }

}  // namespace sy

#endif  // SWITCHYARD_LOGGING_HPP_
