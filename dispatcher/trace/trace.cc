#include "dispatcher/trace/trace.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/env.h"
#include "dispatcher/base/log.h"
#include "nlohmann/json.hpp"

namespace sy::core::trace {
namespace internal {
std::atomic<bool> g_enabled{false};
}  // namespace internal

namespace {

using nlohmann::json;

constexpr size_t kMaxPendingDeviceTimes = 256;

// Everything a trace holds until it is written.
struct Recorder {
  std::mutex mu;
  std::string path;
  int64_t origin_ns = 0;
  std::vector<json> events;
  // Device times not yet resolved: (index of the call event, resolver).
  std::vector<std::pair<size_t, DeviceTime>> pending;
  // Stable small ids for threads and named tracks.
  absl::flat_hash_map<std::thread::id, int> threads;
  absl::flat_hash_map<std::string, int> tracks;
  int next_tid = 1;
};

Recorder& TheRecorder() {
  // Never destroyed: an exit-time Stop (SWITCHYARD_TRACE) may run after
  // other statics are gone.
  static Recorder* recorder = new Recorder;
  return *recorder;
}

double Micros(const Recorder& r, int64_t ns) {
  return static_cast<double>(ns - r.origin_ns) / 1000.0;
}

// A track's tid, announcing its name on first use. Caller holds r.mu.
int TrackLocked(Recorder& r, const std::string& name) {
  auto [it, added] = r.tracks.emplace(name, r.next_tid);
  if (added) {
    ++r.next_tid;
    r.events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", getpid()},
                        {"tid", it->second}, {"args", {{"name", name}}}});
  }
  return it->second;
}

int ThreadTrackLocked(Recorder& r) {
  const std::thread::id self = std::this_thread::get_id();
  auto it = r.threads.find(self);
  if (it != r.threads.end()) return it->second;
  std::ostringstream name;
  name << "calls " << self;
  const int tid = TrackLocked(r, name.str());
  r.threads.emplace(self, tid);
  return tid;
}

// Resolves pending device times into their call events and device tracks.
// Caller holds r.mu.
void FlushLocked(Recorder& r) {
  std::vector<std::pair<size_t, DeviceTime>> pending;
  pending.swap(r.pending);
  for (auto& [index, resolve] : pending) {
    const float ms = resolve();
    json& call = r.events[index];
    if (ms < 0) {
      call["args"]["device_ms"] = "unavailable";
      continue;
    }
    call["args"]["device_ms"] = ms;
    const std::string device = call["args"]["device"].get<std::string>();
    r.events.push_back({{"ph", "X"},
                        {"name", call["name"]},
                        {"cat", "device"},
                        {"pid", getpid()},
                        {"tid", TrackLocked(r, absl::StrCat("device ", device))},
                        {"ts", call["ts"]},
                        {"dur", static_cast<double>(ms) * 1000.0},
                        {"args", {{"kernel", call["args"]["kernel"]}}}});
  }
}

absl::Status WriteLocked(Recorder& r) {
  FlushLocked(r);
  json doc = {{"traceEvents", std::move(r.events)}, {"displayTimeUnit", "ns"}};
  r.events.clear();
  r.threads.clear();
  r.tracks.clear();
  r.next_tid = 1;
  std::ofstream out(r.path, std::ios::trunc);
  out << doc.dump(1) << "\n";
  if (!out) {
    return absl::UnavailableError(absl::StrCat(
        "trace: could not write ", r.path, "; check the folder exists and is "
        "writable"));
  }
  return absl::OkStatus();
}

void StopAtExit() {
  if (!Enabled()) return;
  absl::Status status = Stop();
  if (!status.ok()) std::fprintf(stderr, "switchyard: %s\n", status.ToString().c_str());
}

}  // namespace

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

absl::Status Start(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "trace: the file path is empty; name a .json file to write");
  }
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (Enabled()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "trace: a trace into ", r.path, " is already being recorded; stop it "
        "first"));
  }
  {
    std::ofstream probe(path, std::ios::trunc);
    if (!probe) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trace: cannot create ", path, "; check the folder exists and is "
          "writable"));
    }
  }
  r.path = path;
  r.origin_ns = NowNs();
  r.events.clear();
  r.pending.clear();
  r.events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", getpid()},
                      {"args", {{"name", "switchyard"}}}});
  internal::g_enabled.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status Stop() {
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!Enabled()) {
    return absl::FailedPreconditionError(
        "trace: no trace is being recorded; start one first");
  }
  internal::g_enabled.store(false, std::memory_order_release);
  return WriteLocked(r);
}

void StartFromEnvironment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::optional<std::string> path = GetEnv("SWITCHYARD_TRACE");
    if (!path || path->empty()) return;
    absl::Status status = Start(*path);
    if (!status.ok()) {
      Log(LogLevel::kWarning,
          absl::StrCat("SWITCHYARD_TRACE is ignored: ", status.message()));
      return;
    }
    std::atexit(StopAtExit);
  });
}

void RecordCall(CallEvent e) {
  if (!Enabled()) return;
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!Enabled()) return;  // stopped meanwhile
  json args = {{"route", e.route},   {"kernel", e.kernel}, {"plugin", e.plugin},
               {"device", e.device}, {"dtypes", e.dtypes}, {"shapes", e.shapes}};
  if (!e.error.empty()) args["error"] = e.error;
  r.events.push_back({{"ph", "X"},
                      {"name", e.op},
                      {"cat", "op"},
                      {"pid", getpid()},
                      {"tid", ThreadTrackLocked(r)},
                      {"ts", Micros(r, e.start_ns)},
                      {"dur", static_cast<double>(e.end_ns - e.start_ns) / 1000.0},
                      {"args", std::move(args)}});
  if (e.device_time) {
    r.pending.emplace_back(r.events.size() - 1, std::move(e.device_time));
    if (r.pending.size() >= kMaxPendingDeviceTimes) FlushLocked(r);
  }
}

void RecordPluginLoad(const std::string& name, const std::string& outcome,
                      const std::string& reason, double load_ms) {
  if (!Enabled()) return;
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!Enabled()) return;
  const int64_t end = NowNs();
  const double dur = load_ms * 1000.0;
  r.events.push_back({{"ph", "X"},
                      {"name", absl::StrCat("load ", name)},
                      {"cat", "plugin"},
                      {"pid", getpid()},
                      {"tid", TrackLocked(r, "plugins")},
                      {"ts", Micros(r, end) - dur},
                      {"dur", dur},
                      {"args", {{"outcome", outcome}, {"reason", reason}}}});
}

void RecordAllocation(absl::string_view device, uint64_t bytes,
                      uint64_t in_use, bool from_device) {
  if (!Enabled()) return;
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!Enabled()) return;
  const std::string track = absl::StrCat("memory ", device);
  const int tid = TrackLocked(r, track);
  const double ts = Micros(r, NowNs());
  r.events.push_back({{"ph", "C"},
                      {"name", track},
                      {"pid", getpid()},
                      {"tid", tid},
                      {"ts", ts},
                      {"args", {{"allocated bytes", in_use}}}});
  if (from_device) {
    r.events.push_back({{"ph", "i"},
                        {"name", "device allocation"},
                        {"s", "t"},
                        {"pid", getpid()},
                        {"tid", tid},
                        {"ts", ts},
                        {"args", {{"bytes", bytes}}}});
  }
}

void Flush() {
  Recorder& r = TheRecorder();
  std::lock_guard<std::mutex> lock(r.mu);
  FlushLocked(r);
}

}  // namespace sy::core::trace
