// sy::core::Dispatcher — op calls and tensors over one runtime's registries:
// the C++ surface that decompositions, view functions and the cpu fallback
// call back into, and the half of sy::core::Runtime (runtime/runtime.h) that
// runs things. A call is bind (bind.h) → resolve (resolve.h) → run (run.h);
// a graph capture intercepts between resolve and run (capture.h).
//
//   sy::core::OpHandle add = dispatcher.FindOp("add").value();   // once
//   std::vector<sy::core::Tensor> out = dispatcher.Call(add, {a, b}).value();
//
// Thread-safety: every method may be called from any thread concurrently,
// including while plugins load and kernels are pinned or tuned.
// Errors: absl::Status with a message that says what was wrong, where (op,
// argument, device, plugin) and what to do. A failed call changes nothing.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_DISPATCHER_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_DISPATCHER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/resolve.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/memory/tensor.h"
#include "dispatcher/registry/runtime_state.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {

class OpDef;

// A found op. Cheap to copy; valid for the runtime's life. If the plugin
// that defined the op is unloaded, calls through it fail cleanly.
class OpHandle {
 public:
  OpHandle() = default;
  explicit OpHandle(OpDef* def) : def_(def) {}
  OpDef* def() const { return def_; }
  bool valid() const { return def_ != nullptr; }

 private:
  OpDef* def_ = nullptr;
};

// Everything one call takes, for Execute: the general form of Call and
// CallOut, and what the C API calls on its fast path.
struct CallArgs {
  // One entry per tensor argument of the schema (nullptr for an omitted
  // optional one), except that a Tensor[] argument takes list_sizes[0]
  // consecutive entries. Borrowed for the call.
  absl::Span<const Tensor* const> inputs;
  // The leading non-tensor arguments in schema order; the rest take their
  // defaults, and so does an entry of kind kAttrDefault.
  absl::Span<const sy_attr_t> attrs;
  absl::Span<const int32_t> list_sizes;
  // CallOut: the caller's outputs (exactly the op's dtypes, shapes and
  // device; no aliasing). Call: empty, and `produced` receives new ones.
  absl::Span<const Tensor* const> outputs;
  TensorList* produced = nullptr;
  RouteRequest route;
};

class Dispatcher {
 public:
  explicit Dispatcher(RuntimeState& state) : state_(&state) {}
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // ---- Ops -----------------------------------------------------------------
  // By full name ("add.Tensor") or base name ("add" → its first overload).
  // NotFound suggests similarly named ops.
  absl::StatusOr<OpHandle> FindOp(absl::string_view name) const;

  // Binds, resolves and runs one call (or hands it to the thread's graph
  // capture). Allocates nothing but `produced` outputs and what a view,
  // decomposition or fallback makes. Inline: untraced and not logged at
  // debug level, a call costs these two loads and one branch here.
  absl::Status Execute(OpHandle op, const CallArgs& args) {
    if (!trace::Enabled() && !DebugLogging()) return ExecuteUntraced(op, args, nullptr);
    return ExecuteObserved(op, args);
  }

  // Calls an op; outputs are allocated on the inputs' device. `inputs` as
  // CallArgs::inputs, with an undefined Tensor for an omitted optional one.
  // The work is queued on that device's stream; read results with ToHost.
  absl::StatusOr<std::vector<Tensor>> Call(
      OpHandle op, absl::Span<const Tensor> inputs,
      absl::Span<const Attr> attrs = {},
      absl::Span<const int32_t> list_sizes = {});

  // The same into caller-provided outputs, which must have exactly the
  // dtype, shape and device the op produces, must not share storage with an
  // input and must not overlap themselves. Allocates nothing.
  absl::Status CallOut(OpHandle op, absl::Span<const Tensor> inputs,
                       absl::Span<const Attr> attrs,
                       absl::Span<const Tensor> outputs,
                       absl::Span<const int32_t> list_sizes = {});

  // Runs the op's decomposition even when a kernel would be chosen: to check
  // a decomposition against the reference kernels, or a backend's
  // primitives against its own composite kernels. FailedPrecondition when
  // the op has no decomposition or it does not apply to these inputs.
  absl::StatusOr<std::vector<Tensor>> CallDecomposed(
      OpHandle op, absl::Span<const Tensor> inputs,
      absl::Span<const Attr> attrs = {},
      absl::Span<const int32_t> list_sizes = {});

  // How a call with these inputs would run, without running it:
  // "kernel cpu::add.Tensor.f32.f32 (priority)", "view", "decomposition",
  // "cpu fallback", each with "; declined: …" when kernels declined it — or
  // the error the call would return. Resolve decides both, so this is what
  // a call runs.
  absl::StatusOr<std::string> Explain(OpHandle op,
                                      absl::Span<const Tensor> inputs,
                                      absl::Span<const Attr> attrs = {},
                                      absl::Span<const int32_t> list_sizes = {},
                                      const RouteRequest& route = {});
  // Explain over CallArgs (outputs and produced are ignored).
  absl::StatusOr<Resolution> ResolveCall(OpHandle op, const CallArgs& args);

  // ---- Devices and tensors -------------------------------------------------
  // "cpu", "cpu:0", "cuda:1". NotFound lists the devices there are and,
  // for a device type whose plugin loaded without devices, its reason.
  absl::StatusOr<Device*> GetDevice(absl::string_view spec) const;
  std::vector<Device*> Devices() const;

  absl::StatusOr<Tensor> Empty(Device& device, sy_dtype_t dtype,
                               absl::Span<const int64_t> shape);
  // Copies `bytes` (= numel × dtype size) from host memory into a new
  // tensor; `data` may be reused as soon as this returns.
  absl::StatusOr<Tensor> FromHost(Device& device, sy_dtype_t dtype,
                                  absl::Span<const int64_t> shape,
                                  const void* data, size_t bytes);
  // Waits for the tensor's pending work and copies it, densely in row-major
  // order, into `dst` (`bytes` must equal tensor.nbytes()).
  absl::Status ToHost(const Tensor& tensor, void* dst, size_t bytes);
  // A copy of `tensor` on `device` (the same tensor if already there).
  absl::StatusOr<Tensor> To(const Tensor& tensor, Device& device);
  absl::Status Synchronize(Device& device);

  RuntimeState& state() { return *state_; }
  const RuntimeState& state() const { return *state_; }

 private:
  // What a traced call leaves for its trace event (trace/trace.h).
  struct TracedCall {
    bool described = false;
    trace::CallEvent event;
  };
  absl::Status ExecuteUntraced(OpHandle op, const CallArgs& args,
                               TracedCall* traced);
  // Execute for a call that is traced or logged: with its event or line.
  absl::Status ExecuteObserved(OpHandle op, const CallArgs& args);

  RuntimeState* state_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_DISPATCHER_H_
