// Resolve, the second step of a call (bind → resolve → run): which route
// runs a bound call. The one place the resolution order lives; Explain and
// the call itself both go through it, so they cannot disagree.
//
// The order (docs/architecture.md): a view op is a view; a route the caller
// requested (a named kernel and variant, or the decomposition) is taken or
// refused; else the dispatch slot of the call's key: its bucket table
// (Note [Bucket tables]: a tuned verdict, or where earlier declines sent
// this bucket), else its first choice — pinned, tuned, then by priority —
// skipping kernels that decline (plugin.h); else the op's decomposition
// when it applies; else cpu with copies when the fallback is on; else an
// error that names the op, dtypes, device, who has the op and who declined.
//
// Thread-safety: thread-safe; reads dispatch snapshots without a lock.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_RESOLVE_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_RESOLVE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::core {

enum class Route : uint8_t { kView, kKernel, kDecomposition, kCpuFallback };

// A caller's override of the resolution order: the conformance kit and the
// autotuner run one named kernel and variant; tests and the harness run an
// op's decomposition where a kernel exists.
struct RouteRequest {
  enum class Kind : uint8_t { kDefault, kKernel, kDecomposition };
  Kind kind = Kind::kDefault;
  absl::string_view kernel;  // kKernel: "plugin::name" or "name"
  int32_t variant = -1;      // kKernel: a variant index, or -1

  static RouteRequest Kernel(absl::string_view name, int32_t variant = -1) {
    return {Kind::kKernel, name, variant};
  }
  static RouteRequest Decomposition() { return {Kind::kDecomposition, {}, -1}; }
};

struct Resolution {
  Route route = Route::kKernel;
  KernelChoice kernel;                 // for kKernel
  const DispatchSlot* slot = nullptr;  // the slot it came from, if any
  int choice_index = -1;               // its index in slot->choices
  bool requested = false;              // chosen by a RouteRequest
  bool tuned_bucket = false;           // chosen by a per-bucket verdict
  // Kernels that declined calls of this bucket, and why; "" when none.
  // Points into a bucket table, which lives as long as the runtime.
  absl::string_view declined;
};

absl::StatusOr<Resolution> Resolve(RuntimeState& state, const BoundCall& bound,
                                   const RouteRequest& request = {});

// Where a call goes after the kernel of `declined_at` declined it in a real
// call (not a query): the next candidate. Remembers the decline for the
// call's bucket. An error when the kernel was not allowed to decline (its
// plugin speaks ABI 1.0, or it was registered without
// SY_KERNEL_FLAG_MAY_DECLINE) or was requested by name.
absl::StatusOr<Resolution> ResolveAfterDecline(RuntimeState& state,
                                               const BoundCall& bound,
                                               const Resolution& declined_at,
                                               absl::string_view reason);

// Asks a kernel that may decline whether it takes `bound`
// (SY_KERNEL_CALL_QUERY): OK when it does, Aborted with the plugin's reason
// when it declines, another error when the plugin failed the query. Only
// for kernels registered with SY_KERNEL_FLAG_MAY_DECLINE (others are never
// queried). The autotuner leaves decliners out of a bucket's candidates
// with it.
absl::Status QueryKernel(const BoundCall& bound, const KernelChoice& choice);

// How a resolution runs, as `switchyard` and the C API's explain say it:
// "kernel cpu::add.Tensor.f32.f32 (priority)", "view", "decomposition",
// "cpu fallback", with "; declined: …" when kernels declined.
std::string DescribeResolution(const Resolution& resolution);

// The error for a call no route can run: what was asked, who has the op,
// who declined it and what to do.
absl::Status NoKernelError(RuntimeState& state, const BoundCall& bound,
                           absl::string_view declined);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_RESOLVE_H_
