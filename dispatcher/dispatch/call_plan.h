// Note [Call plans]: a program calls the same op on arguments of the same
// layout over and over — a training step, a model's forward pass, a Python
// loop — and for such a call bind and resolve (bind.h, resolve.h) give the
// same answer every time. A plan is that answer kept: the kernel and
// variant resolution chose, the attributes as binding filled them in, the
// outputs' dtypes, shapes and contiguous strides, the broadcast strides of
// the kernel's input views, and the kernel call itself (sy_kernel_call_t)
// but for its views, stream and workspace. The next call whose arguments have the same signature — the
// same devices, dtypes, shapes and strides of every given tensor, the same
// attribute values, list sizes and argument counts — runs the kernel
// straight from the plan: no schema walk, no shape function, no dispatch
// lookup, no bucket. The signature is compared word by word with the
// plan's and the comparison stops at the first difference. What only the
// call itself knows is still checked every time: its outputs (dtype, shape,
// device, contiguous strides — a strided output takes the whole path, which
// checks it for self-overlap — and no aliasing of an input) and its data
// pointers.
//
// A plan is valid while what it was made from is: the op's dispatch
// snapshot and, for a slot that reads bucket tables, the slot's bucket
// table are the very ones published when it was made (Note [Dispatch
// snapshots]: every pin, tuning verdict, decline recorded and plugin
// load or unload publishes new ones, and old ones are retired, never
// reused). A plan holds only calls that resolved to a kernel by the usual
// order; views, decompositions, the cpu fallback, requested routes, calls
// inside a graph capture, traced or debug-logged calls (they need their
// event), collectives and calls with string attributes always take the
// whole path. A kernel that declines a planned call sends it down the whole
// path, which handles the decline as before, so behaviour — results and
// error messages alike — does not depend on whether a plan was used.
//
// Plans live per thread (no lock, no sharing), in a small table
// direct-mapped by op serial (OpDef::serial, never reused), as the shape
// memo does (Note [Shape memo]).
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_CALL_PLAN_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_CALL_PLAN_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/resolve.h"

namespace sy::core {

// Runs `args` of `op` from this thread's plan for it, when one matches:
// the call's status then. nullopt when no plan matches or the kernel
// declined: the caller takes the whole path, which also makes the plan.
std::optional<absl::Status> RunPlanned(const OpDef& op, const CallArgs& args);

// Keeps a plan for calls like `args`, which bound to `bound` and resolved
// to `resolution` (about to run). Does nothing for a call a plan cannot
// hold (Note [Call plans]).
void RememberPlan(const CallArgs& args, const BoundCall& bound,
                  const Resolution& resolution);

// How many calls this thread has run from a plan (for tests).
uint64_t PlannedCallsOnThisThread();

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_CALL_PLAN_H_
