// Tracing: a Chrome trace-event file (JSON; Perfetto and chrome://tracing
// open it) of every op call, plugin load and allocation of the process.
//
// Note [Tracing]: SWITCHYARD_TRACE=file.json starts a trace when the first
// runtime is created and writes it at exit; Start/Stop (the C API's
// sy_trace_start/sy_trace_stop) do the same for a part of a program. While
// off, each recording site costs one predictable branch on Enabled(). While
// on, events go to one process-wide buffer under a mutex (tracing measures,
// it does not need to be free). Tracks (docs/tracing.md):
//   - "calls <thread>": one complete event per op call, on the thread that
//     made it, nested as decompositions call ops; args name the op, the
//     route and kernel, its plugin, the device, dtypes and shapes, and the
//     device time;
//   - "device <label>": for asynchronous devices, the kernel's time as the
//     device measured it between two events recorded around it (placed at
//     the host time of the call: the two clocks are not correlated);
//   - "plugins": one event per plugin load with its outcome;
//   - "memory <label>": the bytes each device's allocator hands out, as a
//     counter, with an instant event per device allocation.
// Device times resolve lazily: pending spans are resolved (waiting for their
// end events) when 256 are pending, before a plugin unloads, and at Stop.
#ifndef SWITCHYARD_DISPATCHER_TRACE_TRACE_H_
#define SWITCHYARD_DISPATCHER_TRACE_TRACE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace sy::core::trace {

namespace internal {
extern std::atomic<bool> g_enabled;
}  // namespace internal

// Whether a trace is being recorded: the one branch of every site.
inline bool Enabled() {
  return internal::g_enabled.load(std::memory_order_relaxed);
}

// Nanoseconds on the trace's clock (steady_clock).
int64_t NowNs();

// Starts recording into `path` (written at Stop). FailedPrecondition when a
// trace is already being recorded; InvalidArgument for an empty path; the
// file is created (and checked writable) at once. Thread-safe.
absl::Status Start(const std::string& path);

// Stops recording, resolves pending device times and writes the file.
// FailedPrecondition when no trace is being recorded. Thread-safe.
absl::Status Stop();

// SWITCHYARD_TRACE: starts a trace into that file (once per process) and
// writes it at exit. Called when a runtime is created.
void StartFromEnvironment();

// ---- Recording (each a no-op when not Enabled) ----------------------------

// A kernel's time on an asynchronous device, resolved later: returns its
// milliseconds, or a negative number when it could not be measured, and
// releases what it holds. Called once, from Flush or Stop.
using DeviceTime = std::function<float()>;

struct CallEvent {
  std::string op;        // "add.Tensor"
  std::string route;     // DescribeResolution's text
  std::string kernel;    // "cpu::add.Tensor.f32.f32", or ""
  std::string plugin;    // "cpu", or ""
  std::string device;    // "cpu:0"
  std::string dtypes;    // "f32, f32"
  std::string shapes;    // "[2, 3], [3]"
  std::string error;     // the call's error, or ""
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceTime device_time;  // empty on synchronous devices
};
void RecordCall(CallEvent event);

void RecordPluginLoad(const std::string& name, const std::string& outcome,
                      const std::string& reason, double load_ms);

// `in_use`: the device's allocated bytes after the change.
void RecordAllocation(absl::string_view device, uint64_t bytes,
                      uint64_t in_use, bool from_device);

// Resolves every pending device time (waits for their events). Call before
// anything a pending span refers to goes away (a plugin unload).
void Flush();

}  // namespace sy::core::trace

#endif  // SWITCHYARD_DISPATCHER_TRACE_TRACE_H_
