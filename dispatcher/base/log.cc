#include "absl/strings/string_view.h"
#include "dispatcher/base/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "absl/strings/ascii.h"
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
  std::string v = absl::AsciiStrToLower(*value);
  if (v == "off" || v == "none") return LogLevel::kOff;
  if (v == "error") return LogLevel::kError;
  if (v == "info") return LogLevel::kInfo;
  if (v == "debug" || v == "trace") return LogLevel::kDebug;
  return LogLevel::kWarning;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
    default: return "off";
  }
}

}  // namespace

LogLevel GetLogLevel() {
  int level = g_level.load(std::memory_order_relaxed);
  if (level == kUnset) {
    level = static_cast<int>(LevelFromEnvironment());
    g_level.store(level, std::memory_order_relaxed);
  }
  return static_cast<LogLevel>(level);
}

void SetLogLevel(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
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
  std::fprintf(stderr, "switchyard[%s]: %.*s\n", LevelName(level),
               static_cast<int>(message.size()), message.data());
}

void SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  Sink() = std::move(sink);
}

}  // namespace sy::core
