// Tracing (issue 13): a Chrome trace-event file of every op call.
// PLACEHOLDER written by the C API's branch so that sy_trace_start/stop link;
// the core's tracing replaces this file (and trace.cc) with the real thing.
#ifndef SWITCHYARD_DISPATCHER_TRACE_TRACE_H_
#define SWITCHYARD_DISPATCHER_TRACE_TRACE_H_

#include <string>

#include "absl/status/status.h"

namespace sy::core::trace {

// Starts recording into `path` (written at Stop).
absl::Status Start(const std::string& path);

// Stops recording and writes the file.
absl::Status Stop();

}  // namespace sy::core::trace

#endif  // SWITCHYARD_DISPATCHER_TRACE_TRACE_H_
