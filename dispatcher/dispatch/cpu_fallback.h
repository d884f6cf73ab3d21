// SWITCHYARD_CPU_FALLBACK=1: an op with no kernel on the inputs' device runs
// on cpu instead — inputs copied to cpu, outputs copied back. Off by default
// because the copies can cost far more than the op; never silent: each
// fallback is logged at info level.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_CPU_FALLBACK_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_CPU_FALLBACK_H_

#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/bind.h"

namespace sy::core {

class Dispatcher;

// Runs a bound call on cpu:0 and returns its outputs on the call's device.
// Unimplemented when cpu cannot run the op either.
absl::StatusOr<std::vector<Tensor>> RunOnCpu(Dispatcher& dispatcher,
                                             const BoundCall& bound);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_CPU_FALLBACK_H_
