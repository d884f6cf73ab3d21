#include "absl/strings/string_view.h"
#include "dispatcher/base/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/env.h"

namespace sy::core {
namespace {

constexpr int kUnset = -2;
std::atomic<int> g_level{kUnset};

std::mutex& SinkMutex() {
  static std::mutex mu;
  return mu;
}
LogSink& Sink() {
  static LogSink sink;
  return sink;
}


LogLevel LevelFromEnvironment() {
  std::optional<std::string> value = GetEnv("SWITCHYARD_LOG");
  if (!value) return LogLevel::kWarning;
  absl::StatusOr<LogLevel> level = ParseLogLevel(*value);
  return level.ok() ? *level : LogLevel::kWarning;
}

}  // namespace

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
    default: return "off";
  }
}

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name) {
  const std::string v = absl::AsciiStrToLower(name);
  if (v == "off" || v == "none") return LogLevel::kOff;
  if (v == "error") return LogLevel::kError;
  if (v == "warning" || v == "warn") return LogLevel::kWarning;
  if (v == "info") return LogLevel::kInfo;
  if (v == "debug" || v == "trace") return LogLevel::kDebug;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown log level '", name, "'; the levels are off, error, warning, "
      "info, debug"));
}

namespace internal {
// Mirrors g_level >= debug, so that the call path reads one byte.
std::atomic<signed char> g_debug{-1};

bool DebugLoggingSlow() { return GetLogLevel() == LogLevel::kDebug; }
}  // namespace internal

LogLevel GetLogLevel() {
  int level = g_level.load(std::memory_order_relaxed);
  if (level == kUnset) {
    level = static_cast<int>(LevelFromEnvironment());
    g_level.store(level, std::memory_order_relaxed);
    internal::g_debug.store(level >= static_cast<int>(LogLevel::kDebug) ? 1 : 0,
                            std::memory_order_relaxed);
  }
  return static_cast<LogLevel>(level);
}

void SetLogLevel(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
  internal::g_debug.store(level == LogLevel::kDebug ? 1 : 0, std::memory_order_relaxed);
}

void Log(LogLevel level, absl::string_view message) {
  if (level == LogLevel::kOff || static_cast<int>(level) >
                                     static_cast<int>(GetLogLevel())) {
    return;
  }
  std::lock_guard<std::mutex> lock(SinkMutex());
  if (Sink()) {
    Sink()(level, message);
    return;
  }
  std::fprintf(stderr, "switchyard[%s]: %.*s\n", LogLevelName(level),
               static_cast<int>(message.size()), message.data());
}

void SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  Sink() = std::move(sink);
}

}  // namespace sy::core
