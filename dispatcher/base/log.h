// The core's log: one line per message on stderr, filtered by level.
// SWITCHYARD_LOG=off|error|warning|info|debug sets the level (default
// warning). Abseil 20220623 has no logging library, hence this small one.
#ifndef SWITCHYARD_DISPATCHER_BASE_LOG_H_
#define SWITCHYARD_DISPATCHER_BASE_LOG_H_

#include <atomic>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sy::core {

enum class LogLevel { kOff = -1, kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

// The current threshold; read from SWITCHYARD_LOG on first use.
LogLevel GetLogLevel();
void SetLogLevel(LogLevel level);

namespace internal {
// 1 at level debug, 0 below it, -1 until the level is read (GetLogLevel).
extern std::atomic<signed char> g_debug;
bool DebugLoggingSlow();  // reads the level first
}  // namespace internal

// True at level debug: the dispatcher then logs each call's resolution.
// One relaxed load and one predictable branch once the level is known.
inline bool DebugLogging() {
  const signed char debug = internal::g_debug.load(std::memory_order_relaxed);
  return debug == 0 ? false : debug > 0 || internal::DebugLoggingSlow();
}

// "off", "error", "warning", "info", "debug".
const char* LogLevelName(LogLevel level);

// The level a name stands for (case-insensitive; "none" = off, "warn" =
// warning, "trace" = debug). InvalidArgument listing the levels otherwise.
absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name);

// Writes "switchyard[<level>]: <message>" when `level` passes the threshold.
// Thread-safe; lines never interleave.
void Log(LogLevel level, absl::string_view message);

// Replaces stderr as the destination (tests capture warnings this way).
// Pass nullptr to restore stderr. Not to be called while other threads log.
using LogSink = std::function<void(LogLevel, absl::string_view)>;
void SetLogSink(LogSink sink);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_LOG_H_
